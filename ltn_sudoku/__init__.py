"""ltn-sudoku: how far Logic Tensor Networks learn Sudoku reasoning, beside an exact symbolic engine.

Top-level API: Board, count_solutions, solve, classify. Heavy parts (torch, the technique engine) load lazily.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ltn_sudoku.board import Board, BoardError, Conflict
from ltn_sudoku.exact import count_solutions, solve

if TYPE_CHECKING:
    from ltn_sudoku.questions.report import Report, classify

__all__ = ["Board", "BoardError", "Conflict", "count_solutions", "solve", "classify", "Report"]
__version__ = "0.1.0"  # the one source of the version: pyproject.toml reads it (dynamic), --version prints it


def __getattr__(name: str) -> Any:
    if name in ("classify", "Report"):
        from ltn_sudoku.questions import report as questions

        return getattr(questions, name)
    raise AttributeError(f"module 'ltn_sudoku' has no attribute {name!r}")
