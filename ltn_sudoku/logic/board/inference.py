"""The whole LTN on a batch of boards: every learned and defined predicate's truth, as tensors.

Used by training (with gradients through hasValue), validation, evaluation and the predictor, so that all of them read
the same truths: hasValue after refinement, isCorrect (the constraint axioms on a closed board's own digits),
hasSolution (a learned predicate over the satisfaction the solver reached and the seed's NoSolution) and
recommendsHeuristic.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from ltn_sudoku.logic.board.model import LtnSudoku
from ltn_sudoku.logic.groundings.grounding import Grounding, one_hot_givens
from ltn_sudoku.logic.groundings.layers import violation_scale
from ltn_sudoku.logic.kb.axioms import CONSTRAINT_AXIOMS, CRISP, board_satisfaction, no_solution, rule_axioms
from ltn_sudoku.logic.kb.operators import Operators


def crisp(assignment: torch.Tensor) -> torch.Tensor:
    """The argmax digit of every cell, one-hot (givens stay what they are)."""
    return nn.functional.one_hot(assignment.argmax(-1), assignment.shape[-1]).float()


def decoded(assignment: torch.Tensor) -> torch.Tensor:
    """(batch, N) digits 1..n of the argmax assignment."""
    return assignment.argmax(-1) + 1


def is_valid_assignment(model: LtnSudoku, givens: torch.Tensor, assignment: torch.Tensor) -> torch.Tensor:
    """(batch,) bool: the crisp assignment keeps the givens and breaks no rule, i.e. the Gödel truth of the givens
    and constraint axioms on it is 1 (`crisp_kb_truth`). Computed as what that truth says of a one-hot assignment:
    every given digit is the cell's argmax and no unit holds a digit twice (a few counts, 0.01 ms a 9x9 board in the
    LTN answer where the KB's pairwise formulas took 0.68; tests/test_crisp_kb.py checks that both agree)."""
    one_hot = crisp(assignment)
    kept = (givens * one_hot).sum((-2, -1)) == givens.sum((-2, -1))
    per_unit = torch.einsum("uc,bcv->buv", model.grounding.unit_membership, one_hot)  # how often a unit holds v
    return kept & (per_unit <= 1).flatten(1).all(-1)


def crisp_kb_truth(model: LtnSudoku, givens: torch.Tensor, assignment: torch.Tensor) -> torch.Tensor:
    """(batch,) the Gödel truth of the givens and constraint axioms on the crisp (argmax) assignment: what
    `is_valid_assignment` decides, as the knowledge base states it."""
    one_hot = crisp(assignment)
    names = ("givens", *CONSTRAINT_AXIOMS)
    return board_satisfaction(CRISP, rule_axioms(model.grounding, CRISP, one_hot, givens, names), names)


def is_correct_truth(model: LtnSudoku, ops: Operators, values: torch.Tensor) -> torch.Tensor:
    """(batch,) isCorrect(b) of closed boards: SatAgg of the constraint axioms on the board's own digits."""
    one_hot = one_hot_givens(values, model.grounding.n)
    truths = rule_axioms(model.grounding, ops, one_hot, one_hot, CONSTRAINT_AXIOMS)
    return board_satisfaction(ops, truths, CONSTRAINT_AXIOMS)


def solution_features(model: LtnSudoku, ops: Operators, givens: torch.Tensor,
                      assignment: torch.Tensor) -> torch.Tensor:
    """(batch, features) what hasSolution reads (model.SOLUTION_INPUTS).

    `reached`: how well the reached soft assignment satisfies the constraint axioms and unit_has_digit, and the
    solver's confidence (mean and least over open cells) and the share of open cells: only what hasValue reached.
    `symbolic` (the first checkpoints): the same soft truths of the constraint axioms, the rule axioms on the decoded
    board, whether the decoded board is valid and the seed's NoSolution on the givens; the last two are crisp
    symbolic verdicts that decide some classes by construction.
    """
    with torch.no_grad():
        g = model.grounding
        reached = model.config.solution_inputs == "reached"
        soft = rule_axioms(g, ops, assignment, givens, (*CONSTRAINT_AXIOMS, "unit_has_digit") if reached
                           else CONSTRAINT_AXIOMS)
        empty = 1 - givens.sum(-1)
        open_cells = empty.sum(-1).clamp(min=1)
        confidence = assignment.max(-1).values
        mean_conf = (confidence * empty).sum(-1) / open_cells
        min_conf = torch.where(empty > 0, confidence, torch.ones_like(confidence)).min(-1).values
        columns = [violation_scale(soft[name].value.float()) for name in CONSTRAINT_AXIOMS]
        if reached:
            columns += [violation_scale(soft["unit_has_digit"].value.float()), mean_conf, min_conf, empty.mean(-1)]
            return torch.stack(columns, dim=-1)
        hard = rule_axioms(g, ops, crisp(assignment), givens, CONSTRAINT_AXIOMS[1:])
        columns += [violation_scale(hard[name].value.float()) for name in CONSTRAINT_AXIOMS[1:]]
        columns += [is_valid_assignment(model, givens, assignment).float(), no_solution(g, givens), mean_conf,
                    min_conf, empty.mean(-1)]
        return torch.stack(columns, dim=-1)


@dataclass
class Reached:
    """hasValue after each refinement step (the last is the answer), and hasSolution's truth."""

    assignments: list[torch.Tensor]
    has_solution: torch.Tensor

    @property
    def final(self) -> torch.Tensor:
        return self.assignments[-1]


def reach(model: LtnSudoku, ops: Operators, values: torch.Tensor, steps: int | None = None,
          tolerance: float = 0.0) -> Reached:
    """Run hasValue on boards (batch, N) and read hasSolution off the result. With `tolerance` > 0 (answering only)
    each board stops refining once a step moves its truths by no more than that (LtnSudoku.settle), and only the
    last assignment is kept."""
    givens = one_hot_givens(values, model.grounding.n)
    if tolerance > 0:
        assignments = [model.settle(givens, steps, tolerance)[0]]
    else:
        assignments = model.refine(givens, steps)
    features = solution_features(model, ops, givens, assignments[-1].detach())
    return Reached(assignments, model.has_solution(features))


def candidate_moves(grounding: Grounding, values: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Every basic-rule candidate move of every board: (board index, cell, digit 1..n) tensors of length M."""
    givens = one_hot_givens(values, grounding.n)
    possible = grounding.possible(givens, 1 - givens.sum(-1, keepdim=True)).round()
    board, cell, digit = possible.nonzero(as_tuple=True)
    return board, cell, digit + 1


def dead_end_probabilities(model: LtnSudoku, ops: Operators, values: torch.Tensor, steps: int | None = None,
                           chunk: int = 256) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """(board, cell, digit, probability) of every candidate move: 1 - hasSolution(b after the move)."""
    board, cell, digit = candidate_moves(model.grounding, values)
    after = values[board].clone()
    after[torch.arange(len(board), device=values.device), cell] = digit
    probabilities = []
    with torch.no_grad():
        for start in range(0, len(board), chunk):
            probabilities.append(1 - reach(model, ops, after[start:start + chunk], steps).has_solution)
    prob = torch.cat(probabilities) if probabilities else torch.zeros(0, device=values.device)
    return board, cell, digit, prob
