"""The knowledge base that is trained, declared in one place (docs/design.md §7.1): every axiom a record.

A record says what the axiom is (its formula), which learned predicate its gradient teaches, on which refinement
steps of hasValue it is grounded, its weight in SatAgg and the config switch that puts it there. The formulas
themselves are LTNtorch code in ltn_sudoku/logic/kb/axioms.py; a model's objective grounds them on a batch (one truth
per board, `Grounded`), hands the per-board truths to the data-parallel gather when there is one
(ltn_sudoku/logic/training/distributed.py), closes each with its ∀b (`close`), keeps what the config selects (`select`) and
aggregates with `sat_agg`. Board models: ltn_sudoku/logic/board/objective.py; visual models:
ltn_sudoku/logic/visual/objective.py.

The board theory (hasValue = HV, isGiven = G, isSameRow / isSameCol / isSameBlock = S_k, Sol the known solution):

| axiom               | formula                                              | trains              | steps | in SatAgg when |
|---------------------|------------------------------------------------------|---------------------|-------|----------------|
| givens              | ∀b,c,v G(b,c,v) → HV(b,c,v)                          | (nothing: clamped)  | last  | never (reported) |
| cell_has_value      | ∀b,c ∃v HV(b,c,v)                                    | hasValue            | kb*   | always         |
| one_value_per_cell  | ∀b,c ∀v1≠v2 ¬(HV(b,c,v1) ∧ HV(b,c,v2))               | hasValue            | kb    | always         |
| row / col / block   | ∀b ∀c1≠c2 ∀v S_k(c1,c2) → ¬(HV(b,c1,v) ∧ HV(b,c2,v)) | hasValue            | kb    | always         |
| unit_has_digit      | ∀b,u,v ∃c inUnit(c,u) ∧ HV(b,c,v)                    | hasValue            | kb*   | model.unit_axiom |
| supervised          | ∀b,c,v Sol(b,c,v) → HV(b,c,v)                        | hasValue            | last  | train.supervised |
| has_solution        | ∀b:solvable(b) hasSolution(b)                        | hasSolution         | last  | always         |
| no_solution         | ∀b:¬solvable(b) ¬hasSolution(b)                      | hasSolution         | last  | always         |
| recommends          | ∀b,h:applies(b,h) recommendsHeuristic(b,h)           | recommendsHeuristic | -     | model.techniques |
| not_recommends      | ∀b,h:¬applies(b,h) ¬recommendsHeuristic(b,h)         | recommendsHeuristic | -     | model.techniques |
| definition <h>      | ∀b recommendsHeuristic(b,h) ↔ Def_h(b)               | recommendsHeuristic | -     | h is defined   |

The rule axioms hold on the solvable boards still worth practising; kb = every `model.kb_every`-th step and the last;
kb* = the last step only with `model.exists_last`. hasSolution reads the reached assignment detached: it never teaches
hasValue. Loss = 1 − SatAgg, SatAgg the family's ∀ (pMeanError) over the selected closed axioms.

The visual theory (no cell is given; hasValue is the digit reader; g*_b the abduced grid of board b):

| axiom                  | formula                                  | trains                          | weight              |
|------------------------|------------------------------------------|---------------------------------|---------------------|
| is_correct_valid       | ∀b:valid(b) isCorrect(b)                 | isCorrect's calibration (+ hasValue with train.labels_teach_reader) | 1 |
| not_is_correct_invalid | ∀b:¬valid(b) ¬isCorrect(b)               | as above                        | 1                   |
| rules_on_valid         | ∀b:valid(b) (the rule axioms of model.axioms), ∀b as the mean | hasValue   | train.rules_weight  |
| abduced_grids          | ∀b:valid(b) ∀c hasValue(b, c, g*_b(c))   | hasValue                        | train.abduce_weight |

Loss = −log SatAgg, SatAgg the weighted log-product ∀ (the cross-entropy of the labelled facts).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import torch
from ltn.core import LTNObject

from ltn_sudoku.logic.kb.axioms import definition_axioms, labelled_axiom
from ltn_sudoku.logic.groundings.grounding import index_variable
from ltn_sudoku.logic.kb.operators import AggregLogProduct, Operators

STEPS: tuple[str, ...] = ("kb", "kb*", "last", "-")
SAT_AGGS: tuple[str, ...] = ("forall", "weighted_log_product")


@dataclass(frozen=True)
class Grounded:
    """An axiom grounded on one batch, still open in the board variable: `truth` (boards, ...) and, for a labelled
    axiom, `facts` (boards, ...): the labels that guard it, or the defining formula's truth it is equivalent to.
    Data-parallel training gathers these tensors from every process before they are closed."""

    truth: torch.Tensor
    facts: torch.Tensor | None = None

    def tensors(self) -> tuple[torch.Tensor, ...]:
        return (self.truth,) if self.facts is None else (self.truth, self.facts)

    def with_tensors(self, tensors: tuple[torch.Tensor, ...]) -> Grounded:
        return Grounded(tensors[0], tensors[1] if len(tensors) > 1 else None)


Closer = Callable[[Operators, Grounded], torch.Tensor]


@dataclass(frozen=True)
class Axiom:
    """One axiom of a theory: `close` quantifies its per-board truth over the boards (a scalar, or one per
    defined technique); `switch` names the config key that must be true for it to enter SatAgg ('' = always;
    'never' = reported only); `weight` is a number or the config key that holds it."""

    name: str
    formula: str
    trains: str
    steps: str
    close: Closer
    switch: str = ""
    weight: float | str = 1.0
    reported: bool = True  # its satisfaction goes to TensorBoard (sat/<name>) and the batch's report


@dataclass(frozen=True)
class Theory:
    """A knowledge base: its axioms, how SatAgg aggregates them and how the loss reads SatAgg."""

    name: str
    axioms: tuple[Axiom, ...]
    sat_agg: str  # one of SAT_AGGS
    loss: str  # "1 - SatAgg" or "-log SatAgg"

    def axiom(self, name: str) -> Axiom:
        return next(a for a in self.axioms if a.name == name)


# ---- closing: ∀b (and the other variables a labelled axiom ranges over) --------------------------------------------
def forall_boards(ops: Operators, grounded: Grounded) -> torch.Tensor:
    """∀b of a per-board truth with the family's ∀ (pMeanError)."""
    b = index_variable("b", torch.arange(grounded.truth.shape[0], device=grounded.truth.device))
    return ops.forall([b], LTNObject(grounded.truth.float(), ["b"])).value


