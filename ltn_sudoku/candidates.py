"""CandidateGrid: the pencil-mark state that human techniques read and the engine updates.

Two views are kept in step so that both cell-centred and digit-centred techniques are cheap:
- ``masks[cell]``: candidate digits of an empty cell as bits (bit d-1 for digit d); 0 for a placed cell;
- ``digit_cells[d]``: the cells where digit d is still a candidate, as a Python int with bit ``cell`` set.
Techniques read the grid and return Steps (one deduction each, defined here beside the grid it applies to); only
``place`` / ``eliminate`` / ``apply`` mutate it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Iterator

from ltn_sudoku.board import Board, Geometry, geometry, iter_bits


def mask_digits(mask: int) -> tuple[int, ...]:
    """Digits (1-based) of a candidate mask, ascending."""
    return tuple(b + 1 for b in iter_bits(mask))


def digits_mask(digits: Iterable[int]) -> int:
    """Candidate mask of some digits (1-based)."""
    m = 0
    for d in digits:
        m |= 1 << (d - 1)
    return m


Assignment = tuple[int, int]  # (cell, digit), 0-based cell, 1-based digit


@dataclass(frozen=True)
class Step:
    """One deduction: what it places and eliminates, the pattern it rests on, and a one-line explanation."""

    technique: str
    placements: tuple[Assignment, ...] = ()
    eliminations: tuple[Assignment, ...] = ()
    cells: tuple[int, ...] = ()
    digits: tuple[int, ...] = ()
    units: tuple[int, ...] = ()
    text: str = ""

    @property
    def progress(self) -> bool:
        return bool(self.placements or self.eliminations)

    def as_dict(self, geo: Geometry) -> dict[str, object]:
        """JSON-ready: placements / eliminations as 0-based [row, col, digit] triples."""
        return {
            "technique": self.technique,
            "placements": [[geo.row[c], geo.col[c], d] for c, d in self.placements],
            "eliminations": [[geo.row[c], geo.col[c], d] for c, d in self.eliminations],
            "text": self.text,
        }


@dataclass(frozen=True)
class GridSummary:
    """How much is left to do on a candidate grid: its unresolved (empty) cells and the candidates they hold."""

    unresolved: int
    candidates: int

    @property
    def mean(self) -> float:
        """Candidates per unresolved cell (0.0 on a solved grid)."""
        return self.candidates / self.unresolved if self.unresolved else 0.0

    def as_dict(self) -> dict[str, object]:
        return {"unresolved": self.unresolved, "candidates": self.candidates, "mean": round(self.mean, 2)}

    def __str__(self) -> str:
        return f"{self.unresolved} unresolved cells, {self.candidates} candidates ({self.mean:.2f} per cell)"


class Contradiction(Exception):
    """The grid can no longer be completed (a cell lost its last candidate, or a placement clashed)."""


class CandidateGrid:
    """Placed values plus remaining candidates of every cell, for any side n."""

    __slots__ = ("n", "geo", "values", "masks", "digit_cells", "givens")

    def __init__(self, n: int) -> None:
        self.n = n
        self.geo: Geometry = geometry(n)
        self.values: list[int] = [0] * (n * n)
        self.masks: list[int] = [(1 << n) - 1] * (n * n)
        all_cells = (1 << (n * n)) - 1
        self.digit_cells: list[int] = [0] + [all_cells] * n
        self.givens: int = 0  # cell-set int of the puzzle's givens (uniqueness techniques need it)

    # ---- construction -------------------------------------------------------------------------------------------
    @classmethod
    def from_board(cls, board: Board, deleted: Iterable[tuple[int, int]] = ()) -> CandidateGrid:
        """Basic-rule candidates of a board: each filled cell removes its digit from its peers.

        `deleted` lists extra (cell, digit) candidates to remove, as in HoDoKu's regression library.
        Raises Contradiction for a board whose givens clash.
        """
        grid = cls(board.n)
        masks = board.candidate_masks()
        grid.masks = masks
        grid.values = list(board.values)
        dc = [0] * (board.n + 1)
        for c, m in enumerate(masks):
            for b in iter_bits(m):
                dc[b + 1] |= 1 << c
        grid.digit_cells = dc
        grid.givens = sum(1 << c for c, v in enumerate(board.values) if v)
        if not board.is_consistent:
            raise Contradiction("the givens repeat a digit in a unit")
        for cell, digit in deleted:
            grid.eliminate(cell, digit)
        return grid

    def copy(self) -> CandidateGrid:
        g = CandidateGrid.__new__(CandidateGrid)
        g.n = self.n
        g.geo = self.geo
        g.values = self.values[:]
        g.masks = self.masks[:]
        g.digit_cells = self.digit_cells[:]
        g.givens = self.givens
        return g

    def to_board(self) -> Board:
        return Board(self.values, self.n)

    # ---- queries --------------------------------------------------------------------------------------------------
    def candidates(self, cell: int) -> tuple[int, ...]:
        return mask_digits(self.masks[cell])

    def has(self, cell: int, digit: int) -> bool:
        return bool(self.masks[cell] >> (digit - 1) & 1)

    def count(self, cell: int) -> int:
        return self.masks[cell].bit_count()

    def cells_with_candidates(self) -> int:
        """Cell-set int of the cells that keep a candidate (the empty cells, unless one has none): the union of the
        digits' place sets, n operations instead of a pass over every cell."""
        cells = 0
        for places in self.digit_cells:
            cells |= places
        return cells

    def empty_cells(self) -> Iterator[int]:
        return (c for c, v in enumerate(self.values) if v == 0)

    def summary(self) -> GridSummary:
        """Unresolved cells and the candidates left on them (a placed cell's mask is 0)."""
        return GridSummary(self.values.count(0), sum(m.bit_count() for m in self.masks))

    def places(self, unit: int, digit: int) -> int:
        """Cell-set int of the cells of `unit` where `digit` is a candidate."""
        return self.digit_cells[digit] & self.geo.unit_bits[unit]

    def place_cells(self, unit: int, digit: int) -> list[int]:
        return list(iter_bits(self.places(unit, digit)))

    def unit_has_value(self, unit: int, digit: int) -> bool:
        return any(self.values[c] == digit for c in self.geo.units[unit])

    @property
    def is_solved(self) -> bool:
        return 0 not in self.values

    def dead_end(self) -> str | None:
        """The seed's obvious 'no solution' reason, or None: an empty cell with no candidate,
        or a digit that has no place left in a unit that still lacks it."""
        g = self.geo
        for c, v in enumerate(self.values):
            if v == 0 and self.masks[c] == 0:
                return f"cell {g.cell_name(c)} has no candidate"
        for u, cells in enumerate(g.units):
            present = 0
            for c in cells:
                if self.values[c]:
                    present |= 1 << (self.values[c] - 1)
            for d in range(1, self.n + 1):
                if not present >> (d - 1) & 1 and not self.places(u, d):
                    return f"digit {d} has no place in {g.unit_kind(u)} {u % self.n + 1}"
        return None

    # ---- mutation -------------------------------------------------------------------------------------------------
    def eliminate(self, cell: int, digit: int) -> bool:
        """Remove one candidate; True if it was there."""
        bit = 1 << (digit - 1)
        if not self.masks[cell] & bit:
            return False
        self.masks[cell] &= ~bit
        self.digit_cells[digit] &= ~(1 << cell)
        return True

    def place(self, cell: int, digit: int) -> None:
        """Set a cell and remove the digit from its peers; raises Contradiction if it is not a candidate."""
        if self.values[cell]:
            if self.values[cell] != digit:
                raise Contradiction(f"{self.geo.cell_name(cell)} already holds {self.values[cell]}")
            return
        if not self.masks[cell] >> (digit - 1) & 1:
            raise Contradiction(f"{digit} is not a candidate of {self.geo.cell_name(cell)}")
        cbit = 1 << cell
        for b in iter_bits(self.masks[cell]):
            self.digit_cells[b + 1] &= ~cbit
        self.values[cell] = digit
        self.masks[cell] = 0
        bit = 1 << (digit - 1)
        nbit = ~bit
        for p in iter_bits(self.digit_cells[digit] & self.geo.peer_bits[cell]):
            self.masks[p] &= nbit
        self.digit_cells[digit] &= ~self.geo.peer_bits[cell]

    def apply(self, step: Step) -> None:
        """Carry out a step's placements and eliminations."""
        for cell, digit in step.placements:
            self.place(cell, digit)
        for cell, digit in step.eliminations:
            self.eliminate(cell, digit)

    # ---- text -----------------------------------------------------------------------------------------------------
    def pencil_marks(self) -> str:
        """A plain pencil-mark grid (for debugging and explanations)."""
        n, k = self.n, self.geo.k
        cells = [
            (str(self.values[c]) if self.values[c] else "".join(str(d) for d in self.candidates(c)))
            for c in range(n * n)
        ]
        w = max(len(s) for s in cells)
        lines = []
        for r in range(n):
            row = []
            for c in range(n):
                row.append(cells[r * n + c].ljust(w))
                if c % k == k - 1 and c != n - 1:
                    row.append("|")
            lines.append(" ".join(row))
            if r % k == k - 1 and r != n - 1:
                lines.append("-" * len(lines[-1]))
        return "\n".join(lines)
