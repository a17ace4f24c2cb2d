"""`ltn-sudoku solve --ltn --complete`: the complete LTN-guided solver from the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ltn_sudoku.cli import main
from ltn_sudoku.exact import count_solutions, solve
from ltn_sudoku.io import parse_board_text, read_boards
from ltn_sudoku.paths import DATA_DIR


def test_complete_solver_answers_hard_and_impossible_boards(capsys: pytest.CaptureFixture[str],
                                                            tmp_path: Path) -> None:
    hard = read_boards(DATA_DIR / "9x9/hardest11.txt")[0]
    cell = hard.empty_cells[0]
    impossible = hard.with_value(cell, next(d for d in hard.candidates(cell) if d != solve(hard).values[cell]))
    assert count_solutions(impossible) == 0
    src = tmp_path / "boards.txt"
    src.write_text(f"{hard.to_line()}\n{impossible.to_line()}\n")
    assert main(["solve", "--ltn", "--complete", str(src), "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["verdict"] for r in rows] == ["solved", "refuted"]
    assert parse_board_text(rows[0]["solution"]) == solve(hard) and rows[1]["solution"] is None
    assert rows[0]["model_calls"] >= 1 and all(r["nodes"] >= 1 + r["wrong_guesses"] for r in rows)
    assert main(["solve", "--ltn", "--complete", "--board", hard.to_line()]) == 0
    assert "complete LTN-guided solver solved" in capsys.readouterr().out


def test_complete_without_ltn_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "--complete", "--board", "1.34341.21434.21"]) == 2
    assert "--complete goes with --ltn" in capsys.readouterr().err
