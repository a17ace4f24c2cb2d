"""The board models' training objective: ground the board theory (ltn_sudoku/logic/kb/theory.py) on one batch, select
what the config asks for, loss = 1 − SatAgg.

- The rule axioms hold for hasValue on the solvable boards (rules only: no solution is read unless the supervised
  switch is on), grounded on the refinement steps listed by `kb_steps` (the last step always). States where every
  single has been placed are left to recommendsHeuristic: the solver practises on puzzles as given and partly filled.
- hasSolution's labelled axioms read the solver's result detached, so they never teach hasValue anything: the solver
  is trained on the rules alone.
- recommendsHeuristic's labelled axioms and the seed's definitions of Naked / Hidden Single.
The `givens` axiom is reported but left out of the loss: clamping satisfies it by construction, so it has no gradient
(and under non-stable pMeanError an exactly satisfied formula's gradient is NaN). An axiom grounded on no board of the
(global) batch is left out.
"""

from __future__ import annotations

import torch

from ltn_sudoku.logic.board.data import SOLVABLE, BoardSet
from ltn_sudoku.logic.board.inference import solution_features
from ltn_sudoku.logic.board.model import LtnSudoku
from ltn_sudoku.logic.groundings.grounding import one_hot_givens
from ltn_sudoku.logic.kb.aggregate import BatchResult, Gather, Groundings, close_and_aggregate, local
from ltn_sudoku.logic.kb.axioms import DEFINITIONS, rule_axioms, supervised_axiom
from ltn_sudoku.logic.kb.operators import Operators
from ltn_sudoku.logic.kb.theory import BOARD_THEORY, At, Grounded, kb_steps

__all__ = ["ground", "objective"]


def ground(model: LtnSudoku, ops: Operators, batch: BoardSet, supervised: bool) -> Groundings:
    """Every axiom of the board theory the config can select, open in b, on this process's boards.

    The keys depend on the config alone, never on the boards (a data-parallel gather needs the same tensors from
    every process): an axiom whose boards are missing from this batch is grounded on no board."""
    g = model.grounding
    givens = one_hot_givens(batch.puzzles, g.n)
    solvable = batch.labels == SOLVABLE
    practice = batch.practice_mask()
    assignments = model.has_value(givens, detach_every=model.config.detach_every)
    out: Groundings = {}
    for step in kb_steps(len(assignments), model.config.kb_every):
        for name, truth in rule_axioms(g, ops, assignments[step][practice], givens[practice]).items():
            out[At(name, step)] = Grounded(truth.value)
    if supervised:
        known = practice & (batch.solutions > 0).all(-1)
        truth = supervised_axiom(g, ops, assignments[-1][known], one_hot_givens(batch.solutions[known], g.n))
        out[At("supervised")] = Grounded(truth.value)
    features = solution_features(model, ops, givens, assignments[-1].detach())
    has_solution = model.has_solution(features)
    out[At("has_solution")] = out[At("no_solution")] = Grounded(has_solution, solvable)
    techniques = model.config.techniques
    if techniques:
        # a DDP shard without solvable boards still joins the gather, with an empty part that autograd reaches
        recommends = (model.recommends(givens[solvable]) if solvable.any()
                      else model.recommends(givens.new_zeros(1, *givens.shape[1:]))[:0])
        out[At("recommends")] = out[At("not_recommends")] = Grounded(recommends, batch.techniques[solvable])
        defined = [i for i, name in enumerate(techniques) if name in DEFINITIONS]
        if defined:
            definitions = torch.stack([DEFINITIONS[techniques[i]](g, givens[solvable]) for i in defined], -1)
            out[At("definition")] = Grounded(recommends[:, defined], definitions)
    return out


def objective(model: LtnSudoku, ops: Operators, batch: BoardSet, supervised: bool = False,
              gather: Gather = local) -> BatchResult:
    """1 − SatAgg(KB) on a batch of open boards (solvable and impossible), with each axiom's satisfaction.

    `gather` is for data-parallel training (ltn_sudoku.logic.training.distributed.gather_groundings), where `batch` is this
    process's shard of the global batch: it concatenates every process's per-board truths, so each ∀b (not a mean over
    boards) sees the global batch. One process: the identity."""
    config = model.config
    switches: dict[str, object] = {"model.unit_axiom": config.unit_axiom, "model.exists_axioms": config.exists_axioms,
                                   "train.supervised": supervised, "model.techniques": bool(config.techniques)}
    defined = [name for name in config.techniques if name in DEFINITIONS]
    return close_and_aggregate(BOARD_THEORY, ops, gather(ground(model, ops, batch, supervised)), switches,
                               config.exists_last, {"definition": defined})
