"""SHA-256 of a file, streamed (memory flat whatever its size): what names an input in a resumable output's manifest
(ltn_sudoku/cli/dask_runner.py) and checks a data-home file against the registry (ltn_sudoku/datasets/fetch.py)."""

from __future__ import annotations

import hashlib
import os
from typing import BinaryIO

CHUNK = 1 << 20  # bytes per read


def stream_sha256(stream: BinaryIO) -> str:
    """The SHA-256 of what is left to read in an open binary stream."""
    digest = hashlib.sha256()
    while block := stream.read(CHUNK):
        digest.update(block)
    return digest.hexdigest()


def file_sha256(path: str | os.PathLike[str]) -> str:
    """The SHA-256 of a file's bytes."""
    with open(path, "rb") as stream:
        return stream_sha256(stream)
