"""The LTN answers of classify-board for many boards at once (logic/board/predict.py): the same answers as one board at a
time, in the boards' order, whatever their sizes; the per-move dead-end probabilities only when asked for."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from ltn_sudoku.board import Board
from ltn_sudoku.io import parse_board_text
from ltn_sudoku.io.kaggle import read_kaggle
from ltn_sudoku.logic.board.predict import LtnAnswers
from ltn_sudoku.paths import DATA_DIR

# float32 rounding differs between a batch of one board and larger batches, and 48 refinement steps amplify it: the
# same 9x9 board answered alone and twice in one batch differs by up to 9.1e-5 (scripts/bench_classify_ltn.py prints
# this floor). Decisions, decoded boards and moves must be identical; numbers agree within this.
TOLERANCE = 1e-4
SEED_4 = "1.3434.22143432."


def real_boards(per_set: int) -> list[Board]:
    files = sorted((DATA_DIR / "kaggle").glob("*.csv.gz"))
    return [r.board for f in files for r in itertools.islice(read_kaggle(f), per_set)]


def basic_moves(board: Board) -> set[tuple[int, int, int]]:
    """Every (row, col, digit) the basic rule allows, read off the Board itself."""
    return {(c // board.n, c % board.n, d) for c in board.empty_cells for d in board.candidates(c)}


def assert_same(batched: dict[str, Any], alone: dict[str, Any]) -> None:
    assert batched.keys() == alone.keys()
    for key in ("available", "reason", "checkpoint", "solution", "dead_ends"):
        assert batched.get(key) == alone.get(key), key
    if not alone["available"]:
        return
    for key in ("isCorrect", "hasSolution"):
        if alone[key] is None:
            assert batched[key] is None
        else:
            assert batched[key]["decision"] == alone[key]["decision"]
            assert batched[key]["truth"] == pytest.approx(alone[key]["truth"], abs=TOLERANCE)
    if alone["recommendsHeuristic"] is not None:
        for name, truth in alone["recommendsHeuristic"].items():
            assert batched["recommendsHeuristic"][name]["decision"] == truth["decision"]
            assert batched["recommendsHeuristic"][name]["truth"] == pytest.approx(truth["truth"], abs=TOLERANCE)
    assert len(batched["moves"]) == len(alone["moves"])
    for b, a in zip(batched["moves"], alone["moves"]):
        assert (b["row"], b["col"], b["digit"]) == (a["row"], a["col"], a["digit"])
        assert b["confidence"] == pytest.approx(a["confidence"], abs=TOLERANCE)
        if a["dead_end"] is None:
            assert b["dead_end"] is None
        else:
            assert b["dead_end"]["decision"] == a["dead_end"]["decision"]
            assert b["dead_end"]["probability"] == pytest.approx(a["dead_end"]["probability"], abs=TOLERANCE)


def test_batched_answers_equal_one_board_at_a_time_on_real_rows() -> None:
    boards = real_boards(3)
    closed = next(iter(read_kaggle(DATA_DIR / "kaggle" / "kaggle_9m_sample1000.csv.gz"))).solution_board
    boards = [*boards, closed, parse_board_text(SEED_4), Board.empty(16)]  # mixed sizes, one without a model
    ltn = LtnAnswers()
    batched = [s.ltn_dict() for s in ltn.sections(boards, batch=4)]
    for board, answer in zip(boards, batched):
        assert_same(answer, ltn.section(board).ltn_dict())
        if board.n == 16:
            assert answer["available"] is False and "16x16" in answer["reason"]
            continue
        assert {(m["row"], m["col"], m["digit"]) for m in answer["moves"]} == basic_moves(board)
        if board.is_closed:
            assert answer["hasSolution"] is None and answer["isCorrect"]["decision"] is True
        else:
            assert answer["isCorrect"] is None and answer["dead_ends"]["computed"] is False
            assert all(m["dead_end"] is None for m in answer["moves"])


def test_dead_ends_are_computed_when_asked_and_said_to_be_missing_otherwise() -> None:
    rows = itertools.islice(read_kaggle(DATA_DIR / "kaggle" / "kaggle_9m_sample1000.csv.gz"), 100)
    dense = max((r.board for r in rows), key=lambda b: b.givens)  # a real 9x9 row with few moves: a fast test
    boards = [parse_board_text(SEED_4), parse_board_text("1...........4..."), dense]
    with_dead_ends = LtnAnswers(dead_ends=True)
    sections = with_dead_ends.sections(boards)
    batched = [s.ltn_dict() for s in sections]
    for board, answer in zip(boards, batched):
        alone = with_dead_ends.predictor(board.n).answer(board)  # the predictor's own one-board path
        assert_same(answer, alone)
        assert answer["dead_ends"] == {"computed": True}
        assert all(0 <= m["dead_end"]["probability"] <= 1 for m in answer["moves"])
    without = LtnAnswers().section(boards[2])
    assert "dead-end probabilities not computed" in "\n".join(without.describe())
    assert "predicted dead ends" in "\n".join(sections[2].describe())


@pytest.mark.parametrize("n", [4, 9])
def test_the_complete_solver_in_the_ltn_section_matches_the_exact_solver(n: int) -> None:
    """`complete=k`: up to k solutions or a proof of none, the exact solver's answer on every board class (unique,
    several solutions, impossible by a clash of givens and subtly impossible); closed boards get none; and without
    the option the key is absent (the default answer unchanged)."""
    from ltn_sudoku.exact import count_solutions, solutions
    from ltn_sudoku.io import read_boards
    from tests.test_branching import boards_of_every_class

    boards = boards_of_every_class(n, 3) + [Board([1, 1] + [0] * (n * n - 2), n)]  # + a clash of givens
    if n == 9:
        boards += read_boards(DATA_DIR / "9x9/hardest11.txt")[:2] + real_boards(2)
    for limit in (1, 3):
        sections = LtnAnswers(complete=limit).sections(boards, batch=5)
        for board, section in zip(boards, sections):
            answer = section.ltn_dict()
            found = answer["complete_solver"]
            if board.is_closed:
                assert found is None
                continue
            truth = count_solutions(board, limit)
            assert len(found["solutions"]) == truth and found["limit"] == limit, board.to_line()
            assert found["verdict"] == {0: "none", 1: "solved"}.get(truth, "multiple")
            if truth < limit:  # all of them: the same set
                assert set(found["solutions"]) == {s.to_line() for s in solutions(board, limit)}
            for line in found["solutions"]:
                solved = parse_board_text(line)
                assert solved.is_valid_solution and all(g in (0, v) for g, v in zip(board.values, solved.values))
            assert found["order_calls"] <= found["nodes"] and found["wrong_guesses"] < found["nodes"]
            if truth:
                assert found["first_solution_nodes"] <= found["nodes"]
                assert found["first_solution_wrong_guesses"] <= found["wrong_guesses"]
            else:
                assert found["first_solution_nodes"] is None
            assert "complete LTN-guided solver" in "\n".join(section.describe())
    plain = LtnAnswers().sections(boards[:2])
    assert all("complete_solver" not in s.ltn_dict() for s in plain)