def mean_over_boards(ops: Operators, grounded: Grounded) -> torch.Tensor:
    """∀b as the arithmetic mean of per-board truths (the visual rule axioms on the valid boards)."""
    return grounded.truth.mean()


def _labelled(negated: bool) -> Closer:
    """∀ over the facts' positive (or, negated, negative) entries of the predicate (or its negation)."""
    return lambda ops, grounded: labelled_axiom(ops, grounded.truth, grounded.facts, negated)  # type: ignore


def equivalence_per_technique(ops: Operators, grounded: Grounded) -> torch.Tensor:
    """(defined techniques,) ∀b recommendsHeuristic(b, h) ↔ Def_h(b)."""
    assert grounded.facts is not None
    return definition_axioms(ops, grounded.truth, grounded.facts)


LABELLED = _labelled(negated=False)
LABELLED_NOT = _labelled(negated=True)

# ---- the two theories ------------------------------------------------------------------------------------------------
HV, HS, RH = "hasValue", "hasSolution", "recommendsHeuristic"
BOARD_THEORY = Theory("board", (
    Axiom("givens", "∀b,c,v G(b,c,v) → HV(b,c,v)", "nothing (clamping satisfies it)", "last", forall_boards,
          switch="never"),
    Axiom("cell_has_value", "∀b,c ∃v HV(b,c,v)", HV, "kb*", forall_boards),
    Axiom("one_value_per_cell", "∀b,c ∀v1≠v2 ¬(HV(b,c,v1) ∧ HV(b,c,v2))", HV, "kb", forall_boards),
    Axiom("row", "∀b ∀c1≠c2 ∀v isSameRow(c1,c2) → ¬(HV(b,c1,v) ∧ HV(b,c2,v))", HV, "kb", forall_boards),
    Axiom("col", "∀b ∀c1≠c2 ∀v isSameCol(c1,c2) → ¬(HV(b,c1,v) ∧ HV(b,c2,v))", HV, "kb", forall_boards),
    Axiom("block", "∀b ∀c1≠c2 ∀v isSameBlock(c1,c2) → ¬(HV(b,c1,v) ∧ HV(b,c2,v))", HV, "kb", forall_boards),
    Axiom("unit_has_digit", "∀b,u,v ∃c inUnit(c,u) ∧ HV(b,c,v)", HV, "kb*", forall_boards,
          switch="model.unit_axiom"),
    Axiom("supervised", "∀b,c,v Sol(b,c,v) → HV(b,c,v)", HV, "last", forall_boards, switch="train.supervised",
          reported=False),
    Axiom("has_solution", "∀b:solvable(b) hasSolution(b)", HS, "last", LABELLED),
    Axiom("no_solution", "∀b:¬solvable(b) ¬hasSolution(b)", HS, "last", LABELLED_NOT),
    Axiom("recommends", "∀b,h:applies(b,h) recommendsHeuristic(b,h)", RH, "-", LABELLED,
          switch="model.techniques"),
    Axiom("not_recommends", "∀b,h:¬applies(b,h) ¬recommendsHeuristic(b,h)", RH, "-", LABELLED_NOT,
          switch="model.techniques"),
    Axiom("definition", "∀b recommendsHeuristic(b,h) ↔ Def_h(b), per defined technique h", RH, "-",
          equivalence_per_technique, switch="model.techniques"),
), sat_agg="forall", loss="1 - SatAgg")

