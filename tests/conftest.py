"""Suite-wide options and settings.

- `pytest --device cuda` runs the device-parametrized tests (tests/test_device.py) on a GPU.
- The data home (`$LTN_SUDOKU_DATA`, ltn_sudoku/paths.py) is an empty temporary folder for the whole session, from
  before collection (parametrize arguments read files too) to the end, in subprocesses too: the tests read only the
  files shipped in data/ (`paths.DATA_DIR`, data/README.md) and the files they make, never a developer's full data
  sets, and a test that asks the data home for a set that is not shipped fails (DataNotFound) instead of passing on one
  machine only.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from ltn_sudoku.paths import DATA_DIR, DATA_HOME_VARIABLE

_EMPTY_DATA_HOME: dict[str, str | None] = {}  # the folder made, and the variable's value before the session

DEVICES: tuple[str, ...] = ("cpu", "cuda")


def pytest_configure(config: pytest.Config) -> None:
    """Point the data home at a new empty folder before anything is collected (each xdist worker makes its own)."""
    _EMPTY_DATA_HOME["previous"] = os.environ.get(DATA_HOME_VARIABLE)
    _EMPTY_DATA_HOME["folder"] = os.environ[DATA_HOME_VARIABLE] = tempfile.mkdtemp(prefix="ltn_sudoku_empty_data_home_")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The tests marked slow first (in their order), so that with `-n 2 --dist worksteal` (make test) the long ones
    start at once and the short ones fill the gaps, instead of one long case left to run alone at the end."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


def pytest_unconfigure(config: pytest.Config) -> None:
    folder, previous = _EMPTY_DATA_HOME.pop("folder", None), _EMPTY_DATA_HOME.pop("previous", None)
    if folder is None:
        return
    shutil.rmtree(folder, ignore_errors=True)
    if previous is None:
        os.environ.pop(DATA_HOME_VARIABLE, None)
    else:
        os.environ[DATA_HOME_VARIABLE] = previous


@pytest.fixture(scope="session", autouse=True)
def empty_data_home() -> str:
    """The session's data home, the empty folder made before collection: checked in place when the tests start."""
    folder = _EMPTY_DATA_HOME["folder"]
    assert folder is not None and os.environ.get(DATA_HOME_VARIABLE) == folder, "the test data home was changed"
    assert not os.listdir(folder), f"the test data home {folder} is not empty"
    return folder


# The full Kaggle copies the benchmarks read (by their data-home names), each stood in for by the shipped sample of the
# same set: 1,000 real rows (data/kaggle/README.md); the benchmarks' own figures need the full files.
KAGGLE_STAND_INS: dict[str, str] = {"kaggle/kaggle_1m_first24997.csv.gz": "kaggle/kaggle_1m_sample1000.csv.gz",
                                    "kaggle/kaggle_3m_first13211_noratings.csv.gz": "kaggle/kaggle_3m_sample1000.csv.gz"}


@pytest.fixture
def kaggle_data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A data home made for one test, in this process and the scripts it starts: the benchmarks' full Kaggle files
    are the shipped samples of their sets (KAGGLE_STAND_INS), so a benchmark runs end to end on real rows."""
    home = tmp_path / "data_home"
    for name, sample in KAGGLE_STAND_INS.items():
        (home / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(DATA_DIR / sample, home / name)
    monkeypatch.setenv(DATA_HOME_VARIABLE, str(home))
    return home


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--device", choices=DEVICES, default="cpu",
                     help="where the device tests run their models: cpu (default) or cuda (skipped, with the reason "
                          "shown, when no CUDA device is present)")


@pytest.fixture(scope="session")
def device(request: pytest.FixtureRequest) -> str:
    """The device the entry points run on in tests/test_device.py."""
    name = str(request.config.getoption("--device"))
    if name == "cuda":
        import torch

        if not torch.cuda.is_available():
            pytest.skip("--device cuda: no CUDA device is available on this machine")
    return name
