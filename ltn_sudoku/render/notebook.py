"""Pictures in a notebook: Jupyter displays a Board, a CandidateGrid, a technique Step, a solving path and a Report
through the renderers of this package (svg.py, report.py), registered as IPython formatters by `register()` (called
by `import ltn_sudoku` when IPython is loaded). The classes live below the renderer, so they cannot draw themselves;
the LTN's answer (logic/board/answer.py), which lives above it, has its own `_repr_html_`.

    import ltn_sudoku                    # in Jupyter
    board                                # drawn with pencil marks
    path = engine.solve(board); path     # the solving path, its first steps drawn
    step_view(path, 3)                   # step 4 drawn on the grid it was found in
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from typing import Any, Callable

from ltn_sudoku.board import Board
from ltn_sudoku.candidates import CandidateGrid, Contradiction, Step
from ltn_sudoku.questions.engine import SolveResult
from ltn_sudoku.questions.report import Report
from ltn_sudoku.render.report import _answers_html, plural
from ltn_sudoku.render.svg import board_svg, step_svg

DRAWN_STEPS = 6  # steps of a path drawn in its notebook view (the rest are listed as text)


def board_picture(board: Board) -> str | None:
    """A board as SVG with its pencil marks; None (plain text shown) for givens that clash."""
    try:
        return board_svg(CandidateGrid.from_board(board))
    except Contradiction:
        return None


@dataclass(frozen=True)
class StepView:
    """A step with the grid it was found in (before it is applied): what a notebook draws."""

    grid: CandidateGrid
    step: Step

    def _repr_svg_(self) -> str:
        return step_svg(self.grid, self.step)


def step_views(path: SolveResult, limit: int | None = None) -> list[StepView]:
    """The path's steps, each with its grid, replayed from the puzzle (the first `limit`)."""
    grid = CandidateGrid.from_board(path.puzzle)
    views = []
    for step in path.steps[:limit]:
        views.append(StepView(grid.copy(), step))
        grid.apply(step)
    return views


def step_view(path: SolveResult, index: int) -> StepView:
    """Step `index` (0-based) of a path, drawn on its grid."""
    return step_views(path, index + 1)[index]


def bare_step_picture(step: Step) -> str:
    """A Step alone (it holds no board): drawn on the smallest board that holds its cells and digits, every
    candidate open (`step_view(path, i)` draws it on the grid it was found in)."""
    moves = (*step.placements, *step.eliminations)
    cell = max([0, *step.cells, *(c for c, _ in moves)])
    digit = max([1, *step.digits, *(d for _, d in moves)])
    side = next(k * k for k in range(2, 11) if k ** 4 > cell and k * k >= digit)
    return step_svg(CandidateGrid.from_board(Board.empty(side)), step)


def _figure(svg: str, caption: str) -> str:
    return (f'<figure style="display:inline-block;margin:.3em;vertical-align:top;max-width:300px">{svg}'
            f'<figcaption style="font-family:monospace;font-size:.75em">{escape(caption)}</figcaption></figure>')


def path_html(path: SolveResult) -> str:
    """A solving path: its outcome, its first DRAWN_STEPS steps drawn, the rest as text."""
    head = (f"<p><b>{'solved' if path.solved else 'not solved'}</b>"
            + (f", level {escape(str(path.level))}, score {path.score}" if path.level else "")
            + f", {plural(len(path.steps), 'step')}" + (" (search needed)" if path.guessed else "")
            + (f": {escape(path.reason)}" if path.reason else "") + "</p>")
    drawn = step_views(path, DRAWN_STEPS) if path.steps else []
    figures = "".join(_figure(v._repr_svg_(), f"step {i + 1}") for i, v in enumerate(drawn))  # the SVG has the text
    rest = "".join(f"<li>{escape(s.text)}</li>" for s in path.steps[len(drawn):])
    return head + figures + (f'<ol start="{len(drawn) + 1}" style="font-family:monospace;font-size:.8em;'
                             f'padding-left:3.5em">'
                             f"{rest}</ol>" if rest else "")


def report_html(report: Report) -> str:
    """A Report: the board, the Q1-Q3 tables of the HTML report and each section's own view (the LTN's)."""
    picture = board_picture(report.board) or f"<pre>{escape(report.board.draw())}</pre>"
    parts = [_figure(picture, "the board"), _answers_html(report.as_dict(moves=False))]
    for section in report.sections:
        view = getattr(section, "_repr_html_", None)  # the LTN's answer draws itself
        if callable(view):
            parts.append(view())
    return "".join(parts)


# (module, class, MIME type, view): what register() installs
VIEWS: tuple[tuple[str, str, str, Callable[[Any], str | None]], ...] = (
    ("ltn_sudoku.board", "Board", "image/svg+xml", board_picture),
    ("ltn_sudoku.candidates", "CandidateGrid", "image/svg+xml", board_svg),
    ("ltn_sudoku.candidates", "Step", "image/svg+xml", bare_step_picture),
    ("ltn_sudoku.questions.engine", "SolveResult", "text/html", path_html),
    ("ltn_sudoku.questions.report", "Report", "text/html", report_html),
)


def register(shell: Any = None) -> bool:
    """Install the views in IPython's display formatters (the running shell, or `shell`); False outside IPython."""
    if shell is None:
        try:
            from IPython import get_ipython
        except ImportError:
            return False
        shell = get_ipython()
    if shell is None:
        return False
    formatters = shell.display_formatter.formatters
    for module, name, mime, view in VIEWS:
        formatters[mime].for_type_by_name(module, name, view)
    return True