VISUAL_THEORY = Theory("visual", (
    Axiom("is_correct_valid", "∀b:valid(b) isCorrect(b)", "isCorrect's calibration", "-", LABELLED),
    Axiom("not_is_correct_invalid", "∀b:¬valid(b) ¬isCorrect(b)", "isCorrect's calibration", "-", LABELLED_NOT),
    Axiom("rules_on_valid", "∀b:valid(b) SatAgg(model.axioms)(b)", HV, "-", mean_over_boards,
          switch="train.rules_weight", weight="train.rules_weight"),
    Axiom("abduced_grids", "∀b:valid(b) ∀c hasValue(b, c, g*_b(c))", HV, "-", LABELLED,
          switch="train.abduce_weight", weight="train.abduce_weight"),
), sat_agg="weighted_log_product", loss="-log SatAgg")


# ---- selection and SatAgg ----------------------------------------------------------------------------------------------
def kb_steps(steps: int, every: int) -> list[int]:
    """0-based refinement steps the rule axioms are grounded on: every `every`-th step and always the last."""
    return sorted({s for s in range(every - 1, steps, max(1, every))} | {steps - 1})


def trained_steps(axiom: Axiom, steps: list[int], exists_last: bool) -> list[int]:
    """Of the grounded steps (kb_steps), those on which `axiom` enters SatAgg: kb* axioms (the existential ones,
    which on an early step reward a guess) on the last only under model.exists_last."""
    if axiom.steps == "kb" or (axiom.steps == "kb*" and not exists_last):
        return steps
    return steps[-1:]


def switched_on(axiom: Axiom, switches: Mapping[str, object]) -> bool:
    """Whether the config puts `axiom` into SatAgg (`switches`: config key -> value)."""
    if axiom.switch == "never":
        return False
    return not axiom.switch or bool(switches[axiom.switch])


def weight_of(axiom: Axiom, switches: Mapping[str, object]) -> float:
    return float(switches[axiom.weight]) if isinstance(axiom.weight, str) else float(axiom.weight)  # type: ignore


def sat_agg(theory: Theory, ops: Operators, truths: list[torch.Tensor], weights: list[float]) -> torch.Tensor:
    """SatAgg of the selected closed axioms: the family's ∀ (board theory) or the weighted log-product ∀."""
    if theory.sat_agg == "forall":
        if any(w != 1.0 for w in weights):
            raise ValueError(f"the {theory.name} theory's SatAgg takes no weights")
        return ops.sat_agg(truths)
    stacked = torch.stack([t.float().reshape(()) for t in truths])
    weight = torch.tensor(weights, device=stacked.device)
    logs = torch.log(stacked.clamp(min=AggregLogProduct.eps))
    return torch.exp((weight * logs).sum() / weight.sum())


def loss_of(theory: Theory, satisfaction: torch.Tensor) -> torch.Tensor:
    """The training loss read off SatAgg."""
    return 1 - satisfaction if theory.loss == "1 - SatAgg" else -torch.log(satisfaction)

