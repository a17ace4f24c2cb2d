"""The visual models' training objective: ground the visual theory (ltn_sudoku/logic/kb/theory.py) on one batch of
board images, select by config, loss = −log SatAgg (the weighted log-product ∀: the cross-entropy of the facts).

Unless `labels_teach_reader`, the labelled axioms fit isCorrect's calibration only (hasValue detached): their
gradient on an invalid board asks the reader for more collisions anywhere, which cost 4x4 runs most of their digit
accuracy (docs/visual.md); the reader then learns from the rule axioms on the valid boards and, with
`abduce_weight`, from ∀b:valid(b) ∀c hasValue(c, g*_b(c)) over the abduced grids (ltn_sudoku.logic.visual.abduce).
"""

from __future__ import annotations

import torch

from ltn_sudoku.logic.kb.aggregate import BatchResult, Gather, Groundings, close_and_aggregate, local
from ltn_sudoku.logic.kb.operators import Operators
from ltn_sudoku.logic.kb.theory import LABELLED, VISUAL_THEORY, At, Grounded
from ltn_sudoku.logic.visual.abduce import NO_GRID
from ltn_sudoku.logic.visual.model import VisualLtn


def abduced_grounding(assignment: torch.Tensor, targets: torch.Tensor) -> Grounded:
    """hasValue(b, c, g*_b(c)) of every cell, guarded by whether the cell has an abduced digit, on the boards with
    at least one such cell."""
    known = targets != NO_GRID
    rows = known.any(-1)
    chosen = assignment.gather(-1, targets.clamp(min=0)[..., None]).squeeze(-1)
    return Grounded(chosen[rows], known[rows])


def abduced_satisfaction(assignment: torch.Tensor, targets: torch.Tensor, ops: Operators) -> torch.Tensor | None:
    """Truth of ∀b ∀c:known(b,c) hasValue(c, g*_b(c)) with the log-product ∀ (the geometric mean of the abduced
    digits' probabilities over the cells that have one); None when no cell of the batch has one."""
    grounded = abduced_grounding(assignment, targets)
    return LABELLED(ops, grounded) if grounded.truth.shape[0] else None


def ground(model: VisualLtn, ops: Operators, images: torch.Tensor, valid: torch.Tensor,
           labels_teach_reader: bool = False, abduced: torch.Tensor | None = None) -> Groundings:
    """Every axiom of the visual theory, open in b, on this process's boards (abduced_grids only with grids)."""
    assignment = model.has_value(images)
    truth = model.is_correct(ops, assignment if labels_teach_reader else assignment.detach())
    labelled = Grounded(truth, valid)
    out: Groundings = {At("is_correct_valid"): labelled, At("not_is_correct_invalid"): labelled,
                       At("rules_on_valid"): Grounded(model.satisfaction(ops, assignment[valid.bool()]))}
    if abduced is not None:
        out[At("abduced_grids")] = abduced_grounding(assignment, abduced)
    return out


def objective(model: VisualLtn, ops: Operators, images: torch.Tensor, valid: torch.Tensor, rules_weight: float,
              labels_teach_reader: bool = False, abduced: torch.Tensor | None = None, abduce_weight: float = 0.0,
              gather: Gather = local) -> BatchResult:
    """−log SatAgg(labelled axioms [, rules on valid] [, abduced grids on valid]) on one batch of boards, with each
    selected axiom's satisfaction. `gather`: as for the board objective (ltn_sudoku.logic.board.objective)."""
    switches: dict[str, object] = {"train.rules_weight": rules_weight, "train.abduce_weight": abduce_weight}
    grounded = ground(model, ops, images, valid, labels_teach_reader, abduced if abduce_weight > 0 else None)
    return close_and_aggregate(VISUAL_THEORY, ops, gather(grounded), switches)
