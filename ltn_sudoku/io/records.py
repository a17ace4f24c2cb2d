"""What a board file holds: its records, their cell strings, and the error every reader raises.

The leaf of ltn_sudoku.io (it imports only the board model): the Kaggle reader builds its records here without
importing the general readers, which hand real Kaggle CSVs to it.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from ltn_sudoku.board import SUPPORTED_SIZES, Board

FORMATS: tuple[str, ...] = ("line", "grid", "kaggle", "table")
SOLUTION_COLUMNS = ("solution", "solutions")
_SINGLE_LENGTHS = {n * n: n for n in SUPPORTED_SIZES if n <= 9}
_DOUBLE_LENGTHS = {2 * n * n: n for n in SUPPORTED_SIZES}
_EMPTY_CHARS = ".0"
_SINGLE_CELLS = {n: re.compile(f"[.0-{n}]+") for n in _SINGLE_LENGTHS.values()}
_CELL_BYTES = bytes.maketrans(b".0123456789", bytes([0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9]))


class FormatError(ValueError):
    """Bad board input, located as precisely as possible: 'file:line:column: what was wrong; what was expected'."""

    def __init__(self, message: str, path: str | os.PathLike[str] | None = None, line: int | None = None,
                 column: int | None = None) -> None:
        self.message = message
        self.path = str(path) if path is not None else None
        self.line = line
        self.column = column
        super().__init__(str(self))

    def __str__(self) -> str:
        loc = [self.path or "<input>"]
        if self.line is not None:
            loc.append(str(self.line))
            if self.column is not None:
                loc.append(str(self.column))
        return f"{':'.join(loc)}: {self.message}"


@dataclass(frozen=True)
class BoardRecord:
    """One board read from a file, where it started (1-based line), and any other columns of its row."""

    board: Board
    line: int
    fields: dict[str, str] = field(default_factory=dict)

    @property
    def solution(self) -> Board | None:
        for name in SOLUTION_COLUMNS:
            text = self.fields.get(name)
            if text:
                return decode_cells(text.strip())
        return None


# ---- cell strings --------------------------------------------------------------------------------------------------
def _expected_lengths() -> str:
    single = ", ".join(f"{k} ({n}x{n})" for k, n in _SINGLE_LENGTHS.items())
    return f"{single} characters, or 2 digits per cell for any size up to 81x81"


def is_board_length(length: int) -> bool:
    """True when a cell string of this many characters encodes a board of a supported size."""
    return length in _SINGLE_LENGTHS or length in _DOUBLE_LENGTHS


def decode_cells(text: str, path: str | None = None, line: int | None = None, column: int = 1) -> Board:
    """Decode a cell string (one char per cell for n <= 9, or two decimal chars per cell) into a Board."""
    length = len(text)
    if length in _SINGLE_LENGTHS:
        n = _SINGLE_LENGTHS[length]
        if _SINGLE_CELLS[n].fullmatch(text):  # the common case, without a loop in Python
            return Board(text.encode("ascii").translate(_CELL_BYTES), n)
        values = []
        for i, ch in enumerate(text):
            if ch in _EMPTY_CHARS:
                values.append(0)
            elif "1" <= ch <= "9" and int(ch) <= n:
                values.append(int(ch))
            else:
                want = f"a digit 1-{n}, '.' or '0'"
                what = (f"digit {ch} is out of range for a {n}x{n} board" if "0" <= ch <= "9"
                        else f"unexpected character {ch!r}")
                raise FormatError(f"{what}: expected {want}", path, line, column + i)
        return Board(values, n)
    if length in _DOUBLE_LENGTHS:
        n = _DOUBLE_LENGTHS[length]
        values = []
        for i in range(0, length, 2):
            pair = text[i : i + 2]
            if pair == "..":
                values.append(0)
                continue
            bad = next((j for j, ch in enumerate(pair) if not "0" <= ch <= "9"), None)
            if bad is not None:
                raise FormatError(f"unexpected character {pair[bad]!r}: expected 2 decimal digits per cell",
                                  path, line, column + i + bad)
            v = int(pair)
            if v > n:
                raise FormatError(f"cell value {v} is out of range for a {n}x{n} board: expected 00 (empty) .. {n:02d}",
                                  path, line, column + i)
            values.append(v)
        return Board(values, n)
    raise FormatError(f"{length} characters is not a board: expected {_expected_lengths()}", path, line, column)


def check_cells(text: str, path: str | None = None, line: int | None = None, column: int = 1) -> None:
    """Raise decode_cells' FormatError when `text` is not a board's cell string; cheap for the usual 9x9 string."""
    n = _SINGLE_LENGTHS.get(len(text))
    if n is None or not _SINGLE_CELLS[n].fullmatch(text):
        decode_cells(text, path, line, column)


def encode_cells(board: Board, empty: str = ".") -> str:
    """Inverse of decode_cells: Board.to_line with `empty` for blanks (n <= 9; larger boards use '00')."""
    return board.to_line().replace(".", empty)
