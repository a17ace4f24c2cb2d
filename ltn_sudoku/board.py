"""The board model: an immutable Sudoku grid of side n = k*k, its geometry and its conflicts.

Cells are numbered row-major, 0 .. n*n-1. Digits are 1 .. n; 0 is an empty cell.
Units are numbered 0 .. 3n-1: rows first (0 .. n-1), then columns (n .. 2n-1), then boxes (2n .. 3n-1),
boxes numbered row-major. Everything user-facing is 1-based (r1c1 notation); everything internal is 0-based.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Iterable, Iterator, Sequence

import numpy as np

SUPPORTED_SIZES: tuple[int, ...] = tuple(k * k for k in range(2, 10))  # 4, 9, 16, ..., 81
# How boards above 9x9 are written, one name each: two decimal characters per cell ('00' empty, '01'..'16'), or one
# character per cell, '.' empty: the digits 1-9 then letters (16x16: 1-9, A-G; 25x25: 1-9, A-P), or letters only
# (16x16: A-P; 25x25: A-Y). Boards up to 9x9 are always written with the digits 1-9.
DECIMAL, DIGITS_LETTERS, LETTERS = "decimal", "digits-letters", "letters"
SYMBOLS: tuple[str, ...] = (DECIMAL, DIGITS_LETTERS, LETTERS)
_ALPHABETS = {DIGITS_LETTERS: "123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ", LETTERS: "ABCDEFGHIJKLMNOPQRSTUVWXYZ"}
UNIT_KINDS: tuple[str, str, str] = ("row", "col", "box")


class BoardError(ValueError):
    """A board that cannot exist: wrong size, digit out of range, bad shape."""


def symbol_alphabet(n: int, symbols: str) -> str:
    """The characters of digits 1..n in a one-character convention (DIGITS_LETTERS, LETTERS); BoardError when the
    convention has too few characters for the side (letters: up to 25x25)."""
    alphabet = _ALPHABETS[symbols][:n]
    if len(alphabet) < n:
        raise BoardError(f"{n}x{n} boards cannot be written with {symbols} ({len(_ALPHABETS[symbols])} symbols): "
                         f"use {DECIMAL}")
    return alphabet


def writes_symbols(n: int, symbols: str) -> bool:
    """Whether a board of side n is written in a one-character convention (above 9x9 and not DECIMAL)."""
    return n > 9 and symbols != DECIMAL


def box_side(n: int) -> int:
    """k for a board of side n = k*k; raises BoardError for an unsupported side."""
    k = math.isqrt(n)
    if n not in SUPPORTED_SIZES or k * k != n:
        raise BoardError(f"unsupported board side {n}: expected one of {', '.join(map(str, SUPPORTED_SIZES))}")
    return k


def side_for_cell_count(count: int) -> int:
    """n for a board of `count` cells; raises BoardError when count is not n*n for a supported n."""
    n = math.isqrt(count)
    if n * n != count or n not in SUPPORTED_SIZES:
        sizes = ", ".join(f"{s * s} ({s}x{s})" for s in SUPPORTED_SIZES)
        raise BoardError(f"{count} cells is not a supported board: expected one of {sizes}")
    return n


class Geometry:
    """Units, peers and coordinates of every cell for one board side; shared by all boards of that side."""

    def __init__(self, n: int) -> None:
        self.k = box_side(n)
        self.n = n
        self.cell_count = n * n
        k = self.k
        cells = range(self.cell_count)
        self.row: tuple[int, ...] = tuple(c // n for c in cells)
        self.col: tuple[int, ...] = tuple(c % n for c in cells)
        self.box: tuple[int, ...] = tuple((c // n) // k * k + (c % n) // k for c in cells)
        rows = [tuple(r * n + c for c in range(n)) for r in range(n)]
        cols = [tuple(r * n + c for r in range(n)) for c in range(n)]
        boxes = [
            tuple((b // k * k + i // k) * n + (b % k * k + i % k) for i in range(n)) for b in range(n)
        ]
        self.units: tuple[tuple[int, ...], ...] = tuple(rows + cols + boxes)
        self.units_of_cell: tuple[tuple[int, int, int], ...] = tuple(
            (self.row[c], n + self.col[c], 2 * n + self.box[c]) for c in cells
        )
        self.peers: tuple[tuple[int, ...], ...] = tuple(
            tuple(sorted({p for u in self.units_of_cell[c] for p in self.units[u]} - {c})) for c in cells
        )

    def unit_kind(self, unit: int) -> str:
        """'row', 'col' or 'box'."""
        return UNIT_KINDS[unit // self.n]

    def unit_name(self, unit: int) -> str:
        """Human name, 1-based: 'r3', 'c5', 'b7'."""
        return f"{'rcb'[unit // self.n]}{unit % self.n + 1}"

    def cell_name(self, cell: int) -> str:
        """r1c1 notation, 1-based."""
        return f"r{self.row[cell] + 1}c{self.col[cell] + 1}"

    def cells_name(self, cells: Iterable[int]) -> str:
        """Comma-separated r1c1 names."""
        return ",".join(self.cell_name(c) for c in cells)

    def sees(self, a: int, b: int) -> bool:
        """True if two distinct cells share a unit."""
        return a != b and (self.row[a] == self.row[b] or self.col[a] == self.col[b] or self.box[a] == self.box[b])

    @cached_property
    def unit_bits(self) -> tuple[int, ...]:
        """Per unit, a Python int with bit c set for each of its cells (fast set algebra over cells)."""
        return tuple(sum(1 << c for c in cells) for cells in self.units)

    @cached_property
    def peer_bits(self) -> tuple[int, ...]:
        """Per cell, a Python int with bit p set for each peer p."""
        return tuple(sum(1 << p for p in ps) for ps in self.peers)

    @cached_property
    def peer_matrix(self) -> np.ndarray:
        """(n*n, n*n) bool matrix of the peer relation (used by the LTN groundings and vectorised checks)."""
        m = np.zeros((self.cell_count, self.cell_count), dtype=bool)
        for c, ps in enumerate(self.peers):
            m[c, list(ps)] = True
        return m

    @cached_property
    def unit_matrix(self) -> np.ndarray:
        """(3n, n*n) bool matrix: unit u contains cell c."""
        m = np.zeros((3 * self.n, self.cell_count), dtype=bool)
        for u, cs in enumerate(self.units):
            m[u, list(cs)] = True
        return m


_LINE_CHARS = bytes.maketrans(bytes(range(10)), b".123456789")  # Board.to_line for n <= 9
_CELL_DIGITS = {n: bytes(range(n + 1)) for n in SUPPORTED_SIZES if n <= 9}  # the byte values a cell of side n takes
_LINE_SIDES = {n * n: n for n in _CELL_DIGITS}  # a line string's length -> its side
# A line string's characters to cell bytes: '.' and '0' to 0, '1'..'9' to 1..9, anything else to 255 (never a cell).
_LINE_BYTES = bytes(dict(zip(b".0123456789", [0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9])).get(b, 255) for b in range(256))


def line_board(text: str) -> Board | None:
    """The board of a line string (one character per cell, '.' or '0' empty, n <= 9), or None when `text` is not
    one: the usual input, read by two translations in C (ltn_sudoku.io.parse_board_text starts here)."""
    n = _LINE_SIDES.get(len(text))
    if n is None or not text.isascii():
        return None
    cells = text.encode("ascii").translate(_LINE_BYTES)
    if cells.translate(None, _CELL_DIGITS[n]):
        return None  # a character that is not a cell of this side
    board = object.__new__(Board)
    _SET_N(board, n)
    _SET_CELLS(board, cells)  # `values` is left unset: __getattr__ builds it on first use (a count never needs it)
    return board


def iter_bits(x: int) -> Iterator[int]:
    """Indices of the set bits of x, lowest first (cells of a cell-set int, or digit-1 of a candidate mask)."""
    while x:
        low = x & -x
        yield low.bit_length() - 1
        x ^= low


@lru_cache(maxsize=None)
def geometry(n: int) -> Geometry:
    """The shared Geometry for side n."""
    return Geometry(n)


@dataclass(frozen=True)
class Conflict:
    """One digit repeated in one unit: the cells that hold it there."""

    unit: int
    digit: int
    cells: tuple[int, ...]
    n: int

    @property
    def unit_kind(self) -> str:
        return geometry(self.n).unit_kind(self.unit)

    @property
    def unit_index(self) -> int:
        """0-based index of the row, column or box."""
        return self.unit % self.n

    def describe(self) -> str:
        g = geometry(self.n)
        return (f"digit {self.digit} appears {len(self.cells)} times in {g.unit_kind(self.unit)} "
                f"{self.unit_index + 1}: {g.cells_name(self.cells)}")

    def as_dict(self) -> dict[str, object]:
        """JSON-ready, 0-based."""
        g = geometry(self.n)
        return {
            "unit": g.unit_kind(self.unit),
            "index": self.unit_index,
            "digit": self.digit,
            "cells": [[g.row[c], g.col[c]] for c in self.cells],
        }


class Board:
    """An immutable n x n Sudoku grid (n = k*k, 4 <= n <= 81); 0 marks an empty cell."""

    __slots__ = ("_cells", "n", "values")
    _cells: bytes | None
    n: int
    values: tuple[int, ...]

    def __init__(self, values: Sequence[int], n: int | None = None) -> None:
        _SET_CELLS(self, None)  # kept only by from_cell_bytes (a parsed single board); a list of boards stays lean
        if _valid_cell_bytes(values, n):  # the parsers' one byte per cell, checked in C
            _SET_N(self, n)
            _SET_VALUES(self, tuple(values))
            return
        vals = tuple(map(int, values))
        side = side_for_cell_count(len(vals)) if n is None else n
        box_side(side)
        if len(vals) != side * side:
            raise BoardError(f"a {side}x{side} board needs {side * side} cells, got {len(vals)}")
        for i, v in enumerate(vals) if min(vals) < 0 or max(vals) > side else ():  # the loop only names the cell
            if not 0 <= v <= side:
                raise BoardError(
                    f"cell r{i // side + 1}c{i % side + 1} holds {v}: expected 0 (empty) or a digit 1..{side}"
                )
        object.__setattr__(self, "n", side)
        object.__setattr__(self, "values", vals)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Board is immutable")

    def __getattr__(self, name: str) -> tuple[int, ...]:
        """Only reached when a slot is unset: `values` of a board from from_cell_bytes, built from its bytes once.
        (A property would slow down every other read of `values`; this costs the first read only.)"""
        if name != "values":
            raise AttributeError(f"'Board' object has no attribute {name!r}")
        cells = self._cells
        assert cells is not None  # `values` is unset only on a board of from_cell_bytes, which keeps its bytes
        values = tuple(cells)
        _SET_VALUES(self, values)
        return values

    def __reduce__(self) -> tuple[type[Board], tuple[tuple[int, ...], int]]:
        """Pickle through the constructor (boards travel to worker processes: classify --jobs)."""
        return (Board, (self.values, self.n))

    # ---- construction -------------------------------------------------------------------------------------------
    @classmethod
    def from_cell_bytes(cls, cells: bytes, n: int) -> Board:
        """A board of side n <= 9 from one byte per cell (0 = empty), keeping the bytes for cell_bytes(): the
        single-board parser's path, so a 9x9 count on a parsed board needs no conversion back."""
        if type(cells) is not bytes or n not in _CELL_DIGITS or len(cells) != n * n \
                or cells.translate(None, _CELL_DIGITS[n]):  # _valid_cell_bytes, inline: this is the hot path
            return cls(cells, n)  # the general path names what is wrong
        board = object.__new__(cls)
        _SET_N(board, n)
        _SET_CELLS(board, cells)  # `values` is left unset, as in line_board
        return board

    @classmethod
    def from_rows(cls, rows: Sequence[Sequence[int]]) -> Board:
        n = len(rows)
        if any(len(r) != n for r in rows):
            raise BoardError(f"rows must all have {n} cells")
        return cls([v for r in rows for v in r], n)

    @classmethod
    def empty(cls, n: int) -> Board:
        return cls([0] * (n * n), n)

    @classmethod
    def from_array(cls, array: np.ndarray) -> Board:
        """From a flat (n*n,) or square (n, n) integer array."""
        return cls(np.asarray(array).reshape(-1).tolist())

    # ---- views ----------------------------------------------------------------------------------------------------
    @property
    def k(self) -> int:
        return geometry(self.n).k

    @property
    def geometry(self) -> Geometry:
        return geometry(self.n)

    @property
    def cell_count(self) -> int:
        return self.n * self.n

    def __getitem__(self, cell: int | tuple[int, int]) -> int:
        if isinstance(cell, tuple):
            r, c = cell
            return self.values[r * self.n + c]
        return self.values[cell]

    def __iter__(self) -> Iterator[int]:
        return iter(self.values)

    def __len__(self) -> int:
        return len(self.values)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Board) and self.values == other.values

    def __hash__(self) -> int:
        return hash(self.values)

    def rows(self) -> list[list[int]]:
        n = self.n
        return [list(self.values[r * n : (r + 1) * n]) for r in range(n)]

    def cell_bytes(self) -> bytes:
        """The cells as one byte each (every supported side fits: digits <= 81), kept from from_cell_bytes or built:
        the cheapest form to hand to compiled code (numba reads bytes as an array; so does np.frombuffer)."""
        cells = self._cells
        return cells if cells is not None else bytes(self.values)

    def to_array(self) -> np.ndarray:
        """(n, n) int array."""
        return np.asarray(self.values, dtype=np.int16 if self.n > 127 else np.int8).reshape(self.n, self.n)

    @property
    def givens(self) -> int:
        """Number of filled cells."""
        return len(self.values) - self.values.count(0)

    @property
    def empty_cells(self) -> list[int]:
        return [i for i, v in enumerate(self.values) if v == 0]

    @property
    def is_closed(self) -> bool:
        """No empty cell."""
        return 0 not in self.values

    def with_value(self, cell: int, digit: int) -> Board:
        """A copy with one cell set (digit 0 clears it)."""
        vals = list(self.values)
        vals[cell] = digit
        return Board(vals, self.n)

    def with_values(self, assignments: Iterable[tuple[int, int]]) -> Board:
        vals = list(self.values)
        for cell, digit in assignments:
            vals[cell] = digit
        return Board(vals, self.n)

    # ---- rules ----------------------------------------------------------------------------------------------------
    def conflicts(self) -> list[Conflict]:
        """Every (unit, digit) that holds the digit more than once, with its cells."""
        g = self.geometry
        found: list[Conflict] = []
        for u, cells in enumerate(g.units):
            seen: dict[int, list[int]] = {}
            for c in cells:
                v = self.values[c]
                if v:
                    seen.setdefault(v, []).append(c)
            for d in sorted(seen):
                if len(seen[d]) > 1:
                    found.append(Conflict(u, d, tuple(seen[d]), self.n))
        return found

    @property
    def is_consistent(self) -> bool:
        """No digit twice in a unit (empty cells allowed): `conflicts()` is empty. Decided in one pass over the cells
        with a digit set per unit (4-5x faster than listing the conflicts; Q3 and classify ask it of every board)."""
        units_of_cell = self.geometry.units_of_cell
        used = [0] * (3 * self.n)
        for cell, value in enumerate(self.values):
            if value:
                bit = 1 << value
                row, col, box = units_of_cell[cell]
                if (used[row] | used[col] | used[box]) & bit:
                    return False
                used[row] |= bit
                used[col] |= bit
                used[box] |= bit
        return True

    @property
    def is_valid_solution(self) -> bool:
        """Closed and consistent: Q1's answer."""
        return self.is_closed and self.is_consistent

    def candidates(self, cell: int) -> list[int]:
        """Digits not held by any peer (the basic rule); [] for a filled cell."""
        if self.values[cell]:
            return []
        used = {self.values[p] for p in self.geometry.peers[cell]}
        return [d for d in range(1, self.n + 1) if d not in used]

    def candidate_masks(self) -> list[int]:
        """Per cell, a bitmask of basic-rule candidates (bit d-1 for digit d); 0 for filled cells."""
        g = self.geometry
        full = (1 << self.n) - 1
        unit_used = [0] * (3 * self.n)
        for c, v in enumerate(self.values):
            if v:
                for u in g.units_of_cell[c]:
                    unit_used[u] |= 1 << (v - 1)
        masks = []
        for c, v in enumerate(self.values):
            if v:
                masks.append(0)
            else:
                r, cc, b = g.units_of_cell[c]
                masks.append(full & ~(unit_used[r] | unit_used[cc] | unit_used[b]))
        return masks

    # ---- text -----------------------------------------------------------------------------------------------------
    def to_line(self, symbols: str = DECIMAL) -> str:
        """The line format: one char per cell ('.' empty) for n <= 9; above, two decimal chars per cell ('00') or
        one symbol per cell in another convention of SYMBOLS ('.' empty)."""
        if self.n <= 9:
            return bytes(self.values).translate(_LINE_CHARS).decode("ascii")
        if writes_symbols(self.n, symbols):
            alphabet = "." + symbol_alphabet(self.n, symbols)
            return "".join(alphabet[v] for v in self.values)
        return "".join(f"{v:02d}" for v in self.values)

    def __str__(self) -> str:
        return self.draw()

    def __repr__(self) -> str:
        return f"parse_board_text({self.to_line()!r})"  # ltn_sudoku.io.parse_board_text rebuilds it

    def draw(self, highlight: Iterable[int] = (), marker: str = "*", symbols: str = DECIMAL) -> str:
        """The grid drawn with box borders; highlighted cells are flagged with `marker` (used for conflicts); above
        9x9 the digits are numbers, or the characters of another convention of SYMBOLS."""
        n, k = self.n, self.k
        hl = set(highlight)
        alphabet = "." + symbol_alphabet(n, symbols) if writes_symbols(n, symbols) else None
        width = 1 if alphabet else len(str(n))
        cell_w = width + 1

        def fmt(c: int) -> str:
            v = self.values[c]
            s = alphabet[v] if alphabet else str(v) if v else "."
            return s.rjust(width) + (marker if c in hl else " ")

        sep = "+" + "+".join("-" * (k * cell_w + 1) for _ in range(k)) + "+"
        lines = [sep]
        for r in range(n):
            parts = []
            for b in range(k):
                parts.append(" " + "".join(fmt(r * n + b * k + i) for i in range(k)))
            lines.append("|" + "|".join(parts) + "|")
            if r % k == k - 1:
                lines.append(sep)
        return "\n".join(lines)


# The slots' own setters: the parsers' path sets them without Board.__setattr__ (which refuses) or __init__'s checks.
_SET_N, _SET_VALUES, _SET_CELLS = (getattr(Board, slot).__set__ for slot in ("n", "values", "_cells"))


def _valid_cell_bytes(cells: object, n: int | None) -> bool:
    """Whether `cells` is bytes of n*n cells 0..n for a side n <= 9 (one C-level translate instead of a loop)."""
    return type(cells) is bytes and n in _CELL_DIGITS and len(cells) == n * n and not cells.translate(
        None, _CELL_DIGITS[n])
