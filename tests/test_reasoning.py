"""The solving tables judge hasValue by the exact solver's solution and put the symbolic baselines on the same rows."""

from __future__ import annotations

import numpy as np
import torch

from ltn_sudoku.board import Board
from ltn_sudoku.exact import solve_batch
from ltn_sudoku.generate import generate
from ltn_sudoku.logic.board import reasoning
from ltn_sudoku.logic.board.model import LtnSudoku, ModelConfig
from ltn_sudoku.logic.groundings.hasvalue import RecurrentConfig
from ltn_sudoku.questions.tiers import singles_loop_batch, tiers


class _Oracle(LtnSudoku):
    """A 'model' whose hasValue is a fixed table of boards (one-hot), to test the tables without training."""

    def __init__(self, n: int, answers: dict[tuple[int, ...], np.ndarray]) -> None:
        super().__init__(ModelConfig(size=n, has_value=RecurrentConfig(hidden=4, layers=2, steps=1), eval_steps=1,
                                     kb_every=1, solution_hidden=2, heuristic_hidden=2, techniques=()))
        self.answers = answers

    def refine(self, givens: torch.Tensor, steps: int | None = None) -> list[torch.Tensor]:
        values = (givens.argmax(-1) + 1) * (givens.sum(-1) > 0)
        boards = np.stack([self.answers[tuple(row)] for row in values.tolist()])
        return [torch.nn.functional.one_hot(torch.as_tensor(boards).long() - 1, self.n).float()]


def _puzzles(n: int, count: int, seed: int) -> list[Board]:
    return [r.board for r in generate(n, "open_solvable", count, seed)]


def test_solved_means_the_exact_solution_and_baselines_share_the_rows() -> None:
    boards = _puzzles(9, 24, 3)
    puzzles = np.array([b.values for b in boards])
    _, solutions = solve_batch(puzzles.astype(np.int32), limit=2)
    wrong = solutions.copy()
    wrong[::2, :2] = wrong[::2, 1::-1]  # every other answer swaps two cells: not the solution (nor valid)
    oracle = _Oracle(9, {tuple(p): w for p, w in zip(puzzles.tolist(), wrong)})
    rows = reasoning.solving_rows(oracle, "generated", boards)
    expected = np.ones(len(boards), bool)
    expected[::2] = False  # cells 0 and 1 share a row, so they hold distinct digits: the swap is never a solution
    assert rows["model_solved"].tolist() == expected.tolist()
    touched_empty = np.zeros(len(boards), bool)
    touched_empty[::2] = (puzzles[::2, :2] == 0).any(1)  # a swapped cell was empty: its cell counts as wrong
    assert (rows["model_cells"][~touched_empty & expected] == 1).all()
    assert (rows["model_cells"][touched_empty] < 1).all() and touched_empty.sum() >= 6
    singles = singles_loop_batch(puzzles, 9)
    assert rows["singles_solved"].tolist() == (singles == solutions).all(1).tolist()
    assert rows["tier"].tolist() == tiers(boards).tolist()
    assert rows["engine_T5"].sum() >= rows["engine_T1"].sum() == rows["singles_solved"].sum()


def test_tables_group_by_tier_and_givens_with_every_baseline() -> None:
    boards = _puzzles(4, 40, 5)
    puzzles = np.array([b.values for b in boards])
    _, solutions = solve_batch(puzzles.astype(np.int32), limit=2)
    oracle = _Oracle(4, {tuple(p): s for p, s in zip(puzzles.tolist(), solutions)})
    rows = reasoning.solving_rows(oracle, "generated", boards)
    assert rows["model_solved"].all() and (rows["model_cells"] == 1).all()
    by_tier = reasoning.by_tier(rows)
    assert by_tier["puzzles"].sum() == len(rows)
    assert {"model", "singles", "model_cells", "singles_cells", "engine_≤T1", "engine_≤T5"} <= set(by_tier.columns)
    bins = [(4, 6), (7, 8), (9, 10)]
    by_givens = reasoning.by_givens(rows, bins)
    inside = rows["givens"].between(4, 10).sum()
    assert by_givens["puzzles"].sum() == inside
    flat = reasoning.flat("tier", by_tier)
    assert flat["tier_T1/model"] == 1.0 and "tier_T1/singles" in flat
