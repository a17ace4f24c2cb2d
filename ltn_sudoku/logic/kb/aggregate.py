"""From per-board truths to a loss: close each grounded axiom of a theory with its ∀b, keep those the config selects,
aggregate them (SatAgg) and report every axiom's satisfaction. Shared by every objective (the board's,
ltn_sudoku/logic/board/objective.py; the visual one, ltn_sudoku/logic/visual/objective.py) and by the data-parallel
gather (ltn_sudoku/logic/training/distributed.py), which hands over `Groundings` between grounding and closing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import torch

from ltn_sudoku.logic.device import to_list
from ltn_sudoku.logic.kb.operators import Operators
from ltn_sudoku.logic.kb.theory import At, Grounded, Theory, loss_of, sat_agg, weight_of

Groundings = dict[At, Grounded]  # each grounded axiom (a rule axiom once per refinement step) -> its per-board truths
Gather = Callable[[Groundings], Groundings]


@dataclass
class BatchResult:
    """The loss and every reported axiom's satisfaction on the batch (rule axioms at the last refinement step);
    `constant`: the axioms that hold by construction under this logic (reported apart, not in SatAgg); `truths`:
    each axiom's closed truths in SatAgg, summed over its steps, still on the graph (for its gradient norm)."""

    loss: torch.Tensor
    satisfaction: dict[str, float]
    constant: dict[str, float] = field(default_factory=dict)
    truths: dict[str, torch.Tensor] = field(default_factory=dict)


def close_and_aggregate(theory: Theory, ops: Operators, grounded: Groundings, switches: dict[str, object],
                        exists_last: bool = False, labels: dict[str, list[str]] | None = None) -> BatchResult:
    """Close every grounded axiom with its ∀b, keep those the config selects, and aggregate them: the loss and the
    reported satisfactions (a rule axiom's at its last grounded step). `labels` names the entries of an axiom that
    closes to one truth per item (the definitions: one per defined technique)."""
    steps = sorted({key.step for key in grounded if key.step is not None})
    formulas: list[torch.Tensor] = []
    weights: list[float] = []
    reported: dict[str, torch.Tensor] = {}  # read back to the host in one transfer at the end
    constant: dict[str, torch.Tensor] = {}
    truths_sum: dict[str, torch.Tensor] = {}
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
        if axiom.constant_under(ops.family):  # a constant of the groundings: reported apart, never trained
            if last and axiom.reported:
                constant.update((label, t.detach()) for label, t in zip(names, truths))
            continue
        selected = axiom.switch.on(switches) and (key.step is None
                                                  or key.step in axiom.steps.trained(steps, exists_last))
        for label, t in zip(names, truths):
            if selected:
                formulas.append(t)
                weights.append(weight_of(axiom, switches))
                truths_sum[key.axiom] = t.sum() + truths_sum.get(key.axiom, 0.0)
            if last and axiom.reported and (selected or key.step is not None):
                reported[label] = t.detach()
    return BatchResult(loss_of(theory, sat_agg(theory, ops, formulas, weights)), _host(reported), _host(constant),
                       truths_sum)


def _host(values: dict[str, torch.Tensor]) -> dict[str, float]:
    """Scalar truths read back to the host in one transfer."""
    if not values:
        return {}
    return dict(zip(values, to_list(torch.stack([v.float().reshape(()) for v in values.values()]))))


def local(grounded: Groundings) -> Groundings:
    """One process's gathering of per-board truths: the identity (several: distributed.gather_groundings)."""
    return grounded
