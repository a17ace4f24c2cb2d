"""From per-board truths to a loss: close each grounded axiom of a theory with its ∀b, keep those the config selects,
aggregate them (SatAgg) and report every axiom's satisfaction. Shared by every objective (the board's,
ltn_sudoku/logic/board/objective.py; the visual one, ltn_sudoku/logic/visual/objective.py) and by the data-parallel
gather (ltn_sudoku/logic/training/distributed.py), which hands over `Groundings` between grounding and closing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch

from ltn_sudoku.logic.device import to_list
from ltn_sudoku.logic.kb.operators import Operators
from ltn_sudoku.logic.kb.theory import At, Grounded, Theory, loss_of, sat_agg, weight_of

Groundings = dict[At, Grounded]  # each grounded axiom (a rule axiom once per refinement step) -> its per-board truths
Gather = Callable[[Groundings], Groundings]


@dataclass
class BatchResult:
    """The loss and every reported axiom's satisfaction on the batch (rule axioms at the last refinement step)."""

    loss: torch.Tensor
    satisfaction: dict[str, float]


def close_and_aggregate(theory: Theory, ops: Operators, grounded: Groundings, switches: dict[str, object],
                        exists_last: bool = False, labels: dict[str, list[str]] | None = None) -> BatchResult:
    """Close every grounded axiom with its ∀b, keep those the config selects, and aggregate them: the loss and the
    reported satisfactions (a rule axiom's at its last grounded step). `labels` names the entries of an axiom that
    closes to one truth per item (the definitions: one per defined technique)."""
    steps = sorted({key.step for key in grounded if key.step is not None})
    formulas: list[torch.Tensor] = []
    weights: list[float] = []
    reported: dict[str, torch.Tensor] = {}  # read back to the host in one transfer at the end
    for key, value in grounded.items():
        if value.truth.shape[0] == 0:
            continue  # no board of the batch to ground it on
        axiom = theory.axiom(key.axiom)
        truth = axiom.close(ops, value)
        if labels and key.axiom in labels:
            names, truths = [f"{key.axiom} {item}" for item in labels[key.axiom]], list(truth)
        else:
            names, truths = [key.axiom], [truth]
        last = key.step is None or key.step == steps[-1]
        selected = axiom.switch.on(switches) and (key.step is None
                                                  or key.step in axiom.steps.trained(steps, exists_last))
        for label, t in zip(names, truths):
            if selected:
                formulas.append(t)
                weights.append(weight_of(axiom, switches))
            if last and axiom.reported and (selected or key.step is not None):
                reported[label] = t.detach()
    report = dict(zip(reported, to_list(torch.stack([v.float().reshape(()) for v in reported.values()])))) \
        if reported else {}
    return BatchResult(loss_of(theory, sat_agg(theory, ops, formulas, weights)), report)


def local(grounded: Groundings) -> Groundings:
    """One process's gathering of per-board truths: the identity (several: distributed.gather_groundings)."""
    return grounded
