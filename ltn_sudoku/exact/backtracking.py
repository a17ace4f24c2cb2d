"""Plain backtracking: the textbook baseline of the generalized-Sudoku study, with its backtrack counter.

The first empty cell in row-major order, digits 1..n in order, a safety check (the digit is not yet in the cell's
row, column or box), then the next empty cell; a digit whose subtree fails is taken back and counted as one
backtrack. No propagation, no ordering heuristic: on purpose, so that its counts are the study's
(allankassio/generalized-sudoku-solver, `SudokuBackTrackingSolver.num_backtracks`) on the same puzzles. The search
is an explicit stack (no recursion limit) over row, column and box bitmasks, so the check is O(1) where the study
scans the units; the order of placements, and so the counter, is the same.

It is exponential: `max_backtracks` and `deadline` (a `time.process_time()` value) stop it, and the result says
whether it finished. Bitmasks work for every side 4..81.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from ltn_sudoku.board import Board, geometry

CHECK_EVERY = 4096  # placements tried between two looks at the clock


@dataclass(frozen=True)
class BacktrackRun:
    """What one run found: up to `limit` solutions, the backtracks spent, and whether the search ended by itself
    (`complete`: every branch was tried or the limit was reached) or was stopped by a budget (`stopped`)."""

    solutions: tuple[Board, ...]
    backtracks: int
    complete: bool
    stopped: str | None = None  # "backtracks" or "time" when a budget ended the run

    @property
    def solution(self) -> Board | None:
        return self.solutions[0] if self.solutions else None


def run(board: Board, limit: int = 1, *, max_backtracks: int | None = None,
        deadline: float | None = None) -> BacktrackRun:
    """Search up to `limit` solutions; `backtracks` counts every placement taken back after its subtree failed
    (the study's counter when `limit` is 1: it stops at the first solution)."""
    if limit < 1:
        raise ValueError("limit must be at least 1")
    n = board.n
    g = geometry(n)
    values = list(board.values)
    rows, cols, boxes = [0] * n, [0] * n, [0] * n
    for cell, digit in enumerate(values):
        if digit:
            bit = 1 << (digit - 1)
            r, c, b = g.row[cell], g.col[cell], g.box[cell]
            if (rows[r] | cols[c] | boxes[b]) & bit:
                return BacktrackRun((), 0, True)  # the givens clash: no solution, nothing tried
            rows[r] |= bit
            cols[c] |= bit
            boxes[b] |= bit
    empty = [cell for cell, digit in enumerate(values) if not digit]
    where = [(g.row[c], g.col[c], g.box[c]) for c in empty]
    found: list[Board] = []
    backtracks = tried = 0
    depth = 0
    last = [0] * len(empty)  # per depth: the digit placed there (0: none yet)
    while True:
        if depth == len(empty):
            found.append(Board(values, n))
            if len(found) >= limit:
                return BacktrackRun(tuple(found), backtracks, True)
            depth -= 1  # look for the next solution: the last cell's placement is taken back, not counted
            if depth < 0:
                return BacktrackRun(tuple(found), backtracks, True)
            r, c, b = where[depth]
            bit = 1 << (last[depth] - 1)
            rows[r] ^= bit
            cols[c] ^= bit
            boxes[b] ^= bit
            values[empty[depth]] = 0
        r, c, b = where[depth]
        used = rows[r] | cols[c] | boxes[b]
        digit = last[depth] + 1
        while digit <= n and used >> (digit - 1) & 1:
            digit += 1
        tried += 1
        if tried % CHECK_EVERY == 0 and deadline is not None and time.process_time() > deadline:
            return BacktrackRun(tuple(found), backtracks, False, "time")
        if digit <= n:  # place it and go one cell deeper
            bit = 1 << (digit - 1)
            rows[r] |= bit
            cols[c] |= bit
            boxes[b] |= bit
            values[empty[depth]] = digit
            last[depth] = digit
            depth += 1
            continue
        # no digit left here: this cell is cleared and the placement one level up is taken back (a backtrack)
        last[depth] = 0
        depth -= 1
        if depth < 0:
            return BacktrackRun(tuple(found), backtracks, True)
        r, c, b = where[depth]
        bit = 1 << (last[depth] - 1)
        rows[r] ^= bit
        cols[c] ^= bit
        boxes[b] ^= bit
        values[empty[depth]] = 0
        backtracks += 1
        if max_backtracks is not None and backtracks > max_backtracks:
            return BacktrackRun(tuple(found), backtracks, False, "backtracks")


def solutions(board: Board, limit: int = 2) -> list[Board]:
    """Up to `limit` solutions (the whole search: no budget)."""
    return list(run(board, limit).solutions)


def count_solutions(board: Board, limit: int = 2) -> int:
    """Number of solutions, counted up to `limit`."""
    return len(run(board, limit).solutions)


def solve(board: Board) -> Board | None:
    """One solution, or None when the board has none."""
    return run(board, 1).solution
