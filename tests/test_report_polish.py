"""The HTML report reads as prose and tables: the LTN block in words with a command-line hint (no raw JSON keys, no
Python call), right plurals ("1 board"), no mid-word breaks in table cells, `solve`'s page fills "recommended now",
and the LTN picture shows doubt rather than belief, so that an easy board the model is sure of stays legible."""

from __future__ import annotations

import re

import numpy as np

from ltn_sudoku.board import Board
from ltn_sudoku.exact import solve
from ltn_sudoku.io import parse_board_text
from ltn_sudoku.logic.board.answer import LtnAnswer, LtnMove, Truth
from ltn_sudoku.render.ltn import SURE, UNSURE, hasvalue_svg
from ltn_sudoku.render.report import board_section, page_head, page_tail

SEED_4 = "1.3434.22143432."


def _answer(board: Board) -> LtnAnswer:
    moves = tuple(LtnMove(c // 4, c % 4, d, 0.9 if d == 2 else 0.1) for c in board.empty_cells
                  for d in board.candidates(c))
    return LtnAnswer(board, checkpoint="checkpoints/4x4.pt", has_solution=Truth(0.97, True), solution=solve(board),
                     solution_valid=True, moves=moves, dead_ends_computed=False,
                     recommends={"Naked Single": Truth(0.9, True), "Hidden Pair": Truth(0.1, False)})


def test_the_ltn_block_is_prose_with_a_command_line_hint() -> None:
    board = parse_board_text(SEED_4)
    html = _answer(board).html()
    assert "it believes the board <b>has a solution</b> (truth 0.970)" in html
    assert "it recommends Naked Single." in html and "add <code>--ltn-dead-ends</code> to classify-board" in html
    assert "3 candidate moves" in html and "1 candidate move;" not in html
    section = board_section(0, {"index": 0, "size": 4, "board": board.to_line(), "closed": False},
                            ltn_html=html)
    for raw in ("hasSolution.truth", "dead_ends.reason", "LtnAnswers(", "solution.board", "recommendsHeuristic ("):
        assert raw not in section


def test_plurals_and_unbroken_words() -> None:
    head = page_head("t")
    assert "word-break:break-all" not in head.split("summary code")[1].split("\n", 1)[1]  # only board strings break
    assert 'id="board-word">boards<' in head and '"board-word").textContent = "board"' in page_tail(1)
    assert "End of the report: <span id=\"footer-count\">1</span> board." in page_tail(1)
    assert "<span id=\"footer-count\">2</span> boards." in page_tail(2)


def test_solve_pages_fill_recommended_now() -> None:
    data = {"index": 0, "size": 4, "board": SEED_4, "level": "Easy", "score": 4,
            "steps": [{"technique": "Full House", "text": "Full House: r1c2=2"}]}
    section = board_section(0, data)
    assert re.search(r"<th>recommended now</th><td>Full House</td>", section)
    assert "<td>1 step</td>" in section


def test_a_sure_board_is_pale_and_a_doubtful_cell_amber() -> None:
    board = parse_board_text(SEED_4)
    solution = solve(board)
    assert solution is not None
    truths = np.full((16, 4), 0.0)
    for c, v in enumerate(solution.values):
        truths[c, v - 1] = 1.0
    truths[1] = [0.2, 0.45, 0.2, 0.15]  # r1c2 in doubt
    svg = hasvalue_svg(board, truths, solution)
    fills = dict(re.findall(r'data-cell="(r\dc\d)"[^>]*>\s*<rect class="bg"[^>]*fill="(#[0-9a-f]{6})"', svg))
    assert fills["r4c4"] == "#%02x%02x%02x" % SURE and fills["r1c2"] == "#%02x%02x%02x" % UNSURE
    assert 'style="fill:#ffffff"' not in svg  # digits stay dark on every shade
