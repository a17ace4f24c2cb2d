"""The shipped data folder (data/, paths.DATA_DIR): every file described in data/README.md, small, and reproducible."""

from __future__ import annotations

import gzip
import os
import re
from pathlib import Path

import pytest

from ltn_sudoku.paths import DATA_DIR, DATA_HOME_VARIABLE, DataNotFound, data_file, data_home

FILES = sorted(p.relative_to(DATA_DIR).as_posix() for p in DATA_DIR.rglob("*") if p.is_file() and p.name != "README.md")


def test_every_file_has_its_row_in_the_readme_and_every_row_a_file() -> None:
    rows = re.findall(r"^\| `([^`]+)` \|", (DATA_DIR / "README.md").read_text(encoding="utf-8"), flags=re.MULTILINE)
    assert sorted(rows) == FILES


def test_the_folder_stays_small() -> None:
    assert sum((DATA_DIR / name).stat().st_size for name in FILES) < 10 * 2**20


@pytest.mark.parametrize("name", [name for name in FILES if name.endswith(".gz")])
def test_gzip_files_are_deterministic_and_read(name: str) -> None:
    """No file name, mtime 0 (scripts/make_data_samples.py writes the same bytes again), and a whole stream."""
    raw = (DATA_DIR / name).read_bytes()
    flags, mtime = raw[3], int.from_bytes(raw[4:8], "little")
    assert raw[:2] == b"\x1f\x8b" and not flags & 0x08 and mtime == 0
    assert gzip.decompress(raw)


def test_the_tests_data_home_is_empty_and_asking_it_for_a_full_set_fails() -> None:
    """tests/conftest.py: the data home is an empty folder, so a full set that is not shipped cannot be read."""
    assert data_home() == Path(os.environ[DATA_HOME_VARIABLE]).resolve() and not any(data_home().iterdir())
    with pytest.raises(DataNotFound, match="17clue_49158"):
        data_file("9x9/17clue_49158.txt")


def test_no_file_of_the_project_names_a_folder_beside_the_checkout() -> None:
    """The development machine's local copy of the full sets lives beside the checkout; a user's clone has none, so
    no file (code, config, docs, checkpoints' recorded configs) may name it: full sets come from the data home."""
    from ltn_sudoku.paths import REPO_ROOT

    beside = ("..", "/", "shar", "ed")  # spelled in parts, so that this file does not name it either
    needle = "".join(beside).encode()
    skip = {".git", ".venv", "outputs", "multirun", "build", "dist", ".mypy_cache", ".ruff_cache", ".pytest_cache"}
    offenders = []
    for path in REPO_ROOT.rglob("*"):
        parts = path.relative_to(REPO_ROOT).parts
        if path.is_file() and not (set(parts) & skip or parts[0].endswith(".egg-info")) and needle in path.read_bytes():
            offenders.append("/".join(parts))
    assert offenders == []
