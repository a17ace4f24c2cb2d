"""The default exact backend ("auto"): the kernel under a budget of dead ends, then CaDiCaL and the kernel in turns.

The kernel answers almost every board in micro- to milliseconds, but on sparse large boards (16x16 and up, 30-50 %
givens) its depth-first search can meet a heavy tail: a subtree without solutions it has to exhaust. So a count of a
side above 9 runs under a budget of `dead_end_budget(n)` dead ends (about a tenth of what CaDiCaL needs on such a
board, see docs/exact.md); past it python-sat's CaDiCaL, an existing CDCL solver, takes the candidates the kernel's
root propagation leaves (ltn_sudoku.exact.sat), and the two take turns with growing slices until one answers.
`answer()` says which engine answered.
9x9 and smaller always stay in the kernel (its worst known 9x9 puzzles take milliseconds). Without python-sat the
kernel runs without a cap, as the "kernel" backend does.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ltn_sudoku.board import Board
from ltn_sudoku.exact import WorkExceeded, kernel, sat

KERNEL, CADICAL = "kernel", "cadical"
_FIRST_CONFLICTS = 2000  # CaDiCaL's first slice, about as long as the kernel's first budget on 25x25 boards
_TURNS_UP_TO = 25  # larger sides: once CaDiCaL has the board it runs to the end (unless a deadline asks for slices)


@dataclass(frozen=True)
class Answer:
    """A count to a limit: min(#solutions, limit), up to `store` of the solutions, the engine that answered, and the
    work it was granted (see WorkExceeded)."""

    count: int
    solutions: tuple[Board, ...]
    engine: str  # KERNEL or CADICAL
    work: int = 0


def dead_end_budget(n: int) -> int:
    """Dead ends the kernel may meet before a board of side n goes to CaDiCaL; 0 = no cap (n <= 9).

    n * n dead ends cost about 2, 15, 40 and 110 ms at n = 16, 25, 36 and 49 (a dead end costs more on larger
    boards), a fraction of CaDiCaL's own time on the sparse boards that exhaust it (scripts/bench_exact_sparse.py).
    """
    return 0 if n <= 9 else n * n


def _check(deadline: float | None, n: int) -> None:
    if deadline is not None and time.perf_counter() > deadline:
        raise TimeoutError(f"no answer for this {n}x{n} board within the deadline")


def answer(board: Board, limit: int = 2, store: int = 0, max_dead_ends: int | None = None,
           deadline: float | None = None, max_work: int | None = None) -> Answer:
    """Count the solutions of `board` up to `limit`, keeping the first `store` (<= limit) of them.

    deadline: a time.perf_counter() value; TimeoutError when it has passed at the end of a slice that gave no
    answer (slices are never cut: the first kernel run takes up to n*n dead ends, later ones twice the last; a
    CaDiCaL slice is sized from its last one's rate to end about at the deadline).

    The kernel runs first under max_dead_ends (default dead_end_budget(board.n); 0 = no cap, the kernel alone).
    Past it the two engines take turns: CaDiCaL with 2,000, 8,000, 32,000, ... conflicts (keeping what it learned),
    the kernel with twice the dead ends of its last turn (from scratch). When CaDiCaL is the faster engine the
    kernel's turns add a shrinking share (a few tenths); when the kernel is, CaDiCaL's turns cost more, but then the
    kernel needed far less than CaDiCaL alone would. Above 25x25 (without a deadline) there are no turns: CaDiCaL
    runs uninterrupted once the kernel's first budget is spent. There the kernel's later turns answered no sampled
    board, and CaDiCaL in slices took up to twice its uninterrupted time (docs/exact.md, sparse boards).

    max_work: WorkExceeded once the next run would pass this many work units (see exact.WorkExceeded); each run is then
    cut to what is left, so the count stops at the same point on every machine (no run is cut by time).
    """
    kernel._check_limit(limit)
    n = board.n
    grid = np.asarray(board.values, np.int32)
    cap = dead_end_budget(n) if max_dead_ends is None else max_dead_ends
    if cap and not sat.available():
        cap = 0
    if max_work is not None and n > 9:
        cap = min(cap or max_work, max_work)  # the kernel's first run stays within the work too
    spent = cap if n > 9 else 1  # the band solver (9x9 and less) has no cap and needs none: one unit
    found = np.zeros((store, n * n), np.int16)
    got = kernel._count_capped(grid, n, limit, cap, found)
    if got >= 0:
        return Answer(got, tuple(Board(row.tolist(), n) for row in found[: min(got, store)]), KERNEL, spent)
    _check(deadline, n)
    if not sat.available():  # only a work cap stops the kernel then: without CaDiCaL nothing can take over
        raise WorkExceeded(f"no answer within {max_work:,} work units (python-sat is not installed)")
    candidates = np.zeros((n * n, n), np.bool_)
    kernel._root_candidates(grid, n, candidates)  # a contradiction leaves a cell without candidates: no solution
    spent += int(candidates.sum())  # the CNF: one unit per candidate left
    _check_work(spent, max_work)
    counter = sat.SatCount(candidates, n, limit, store)
    conflicts = _FIRST_CONFLICTS if n <= _TURNS_UP_TO or deadline is not None or max_work is not None else 0
    try:
        while True:
            if max_work is not None:
                conflicts = min(conflicts, (max_work - spent) // limit)
                _check_work(spent + 1 if conflicts < 1 else spent, max_work)
            started = time.perf_counter()
            spent += conflicts * limit  # at most `conflicts` per solve, one solve per solution
            if counter.run(conflicts):
                break
            _check(deadline, n)
            rate = conflicts / max(time.perf_counter() - started, 1e-6)  # CaDiCaL's conflicts per second here
            cap *= 2
            if max_work is not None:
                cap = min(cap, max_work - spent)
                _check_work(spent + 1 if cap < 1 else spent, max_work)
            spent += cap
            got = kernel._count_capped(grid, n, limit, cap, found)
            if got >= 0:
                return Answer(got, tuple(Board(row.tolist(), n) for row in found[: min(got, store)]), KERNEL, spent)
            conflicts *= 4  # CaDiCaL's share grows: when it is the faster engine, the kernel's turns cost little
            if deadline is not None:  # but a slice ends about when the deadline comes, not up to 4x past it
                conflicts = min(conflicts, max(_FIRST_CONFLICTS, int(rate * (deadline - time.perf_counter()))))
    finally:
        counter.close()
    return Answer(counter.total, tuple(Board(row.tolist(), n) for row in counter.solutions()), CADICAL, spent)


def _check_work(spent: int, max_work: int | None) -> None:
    if max_work is not None and spent > max_work:
        raise WorkExceeded(f"no answer within {max_work:,} work units")


def count_solutions(board: Board, limit: int = 2) -> int:
    """min(#solutions, limit)."""
    if board.n == 9 and limit >= 1:  # the common case, without answer()'s allocations: the band solver on the bytes
        cells = board._cells  # a parsed board's bytes, read without cell_bytes()'s call (a tenth of the whole count)
        return kernel._count_cells(cells if cells is not None else board.cell_bytes(), limit)
    return answer(board, limit).count


def solutions(board: Board, limit: int = 2, deadline: float | None = None) -> list[Board]:
    """Up to `limit` distinct solutions (deadline: as in answer(); boards of side 9 and less never time out)."""
    if board.n <= 9 or limit > kernel._STORE_FIRST:  # no cap there / room for every solution: the kernel's path
        return kernel.solutions(board, limit)
    return list(answer(board, limit, store=limit, deadline=deadline).solutions)


def solve(board: Board, deadline: float | None = None) -> Board | None:
    """One solution, or None when there is none (deadline: as in answer())."""
    found = solutions(board, 1, deadline)
    return found[0] if found else None


def solve_within(board: Board, max_work: int | None) -> tuple[Board | None, int]:
    """One solution or None, and the work units the search was granted; WorkExceeded past `max_work` (answer())."""
    found = answer(board, 1, store=1, max_work=max_work)
    return (found.solutions[0] if found.solutions else None), found.work
