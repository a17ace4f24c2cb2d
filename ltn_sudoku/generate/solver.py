"""The generators' view of the exact solver: batch calls over numpy arrays, with a backend switch.

"auto" uses ltn_sudoku.exact's batch entry points (the compiled kernel once it is there); "python" loops over the
pure-Python reference search, so benchmarks can compare both on the same work.
"""

from __future__ import annotations

import numpy as np

from ltn_sudoku import exact
from ltn_sudoku.board import Board, geometry

SOLVER_BACKENDS: tuple[str, ...] = ("auto", "python")
Made = tuple[np.ndarray, np.ndarray]  # (boards, solutions) of a batch; a zero solution row where there is none


def count_batch(puzzles: np.ndarray, n: int, limit: int, backend: str) -> np.ndarray:
    """min(#solutions, limit) per row of `puzzles` (m, n*n); 0 marks an empty cell."""
    if len(puzzles) == 0:
        return np.zeros(0, dtype=np.int64)
    if backend == "python":
        return np.array([exact.count_solutions(Board(row.tolist(), n), limit, backend="python") for row in puzzles],
                        dtype=np.int64)
    return np.asarray(exact.count_solutions_batch(np.ascontiguousarray(puzzles), limit), dtype=np.int64)


def with_count(boards: np.ndarray, solutions: np.ndarray, n: int, expected: int, backend: str) -> Made:
    """The boards (with their solutions) whose solution count, up to 2, is `expected`: the check every label passes."""
    ok = count_batch(boards, n, 2, backend) == expected
    return boards[ok], solutions[ok]


def random_grids(n: int, count: int, seed: int, backend: str) -> np.ndarray:
    """(count, n*n) random complete valid grids, the same for the same seed and backend."""
    if backend == "python":
        return _python_random_grids(n, count, seed)
    return np.asarray(exact.random_solutions(n, count, seed), dtype=np.int8)


def _python_random_grids(n: int, count: int, seed: int) -> np.ndarray:
    """Random digits in the (mutually independent) diagonal boxes, completed by the pure-Python search.

    Some fillings have no completion (they exist at 4x4); those are drawn again.
    """
    rng = np.random.default_rng(seed)
    g = geometry(n)
    diagonal = np.array([g.units[2 * n + b] for b in range(0, n, g.k + 1)])
    out = np.zeros((count, n * n), dtype=np.int8)
    done = 0
    while done < count:
        values = np.zeros(n * n, dtype=np.int64)
        values[diagonal] = rng.permuted(np.tile(np.arange(1, n + 1), (len(diagonal), 1)), axis=1)
        solution = exact.solve(Board(values.tolist(), n), backend="python")
        if solution is not None:
            out[done] = solution.values
            done += 1
    return out
