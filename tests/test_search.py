"""LTN-guided search: solves easy puzzles without branching, branches when the model cannot finish, refutes boards
without a solution, stops at its budget, and never reads the exact solver, the engine or the candidate grid."""

from __future__ import annotations

from typing import Any

import pytest
import torch

from ltn_sudoku import candidates, exact
from ltn_sudoku.board import Board
from ltn_sudoku.exact import count_solutions, solve
from ltn_sudoku.generate import generate
from ltn_sudoku.io import parse_board_text
from ltn_sudoku.logic.board.model import LtnSudoku, ModelConfig
from ltn_sudoku.logic.board.search import SearchResult, guided_search
from ltn_sudoku.logic.checkpoints import shipped_checkpoint
from ltn_sudoku.logic.groundings.hasvalue import RecurrentConfig
from ltn_sudoku.logic.kinds import load_model
from ltn_sudoku.questions import engine


class _Uniform(LtnSudoku):
    """A model that knows nothing: hasValue is uniform on every open cell (so only search can solve)."""

    def __init__(self, n: int) -> None:
        super().__init__(ModelConfig(size=n, has_value=RecurrentConfig(hidden=2, layers=2, steps=1), eval_steps=1,
                                     kb_every=1, solution_hidden=2, heuristic_hidden=2, techniques=()))

    def refine(self, givens: torch.Tensor, steps: int | None = None) -> list[torch.Tensor]:
        filled = givens.sum(-1, keepdim=True)
        return [givens + (1 - filled) / self.n]


def search(model: LtnSudoku, board: Board, **options: Any) -> SearchResult:
    """guided_search with every symbolic solver it must not use replaced by a function that fails the test."""
    def forbidden(*_: object, **__: object) -> None:
        raise AssertionError("guided search must not call the exact solver, the engine or the candidate grid")

    with pytest.MonkeyPatch.context() as patch:
        for name in ("solve", "count_solutions", "solve_batch", "count_solutions_batch", "solutions"):
            patch.setattr(exact, name, forbidden)
        patch.setattr(engine.Engine, "solve", forbidden)
        patch.setattr(engine.Engine, "next_step", forbidden)
        patch.setattr(candidates.CandidateGrid, "from_board", forbidden)
        return guided_search(model, board, **options)


def test_the_guard_catches_a_search_that_reads_the_solver(monkeypatch: pytest.MonkeyPatch) -> None:
    import ltn_sudoku.logic.board.search as module

    monkeypatch.setattr(module, "is_valid_assignment", lambda *_: exact.solve(parse_board_text("1" * 16)))
    with pytest.raises(AssertionError, match="must not call"):
        search(_Uniform(4), parse_board_text("1.34341.21434.21"))


def test_easy_puzzle_solved_without_branching() -> None:
    model = load_model(shipped_checkpoint(4), 4)[0]
    board = parse_board_text("1.34341.21434.21")  # three singles
    result = search(model, board)
    assert result.verdict == "solved" and result.branches == 0 and result.nodes == 1
    assert result.board == solve(board)


@pytest.mark.parametrize("rule", ["least_sure", "fewest_digits"])
def test_a_model_that_cannot_finish_branches_and_finds_the_solution(rule: str) -> None:
    for record in generate(4, "open_solvable", 6, seed=8):
        result = search(_Uniform(4), record.board, budget=10_000, branch_on=rule)
        assert result.verdict == "solved" and result.branches >= 1
        assert result.board == solve(record.board) and count_solutions(record.board) == 1


def test_boards_without_solution_are_refuted() -> None:
    for record in generate(4, "open_impossible", 8, seed=3):
        result = search(_Uniform(4), record.board, budget=10_000)
        assert result.verdict == "refuted" and result.board is None
        assert count_solutions(record.board) == 0


def test_the_budget_stops_the_search() -> None:
    board = generate(9, "open_solvable", 1, seed=2, givens=(24, 26))[0].board
    result = search(_Uniform(9), board, budget=5)
    assert result.verdict == "exhausted" and result.nodes <= 5 and result.board is None


def test_every_solved_9x9_board_is_the_solution() -> None:
    model = load_model(shipped_checkpoint(9), 9)[0]
    solved = 0
    for record in generate(9, "open_solvable", 4, seed=11, givens=(24, 30)):
        result = search(model, record.board, budget=64, branch_on="fewest_digits")
        if result.verdict == "solved":
            solved += 1
            assert result.board == solve(record.board)
    assert solved >= 2


def test_the_ltn_answer_carries_the_search_verdict_beside_has_solution() -> None:
    from ltn_sudoku.logic.board.predict import LtnPredictor

    predictor = LtnPredictor.for_size(4)
    assert predictor is not None
    board, closed = parse_board_text("1.34341.21434.21"), parse_board_text("1234341221434321")
    with_search, plain = predictor.answer_batch([board, closed], search_budget=16), predictor.answer_batch([board])
    assert with_search[0]["search"]["verdict"] == "solved" and with_search[1]["search"] is None
    assert parse_board_text(with_search[0]["search"]["solution"]) == solve(board)
    assert plain[0]["search"] is None and plain[0]["hasSolution"] == with_search[0]["hasSolution"]
