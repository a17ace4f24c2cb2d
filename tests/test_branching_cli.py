"""`ltn-sudoku solve --ltn --complete`: the complete LTN-guided solver from the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ltn_sudoku.cli import main
from ltn_sudoku.exact import count_solutions, solve
from ltn_sudoku.io import parse_board_text, read_boards
from ltn_sudoku.paths import CHECKPOINTS_DIR, DATA_DIR

SEED_4 = "1.34341.21434.21"


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
    assert [r["verdict"] for r in rows] == ["solved", "none"]
    assert [parse_board_text(s) for s in rows[0]["solutions"]] == [solve(hard)] and rows[1]["solutions"] == []
    assert rows[0]["order_calls"] >= 1 and all(r["nodes"] >= 1 + r["wrong_guesses"] for r in rows)
    assert main(["solve", "--ltn", "--complete", "--board", hard.to_line()]) == 0
    assert "complete LTN-guided solver: a solution (uniqueness not asked: limit 1)" in capsys.readouterr().out


@pytest.mark.parametrize(("board", "verdict"), [(SEED_4, "solved"), ("1...........4...", "solved"),
                                               ("11..............", "none")], ids=["unique", "several", "none"])
def test_solve_prints_the_complete_solver_answer_of_classify_board(capsys: pytest.CaptureFixture[str], board: str,
                                                                   verdict: str) -> None:
    """`solve --ltn --complete --json` and classify-board's `ltn.complete_solver` (its library path: the LTN
    section of ltn_sudoku.logic.board.predict) are one answer: the same keys and, but for the CPU time, the same
    values, for the same board and checkpoint."""
    from ltn_sudoku.logic.board.predict import LtnAnswers

    checkpoint = CHECKPOINTS_DIR / "4x4.pt"
    assert main(["solve", "--ltn", "--complete", "--board", board, "--checkpoint", str(checkpoint), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    for key in ("index", "line", "size", "board"):  # the record's own keys, which every `solve` row starts with
        printed.pop(key)
    section = LtnAnswers(checkpoint, complete=1).section(parse_board_text(board)).as_dict()
    classified = section["ltn"]["complete_solver"]  # type: ignore[index]
    assert list(printed) == list(classified)
    assert {**printed, "cpu_seconds": 0} == {**classified, "cpu_seconds": 0}
    assert printed["verdict"] == verdict and printed["limit"] == 1


def test_complete_without_ltn_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "--complete", "--board", "1.34341.21434.21"]) == 2
    assert "--complete goes with --ltn" in capsys.readouterr().err
