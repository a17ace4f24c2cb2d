"""What a board file holds: its records, their cell strings, and the error every reader raises.

The leaf of ltn_sudoku.io (it imports only the board model): the Kaggle reader builds its records here without
importing the general readers, which hand real Kaggle CSVs to it.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from ltn_sudoku.board import DECIMAL, DIGITS_LETTERS, LETTERS, SUPPORTED_SIZES, Board, symbol_alphabet

FORMATS: tuple[str, ...] = ("line", "grid", "kaggle", "table")
SOLUTION_COLUMNS = ("solution", "solutions")
_SINGLE_LENGTHS = {n * n: n for n in SUPPORTED_SIZES if n <= 9}
_DOUBLE_LENGTHS = {2 * n * n: n for n in SUPPORTED_SIZES}
_SYMBOL_LENGTHS = {n * n: n for n in SUPPORTED_SIZES if 9 < n <= 26}  # one symbol per cell: 16x16, 25x25
_DIGITS = frozenset("123456789")
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
    symbols: str = DECIMAL  # how its cells were written (board.SYMBOLS): a writer can answer in kind

    @property
    def solution(self) -> Board | None:
        for name in SOLUTION_COLUMNS:
            text = self.fields.get(name)
            if text:
                return decode_cells(text.strip())
        return None


# ---- cell strings --------------------------------------------------------------------------------------------------
def _expected_lengths() -> str:
    single = ", ".join(f"{k} ({n}x{n})" for k, n in (*_SINGLE_LENGTHS.items(), *_SYMBOL_LENGTHS.items()))
    return (f"{single} characters (above 9x9: 1-9 then A-G / A-P, or the letters A-P / A-Y), or 2 digits per cell "
            "for any size up to 81x81")


def is_board_length(length: int) -> bool:
    """True when a cell string of this many characters encodes a board of a supported size."""
    return length in _SINGLE_LENGTHS or length in _DOUBLE_LENGTHS or length in _SYMBOL_LENGTHS


def cell_symbols(text: str) -> str:
    """The convention a cell string is written in (board.SYMBOLS): for one character per cell of a board above 9x9,
    DIGITS_LETTERS when it holds a digit 1-9 (1-9 then A-G), otherwise LETTERS (A-P); DECIMAL for anything else."""
    if len(text) in _SYMBOL_LENGTHS:
        return DIGITS_LETTERS if not _DIGITS.isdisjoint(text) else LETTERS
    return DECIMAL


def decode_symbols(text: str, n: int, symbols: str, path: str | None = None, line: int | None = None,
                   column: int = 1) -> Board:
    """A board of side n from one symbol per cell in a convention of board.SYMBOLS ('.' or '0' empty, letters in
    either case)."""
    alphabet = symbol_alphabet(n, symbols)
    values = []
    for i, ch in enumerate(text.upper()):
        if ch in _EMPTY_CHARS:
            values.append(0)
            continue
        value = alphabet.find(ch) + 1
        if value == 0:
            raise FormatError(f"unexpected character {text[i]!r} for a {n}x{n} board written with {symbols}: "
                              f"expected {alphabet[0]}-{alphabet[-1]}, '.' or '0'", path, line, column + i)
        values.append(value)
    return Board(values, n)


def decode_cells(text: str, path: str | None = None, line: int | None = None, column: int = 1) -> Board:
    """Decode a cell string (one char per cell for n <= 9, one symbol per cell for 16x16 and 25x25 (cell_symbols), or
    two decimal chars per cell) into a Board."""
    length = len(text)
    if length in _SYMBOL_LENGTHS:
        return decode_symbols(text, _SYMBOL_LENGTHS[length], cell_symbols(text), path, line, column)
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


def encode_cells(board: Board, empty: str = ".", symbols: str = DECIMAL) -> str:
    """Inverse of decode_cells: Board.to_line in a convention of board.SYMBOLS, with `empty` for blanks (boards
    written with one character per cell; DECIMAL boards above 9x9 use '00')."""
    return board.to_line(symbols).replace(".", empty)
