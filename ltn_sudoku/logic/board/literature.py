"""The literature's sets as evaluate reads them (docs/results/literature.md): SATNet's tensors, and the one entry
point that reads any public file of evaluate.public, in the literature's layouts (ltn_sudoku.io.literature) or any
board format (ltn_sudoku.io.read_boards).

SATNet's zip (powei.tw/sudoku.zip) holds sudoku/features.pt, one-hot givens (N, 9, 9, 9) with all-zero empty cells,
and sudoku/labels.pt, one-hot solutions, as locuslab/SATNet's exps/sudoku.py loads them. They are read with
``torch.load(weights_only=True)`` (tensors only, no code run) and each member's size is bounded before it is read.
"""

from __future__ import annotations

import io
import os
import zipfile
from pathlib import Path

import torch

from ltn_sudoku.board import Board
from ltn_sudoku.io import read_boards
from ltn_sudoku.io.literature import literature_layout, read_rrn, read_sudoku_extreme
from ltn_sudoku.io.records import FormatError
from ltn_sudoku.paths import DataNotFound, data_file

# evaluate.public names of the literature's sets -> their files in the data home (ltn-sudoku data fetch literature)
LITERATURE_FILES: dict[str, str] = {"rrn_hard": "literature/rrn/sudoku-hard.zip",
                                    "satnet": "literature/satnet/sudoku.zip",
                                    "sudoku_extreme": "literature/sudoku-extreme/test.csv"}
# A set whose full file is not fetched is read from a shipped stand-in, reported under the stand-in's own name so that
# no table calls it the set itself (data/README.md): RRN's test file could not be shipped, puzzles made by its
# published recipe can.
SHIPPED_STAND_INS: dict[str, tuple[str, str]] = {"rrn_hard": ("rrn_recipe", "literature/rrn_recipe_sample216.csv")}

SATNET_MEMBER_BYTES = 200_000_000  # features.pt and labels.pt are 29 MB each as float32 (10,000 boards); a bound


def _satnet_tensor(archive: zipfile.ZipFile, leaf: str, name: str) -> torch.Tensor:
    members = [m for m in archive.infolist() if m.filename.rsplit("/", 1)[-1] == leaf]
    if len(members) != 1:
        raise FormatError(f"expected one {leaf} in the zip (SATNet's layout: sudoku/{leaf}), found {len(members)}", name)
    if members[0].file_size > SATNET_MEMBER_BYTES:
        raise FormatError(f"{leaf} unpacks to {members[0].file_size:,} bytes, above the {SATNET_MEMBER_BYTES:,} "
                          "bytes a SATNet tensor of this set can have", name)
    try:
        tensor = torch.load(io.BytesIO(archive.read(members[0])), map_location="cpu", weights_only=True)
    except Exception as e:  # a damaged or foreign pickle: torch's own message, as the user's error
        raise FormatError(f"{leaf} is not a torch tensor file: {str(e).splitlines()[0]}", name) from None
    if not isinstance(tensor, torch.Tensor) or tensor.dim() != 4 or tuple(tensor.shape[1:]) != (9, 9, 9):
        shape = tuple(tensor.shape) if isinstance(tensor, torch.Tensor) else type(tensor).__name__
        raise FormatError(f"{leaf} must be a tensor of shape (N, 9, 9, 9) (one-hot digits), not {shape}", name)
    return tensor.float()  # any dtype the authors stored (uint8, float)


def read_satnet(path: str | os.PathLike[str]) -> list[Board]:
    """The puzzles of SATNet's Sudoku zip, each checked against its one-hot solution."""
    name = str(path)
    with zipfile.ZipFile(path) as archive:
        features = _satnet_tensor(archive, "features.pt", name)
        labels = _satnet_tensor(archive, "labels.pt", name)
    if len(features) != len(labels):
        raise FormatError(f"features.pt holds {len(features)} boards, labels.pt {len(labels)}", name)
    given = features.sum(-1) != 0
    puzzles = (given * (features.argmax(-1) + 1)).reshape(-1, 81)
    solutions = (labels.argmax(-1) + 1).reshape(-1, 81)
    one_hot = (labels.sum(-1) == 1).reshape(len(labels), -1).all(dim=1)
    keeps = ((puzzles == 0) | (puzzles == solutions)).all(dim=1)
    bad = (~one_hot | ~keeps).nonzero()
    if len(bad):
        raise FormatError(f"board {int(bad[0][0]) + 1}: its label is not a one-hot solution keeping the givens", name)
    return [Board(row, 9) for row in puzzles.tolist()]


def read_public(path: str | os.PathLike[str]) -> list[Board]:
    """The puzzles of a public file: a literature set in its published layout (the RRN zip or CSV: its test split),
    Sudoku-Extreme's CSV, SATNet's zip), else any board format read_boards knows."""
    layout = literature_layout(path)
    if layout == "rrn":
        return read_rrn(path, "test")
    if layout == "sudoku-extreme":
        return read_sudoku_extreme(path)
    if layout == "satnet":
        return read_satnet(path)
    return read_boards(path)


def public_file(name: str, files: dict[str, str]) -> tuple[str, Path]:
    """(the name to report, the file) of an evaluate.public set: the data home's full file, else its shipped
    stand-in under the stand-in's name (said on stdout); DataNotFound when there is neither."""
    try:
        return name, data_file(files[name])
    except DataNotFound:
        if name not in SHIPPED_STAND_INS:
            raise
        stand_in, relative = SHIPPED_STAND_INS[name]
        print(f"evaluate.public.{name}: {files[name]} is not fetched; reading the shipped {relative} instead, "
              f"reported as {stand_in} (data/README.md)")
        return stand_in, data_file(relative)
