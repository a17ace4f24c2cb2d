"""Exact solving: the oracle of the whole package.

`count_solutions(board, limit)`, `solve(board)` and `solve_within(board, max_work)` use the portfolio ("auto",
ltn_sudoku.exact.portfolio: the kernel under a budget of dead ends, then python-sat's CaDiCaL; `answer(board, limit)`
also says which one answered);
`backend=` forces one:
- "kernel": the numba kernel (ltn_sudoku.exact.kernel), the fast one, without a cap;
- "python": pure-Python bitmask search (ltn_sudoku.exact.search), the readable reference;
- "dlx": Dancing Links / Algorithm X (ltn_sudoku.exact.dlx), an independent implementation for cross-checks;
- "backtracking": plain backtracking (ltn_sudoku.exact.backtracking), the generalized-Sudoku study's baseline:
  exponential, for reproductions and small boards.

`exact_cover(columns, rows)` is Dancing Links on any exact-cover problem (ltn_sudoku.exact.dlx).

Batch API on numpy arrays (m, n*n), row-major, 0 = empty, always through the kernel:
`count_solutions_batch`, `solve_batch`, `random_solutions`. `count_solutions_nb` is the kernel's function for other
@njit code (see ltn_sudoku.exact.kernel). numba loads only when the kernel is first used.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

import numpy as np

from ltn_sudoku.board import Board
from ltn_sudoku.exact.dlx import exact_cover

BACKENDS: tuple[str, ...] = ("auto", "kernel", "python", "dlx", "backtracking")
_MODULES = {"auto": "portfolio", "kernel": "kernel", "python": "search", "dlx": "dlx", "backtracking": "backtracking"}
_LOADED: dict[str, ModuleType] = {}  # backend name -> module, so a single-board call pays one dict lookup


__all__ = ["BACKENDS", "WorkExceeded", "count_solutions", "count_solutions_batch", "exact_cover", "random_solutions",
           "solutions", "solve", "solve_batch", "solve_within"]


class WorkExceeded(Exception):
    """A search needed more than its `max_work`. Work units are the kernel's dead ends and CaDiCaL's conflicts granted
    to the portfolio's runs, plus one per candidate when it builds a CNF (a 9x9 or smaller board's search, the band
    solver's, counts 1): a count of work, not of time, so the same board stops at the same point on every machine."""


def _backend(name: str) -> ModuleType:
    module = _LOADED.get(name)
    if module is None:
        if name not in _MODULES:
            raise ValueError(f"unknown solver backend {name!r}: expected one of {', '.join(BACKENDS)}")
        module = _LOADED[name] = importlib.import_module(f"ltn_sudoku.exact.{_MODULES[name]}")
    return module


def count_solutions(board: Board, limit: int = 2, backend: str = "auto") -> int:
    """Number of solutions up to `limit`: 0 (impossible), 1 (unique), ... `limit` means 'at least limit'."""
    return (_LOADED.get(backend) or _backend(backend)).count_solutions(board, limit)  # every backend gives an int


def solve(board: Board, backend: str = "auto", deadline: float | None = None) -> Board | None:
    """One solution, or None when there is none.

    deadline: a time.perf_counter() value. The portfolio ("auto") checks it between its slices and raises
    TimeoutError once it has passed without an answer; the other backends ignore it and run to the end.
    """
    if deadline is not None and backend == "auto":
        return _backend(backend).solve(board, deadline)
    return _backend(backend).solve(board)


def solve_within(board: Board, max_work: int | None, backend: str = "auto") -> tuple[Board | None, int]:
    """One solution (or None) and the work it took: the portfolio ("auto") counts kernel dead ends and CaDiCaL
    conflicts and raises WorkExceeded past `max_work` (None: no cap), the same on every machine; the other
    backends run to the end and count 1."""
    if backend == "auto":
        return _backend(backend).solve_within(board, max_work)
    return _backend(backend).solve(board), 1


def solutions(board: Board, limit: int = 2, backend: str = "auto") -> list[Board]:
    """Up to `limit` distinct solutions."""
    return _backend(backend).solutions(board, limit)


def count_solutions_batch(puzzles: np.ndarray, limit: int = 2) -> np.ndarray:
    """Per row of `puzzles` (m, n*n), 0 = empty: min(#solutions, limit), as an int64 array of length m."""
    return _backend("kernel").count_solutions_batch(puzzles, limit)


def solve_batch(puzzles: np.ndarray, limit: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """(counts, first solutions): counts as count_solutions_batch, solutions (m, n*n) int32, zero rows where none."""
    return _backend("kernel").solve_batch(puzzles, limit)


def random_solutions(n: int, count: int, seed: int) -> np.ndarray:
    """(count, n*n) random complete valid grids, the same for the same seed (randomized search on an empty grid)."""
    return _backend("kernel").random_solutions(n, count, seed)


def __getattr__(name: str) -> Any:
    if name == "count_solutions_nb":  # loads numba only when asked for
        return _backend("kernel").count_solutions_nb
    if name in ("answer", "Answer"):
        return getattr(_backend("auto"), name)
    raise AttributeError(f"module 'ltn_sudoku.exact' has no attribute {name!r}")
