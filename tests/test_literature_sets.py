"""The literature's sets (issue 46 item 4): registered for `data fetch`, named by `data list`, read in their published
layouts (files written here in each documented layout, and the shipped RRN-recipe stand-in), and what evaluate.public
reads when a full set is not fetched."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch

from ltn_sudoku.datasets import registry
from ltn_sudoku.datasets.serve import LocalServer
from ltn_sudoku.io.literature import literature_layout, read_rrn, read_sudoku_extreme
from ltn_sudoku.io.records import FormatError
from ltn_sudoku.logic.board.evaluate import PUBLIC_SETS
from ltn_sudoku.logic.board.literature import LITERATURE_FILES, public_file, read_public, read_satnet
from ltn_sudoku.paths import DATA_DIR, DATA_HOME_VARIABLE, REPO_ROOT, DataNotFound
from tests.test_data_fetch import data_cli

PUZZLE = "530070000600195000098000060800060003400803001700020006060000280000419005000080079"
SOLUTION = "534678912672195348198342567859761423426853791713924856961537284287419635345286179"
STAND_IN = DATA_DIR / "literature" / "rrn_recipe_sample216.csv"


def test_registry_holds_the_three_sets_with_addresses_and_licences() -> None:
    picked = registry.select(["literature"])
    assert [s.name for s in picked.sets] == ["rrn-hard", "satnet-sudoku", "sudoku-extreme"]
    for s in picked.sets:
        assert s.licence and s.fetchable
        for f in s.files:
            assert f.tofu and f.check == "tofu" and f.size and f.size_approx and f.transfer_cap
            assert f.path.startswith("literature/")
    urls = {s.name: s.files[0].urls[0] for s in picked.sets}
    assert urls["rrn-hard"] == "https://www.dropbox.com/s/rp3hbjs91xiqdgc/sudoku-hard.zip?dl=1"
    assert urls["satnet-sudoku"] == "https://powei.tw/sudoku.zip"
    assert urls["sudoku-extreme"].startswith("https://huggingface.co/datasets/sapientinc/sudoku-extreme/")
    assert not registry.select(["satnet-sudoku"]).sets[0].in_all  # at most 2.6 GB: only when named
    assert {f.path for s in picked.sets for f in s.files} == set(LITERATURE_FILES.values())


def test_data_list_names_them(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LTN_SUDOKU_DATA", str(tmp_path))
    status, out, _ = data_cli(capsys, "list")
    assert status == 0
    for name in ("rrn-hard", "satnet-sudoku", "sudoku-extreme"):
        assert name in out


def _rrn_zip(path: Path, rows: dict[str, str]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for split, text in rows.items():
            archive.writestr(f"sudoku-hard/{split}.csv", text)
    return path


def test_rrn_reader_reads_the_published_zip_and_an_unpacked_csv(tmp_path: Path) -> None:
    row = f"{PUZZLE},{SOLUTION}\n"
    other = PUZZLE.replace("5", "0", 1) + "," + SOLUTION + "\n"
    archive = _rrn_zip(tmp_path / "sudoku-hard.zip", {"train": other * 3, "valid": other, "test": row * 2})
    assert literature_layout(archive) == "rrn"
    test = read_rrn(archive)  # the test split, not the largest member
    assert len(test) == 2 and "".join(map(str, test[0].values)) == PUZZLE
    assert len(read_rrn(archive, "train")) == 3
    unpacked = tmp_path / "test.csv"
    unpacked.write_text(row)
    assert literature_layout(unpacked) == "rrn" and len(read_public(unpacked)) == 1


@pytest.mark.parametrize("text, message", [
    (f"{PUZZLE}\n", "two fields"),
    (f"{PUZZLE},{SOLUTION[:-1]}\n", "81 digits"),
    (f"{PUZZLE},{SOLUTION[1:]}4\n", "givens"),
])
def test_rrn_reader_refuses_another_layout_in_one_located_error(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.csv"
    path.write_text(text)
    with pytest.raises(FormatError, match=message) as caught:
        read_rrn(path)
    assert caught.value.line == 1


def test_sudoku_extreme_reader(tmp_path: Path) -> None:
    path = tmp_path / "test.csv"
    dotted = PUZZLE.replace("0", ".")
    path.write_text(f"source,question,answer,rating\npuzzles4_forum_hardest_1905,{dotted},{SOLUTION},12\n")
    assert literature_layout(path) == "sudoku-extreme"
    boards = read_public(path)
    assert len(boards) == 1 and "".join(map(str, boards[0].values)) == PUZZLE
    path.write_text(f"source,puzzle,answer,rating\nx,{dotted},{SOLUTION},0\n")
    with pytest.raises(FormatError, match="header"):
        read_sudoku_extreme(path)


def _one_hot(text: str) -> torch.Tensor:
    digits = torch.tensor([int(c) for c in text]).reshape(9, 9)
    return torch.nn.functional.one_hot(digits, 10)[..., 1:].float()  # 0 (empty) -> all zeros, as SATNet's features


@pytest.mark.parametrize("legacy, dtype", [(False, torch.float32), (True, torch.uint8)])
def test_satnet_reader_reads_its_tensors(tmp_path: Path, legacy: bool, dtype: torch.dtype) -> None:
    """SATNet's files date from 2019: torch's pickle format before its zip format (legacy), any dtype."""
    path = tmp_path / "sudoku.zip"
    with zipfile.ZipFile(path, "w") as archive:
        for leaf, tensor in (("features.pt", torch.stack([_one_hot(PUZZLE)] * 2)),
                             ("labels.pt", torch.stack([_one_hot(SOLUTION)] * 2))):
            with archive.open(f"sudoku/{leaf}", "w") as member:
                torch.save(tensor.to(dtype), member, _use_new_zipfile_serialization=not legacy)
    assert literature_layout(path) == "satnet"
    boards = read_satnet(path)
    assert len(boards) == 2 and "".join(map(str, boards[1].values)) == PUZZLE
    broken = tmp_path / "broken.zip"
    with zipfile.ZipFile(broken, "w") as archive:
        with archive.open("sudoku/features.pt", "w") as member:
            torch.save(torch.stack([_one_hot(PUZZLE)]), member)
        with archive.open("sudoku/labels.pt", "w") as member:
            torch.save(torch.stack([_one_hot(SOLUTION[1:] + "4")]), member)
    with pytest.raises(FormatError, match="board 1"):
        read_satnet(broken)


def test_evaluate_reads_the_shipped_stand_in_under_its_own_name() -> None:
    """The data home of the tests is empty: rrn_hard falls back to the recipe-made sample, named rrn_recipe; the
    other two sets have no shipped sample and are skipped (DataNotFound)."""
    assert set(LITERATURE_FILES) <= set(PUBLIC_SETS)
    name, path = public_file("rrn_hard", PUBLIC_SETS)
    assert name == "rrn_recipe" and path == STAND_IN
    for missing in ("satnet", "sudoku_extreme"):
        with pytest.raises(DataNotFound):
            public_file(missing, PUBLIC_SETS)


def test_the_stand_in_follows_the_recipe_and_is_reproducible() -> None:
    boards = read_public(STAND_IN)
    givens = np.array([sum(v > 0 for v in b.values) for b in boards])
    assert len(boards) == 216 and sorted(set(givens.tolist())) == list(range(17, 35))
    assert (np.bincount(givens)[17:] == 12).all()
    run = subprocess.run([sys.executable, "scripts/make_rrn_recipe_sample.py", "--check"], cwd=REPO_ROOT,
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


@pytest.mark.parametrize("content, message", [
    (b"not a pickle", "not a torch tensor file"),
    ("tensor-of-wrong-shape", r"shape \(N, 9, 9, 9\)"),
])
def test_satnet_reader_refuses_other_members_in_one_line(tmp_path: Path, content: object, message: str) -> None:
    path = tmp_path / "sudoku.zip"
    with zipfile.ZipFile(path, "w") as archive:
        for leaf in ("features.pt", "labels.pt"):
            with archive.open(f"sudoku/{leaf}", "w") as member:
                if isinstance(content, bytes):
                    member.write(content)
                else:
                    torch.save(torch.zeros(2, 81), member)
    with pytest.raises(FormatError, match=message) as caught:
        read_satnet(path)
    assert "\n" not in str(caught.value)


def _satnet_zip(path: Path, count: int) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for leaf, text in (("features.pt", PUZZLE), ("labels.pt", SOLUTION)):
            with archive.open(f"sudoku/{leaf}", "w") as member:
                torch.save(torch.stack([_one_hot(text)] * count), member)
    return path


def test_fetched_sets_are_read_as_themselves(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """`data fetch literature` against a local server holding each set in its published layout: the files land
    where evaluate.public looks (trust on first use recorded), and evaluate reads each set under its own name."""
    served = tmp_path / "served"
    served.mkdir()
    files = {"rrn-hard": _rrn_zip(served / "sudoku-hard.zip", {"train": "", "valid": "",
                                                               "test": f"{PUZZLE},{SOLUTION}\n" * 3}),
             "satnet-sudoku": _satnet_zip(served / "sudoku.zip", 4),
             "sudoku-extreme": served / "test.csv"}
    files["sudoku-extreme"].write_text("source,question,answer,rating\n" +
                                       f"puzzles0_kaggle,{PUZZLE.replace('0', '.')},{SOLUTION},0\n" * 5)
    home = tmp_path / "home"
    monkeypatch.setenv(DATA_HOME_VARIABLE, str(home))
    with LocalServer({f"/{name}": path for name, path in files.items()}) as server:
        local = tuple(dataclasses.replace(s, files=tuple(dataclasses.replace(f, urls=(server.url(f"/{s.name}"),))
                                                         for f in s.files))
                      for s in registry.select(["literature"]).sets)
        monkeypatch.setattr(registry, "SETS", local)
        status, out, err = data_cli(capsys, "fetch", "literature")
    assert status == 0, err
    assert out.count("trust on first use") == 3
    counts = {"rrn_hard": 3, "satnet": 4, "sudoku_extreme": 5}
    for name, count in counts.items():
        read_as, path = public_file(name, PUBLIC_SETS)
        assert read_as == name and path == home / LITERATURE_FILES[name]
        boards = read_public(path)
        assert len(boards) == count and "".join(map(str, boards[0].values)) == PUZZLE
