"""Exact solving: the oracle of the whole package.

`count_solutions(board, limit)` and `solve(board)` pick the fastest available backend; `backend=` forces one:
- "python": pure-Python bitmask search (ltn_sudoku.exact.search), the readable reference;
- "dlx": Dancing Links / Algorithm X (ltn_sudoku.exact.dlx), an independent implementation for cross-checks;
- "kernel": the compiled kernel (ltn_sudoku.exact.kernel), when it is available.
"""

from __future__ import annotations

from types import ModuleType

from ltn_sudoku.board import Board

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
