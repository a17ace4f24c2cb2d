"""The symbolic answers to the questions about one board, gathered in a Report (DESIGN.md §4).

- Q1, closed board: is it a valid solution, and every conflict (unit, digit, cells).
- Q2, open board: are the givens consistent, how many solutions (0, 1, 2 meaning "at least two") and one of them,
  every basic-rule move (cell, digit) with whether it leads to a dead end, and the seed's obvious "no solution" reason.
- Q3, open board: the techniques that apply now, a ranked recommendation, the explained solving path, level and score
  (ltn_sudoku.heuristics).
Further answers (Q3's techniques, the LTN's predictions) join a Report as sections: objects with ``as_dict()``
(top-level JSON keys) and ``describe()`` (readable lines), so adding one changes neither Report nor its renderers.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Protocol

from ltn_sudoku.board import Board, Conflict, geometry, iter_bits
from ltn_sudoku.candidates import CandidateGrid
from ltn_sudoku.engine import Engine
from ltn_sudoku.exact import solutions, solve
from ltn_sudoku.heuristics import answer_q3

SOLUTION_LIMIT = 2  # solutions are counted up to 2: 0 impossible, 1 unique, 2 "at least two"
# Up to this many solutions are enumerated in one search: when that is all of them, they settle every move at once,
# which is several times faster than a search per move on boards with a few solutions (scripts/bench_classify.py).
ENUMERATED_SOLUTIONS = 32


class ReportSection(Protocol):
    """A further answer attached to a Report, e.g. Q3 (heuristics, steps, level) or the LTN model's predictions."""

    @property
    def title(self) -> str:
        """The heading of the section in the text report."""
        ...

    def as_dict(self) -> dict[str, object]:
        """JSON-ready top-level keys merged into Report.as_dict()."""
        ...

    def describe(self) -> list[str]:
        """Readable lines for the text report."""
        ...


@dataclass(frozen=True)
class Move:
    """Placing `digit` in the empty `cell` (a basic-rule candidate), and whether no solution remains after it."""

    cell: int
    digit: int
    dead_end: bool
    n: int

    @property
    def name(self) -> str:
        """r1c1 notation, 1-based: 'r1c2=3'."""
        return f"{geometry(self.n).cell_name(self.cell)}={self.digit}"

    def as_dict(self) -> dict[str, object]:
        """JSON-ready, 0-based row and column."""
        g = geometry(self.n)
        return {"row": g.row[self.cell], "col": g.col[self.cell], "digit": self.digit, "dead_end": self.dead_end}


@dataclass(frozen=True)
class Report:
    """Everything the symbolic engine says about one board."""

    board: Board
    conflicts: tuple[Conflict, ...]
    solution_count: int
    solution: Board | None
    moves: tuple[Move, ...] = ()
    no_solution_reason: str | None = None
    sections: tuple[ReportSection, ...] = ()

    @property
    def closed(self) -> bool:
        return self.board.is_closed

    @property
    def valid(self) -> bool:
        """Q1 for a closed board (a valid solution); 'givens consistent' for an open one."""
        return not self.conflicts

    @property
    def solvable(self) -> bool | None:
        """Q2: None for a closed board, where the question does not arise."""
        return None if self.closed else self.solution_count > 0

    @property
    def dead_ends(self) -> int:
        return sum(m.dead_end for m in self.moves)

    def with_section(self, section: ReportSection) -> Report:
        """A copy with one more section (the way later answers join the report)."""
        return replace(self, sections=(*self.sections, section))

    def as_dict(self) -> dict[str, object]:
        """JSON-ready: 0-based cells; boards in the line format (io.encode_cells); sections' keys appended."""
        out: dict[str, object] = {
            "size": self.board.n,
            "board": self.board.to_line(),
            "givens": self.board.givens,
            "closed": self.closed,
            "valid": self.valid,
            "conflicts": [c.as_dict() for c in self.conflicts],
            "solvable": self.solvable,
            "solutions": self.solution_count,
            "solution": self.solution.to_line() if self.solution is not None else None,
            "no_solution_reason": self.no_solution_reason,
            "moves": [m.as_dict() for m in self.moves],
        }
        for section in self.sections:
            out.update(section.as_dict())
        return out

    def as_row(self) -> dict[str, object]:
        """One flat CSV row: scalars as they are, lists replaced by their length, plus the number of dead ends."""
        row: dict[str, object] = {}
        for key, value in self.as_dict().items():
            if isinstance(value, dict):
                continue
            row[key] = len(value) if isinstance(value, list) else value
            if key == "moves":
                row["dead_ends"] = self.dead_ends
        return row


def _possible_moves(board: Board) -> list[tuple[int, int]]:
    """Every (cell, digit) that the basic rule allows: an empty cell and a digit none of its peers holds."""
    return [(c, b + 1) for c, mask in enumerate(board.candidate_masks()) for b in iter_bits(mask)]


def _dead_end_flags(board: Board, moves: list[tuple[int, int]], found: list[Board], backend: str) -> list[bool]:
    """Whether each move leaves no solution, with as few searches as possible.

    A move that agrees with a known solution is alive. When `found` holds every solution (no more than
    ENUMERATED_SOLUTIONS: none, a unique one, or a few), every other move is dead. Otherwise each remaining move gets
    one search for a single solution, and every solution found that way also clears the later moves agreeing with it.
    """
    empty = board.empty_cells
    alive = {(c, s.values[c]) for s in found for c in empty}
    if len(found) <= ENUMERATED_SOLUTIONS:
        return [m not in alive for m in moves]
    flags = []
    for cell, digit in moves:
        if (cell, digit) not in alive:
            witness = solve(board.with_value(cell, digit), backend=backend)
            if witness is not None:
                alive.update((c, witness.values[c]) for c in empty)
        flags.append((cell, digit) not in alive)
    return flags


def _no_solution_reason(board: Board, conflicts: list[Conflict]) -> str | None:
    """The obvious reason an open board has no solution, or None when the reason is subtle (search only)."""
    if conflicts:
        others = len(conflicts) - 1
        more = f" (and {others} more conflict{'s' if others > 1 else ''})" if others else ""
        return f"the givens conflict: {conflicts[0].describe()}{more}"
    return CandidateGrid.from_board(board).dead_end()


def classify(board: Board, backend: str = "auto", heuristics: bool = True, engine: Engine | None = None) -> Report:
    """Answer Q1 (closed board) or Q2 and Q3 (open board) exactly.

    `backend` picks the exact solver (ltn_sudoku.exact); `heuristics` adds Q3 (the techniques that apply, the
    recommendation and the explained solving path) for open boards with consistent givens, using `engine`
    (default: every technique in HoDoKu's order, with the search fallback).
    """
    conflicts = board.conflicts()
    if board.is_closed:
        valid = not conflicts
        return Report(board, tuple(conflicts), int(valid), board if valid else None)
    found = [] if conflicts else solutions(board, limit=ENUMERATED_SOLUTIONS + 1, backend=backend)
    moves = _possible_moves(board)
    flags = _dead_end_flags(board, moves, found, backend)
    report = Report(
        board=board,
        conflicts=tuple(conflicts),
        solution_count=min(len(found), SOLUTION_LIMIT),
        solution=found[0] if found else None,
        moves=tuple(Move(c, d, dead, board.n) for (c, d), dead in zip(moves, flags, strict=True)),
        no_solution_reason=None if found else _no_solution_reason(board, conflicts),
    )
    if heuristics and not conflicts:
        report = report.with_section(answer_q3(board, engine))
    return report
