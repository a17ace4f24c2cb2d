"""Boards above 9x9 written with letters (board.SYMBOLS): 1-9 then A-G / A-P, or A-P / A-Y, read by every reader
(detected), written by every writer, and answered in kind by the commands (--symbols)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from ltn_sudoku.board import DECIMAL, DIGITS_LETTERS, LETTERS, Board
from ltn_sudoku.cli import main
from ltn_sudoku.exact import random_solutions
from ltn_sudoku.generate import read_csv
from ltn_sudoku.io import FormatError, boards_to_text, parse_board_text, read_boards, read_records, write_boards
from ltn_sudoku.paths import DATA_DIR

EXAMPLES = DATA_DIR / "examples"
BOARD_16 = read_boards(EXAMPLES / "unique_16x16.csv")[0]


def _board(n: int, seed: int) -> Board:
    """A solution grid with about half its cells emptied."""
    grid = np.asarray(random_solutions(n, 1, seed))[0]
    keep = np.random.default_rng(seed).random(n * n) < 0.5
    return Board(np.where(keep, grid, 0).tolist(), n)


def test_the_shipped_letter_files_hold_the_16x16_example() -> None:
    (letters,) = read_records(EXAMPLES / "unique_16x16_letters.txt")
    (mixed,) = read_records(EXAMPLES / "unique_16x16_digits_letters.csv")
    assert letters.board == mixed.board == BOARD_16
    assert (letters.symbols, mixed.symbols) == (LETTERS, DIGITS_LETTERS)
    assert letters.board.to_line(LETTERS).startswith(".JNB.G.O")  # A = 1: 10 is J, 14 is N, 2 is B
    assert BOARD_16.to_line(DIGITS_LETTERS).startswith(".AE2.7.F")  # 10 is A, 16 is G


@pytest.mark.parametrize("n", [16, 25])
@pytest.mark.parametrize("symbols", [DIGITS_LETTERS, LETTERS])
@pytest.mark.parametrize("fmt", ["line", "grid", "table"])
def test_every_reader_and_writer_round_trips_letters(tmp_path: Path, n: int, symbols: str, fmt: str) -> None:
    boards = [_board(n, seed) for seed in range(2)]
    path = tmp_path / f"b.{'csv' if fmt != 'line' else 'txt'}"
    write_boards(path, boards, fmt, symbols=symbols)
    text = path.read_text()
    assert ("P" in text or "Y" in text) if symbols == LETTERS else "G" in text
    records = read_records(path)
    assert [r.board for r in records] == boards and {r.symbols for r in records} == {symbols}
    assert parse_board_text(boards[0].to_line(symbols)) == boards[0]


def test_letters_in_either_case_spaced_grids_and_lines_with_an_id() -> None:
    line = BOARD_16.to_line(LETTERS)
    assert parse_board_text(line.lower()) == BOARD_16
    spaced = "\n".join(" ".join(line[r * 16:(r + 1) * 16]) for r in range(16))
    assert parse_board_text(spaced) == BOARD_16
    assert boards_to_text([BOARD_16], "line", symbols=DECIMAL) == BOARD_16.to_line() + "\n"


def test_a_symbol_outside_the_convention_is_located(tmp_path: Path) -> None:
    line = BOARD_16.to_line(LETTERS)
    bad = line[:5] + "Z" + line[6:]
    path = tmp_path / "bad.txt"
    path.write_text(bad + "\n")
    with pytest.raises(FormatError, match=r"bad.txt:1:6: unexpected character 'Z' .*expected A-P"):
        read_records(path)
    with pytest.raises(FormatError, match="expected 1-G"):
        parse_board_text(BOARD_16.to_line(DIGITS_LETTERS).replace("G", "H", 1))


def test_a_letters_board_is_answered_and_written_back_in_letters(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    src = EXAMPLES / "unique_16x16_letters.txt"
    assert main(["solve", str(src), "--json"]) == 0
    solved = json.loads(capsys.readouterr().out)
    assert solved["board"] == src.read_text().splitlines()[1]
    solution = parse_board_text(solved["solution"])
    assert solution.is_valid_solution and set(solved["solution"]) <= set("ABCDEFGHIJKLMNOP")
    assert all(v in (0, s) for v, s in zip(BOARD_16.values, solution.values))
    assert main(["classify", str(src), "--no-ltn", "--no-heuristics", "--json"]) == 0
    answered = json.loads(capsys.readouterr().out)
    assert (answered["board"], answered["solution"], answered["solutions"]) == (solved["board"],
                                                                                solved["solution"], 1)
    out = tmp_path / "answers.jsonl"
    assert main(["classify", str(EXAMPLES / "unique_16x16_digits_letters.csv"), "--no-ltn", "--no-heuristics",
                 "--out", str(out)]) == 0
    assert json.loads(out.read_text())["solution"] == solution.to_line(DIGITS_LETTERS)
    capsys.readouterr()
    assert main(["classify", str(src), "--no-ltn", "--no-heuristics", "--symbols", "decimal", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["solution"] == solution.to_line()
    assert main(["classify", str(src), "--no-ltn", "--no-heuristics"]) == 0
    assert "| . J N B | . G . O |" in capsys.readouterr().out


def test_generate_writes_letters_and_reads_them_back(tmp_path: Path) -> None:
    out = tmp_path / "g16.csv"
    assert main(["generate", "--size", "16", "--kind", "open_solvable", "--count", "2", "--symbols", "letters",
                 "--out", str(out)]) == 0
    rows = out.read_text().splitlines()[1:]
    assert len(rows) == 2 and all(len(row.split(",")[0]) == 256 for row in rows)
    boards = read_csv(out)
    assert all(b.solution is not None and b.solution.is_valid_solution for b in boards)
