"""Pictures in a notebook (render/notebook.py): IPython's display formatters draw a Board and a Step as SVG, a solving
path and a Report as HTML, and the LTN's answer draws itself; `import ltn_sudoku` installs them under IPython."""

from __future__ import annotations

import subprocess
import sys

import pytest

from ltn_sudoku.io import parse_board_text
from ltn_sudoku.questions.engine import build
from ltn_sudoku.questions.report import classify
from ltn_sudoku.render.notebook import register, step_view

IPython = pytest.importorskip("IPython")  # the [dev] extras install it (the notebooks' kernel)
SEED_9 = "2.14.....4...7358..5....6....9.2.8.1.23.1..5...8354..97..28.....15..93.6.6....74."


@pytest.fixture(scope="module")
def shell():  # type: ignore[no-untyped-def]
    from IPython.core.interactiveshell import InteractiveShell

    sh = InteractiveShell.instance()
    assert register(sh)
    return sh


def _formats(shell, obj: object) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return shell.display_formatter.format(obj)[0]


def test_board_step_and_path_display_as_pictures(shell) -> None:  # type: ignore[no-untyped-def]
    board = parse_board_text(SEED_9)
    assert _formats(shell, board)["image/svg+xml"].startswith("<svg")
    path = build().solve(board)
    html = _formats(shell, path)["text/html"]
    assert html.count("<svg") == 6 and "solved" in html and f"{len(path.steps)} steps" in html
    assert _formats(shell, path.steps[2])["image/svg+xml"].startswith("<svg")  # a bare Step: on an open grid
    assert step_view(path, 2)._repr_svg_().startswith("<svg")  # on the grid it was found in


def test_report_and_ltn_answer_display(shell) -> None:  # type: ignore[no-untyped-def]
    import ltn_sudoku

    board = parse_board_text(SEED_9)
    html = _formats(shell, classify(board))["text/html"]
    assert "<svg" in html and "Q1 / Q2" in html and "Q3" in html
    report = ltn_sudoku.classify(board, model=ltn_sudoku.load_model("9x9"))
    html = _formats(shell, report)["text/html"]
    assert "hasSolution: it believes the board" in html and 'class="ltn-board"' in html
    assert 'class="ltn-board"' in _formats(shell, report.sections[-1])["text/html"]


def test_import_under_ipython_registers_the_views() -> None:
    code = ("from IPython.core.interactiveshell import InteractiveShell; sh = InteractiveShell.instance(); "
            "import ltn_sudoku; from ltn_sudoku.board import Board; "
            "print(sorted(sh.display_formatter.format(Board.empty(4))[0]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "image/svg+xml" in out
