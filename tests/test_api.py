"""The learned models as a Python API (ltn_sudoku.load_model, logic/api.py): the same answers classify-board
gives, hasValue as numpy and as a DataFrame, the complete solver, the LTN section typed (LtnAnswer) inside classify's
report, and one clear error for a board or question the model does not fit."""

from __future__ import annotations

import numpy as np
import pytest

import ltn_sudoku
from ltn_sudoku.board import Board
from ltn_sudoku.exact import count_solutions, solve
from ltn_sudoku.io import parse_board_text
from ltn_sudoku.logic.api import ModelMismatchError, shipped_models
from ltn_sudoku.logic.board.answer import LtnAnswer, Truth
from ltn_sudoku.logic.board.predict import LtnAnswers
from ltn_sudoku.logic.checkpoints import CheckpointError
from tests.test_predict import assert_same

SEED_4 = "1.3434.22143432."
SEED_9 = "2.14.....4...7358..5....6....9.2.8.1.23.1..5...8354..97..28.....15..93.6.6....74."


@pytest.fixture(scope="module")
def model_4x4() -> ltn_sudoku.logic.api.BoardModel:
    m = ltn_sudoku.load_model("4x4")
    assert isinstance(m, ltn_sudoku.logic.api.BoardModel)
    return m


def test_shipped_names_and_aliases_load() -> None:
    names = shipped_models()
    assert {"4x4", "9x9", "9x9_message_passing", "9x9_mp", "visual_9x9"} <= set(names)
    m = ltn_sudoku.load_model("9x9_mp")
    assert m.path.name == "9x9_message_passing.pt" and m.n == 9 and m.kind == "board"
    with pytest.raises(CheckpointError, match="neither a shipped model"):
        ltn_sudoku.load_model("10x10")


def test_has_value_is_the_table_classify_board_answers_with(model_4x4) -> None:  # type: ignore[no-untyped-def]
    board = parse_board_text(SEED_4)
    table = model_4x4.has_value(board)
    assert table.shape == (16, 4) and table.dtype.kind == "f" and ((0 <= table) & (table <= 1)).all()
    answer = model_4x4.answer(board)
    assert isinstance(answer, LtnAnswer) and answer.truths is not None
    np.testing.assert_allclose(table, answer.truths, atol=1e-4)
    for move in answer.moves:  # every candidate's confidence is the table's entry
        assert table[move.row * 4 + move.col, move.digit - 1] == pytest.approx(move.confidence, abs=1e-4)
    frame = model_4x4.has_value_frame(SEED_4)  # text is read as a board
    assert list(frame.columns) == [1, 2, 3, 4] and frame.index[0] == "r1c1" and frame.index[-1] == "r4c4"
    np.testing.assert_allclose(frame.to_numpy(), table, atol=1e-6)


def test_predicates_match_the_classify_board_section(model_4x4) -> None:  # type: ignore[no-untyped-def]
    board = parse_board_text(SEED_4)
    section = LtnAnswers().section(board)  # what classify-board writes under `ltn`
    assert_same(model_4x4.answer(board).ltn_dict(), section.ltn_dict())
    truth = model_4x4.has_solution(board)
    assert isinstance(truth, Truth) and truth.decision == section.ltn_dict()["hasSolution"]["decision"]
    recommends = model_4x4.recommends(board)
    assert list(recommends) == list(model_4x4.techniques) and all(isinstance(t, Truth) for t in recommends.values())
    closed = solve(board)
    assert closed is not None and model_4x4.is_correct(closed).decision is True
    moves = model_4x4.dead_ends(board)
    assert moves and all(m.dead_end is not None and 0 <= m.dead_end <= 1 for m in moves)


def test_the_complete_solver_is_exact(model_4x4) -> None:  # type: ignore[no-untyped-def]
    board = parse_board_text(SEED_4)
    found = model_4x4.solve(board, limit=2)
    assert found.verdict == "solved" and found.solutions == [solve(board)]
    several = Board([1, 2, 3, 4] + [0] * 12, 4)
    assert len(model_4x4.solve(several, limit=3).solutions) == min(3, count_solutions(several, 3))


def test_classify_with_a_model_holds_the_typed_ltn_section() -> None:
    m = ltn_sudoku.load_model("9x9")
    board = parse_board_text(SEED_9)
    report = ltn_sudoku.classify(board, model=m)
    ltn = report.as_dict()["ltn"]
    assert isinstance(ltn, dict) and ltn["available"] and ltn["checkpoint"] == "checkpoints/9x9.pt"
    assert isinstance(report.sections[-1], LtnAnswer)
    assert_same(ltn, LtnAnswers().section(board).ltn_dict())
    assert "ltn" not in ltn_sudoku.classify(board).as_dict()  # no model, no section


def test_a_size_or_kind_mismatch_is_one_clear_error(model_4x4) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ModelMismatchError, match=r"a 9x9 board given to the 4x4 model 4x4: load_model\('9x9'\)"):
        model_4x4.has_value(SEED_9)
    with pytest.raises(ModelMismatchError, match="isCorrect is asked of closed boards"):
        model_4x4.is_correct(SEED_4)
    with pytest.raises(ModelMismatchError, match="hasSolution is asked of open boards"):
        model_4x4.has_solution(solve(parse_board_text(SEED_4)))
    visual = ltn_sudoku.load_model("visual_4x4")
    assert visual.kind == "visual"
    with pytest.raises(ModelMismatchError, match=r"visual model: it reads \(16, 28, 28\) cell images, not a board"):
        visual.has_value(parse_board_text(SEED_4))  # type: ignore[arg-type]
    with pytest.raises(ModelMismatchError, match="hasSolution is a board model's predicate"):
        visual.has_solution(SEED_4)
    with pytest.raises(ModelMismatchError, match="classify's LTN section is a board model's predicate"):
        ltn_sudoku.classify(parse_board_text(SEED_4), model=visual)  # type: ignore[arg-type]
    with pytest.raises(ModelMismatchError, match="a 4x4 board given to the 9x9 model"):
        ltn_sudoku.classify(parse_board_text(SEED_4), model=ltn_sudoku.load_model("9x9"))
    images = np.zeros((16, 28, 28), dtype=np.uint8)
    assert visual.has_value(images).shape == (16, 4)
    with pytest.raises(ModelMismatchError, match=r"images of shape \(9, 28, 28\)"):
        visual.has_value(images[:9])
