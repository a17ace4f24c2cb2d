"""`ltn-sudoku solve` and `ltn-sudoku rate` end to end."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from ltn_sudoku.cli import main

SEED_9 = "2.14.....4...7358..5....6....9.2.8.1.23.1..5...8354..97..28.....15..93.6.6....74."


def test_solve_explain_prints_every_step(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "--board", SEED_9, "--explain", "--stats"]) == 0
    out = capsys.readouterr().out
    assert "solved by logic: level Easy" in out
    assert " 1. Naked Single: r1c7=9" in out and "47. Full House" in out
    assert "technique" in out and "tried" in out  # the tracker's table


def test_solve_json_has_the_path(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "--board", SEED_9, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["solved"] and not data["guessed"] and data["level"] == "Easy"
    assert len(data["steps"]) == SEED_9.count(".")  # singles only: one placement per step
    assert data["steps"][0]["placements"] == [[0, 6, 9]]


def test_solve_multi_board_file_writes_results_and_stats(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "p.txt"
    src.write_text(SEED_9 + "\n" + SEED_9.replace("2", ".", 1) + "\n")
    out, stats = tmp_path / "r.csv", tmp_path / "s.json"
    assert main(["solve", str(src), "--out", str(out), "--stats-out", str(stats)]) == 0
    rows = list(csv.DictReader(out.open()))
    assert len(rows) == 2 and all(r["solved"] == "True" for r in rows)
    assert json.loads(stats.read_text())["puzzles"] == 2


def test_no_fallback_stops_and_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    hard = "4...3.......6..8..........1....5..9..8....6...7.2........1.27..5.3....4.9........"
    assert main(["solve", "--board", hard, "--techniques", "Naked Single,Hidden Single", "--no-fallback"]) == 0
    assert "not solved: no technique of the pipeline applies" in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["solve", "--board", SEED_9, "--techniques", "Bogus Wing"], "unknown technique"),
    (["solve", "--board", SEED_9, "--stats-out", "x.txt"], "--stats-out"),
    (["rate", "--board", SEED_9, "--out", "x.xlsx"], "unknown extension"),
    (["solve", "--board", "12345"], "not a board"),
])
def test_bad_options_exit_2(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_rate_prints_level_and_distribution(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "p.txt"
    hard = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
    src.write_text(SEED_9 + "\n" + hard + "\n")
    assert main(["rate", str(src)]) == 0
    out = capsys.readouterr().out
    assert f"{SEED_9}  Easy" in out
    assert out.strip().splitlines()[-1].startswith(f"{src}: 1 Easy")
