"""Where things live: what ships with the package, and the data home that holds the full data sets.

Shipped (a checkout's top-level folders, or the same folders inside an installed wheel's ``ltn_sudoku/``):
``conf/`` (the Hydra configs), ``checkpoints/`` (the shipped models) and ``data/`` (the small public sets and real
samples that the tests and the embedded defaults read; ``data/README.md`` gives each file's source and licence).

The data home holds the full sets (Kaggle, MNIST, the tdoku and HoDoKu collections), laid out as
``ltn-sudoku data list`` shows and filled by ``ltn-sudoku data fetch NAME``: ``$LTN_SUDOKU_DATA``, else the user's
data folder (platformdirs). A development machine with a local copy of the sets points ``LTN_SUDOKU_DATA`` at it.
"""

from __future__ import annotations

import os
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
REPO_ROOT = PACKAGE_DIR.parent  # a checkout's root; for an installed wheel, site-packages (which has no scripts/)
DATA_HOME_VARIABLE = "LTN_SUDOKU_DATA"


def _shipped(name: str) -> Path:
    """A shipped folder: inside the package where a wheel puts it, else at the top of the checkout."""
    inside = PACKAGE_DIR / name
    return inside if inside.is_dir() else REPO_ROOT / name


CONF_DIR = _shipped("conf")
CHECKPOINTS_DIR = _shipped("checkpoints")
DATA_DIR = _shipped("data")


def data_home() -> Path:
    """The folder of the full data sets: ``$LTN_SUDOKU_DATA``, else the user's data folder for ltn-sudoku."""
    configured = os.environ.get(DATA_HOME_VARIABLE)
    if configured:
        return Path(configured).expanduser().resolve()
    import platformdirs  # pooch's own dependency; imported here so that importing paths stays free

    return Path(platformdirs.user_data_dir("ltn-sudoku", appauthor=False))


class DataNotFound(FileNotFoundError):
    """A file of a full data set is not in the data home; the message says how to fetch it."""


def data_file(relative: str) -> Path:
    """A data-home file (or folder), e.g. ``9x9/top1465.txt``: the data home's copy, else the copy shipped whole under
    data/ at the same relative path (the small public sets ship whole, so both are the same bytes); DataNotFound,
    saying how to fetch it, when neither exists."""
    home = data_home()
    for path in (home / relative, DATA_DIR / relative):
        if path.exists():
            return path
    raise DataNotFound(f"{relative} is not in the data home {home} (set by ${DATA_HOME_VARIABLE}): "
                       f"`ltn-sudoku data list` names the sets and `ltn-sudoku data fetch NAME` downloads one")


DATA_HOME_MARK = "<data home>"  # how a shipped file names the data home, whichever machine recorded it


def portable(value: str) -> str:
    """A path as a shipped file records it: this machine's data home written as ``<data home>``."""
    home = str(data_home())
    return DATA_HOME_MARK + value[len(home):] if value == home or value.startswith(home + os.sep) else value
