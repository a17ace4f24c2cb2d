"""Readers of the learned solvers' literature sets in their published layouts (docs/results/literature.md), so that a
fetched set (`ltn-sudoku data fetch literature`) is read as its authors ship it:

- the RRN hard set (Palm et al. 2018): ``q,a`` rows without header, 81 digits each, 0 empty, in
  ``sudoku-hard/{train,valid,test}.csv`` of sudoku-hard.zip (or one such CSV unpacked);
- Sudoku-Extreme (the HRM paper's set): a CSV with the header ``source,question,answer,rating``, ``.`` empty.

SATNet's set is torch tensors, so its reader is in the learned wing (ltn_sudoku.logic.board.literature). Every
row's solution is checked against its puzzle (81 digits 1-9 agreeing with every given): a file of another layout is
one FormatError naming the file and line, never a silent misreading.
"""

from __future__ import annotations

import csv
import io
import os
import zipfile
from pathlib import Path
from typing import IO, Iterable, Iterator

from ltn_sudoku.board import Board, line_board
from ltn_sudoku.io.records import FormatError

RRN_SPLITS = ("train", "valid", "test")
EXTREME_HEADER = ["source", "question", "answer", "rating"]
CELLS = 81


def _pair(puzzle: str, solution: str, path: str, line: int) -> Board:
    """The puzzle of one row, after checking that `solution` is a completed grid agreeing with its givens."""
    board = line_board(puzzle)
    if len(puzzle) != CELLS or board is None or board.n != 9:
        raise FormatError(f"the puzzle is not 81 cells of 0-9 or '.': {puzzle[:90]!r}", path, line)
    if len(solution) != CELLS or not solution.isdigit() or "0" in solution:
        raise FormatError(f"the solution is not 81 digits 1-9: {solution[:90]!r}", path, line)
    if any(p not in ".0" and p != s for p, s in zip(puzzle, solution)):
        raise FormatError("the solution does not keep the puzzle's givens", path, line)
    return board


def _rrn_rows(handle: IO[str], name: str) -> Iterator[Board]:
    for line, row in enumerate(csv.reader(handle), start=1):
        if not row:
            continue
        if len(row) != 2:
            raise FormatError(f"expected two fields 'puzzle,solution' (the RRN layout), got {len(row)}", name, line)
        yield _pair(row[0], row[1], name, line)


def _rrn_member(archive: zipfile.ZipFile, split: str, name: str) -> str:
    members = [m for m in archive.namelist() if m.rsplit("/", 1)[-1] == f"{split}.csv"]
    if len(members) != 1:
        raise FormatError(f"expected one {split}.csv in the zip (the RRN layout: sudoku-hard/{split}.csv), found "
                          f"{len(members)}", name)
    return members[0]


def read_rrn(path: str | os.PathLike[str], split: str = "test") -> list[Board]:
    """The puzzles of one split of the RRN hard set: sudoku-hard.zip as published, or one of its CSVs unpacked."""
    if split not in RRN_SPLITS:
        raise ValueError(f"split must be one of {', '.join(RRN_SPLITS)}, not {split!r}")
    name = str(path)
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as archive, archive.open(_rrn_member(archive, split, name)) as raw:
            return list(_rrn_rows(io.TextIOWrapper(raw, encoding="ascii", newline=""), f"{name}:{split}.csv"))
    with open(path, encoding="ascii", newline="") as handle:
        return list(_rrn_rows(handle, name))


def _extreme_rows(rows: Iterable[list[str]], name: str) -> Iterator[Board]:
    for line, row in enumerate(rows, start=1):
        if line == 1:
            if row != EXTREME_HEADER:
                raise FormatError(f"expected the header {','.join(EXTREME_HEADER)} (Sudoku-Extreme's layout)", name, 1)
            continue
        if not row:
            continue
        if len(row) != len(EXTREME_HEADER):
            raise FormatError(f"expected {len(EXTREME_HEADER)} fields, got {len(row)}", name, line)
        yield _pair(row[1], row[2], name, line)


def read_sudoku_extreme(path: str | os.PathLike[str]) -> list[Board]:
    """The puzzles of a Sudoku-Extreme CSV (train.csv or test.csv as published)."""
    with open(path, encoding="ascii", newline="") as handle:
        return list(_extreme_rows(csv.reader(handle), str(path)))


def literature_layout(path: str | os.PathLike[str]) -> str | None:
    """'rrn', 'sudoku-extreme', 'satnet' (a zip of features.pt and labels.pt) or None: which literature layout a file
    has, from its first bytes (a zip's member names, a CSV's first line)."""
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as archive:
            leaves = {m.rsplit("/", 1)[-1] for m in archive.namelist()}
        if {"features.pt", "labels.pt"} <= leaves:
            return "satnet"
        return "rrn" if "test.csv" in leaves else None
    with open(Path(path), "rb") as handle:
        first = handle.readline(400).decode("ascii", "replace").strip()
    if first == ",".join(EXTREME_HEADER):
        return "sudoku-extreme"
    fields = first.split(",")
    return "rrn" if len(fields) == 2 and all(len(f) == CELLS and f.isdigit() for f in fields) else None
