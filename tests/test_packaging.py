"""The wheel holds what an installed package needs: every module, and the top-level conf/, checkpoints/ and data/ as
ltn_sudoku/conf, ltn_sudoku/checkpoints, ltn_sudoku/data (pyproject.toml's package-dir; ltn_sudoku/paths.py reads them
there). `--version` prints the version the wheel is built with. scripts/wheel_smoke.sh installs and uses the wheel.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest

from ltn_sudoku.cli import classify_board_main

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ("conf", "checkpoints", "data")  # top-level folders of the checkout, inside the package in the wheel
BUILD_FILES = ("pyproject.toml", "README.md", "LICENSE", "LICENSE-DATA.md", "MANIFEST.in", "constraints-cpu.txt")
NOT_SHIPPED = shutil.ignore_patterns("__pycache__", "*.py[co]", "*.nbi", "*.nbc")  # byte code, numba's caches


def _files(folder: Path) -> list[Path]:
    """The files of a folder of the checkout, relative to the checkout, without byte code and caches."""
    return sorted(p.relative_to(ROOT) for p in folder.rglob("*")
                  if p.is_file() and "__pycache__" not in p.parts and p.suffix not in (".pyc", ".pyo", ".nbi", ".nbc"))


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> zipfile.ZipFile:
    """The wheel, built without isolation from a copy of the checkout's sources (the checkout stays untouched: no
    build/ or egg-info written where other processes run)."""
    tmp = tmp_path_factory.mktemp("packaging")
    src = tmp / "src"
    src.mkdir()
    for name in BUILD_FILES:
        shutil.copy2(ROOT / name, src / name)
    for name in ("ltn_sudoku", *SHIPPED):
        shutil.copytree(ROOT / name, src / name, ignore=NOT_SHIPPED)
    done = subprocess.run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(tmp / "dist"),
                           str(src)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (path,) = (tmp / "dist").glob("*.whl")
    return zipfile.ZipFile(path)


def _missing(wheel: zipfile.ZipFile, expected: list[str]) -> list[str]:
    names = set(wheel.namelist())
    return [name for name in expected if name not in names]


def test_the_wheel_ships_every_module_of_the_package(wheel: zipfile.ZipFile) -> None:
    # a subpackage or a data file of ltn_sudoku/ missing here is missing from pyproject.toml's packages / package-data
    assert _missing(wheel, [p.as_posix() for p in _files(ROOT / "ltn_sudoku")]) == []


def test_the_wheel_ships_conf_checkpoints_and_data_inside_the_package(wheel: zipfile.ZipFile) -> None:
    configs = [p for p in _files(ROOT / "conf") if p.suffix == ".yaml"]
    checkpoints = [p for p in _files(ROOT / "checkpoints")
                   if p.suffix == ".pt" or p.name.endswith(".metrics.json")]
    data = _files(ROOT / "data")
    assert len(configs) > 20 and len(checkpoints) >= 12 and data  # the folders were read (README.md files included)
    assert _missing(wheel, [f"ltn_sudoku/{p.as_posix()}" for p in [*configs, *checkpoints, *data]]) == []
    # nothing lands outside the package (no top-level conf/ or data/ in site-packages)
    assert {name.split("/")[0] for name in wheel.namelist()} == {"ltn_sudoku", _dist_info(wheel)}


def _dist_info(wheel: zipfile.ZipFile) -> str:
    (folder,) = {name.split("/")[0] for name in wheel.namelist() if name.split("/")[0].endswith(".dist-info")}
    return folder


def test_the_metadata_renders_and_names_the_licence(wheel: zipfile.ZipFile) -> None:
    metadata = Parser().parsestr(wheel.read(f"{_dist_info(wheel)}/METADATA").decode())
    # the code's licence and those of the data files it ships (LICENSE-DATA.md: GPL-3.0 HoDoKu files, CC BY-SA MNIST)
    assert metadata["Name"] == "ltn-sudoku"
    assert metadata["License-Expression"] == "MIT AND GPL-3.0-or-later AND GPL-3.0-only AND CC-BY-SA-3.0"
    assert metadata["Description-Content-Type"] == "text/markdown"
    assert {f"{_dist_info(wheel)}/licenses/LICENSE", f"{_dist_info(wheel)}/licenses/LICENSE-DATA.md"} <= set(
        wheel.namelist())
    assert any(name.endswith("data/techniques/hodoku_reglib-1.3.txt") for name in wheel.namelist())
    assert any(name.endswith("data/mnist_sample/train-images-idx3-ubyte.gz") for name in wheel.namelist())


def test_version_prints_the_version_the_wheel_is_built_with(wheel: zipfile.ZipFile,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    version = Parser().parsestr(wheel.read(f"{_dist_info(wheel)}/METADATA").decode())["Version"]
    done = subprocess.run([sys.executable, "-m", "ltn_sudoku", "--version"], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert (done.returncode, done.stdout.strip()) == (0, f"ltn-sudoku {version}")
    assert classify_board_main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"classify-board {version}"


# A user's config folder beside the shipped conf/ (an installed package's conf/ is not theirs to edit): its options
# are composed and checked like the shipped ones before Hydra starts (ltn_sudoku/logic/commands/check.py).
USER_EXPERIMENT = """# @package _global_
defaults:
  - override /model: 4x4_mp
  - override /logic: product_mp
experiment:
  name: {name}
  warm_start: 4x4_mp
train:
  epochs: 1
"""


def _user_folder(tmp_path: Path, name: str) -> Path:
    folder = tmp_path / "myconf"
    (folder / "experiment").mkdir(parents=True, exist_ok=True)
    (folder / "experiment" / f"{name}.yaml").write_text(USER_EXPERIMENT.format(name=name))
    return folder


@pytest.mark.parametrize("form", ["--config-dir", "-cd", "--config-dir=", "hydra.searchpath"])
def test_a_user_experiment_from_its_own_config_folder_is_composed_and_checked(
        tmp_path: Path, form: str, capsys: pytest.CaptureFixture[str]) -> None:
    from ltn_sudoku.logic.commands.check import check_command_line
    from ltn_sudoku.logic.commands.experiments import experiment_names

    folder = _user_folder(tmp_path, "mine")
    where = {"--config-dir=": [f"--config-dir={folder}"],
             "hydra.searchpath": [f"hydra.searchpath=[file://{folder}]"]}.get(form, [form, str(folder)])
    check_command_line([*where, "+experiment=mine"], "train")  # known: no exit
    assert "mine" in experiment_names([folder]) and "mine" not in experiment_names()
    for words, message in ((["+experiment=mine", "train.epochs=0"], "train.epochs=0: expected an integer >= 1"),
                           (["+experiment=nope"], "Could not find 'experiment/nope'")):
        with pytest.raises(SystemExit) as exit_:
            check_command_line([*where, *words], "train")
        assert exit_.value.code == 2 and message in capsys.readouterr().err


def test_a_user_option_named_as_a_shipped_one_and_a_missing_folder_are_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from ltn_sudoku.logic.commands.check import check_command_line

    folder = _user_folder(tmp_path, "4x4_mp")
    for words, message in ((["--config-dir", str(folder), "+experiment=4x4_mp"], "the shipped one is used"),
                           (["--config-dir", str(tmp_path / "absent"), "model=4x4"], "no such folder"),
                           (["+experiment=mine"], "Could not find 'experiment/mine'")):
        with pytest.raises(SystemExit) as exit_:
            check_command_line(words, "train")
        assert exit_.value.code == 2 and message in capsys.readouterr().err
