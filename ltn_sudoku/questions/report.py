"""The symbolic answers to the questions about one board, gathered in a Report (docs/design.md §6).

- Q1, closed board: is it a valid solution, and every conflict (unit, digit, cells).
- Q2, open board: are the givens consistent, how many solutions (0, 1, 2 meaning "at least two") and one of them,
  every basic-rule move (cell, digit) with whether it leads to a dead end, and the seed's obvious "no solution" reason.
- Q3, open board: the techniques that apply now, a ranked recommendation, the explained solving path, level and score
  (ltn_sudoku.questions.q3).
Further answers (Q3's techniques, the LTN's predictions) join a Report as sections: objects with ``as_dict()``
(top-level JSON keys) and ``describe()`` (readable lines), so adding one changes neither Report nor its renderers.

`classify_boards` is the one composer of whole reports (Q1/Q2 in a batch, Q3, then the sections of any
SectionSource, e.g. the LTN's answers, which the caller builds: this symbolic module never imports the learned
package); `classify` is the same for one board, and the CLI calls it for every chunk of a file.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Iterable, Iterator, Protocol, Sequence, overload

import numpy as np

from ltn_sudoku.board import DECIMAL, Board, Conflict, geometry, iter_bits
from ltn_sudoku.candidates import CandidateGrid
from ltn_sudoku.exact import WorkExceeded, solutions, solve_batch, solve_within
from ltn_sudoku.questions.engine import Engine, KnownSolutions
from ltn_sudoku.questions.q3 import Survey, answer_q3

SOLUTION_LIMIT = 2  # solutions are counted up to 2: 0 impossible, 1 unique, 2 "at least two"
# Up to this many solutions are enumerated in one search: when that is all of them, they settle every move at once,
# which is several times faster than a search per move on boards with a few solutions (scripts/bench_classify.py).
ENUMERATED_SOLUTIONS = 32
# Work units (exact.WorkExceeded: kernel dead ends, CaDiCaL conflicts, CNF candidates; a 9x9 search counts 1) the
# per-move dead-end proofs of one board may take by default (the solution count and the moves that agree with a
# found solution are always settled): board sides up to 16 get the first, larger ones the second. A count of work,
# so one board gets the same flags on every machine, loaded or not; about a CPU second and a few seconds of this
# project's 2-core machine (docs/cli.md). Moves still open past it get dead_end None and the report says why
# (Report.dead_end_limit); full=True lifts the limit.
DEAD_END_WORK = (50_000, 300_000)
# The CPU-seconds safety net of the proofs (sides up to 16, larger ones), checked between proofs: only a cost far
# beyond the work model's reaches it, and the report then says that this answer depends on the machine.
DEAD_END_GUARD_S = (10.0, 60.0)


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


class SectionSource(Protocol):
    """Further answers for a batch of boards (e.g. the LTN model's, built by the caller from a checkpoint): one
    section per board, in the boards' order."""

    def sections(self, boards: Sequence[Board]) -> Iterable[ReportSection]:
        ...


@dataclass(frozen=True)
class Move:
    """Placing `digit` in the empty `cell` (a basic-rule candidate), and whether no solution remains after it (None:
    not decided within the work budget, see Report.dead_end_limit)."""

    cell: int
    digit: int
    dead_end: bool | None
    n: int

    @property
    def name(self) -> str:
        """r1c1 notation, 1-based: 'r1c2=3'."""
        return f"{geometry(self.n).cell_name(self.cell)}={self.digit}"

    def as_dict(self) -> dict[str, object]:
        """JSON-ready, 0-based row and column."""
        g = geometry(self.n)
        return {"row": g.row[self.cell], "col": g.col[self.cell], "digit": self.digit, "dead_end": self.dead_end}


class Moves(Sequence[Move]):
    """The basic-rule moves of a board as parallel tuples (cells, digits, dead-end flags): cheap to build and to count
    for a million boards; a Move object is made only when one is asked for."""

    __slots__ = ("cells", "digits", "flags", "n", "_dead")

    def __init__(self, cells: Sequence[int], digits: Sequence[int], flags: Sequence[bool | None], n: int,
                 dead_ends: int | None = None) -> None:
        """`dead_ends`: how many flags are True, when the caller has counted them (every flag then decided)."""
        self.cells, self.digits, self.flags, self.n, self._dead = cells, digits, flags, n, dead_ends

    def dead_end_counts(self) -> tuple[int, int]:
        """(dead ends, undecided moves)."""
        if self._dead is not None:
            return self._dead, 0
        return self.flags.count(True), self.flags.count(None)

    def __len__(self) -> int:
        return len(self.cells)

    @overload
    def __getitem__(self, i: int) -> Move: ...
    @overload
    def __getitem__(self, i: slice) -> tuple[Move, ...]: ...
    def __getitem__(self, i: int | slice) -> Move | tuple[Move, ...]:
        if isinstance(i, slice):
            return tuple(self)[i]
        return Move(self.cells[i], self.digits[i], self.flags[i], self.n)

    def __iter__(self) -> Iterator[Move]:
        n = self.n
        return (Move(c, d, f, n) for c, d, f in zip(self.cells, self.digits, self.flags))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and tuple(self) == tuple(other)

    def __hash__(self) -> int:
        return hash((tuple(self.cells), tuple(self.digits), tuple(self.flags)))

    def __repr__(self) -> str:
        return f"Moves({len(self)} moves, {self.flags.count(True)} dead ends)"

    def as_dicts(self) -> list[dict[str, object]]:
        """Move.as_dict of every move, without making the Move objects."""
        g = geometry(self.n)
        return [{"row": g.row[c], "col": g.col[c], "digit": d, "dead_end": f}
                for c, d, f in zip(self.cells, self.digits, self.flags)]


@dataclass(frozen=True)
class Report:
    """Everything the symbolic engine says about one board."""

    board: Board
    conflicts: tuple[Conflict, ...]
    solution_count: int
    solution: Board | None
    moves: Sequence[Move] = ()
    no_solution_reason: str | None = None
    sections: tuple[ReportSection, ...] = ()
    dead_end_limit: str | None = None  # why some moves' dead_end is None (the proofs' work budget ran out)

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
        return self._flags().count(True)

    def _flags(self) -> Sequence[bool | None]:
        return self.moves.flags if isinstance(self.moves, Moves) else tuple(m.dead_end for m in self.moves)

    def known_solutions(self) -> KnownSolutions:
        """Q2's exact answer in the form the technique engine takes it (so that Q3 does not count again)."""
        return KnownSolutions(self.solution_count, self.solution)

    def with_section(self, section: ReportSection) -> Report:
        """A copy with one more section (the way later answers join the report)."""
        return replace(self, sections=(*self.sections, section))

    def as_dict(self, moves: bool = True, symbols: str = DECIMAL) -> dict[str, object]:
        """JSON-ready: 0-based cells; boards in the line format (Board.to_line, boards above 9x9 in `symbols`, a
        convention of board.SYMBOLS); sections' keys appended. With moves=False the move list is replaced by its
        length and the counts `dead_ends`, `dead_ends_unknown` (what a CSV row holds, without building a dict per
        move)."""
        out: dict[str, object] = {
            "size": self.board.n,
            "board": self.board.to_line(symbols),
            "givens": self.board.givens,
            "closed": self.closed,
            "valid": self.valid,
            "conflicts": [c.as_dict() for c in self.conflicts],
            "solvable": self.solvable,
            "solutions": self.solution_count,
            "solution": self.solution.to_line(symbols) if self.solution is not None else None,
            "no_solution_reason": self.no_solution_reason,
            "moves": self._move_dicts() if moves else len(self.moves),
            "dead_end_limit": self.dead_end_limit,
        }
        if not moves:
            if isinstance(self.moves, Moves):
                dead, unknown = self.moves.dead_end_counts()
            else:
                flags = self._flags()
                dead, unknown = flags.count(True), flags.count(None)
            out.update(dead_ends=dead, dead_ends_unknown=unknown)
        for section in self.sections:
            out.update(section.as_dict())
        return out

    def _move_dicts(self) -> list[dict[str, object]]:
        return self.moves.as_dicts() if isinstance(self.moves, Moves) else [m.as_dict() for m in self.moves]


def _possible_moves(board: Board) -> list[tuple[int, int]]:
    """Every (cell, digit) that the basic rule allows: an empty cell and a digit none of its peers holds."""
    return [(c, b + 1) for c, mask in enumerate(board.candidate_masks()) for b in iter_bits(mask)]


def _dead_end_flags(board: Board, moves: list[tuple[int, int]], found: list[Board], backend: str,
                    budget: int | None, guard_s: float | None = None) -> tuple[list[bool | None], str | None]:
    """Whether each move leaves no solution, with as few searches as possible, and why some stay undecided.

    A move that agrees with a known solution is alive: one solution clears every move it contains. When `found`
    holds every solution (no more than ENUMERATED_SOLUTIONS: none, a unique one, or a few), every other move is
    dead. Otherwise each remaining move gets one search for a single solution, and every solution found that way
    also clears the later moves agreeing with it. The searches share `budget` work units (exact.solve_within; None:
    no limit): a search is cut where the rest of it runs out, and every move still open then is left undecided
    (None), at the same point on every machine. `guard_s` CPU seconds is only a safety net, said so when it fires.
    """
    empty = board.empty_cells
    alive = {(c, s.values[c]) for s in found for c in empty}
    if len(found) <= ENUMERATED_SOLUTIONS:
        return [m not in alive for m in moves], None
    guard = None if guard_s is None else time.process_time() + guard_s
    left = budget
    guard_fired = False
    flags: list[bool | None] = []
    for cell, digit in moves:
        if (cell, digit) in alive:
            flags.append(False)
            continue
        if left is not None and left <= 0 or guard_fired:
            flags.append(None)
            continue
        if guard is not None and time.process_time() > guard:
            guard_fired = True
            flags.append(None)
            continue
        try:
            witness, work = solve_within(board.with_value(cell, digit), left, backend)
        except WorkExceeded:
            flags.append(None)
            left = 0
            continue
        if left is not None:
            left -= work
        if witness is not None:
            alive.update((c, witness.values[c]) for c in empty)
        flags.append(witness is None)
    undecided = flags.count(None)
    if not undecided:
        return flags, None
    why = (f"the CPU-time safety net ({guard_s:g} s) stopped them, so this answer depends on the machine's speed "
           "and load" if guard_fired else f"their dead-end proofs exceeded the budget of {budget:,} work units")
    return flags, f"{undecided} of {len(moves)} moves undecided: {why} (classify --full-analysis decides every move)"


def dead_end_budget(n: int) -> int:
    """The default work budget of the per-move dead-end proofs for a board side."""
    return DEAD_END_WORK[0] if n <= 16 else DEAD_END_WORK[1]


def dead_end_guard(n: int) -> float:
    """The CPU-seconds safety net of the per-move dead-end proofs for a board side."""
    return DEAD_END_GUARD_S[0] if n <= 16 else DEAD_END_GUARD_S[1]


def _no_solution_reason(board: Board, conflicts: list[Conflict]) -> str | None:
    """The obvious reason an open board has no solution, or None when the reason is subtle (search only)."""
    if conflicts:
        others = len(conflicts) - 1
        more = f" (and {others} more conflict{'s' if others > 1 else ''})" if others else ""
        return f"the givens conflict: {conflicts[0].describe()}{more}"
    return CandidateGrid.from_board(board).dead_end()


def classify(board: Board, backend: str = "auto", heuristics: bool = True, engine: Engine | None = None,
             full: bool = False, survey: Survey = "tiered", sources: Sequence[SectionSource] = (),
             model: SectionSource | None = None) -> Report:
    """Answer Q1 (closed board) or Q2 and Q3 (open board) exactly: classify_boards for one board. `model`: a loaded
    LTN model (ltn_sudoku.load_model) whose answer joins the report as its `ltn` section."""
    return classify_boards([board], backend, heuristics, engine, full, survey,
                           (*sources, model) if model is not None else sources)[0]


def classify_boards(boards: Sequence[Board], backend: str = "auto", heuristics: bool = True,
                    engine: Engine | None = None, full: bool = False, survey: Survey = "tiered",
                    sources: Sequence[SectionSource] = ()) -> list[Report]:
    """The whole Report of each board (all of one size), in order: Q1/Q2 together (classify_batch), Q3 board by
    board, then each source's sections.

    `backend` picks the exact solver (ltn_sudoku.exact); `heuristics` adds Q3 (the techniques that apply, the
    recommendation and the explained solving path) for open boards with consistent givens, using `engine`
    (default: every technique in HoDoKu's order, with the search fallback) and its `survey` (q3.answer_q3).
    By default the answers that can cost more than a few seconds on large boards are limited, and the report says
    so (Report.dead_end_limit, Q3's `heuristics_limit`); `full=True` asks for the whole analysis whatever it costs.
    `sources`: further answers (the LTN's), one section per board each.
    """
    reports = classify_batch(boards, backend, full)
    if heuristics:
        reports = [report.with_section(answer_q3(report.board, engine, full=full, known=report.known_solutions(),
                                                 survey=survey))
                   if not report.closed and report.valid else report for report in reports]
    for source in sources:
        reports = [report.with_section(section)
                   for report, section in zip(reports, source.sections(boards), strict=True)]
    return reports


def _classify_one(board: Board, backend: str, full: bool) -> Report:
    """Q1/Q2 of one board (what classify_batch falls back to)."""
    conflicts = board.conflicts()
    if board.is_closed:
        valid = not conflicts
        return Report(board, tuple(conflicts), int(valid), board if valid else None)
    found = [] if conflicts else solutions(board, limit=ENUMERATED_SOLUTIONS + 1, backend=backend)
    moves = _possible_moves(board)
    flags, limit = (_dead_end_flags(board, moves, found, backend, None) if full else
                    _dead_end_flags(board, moves, found, backend, dead_end_budget(board.n), dead_end_guard(board.n)))
    return Report(
        board=board,
        conflicts=tuple(conflicts),
        solution_count=min(len(found), SOLUTION_LIMIT),
        solution=found[0] if found else None,
        moves=Moves([c for c, _ in moves], [d for _, d in moves], flags, board.n),
        no_solution_reason=None if found else _no_solution_reason(board, conflicts),
        dead_end_limit=limit,
    )


def classify_batch(boards: Sequence[Board], backend: str = "auto", full: bool = False) -> list[Report]:
    """Q1/Q2 of many boards of one size (classify_boards adds Q3 and the other sections), computed
    together: conflicts and basic-rule candidates as array operations, the solution counts in one call of the
    compiled solver. Boards where that is not enough (conflicting open boards, several solutions, another backend)
    go through the one-board path, and so do the portfolio's ("auto") boards of side above 9: the batch counts
    with the kernel alone, without the cap that hands a sparse large board to CaDiCaL (one sparse 36x36 board kept
    classify-board busy for over 10 minutes that way, against 22 s through the portfolio)."""
    if not boards or backend not in ("auto", "kernel") or (backend == "auto" and boards[0].n > 9):
        return [_classify_one(b, backend, full) for b in boards]
    n = boards[0].n
    g = geometry(n)
    m, cells = len(boards), n * n
    values = np.frombuffer(b"".join(b.cell_bytes() for b in boards), np.uint8).reshape(m, cells).astype(np.int32)
    units, units_of_cell = np.array(g.units), np.array(g.units_of_cell)
    # board, unit, digit: how often the digit stands in the unit (one bincount over every board's units)
    key = (np.arange(m)[:, None, None] * len(units) + np.arange(len(units))[None, :, None]) * (n + 1) + \
        values[:, units]
    per_unit = np.bincount(key.ravel(), minlength=m * len(units) * (n + 1)).reshape(m, len(units), n + 1)[..., 1:]
    consistent = np.asarray((per_unit <= 1).all(axis=(1, 2)))  # an array: numpy's stub allows a scalar
    present = per_unit > 0
    seen_by_peers = present[:, units_of_cell[:, 0]] | present[:, units_of_cell[:, 1]] | \
        present[:, units_of_cell[:, 2]]  # board, cell, digit
    candidates = (values == 0)[..., None] & ~seen_by_peers
    is_open = (values == 0).any(axis=1)
    solved = is_open & consistent
    counts = np.full(m, -1, dtype=np.int64)  # -1: not searched (closed, or conflicting givens)
    first = np.zeros_like(values)
    counts[solved], first[solved] = solve_batch(values[solved], limit=2)
    # every candidate of every board at once: board, cell, digit, and whether it disagrees with the first solution
    which, cell, digit = np.nonzero(candidates)
    digit += 1
    dead = (first[which, cell] != digit) | (counts[which] == 0)
    bounds = np.searchsorted(which, np.arange(m + 1)).tolist()
    cell_list, digit_list, dead_list = cell.tolist(), digit.tolist(), dead.tolist()
    dead_counts = np.bincount(which, weights=dead, minlength=m).astype(np.int64).tolist()
    first_cells = first.astype(np.uint8).tobytes()  # one byte per cell: Board.from_cell_bytes, no validation loop
    reports: list[Report] = []
    for i, (board, count, open_, fine) in enumerate(zip(boards, counts.tolist(), is_open.tolist(),
                                                        consistent.tolist())):
        if not open_:
            conflicts = () if fine else tuple(board.conflicts())
            reports.append(Report(board, conflicts, int(not conflicts), board if not conflicts else None))
        elif count not in (0, 1):  # conflicting givens, or several solutions: the one-board path
            reports.append(_classify_one(board, backend, full))
        else:
            lo, hi = bounds[i], bounds[i + 1]
            moves = Moves(cell_list[lo:hi], digit_list[lo:hi], dead_list[lo:hi], n, dead_counts[i])
            solution = Board.from_cell_bytes(first_cells[i * cells:(i + 1) * cells], n)
            reports.append(Report(board, (), 1, solution, moves) if count == 1 else
                           Report(board, (), 0, None, moves, no_solution_reason=_no_solution_reason(board, [])))
    return reports
