"""The training objective: loss = 1 − SatAgg of the knowledge base grounded on one batch of labelled boards.

- The rule axioms hold for hasValue on the solvable boards (rules only: no solution is read unless the supervised
  switch is on), grounded on the refinement steps listed by `kb_steps` (the last step always). States where every
  single has been placed are left to recommendsHeuristic: the solver practises on puzzles as given and partly filled.
- hasSolution's labelled axioms read the solver's result detached, so they never teach hasValue anything: the solver
  is trained on the rules alone.
- recommendsHeuristic's labelled axioms and the seed's definitions of Naked / Hidden Single.
The `givens` axiom is reported but left out of the loss: clamping satisfies it by construction, so it has no gradient
(and under non-stable pMeanError an exactly satisfied formula's gradient is NaN).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch
from ltn.core import LTNObject

from ltn_sudoku.logic.axioms import (DEFINITIONS, class_axioms, definition_axioms, rule_axioms, satisfaction,
                                     supervised_axiom, technique_axioms)
from ltn_sudoku.logic.data import SOLVABLE, BoardSet
from ltn_sudoku.logic.device import to_list
from ltn_sudoku.logic.grounding import one_hot_givens
from ltn_sudoku.logic.inference import solution_features
from ltn_sudoku.logic.model import LtnSudoku
from ltn_sudoku.logic.operators import Operators

UNTRAINED_AXIOMS: frozenset[str] = frozenset({"givens"})
# The axioms that ask a cell or a unit to commit to a digit: on an early refinement step they reward a guess, so
# `model.exists_last` keeps them to the last step (the collision axioms apply on every step).
EXISTENTIAL_AXIOMS: frozenset[str] = frozenset({"cell_has_value", "unit_has_digit"})


def kb_steps(steps: int, every: int) -> list[int]:
    """0-based refinement steps the rule axioms are grounded on: every `every`-th step and always the last."""
    return sorted({s for s in range(every - 1, steps, max(1, every))} | {steps - 1})


@dataclass
class BatchResult:
    """The loss and every axiom's satisfaction on the batch (rule axioms at the last refinement step)."""

    loss: torch.Tensor
    satisfaction: dict[str, float]


def _local(tensor: torch.Tensor) -> torch.Tensor:
    return tensor


def objective(model: LtnSudoku, ops: Operators, batch: BoardSet, supervised: bool = False,
              gather: Callable[[torch.Tensor], torch.Tensor] = _local) -> BatchResult:
    """1 − SatAgg(KB) on a batch of open boards (solvable and impossible), with each axiom's satisfaction.

    `gather` is for data-parallel training (ltn_sudoku/logic/distributed.py), where `batch` is this process's shard of
    the global batch: it concatenates every process's per-board tensors, so each ∀b (not a mean over boards) and each
    "any board?" test see the global batch. One process: the identity.
    """
    g = model.grounding
    givens = one_hot_givens(batch.puzzles, g.n)
    solvable = batch.labels == SOLVABLE
    practice = batch.practice_mask()
    assignments = model.has_value(givens, detach_every=model.config.detach_every)
    untrained = UNTRAINED_AXIOMS | (set() if model.config.unit_axiom else {"unit_has_digit"})
    formulas: dict[str, torch.Tensor] = {}
    reported: dict[str, torch.Tensor] = {}  # read back to the host in one transfer at the end
    steps = kb_steps(len(assignments), model.config.kb_every)
    if gather(practice).any():
        for step in steps:
            per_board = rule_axioms(g, ops, assignments[step][practice], givens[practice])
            sats = satisfaction(ops, {k: LTNObject(gather(v.value), v.free_vars) for k, v in per_board.items()})
            for name, value in sats.items():
                early = step != steps[-1] and model.config.exists_last and name in EXISTENTIAL_AXIOMS
                if name not in untrained and not early:
                    formulas[f"{name}@{step + 1}"] = value
                if step == steps[-1]:
                    reported[name] = value.detach()
        known = practice & (batch.solutions > 0).all(-1)
        if supervised and gather(known).any():
            truth = supervised_axiom(g, ops, assignments[-1][known], one_hot_givens(batch.solutions[known], g.n))
            formulas["supervised"] = satisfaction(ops, {"supervised": LTNObject(gather(truth.value),
                                                                                truth.free_vars)})["supervised"]
    features = solution_features(model, ops, givens, assignments[-1].detach())
    formulas["has_solution"], formulas["no_solution"] = class_axioms(ops, gather(model.has_solution(features)),
                                                                     gather(solvable))
    if model.config.techniques and gather(solvable).any():
        # a DDP shard without solvable boards still joins the gather, with an empty part that autograd reaches
        recommends = gather(model.recommends(givens[solvable]) if solvable.any()
                            else model.recommends(givens.new_zeros(1, *givens.shape[1:]))[:0])
        formulas["recommends"], formulas["not_recommends"] = technique_axioms(
            ops, recommends, gather(batch.techniques[solvable]))
        defined = [i for i, name in enumerate(model.config.techniques) if name in DEFINITIONS]
        if defined:
            definitions = torch.stack(
                [DEFINITIONS[model.config.techniques[i]](g, givens[solvable]) for i in defined], -1)
            truths = definition_axioms(ops, recommends[:, defined], gather(definitions))
            for i, truth in zip(defined, truths):
                formulas[f"definition {model.config.techniques[i]}"] = truth
    for name in ("has_solution", "no_solution", "recommends", "not_recommends"):
        if name in formulas:
            reported[name] = formulas[name].detach()
    reported.update({name: v.detach() for name, v in formulas.items() if name.startswith("definition")})
    report = dict(zip(reported, to_list(torch.stack([v.float().reshape(()) for v in reported.values()])))) \
        if reported else {}
    loss = 1 - ops.sat_agg(list(formulas.values()))
    return BatchResult(loss, report)
