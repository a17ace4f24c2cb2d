""""Solved" is judged by the symbolic side: the crisp knowledge base (inference.is_valid_assignment, which every
solve/board_accuracy figure goes through, and the Gödel truth of the KB's formulas it computes, crisp_kb_truth)
agrees with Board.is_valid_solution plus "the givens are kept" on 1,000 random valid and invalid boards of each size
and 60 that break one kind of unit only, and evaluation's board accuracy reads no solution."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import torch

from ltn_sudoku.board import Board
from ltn_sudoku.logic.board import assess, data
from ltn_sudoku.logic.board.inference import crisp_kb_truth, decoded, is_valid_assignment
from ltn_sudoku.logic.board.model import LtnSudoku, ModelConfig
from ltn_sudoku.logic.checkpoints import shipped_checkpoint
from ltn_sudoku.logic.config.schema import compose_config
from ltn_sudoku.logic.groundings.grounding import one_hot_givens
from ltn_sudoku.logic.kinds import load_model

BOARDS = 1000


def tiny_model(n: int) -> LtnSudoku:
    cfg = compose_config([f"model={n}x{n}", "model.hidden=8", "model.steps=2", "model.eval_steps=2",
                          "model.solution_hidden=4", "model.heuristic_hidden=4"])
    torch.manual_seed(0)
    return LtnSudoku(ModelConfig.from_cfg(cfg.model))


def random_solutions(n: int, count: int, rng: np.random.Generator) -> np.ndarray:
    """(count, n*n) valid grids: a pattern grid under random digit relabelling, row and column permutations within
    bands and stacks, band and stack permutations and transposition (all validity-preserving)."""
    b = round(n ** 0.5)
    r = np.arange(n)
    base = (b * (r[:, None] % b) + r[:, None] // b + r[None, :]) % n
    out = np.empty((count, n, n), dtype=np.int64)
    for i in range(count):
        rows = np.concatenate([band * b + rng.permutation(b) for band in rng.permutation(b)])
        cols = np.concatenate([stack * b + rng.permutation(b) for stack in rng.permutation(b)])
        grid = rng.permutation(n)[base[rows][:, cols]] + 1
        out[i] = grid.T if rng.random() < 0.5 else grid
    return out.reshape(count, n * n)


def boards_and_givens(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A quarter each: valid grids with givens taken from them; valid grids with 1-3 cells changed; valid grids
    with the givens of another valid grid; uniformly random grids. Givens are 0 where empty."""
    rng = np.random.default_rng([seed, n])
    cells = n * n
    boards = random_solutions(n, BOARDS, rng)
    keep = rng.random((BOARDS, cells)) < rng.uniform(0.1, 0.6, (BOARDS, 1))
    givens = np.where(keep, boards, 0)
    quarter = BOARDS // 4
    for i in range(quarter, 2 * quarter):
        changed = rng.choice(cells, size=int(rng.integers(1, 4)), replace=False)
        boards[i, changed] = rng.integers(1, n + 1, size=len(changed))
        givens[i, changed] = 0
    others = random_solutions(n, quarter, rng)
    givens[2 * quarter:3 * quarter] = np.where(keep[2 * quarter:3 * quarter], others, 0)
    boards[3 * quarter:] = rng.integers(1, n + 1, size=(BOARDS - 3 * quarter, cells))
    return boards, givens


def one_kind_broken(n: int, count: int, rng: np.random.Generator) -> np.ndarray:
    """(3 * count, n*n) grids that break one kind of unit only: two cells of a row swapped inside their block (only
    columns break), the same for a column (only rows break), and Latin squares whose blocks repeat a digit."""
    b = round(n ** 0.5)
    out = []
    for axis in (0, 1):
        for grid in random_solutions(n, count, rng).reshape(count, n, n):
            line, first = int(rng.integers(n)), int(rng.integers(b)) * b
            a, c = first + rng.choice(b, size=2, replace=False)
            view = grid if axis == 0 else grid.T
            view[line, [a, c]] = view[line, [c, a]]
            out.append(grid.reshape(-1))
    r = np.arange(n)
    latin = (r[:, None] + r[None, :]) % n
    squares = 0
    while squares < count:  # permuted Latin squares, those that are no Sudoku solution
        square = (rng.permutation(n)[latin[rng.permutation(n)][:, rng.permutation(n)]] + 1).reshape(-1)
        if not Board(square.tolist(), n).is_valid_solution:
            out.append(square)
            squares += 1
    return np.array(out)


@pytest.mark.parametrize("n", [4, 9])
def test_the_crisp_kb_agrees_with_the_board_rules(n: int) -> None:
    boards, givens = boards_and_givens(n, seed=18)
    broken = one_kind_broken(n, 20, np.random.default_rng([19, n]))
    boards, givens = np.concatenate([boards, broken]), np.concatenate([givens, np.zeros_like(broken)])
    expected = np.array([Board(row.tolist(), n).is_valid_solution and bool(np.all((g == 0) | (g == row)))
                         for row, g in zip(boards, givens)])
    assert 200 < expected.sum() < BOARDS - 200 and not expected[BOARDS:].any()  # both verdicts well represented
    # a soft assignment whose argmax is the board: the KB judges the decoded digits
    rng = np.random.default_rng(n)
    soft = torch.from_numpy(0.5 * np.eye(n)[boards - 1] + 0.45 * rng.random((len(boards), n * n, n))).float()
    model, one_hot = tiny_model(n), one_hot_givens(torch.from_numpy(givens), n)
    verdict = is_valid_assignment(model, one_hot, soft)
    assert np.array_equal(verdict.numpy(), expected)
    assert np.array_equal(crisp_kb_truth(model, one_hot, soft).numpy(), expected.astype(np.float32))  # 0 or 1


def test_board_accuracy_is_the_symbolic_verdict_and_reads_no_solution() -> None:
    """The shipped 4x4 model, stopped after 1, 2 or its full number of refinement steps: solved and unsolved boards."""
    model = load_model(shipped_checkpoint(4), 4)[0]
    puzzles = data.generated(4, "open_solvable", 40, seed=4)
    wrong = replace(puzzles, solutions=puzzles.solutions.flip(0))
    verdicts = []
    for steps in (1, 2, None):
        metrics = assess.solving(model, puzzles, steps)
        with torch.no_grad():
            answers = decoded(model.refine(one_hot_givens(puzzles.puzzles, 4), steps)[-1]).tolist()
        symbolic = [Board(a, 4).is_valid_solution and all(p in (0, x) for p, x in zip(puzzle, a))
                    for a, puzzle in zip(answers, puzzles.puzzles.tolist())]
        assert metrics["solve/board_accuracy"] == pytest.approx(np.mean(symbolic))
        assert assess.solving(model, wrong, steps)["solve/board_accuracy"] == metrics["solve/board_accuracy"]
        verdicts += symbolic
    assert 0 < sum(verdicts) < len(verdicts)  # both verdicts occur
