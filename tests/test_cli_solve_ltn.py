"""`ltn-sudoku solve --ltn`: LTN-guided search from the command line, checked against the exact solver."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ltn_sudoku.cli import main
from ltn_sudoku.exact import count_solutions, solve
from ltn_sudoku.io import parse_board_text

SEED_4 = "1.34341.21434.21"
SEED_9 = "2.14.....4...7358..5....6....9.2.8.1.23.1..5...8354..97..28.....15..93.6.6....74."


def test_json_verdicts_are_the_exact_solution(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    src = tmp_path / "boards.txt"
    src.write_text(f"{SEED_9}\n{SEED_9.replace('2', '.', 3)}\n")
    assert main(["solve", "--ltn", str(src), "--json", "--budget", "64"]) == 0
    assert main(["solve", "--ltn", "--board", SEED_4, "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["verdict"] for r in rows] == ["solved", "solved", "solved"]
    for row in rows:
        found, puzzle = parse_board_text(row["solution"]), parse_board_text(row["board"])
        assert found.is_valid_solution and all(g in (0, f) for g, f in zip(puzzle.values, found.values))
        assert count_solutions(puzzle) > 1 or found == solve(puzzle)
        assert 1 <= row["nodes"] <= 64


def test_sizes_without_a_model_say_so_and_bad_budgets_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    sixteen = Path(__file__).parents[1] / "data/examples/unique_16x16.csv"
    assert main(["solve", "--ltn", str(sixteen), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["available"] is False
    assert main(["solve", "--ltn", "--board", SEED_4, "--budget", "0"]) == 2
    assert "--budget 0" in capsys.readouterr().err


def test_classify_board_reports_the_search_beside_has_solution(capsys: pytest.CaptureFixture[str],
                                                               tmp_path: Path) -> None:
    from ltn_sudoku.cli import classify_board_main

    assert classify_board_main(["--board", SEED_9, "--no-heuristics", "--json", "--ltn-search", "64"]) == 0
    ltn = json.loads(capsys.readouterr().out)["ltn"]
    assert ltn["search"]["verdict"] == "solved" and "truth" in ltn["hasSolution"]
    assert parse_board_text(ltn["search"]["solution"]) == solve(parse_board_text(SEED_9))
    out = tmp_path / "r.csv"
    assert classify_board_main(["--board", SEED_9, "--no-heuristics", "--ltn-search", "64", "--out", str(out)]) == 0
    header, row = out.read_text().splitlines()[:2]
    assert "ltn.search.verdict" in header.split(",") and ",solved," in row
    assert classify_board_main(["--board", SEED_9, "--ltn-search", "-1"]) == 2


def test_classify_board_reports_the_complete_solver(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """--ltn-complete LIMIT: the complete solver's answer in the JSON, the CSV (fixed columns) and the text report;
    bad limits and --no-ltn exit 2; without the flag the JSON has no such key."""
    from ltn_sudoku.cli import classify_board_main
    from ltn_sudoku.cli.results import COMPLETE_COLUMNS

    several = "1...........4..."
    src = tmp_path / "boards.txt"
    src.write_text(f"{SEED_9}\n")
    assert classify_board_main([str(src), "--no-heuristics", "--json", "--ltn-complete", "2"]) == 0
    found = json.loads(capsys.readouterr().out)["ltn"]["complete_solver"]
    assert found["verdict"] == "solved" and found["limit"] == 2 and found["order_calls"] >= 0
    assert [parse_board_text(s) for s in found["solutions"]] == [solve(parse_board_text(SEED_9))]
    out = tmp_path / "r.csv"
    assert classify_board_main(["--board", several, "--no-heuristics", "--ltn-complete", "3", "--out", str(out)]) == 0
    header, row = out.read_text().splitlines()[:2]
    cells = dict(zip(header.split(","), row.split(",")))
    assert header.split(",")[-len(COMPLETE_COLUMNS):] == list(COMPLETE_COLUMNS)
    assert (cells["ltn.complete_solver.verdict"], cells["ltn.complete_solver.solutions"]) == ("multiple", "3")
    assert classify_board_main(["--board", several, "--no-heuristics", "--ltn-complete", "3"]) == 0
    assert "complete LTN-guided solver: at least 3 solutions (the limit)" in capsys.readouterr().out
    assert classify_board_main(["--board", SEED_9, "--no-heuristics", "--json"]) == 0
    assert "complete_solver" not in json.loads(capsys.readouterr().out)["ltn"]
    assert classify_board_main(["--board", SEED_9, "--ltn-complete", "-1"]) == 2
    assert classify_board_main(["--board", SEED_9, "--no-ltn", "--ltn-complete", "2"]) == 2
    assert "--no-ltn" in capsys.readouterr().err
