"""The candidate-grid summary (CandidateGrid.summary): unresolved cells, candidates, mean per cell, where the engine
shows its grid (SolveResult.start / end, `solve`'s JSON and text) and in classify's text report."""

from __future__ import annotations

import json

import pytest

from ltn_sudoku.candidates import CandidateGrid, GridSummary
from ltn_sudoku.cli import main
from ltn_sudoku.io import parse_board_text
from ltn_sudoku.questions.engine import Engine

SEED_4 = "1.34 34.2 2143 432."
X_WING = ".6..258....78..1......6......3......2......6.4.....95.8...9.....5...2.917....45.."


def test_summary_counts_unresolved_cells_and_their_candidates() -> None:
    grid = CandidateGrid.from_board(parse_board_text(SEED_4))
    assert grid.summary() == GridSummary(3, 3)  # three empty cells, each with one candidate left
    board = parse_board_text(X_WING)
    summary = CandidateGrid.from_board(board).summary()
    cells = [c for c in range(81) if board.values[c] == 0]
    assert summary.unresolved == len(cells) == 58
    assert summary.candidates == sum(len(board.candidates(c)) for c in cells) == 236
    assert summary.mean == pytest.approx(236 / 58) and str(summary).endswith("(4.07 per cell)")
    assert GridSummary(0, 0).mean == 0.0


def test_the_engine_reports_the_grid_where_it_starts_and_where_it_stops() -> None:
    board = parse_board_text(X_WING)
    stuck = Engine(["Full House", "Naked Single", "Hidden Single"], fallback=False).solve(board)
    assert stuck.start == GridSummary(58, 236)
    assert stuck.end is not None and 0 < stuck.end.unresolved < 58 and not stuck.solved
    done = Engine().solve(board)
    assert done.end == GridSummary(0, 0)


def test_solve_prints_and_writes_the_summary(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "--board", X_WING, "--techniques", "Full House,Naked Single,Hidden Single",
                 "--no-fallback"]) == 0
    out = capsys.readouterr().out
    assert "left: 48 unresolved cells, 173 candidates (3.60 per cell)" in out
    assert "candidates at the start: 58 unresolved cells, 236 candidates (4.07 per cell)" in out
    assert main(["solve", "--board", X_WING, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["candidates"] == {"start": {"unresolved": 58, "candidates": 236, "mean": 4.07},
                                  "end": {"unresolved": 0, "candidates": 0, "mean": 0.0}}
    assert main(["classify", "--board", X_WING, "--no-ltn", "--no-heuristics"]) == 0
    assert "Candidates: 58 unresolved cells, 236 candidates (4.07 per cell)" in capsys.readouterr().out
