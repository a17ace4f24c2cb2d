"""Exact solving: the oracle of the whole package.

`count_solutions(board, limit)` and `solve(board)` pick the fastest available backend; `backend=` forces one:
- "python": pure-Python bitmask search (ltn_sudoku.exact.search), the readable reference;
- "dlx": Dancing Links / Algorithm X (ltn_sudoku.exact.dlx), an independent implementation for cross-checks;
- "kernel": the compiled kernel (ltn_sudoku.exact.kernel), when it is available.
"""

from __future__ import annotations

from types import ModuleType

import numpy as np

from ltn_sudoku.board import Board, geometry

BACKENDS: tuple[str, ...] = ("auto", "kernel", "python", "dlx")


def _backend(name: str) -> ModuleType:
    if name == "auto":
        try:
            from ltn_sudoku.exact import kernel

            return kernel
        except ImportError:
            name = "python"
    if name == "python":
        from ltn_sudoku.exact import search

        return search
    if name == "dlx":
        from ltn_sudoku.exact import dlx

        return dlx
    if name == "kernel":
        from ltn_sudoku.exact import kernel

        return kernel
    raise ValueError(f"unknown solver backend {name!r}: expected one of {', '.join(BACKENDS)}")


def count_solutions(board: Board, limit: int = 2, backend: str = "auto") -> int:
    """Number of solutions up to `limit`: 0 (impossible), 1 (unique), ... `limit` means 'at least limit'."""
    return int(_backend(backend).count_solutions(board, limit))


def solve(board: Board, backend: str = "auto") -> Board | None:
    """One solution, or None when there is none."""
    return _backend(backend).solve(board)


def solutions(board: Board, limit: int = 2, backend: str = "auto") -> list[Board]:
    """Up to `limit` distinct solutions."""
    return _backend(backend).solutions(board, limit)


# ---- batch API (numpy in, numpy out): the generators' and labellers' entry points ------------------------------------
def _as_boards(puzzles: np.ndarray) -> list[Board]:
    grid = np.asarray(puzzles)
    if grid.ndim != 2:
        raise ValueError(f"puzzles must be a 2-D array (m, n*n), got shape {grid.shape}")
    return [Board(row.tolist()) for row in grid]


def count_solutions_batch(puzzles: np.ndarray, limit: int = 2) -> np.ndarray:
    """Per row of `puzzles` (m, n*n), 0 = empty: min(#solutions, limit), as an int64 array of length m."""
    counts, _ = solve_batch(puzzles, limit)
    return counts


def solve_batch(puzzles: np.ndarray, limit: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """(counts, first solutions): counts as count_solutions_batch, solutions (m, n*n) with zero rows where none."""
    if limit < 1:
        raise ValueError("limit must be at least 1")
    from ltn_sudoku.exact import search

    boards = _as_boards(puzzles)
    m = len(boards)
    cells = boards[0].cell_count if boards else np.asarray(puzzles).shape[1]
    counts = np.zeros(m, dtype=np.int64)
    firsts = np.zeros((m, cells), dtype=np.int64)
    for i, b in enumerate(boards):
        sols = search.solutions(b, limit)
        counts[i] = len(sols)
        if sols:
            firsts[i] = sols[0].values
    return counts, firsts


def random_solutions(n: int, count: int, seed: int) -> np.ndarray:
    """(count, n*n) random complete valid grids, the same for the same seed (randomized search on an empty grid)."""
    from ltn_sudoku.exact import search

    rng = np.random.default_rng(seed)
    k = geometry(n).k
    out = np.zeros((count, n * n), dtype=np.int64)
    for i in range(count):
        values = [0] * (n * n)
        for b in range(0, n, k + 1):  # the diagonal boxes are independent: fill them at random, search the rest
            for cell, digit in zip(geometry(n).units[2 * n + b], rng.permutation(n) + 1):
                values[cell] = int(digit)
        sol = search.solve(Board(values, n))
        assert sol is not None
        out[i] = sol.values
    return out
