"""Where things live: the repository's data/ and checkpoints/, and the shared benchmark data beside the repo.

`LTN_SUDOKU_SHARED` overrides the shared data folder (default: ../shared/data relative to the repository root).
"""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
DATA_DIR = REPO_ROOT / "data"
CHECKPOINTS_DIR = REPO_ROOT / "checkpoints"
CONF_DIR = REPO_ROOT / "conf"
SHARED_DATA = Path(os.environ.get("LTN_SUDOKU_SHARED", REPO_ROOT.parent / "shared" / "data"))


def shared_file(relative: str) -> Path:
    """A file of the shared benchmark data; FileNotFoundError names the expected place when it is missing."""
    path = SHARED_DATA / relative
    if not path.exists():
        raise FileNotFoundError(f"{path} not found: benchmarks read ../shared/data beside the repository "
                                f"(or set LTN_SUDOKU_SHARED)")
    return path
