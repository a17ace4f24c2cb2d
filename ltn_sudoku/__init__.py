"""ltn-sudoku: how far Logic Tensor Networks learn Sudoku reasoning, beside an exact symbolic engine.

Top-level API: Board, count_solutions, solve, classify, load_model (the learned models: logic/api.py). Heavy
parts (torch, the technique engine) load lazily. In a notebook (IPython loaded) boards, steps, solving paths and
reports display as pictures (render/notebook.py).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from ltn_sudoku.board import Board, BoardError, Conflict
from ltn_sudoku.exact import count_solutions, solve

if TYPE_CHECKING:
    from ltn_sudoku.logic.api import load_model
    from ltn_sudoku.questions.report import Report, classify

__all__ = ["Board", "BoardError", "Conflict", "count_solutions", "solve", "classify", "Report", "load_model"]
__version__ = "0.1.0"  # the one source of the version: pyproject.toml reads it (dynamic), --version prints it


def __getattr__(name: str) -> Any:
    if name in ("classify", "Report"):
        from ltn_sudoku.questions import report as questions

        return getattr(questions, name)
    if name == "load_model":
        from ltn_sudoku.logic import api  # torch loads here, not on `import ltn_sudoku`

        return api.load_model
    raise AttributeError(f"module 'ltn_sudoku' has no attribute {name!r}")


if "IPython" in sys.modules:  # a notebook or an IPython shell: pictures for the package's objects
    from ltn_sudoku.render.notebook import register

    register()
