"""The knowledge base that is trained, declared in one place (docs/design.md §7.1): every axiom a record.

A record says what the axiom is (its formula), which learned predicate its gradient teaches, on which refinement
steps of hasValue it is grounded, its weight in SatAgg and the config switch that puts it there. The formulas
themselves are LTNtorch code in ltn_sudoku/logic/kb/axioms.py; a model's objective grounds them on a batch (one truth
per board, `Grounded`), hands the per-board truths to the data-parallel gather when there is one
(ltn_sudoku/logic/training/distributed.py), closes each with its ∀b (`close`), keeps what the config selects
(`Switch`, `Steps`) and aggregates with `sat_agg` (ltn_sudoku/logic/kb/aggregate.py). Board models: ltn_sudoku/logic/board/objective.py; visual models:
ltn_sudoku/logic/visual/objective.py.

Both theories, as tables (formula, what it trains, steps, when it is in SatAgg, weight), are generated from the
records below by `theory_markdown()`: docs/reference/theory.md (`python -m ltn_sudoku.logic.kb.theory` prints it;
tests/test_logic_theory.py checks the file equals it). The records are the one human-readable copy of each formula.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import NamedTuple

import torch
from ltn.core import LTNObject

from ltn_sudoku.logic.groundings.grounding import range_variable
from ltn_sudoku.logic.kb.axioms import definition_axioms, labelled_axiom
from ltn_sudoku.logic.kb.operators import AggregLogProduct, Operators


class Steps(Enum):
    """On which of hasValue's refinement steps an axiom is grounded and enters SatAgg."""

    KB = "kb"  # every `model.kb_every`-th step and the last
    KB_EXISTS = "kb*"  # as KB; the last step only under `model.exists_last` (the existential axioms)
    LAST = "last"  # the last step only
    NONE = "-"  # not on hasValue's steps (an axiom of another predicate)

    @property
    def meaning(self) -> str:
        return {Steps.KB: "every `model.kb_every`-th refinement step and the last",
                Steps.KB_EXISTS: "as kb; the last step only with `model.exists_last` (an existential axiom, which on "
                                 "an early step rewards a guess)",
                Steps.LAST: "the last refinement step only",
                Steps.NONE: "not grounded on hasValue's steps"}[self]

    def trained(self, grounded: list[int], exists_last: bool) -> list[int]:
        """Of the grounded 0-based steps (kb_steps, ascending), those on which the axiom enters SatAgg."""
        if self is Steps.KB or (self is Steps.KB_EXISTS and not exists_last):
            return grounded
        return grounded[-1:]


@dataclass(frozen=True)
class ConfigKey:
    """A config key an objective reads for its theory ('model.unit_axiom'): the `switches` mapping it hands to
    `close_and_aggregate` holds its value."""

    name: str

    def read(self, switches: Mapping[str, object]) -> object:
        return switches[self.name]


@dataclass(frozen=True)
class Switch:
    """What puts an axiom into SatAgg: always (no key), never (`reported_only`: its satisfaction is reported, never
    trained), or the truth of config keys (all of them)."""

    keys: tuple[ConfigKey, ...] = ()
    reported_only: bool = False

    def on(self, switches: Mapping[str, object]) -> bool:
        """Whether the config puts the axiom into SatAgg (`switches`: config key -> value)."""
        if self.reported_only:
            return False
        return all(bool(key.read(switches)) for key in self.keys)

    def __str__(self) -> str:
        if self.reported_only:
            return "never (reported)"
        return " and ".join(f"`{key.name}`" for key in self.keys) if self.keys else "always"


ALWAYS, NEVER = Switch(), Switch(reported_only=True)


@dataclass(frozen=True)
class ByConstruction:
    """When an axiom's truth is fixed by the groundings whatever the model learns (a constant with zero gradient):
    under every family (`families` None) or under the listed ones. Such an axiom is left out of SatAgg and reported
    apart (TensorBoard `construction/<axiom>`, not `sat/`): a figure that holds by construction is no figure."""

    why: str
    families: frozenset[str] | None = None

    def holds(self, family: str) -> bool:
        return self.families is None or family in self.families

    def __str__(self) -> str:
        where = "always" if self.families is None else "under " + ", ".join(sorted(self.families))
        return f"{where}: {self.why}"


def when(*keys: str) -> Switch:
    """In SatAgg when these config keys are all true (a weight key: when it is non-zero)."""
    return Switch(tuple(ConfigKey(key) for key in keys))


class SatAgg(Enum):
    """How a theory aggregates its selected closed axioms."""

    FORALL = "the family's ∀ (pMeanError)"
    WEIGHTED_LOG_PRODUCT = "the weighted log-product ∀ (the cross-entropy of the labelled facts)"


class Loss(Enum):
    """How the training loss reads SatAgg."""

    ONE_MINUS = "1 − SatAgg"
    NEGATIVE_LOG = "−log SatAgg"


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


class At(NamedTuple):
    """Which axiom a grounding is of and, for an axiom on hasValue's refinement steps, the 0-based step."""

    axiom: str
    step: int | None = None


Closer = Callable[[Operators, Grounded], torch.Tensor]


@dataclass(frozen=True)
class Axiom:
    """One axiom of a theory: its formula (the one human-readable copy), the predicate its gradient teaches, its
    steps; `close` quantifies its per-board truth over the boards (a scalar, or one per defined technique);
    `switch` says when it enters SatAgg; `weight` is a number or the config key that holds it."""

    name: str
    formula: str
    trains: str
    steps: Steps
    close: Closer
    switch: Switch = ALWAYS
    weight: float | ConfigKey = 1.0
    reported: bool = True  # its satisfaction goes to TensorBoard (sat/<name>) and the batch's report
    by_construction: ByConstruction | None = None  # when its truth is a constant of the groundings

    def constant_under(self, family: str) -> bool:
        """Whether the groundings fix this axiom's truth under the t-norm `family` (it leaves SatAgg there)."""
        return self.by_construction is not None and self.by_construction.holds(family)


@dataclass(frozen=True)
class Theory:
    """A knowledge base: its axioms, how SatAgg aggregates them and how the loss reads SatAgg."""

    name: str
    axioms: tuple[Axiom, ...]
    sat_agg: SatAgg
    loss: Loss
    legend: str = ""  # what the formulas' abbreviations and guards mean (the docs table's preamble)
    note: str = ""  # what the table does not say (the docs table's closing paragraph)

    def axiom(self, name: str) -> Axiom:
        return next(a for a in self.axioms if a.name == name)


# ---- closing: ∀b (and the other variables a labelled axiom ranges over) --------------------------------------------
def forall_boards(ops: Operators, grounded: Grounded) -> torch.Tensor:
    """∀b of a per-board truth with the family's ∀ (pMeanError)."""
    b = range_variable("b", grounded.truth.shape[0], grounded.truth.device)
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
    Axiom("givens", "∀b,c,v G(b,c,v) → HV(b,c,v)", "nothing (clamping satisfies it)", Steps.LAST, forall_boards,
          switch=NEVER, by_construction=ByConstruction("the givens are clamped into hasValue")),
    Axiom("cell_has_value", "∀b,c ∃v HV(b,c,v)", HV, Steps.KB_EXISTS, forall_boards,
          switch=when("model.exists_axioms")),
    Axiom("one_value_per_cell", "∀b,c ∀v1≠v2 ¬(HV(b,c,v1) ∧ HV(b,c,v2))", HV, Steps.KB, forall_boards,
          by_construction=ByConstruction("hasValue is a softmax over a cell's digits, so two digits' Łukasiewicz "
                                         "conjunction max(0, a + b − 1) is 0", frozenset({"lukasiewicz"}))),
    Axiom("row", "∀b ∀c1≠c2 ∀v isSameRow(c1,c2) → ¬(HV(b,c1,v) ∧ HV(b,c2,v))", HV, Steps.KB, forall_boards),
    Axiom("col", "∀b ∀c1≠c2 ∀v isSameCol(c1,c2) → ¬(HV(b,c1,v) ∧ HV(b,c2,v))", HV, Steps.KB, forall_boards),
    Axiom("block", "∀b ∀c1≠c2 ∀v isSameBlock(c1,c2) → ¬(HV(b,c1,v) ∧ HV(b,c2,v))", HV, Steps.KB, forall_boards),
    Axiom("unit_has_digit", "∀b,u,v ∃c inUnit(c,u) ∧ HV(b,c,v)", HV, Steps.KB_EXISTS, forall_boards,
          switch=when("model.exists_axioms", "model.unit_axiom")),
    Axiom("supervised", "∀b,c,v Sol(b,c,v) → HV(b,c,v)", HV, Steps.LAST, forall_boards,
          switch=when("train.supervised"), reported=False),
    Axiom("has_solution", "∀b:solvable(b) hasSolution(b)", HS, Steps.LAST, LABELLED),
    Axiom("no_solution", "∀b:¬solvable(b) ¬hasSolution(b)", HS, Steps.LAST, LABELLED_NOT),
    Axiom("recommends", "∀b,h:applies(b,h) recommendsHeuristic(b,h)", RH, Steps.NONE, LABELLED,
          switch=when("model.techniques")),
    Axiom("not_recommends", "∀b,h:¬applies(b,h) ¬recommendsHeuristic(b,h)", RH, Steps.NONE, LABELLED_NOT,
          switch=when("model.techniques")),
    Axiom("definition", "∀b recommendsHeuristic(b,h) ↔ Def_h(b), per defined technique h", RH, Steps.NONE,
          equivalence_per_technique, switch=when("model.techniques")),
), sat_agg=SatAgg.FORALL, loss=Loss.ONE_MINUS,
    legend="HV = hasValue, G = isGiven, Sol = the known solution; c1≠c2 range over the pairs of distinct cells that "
           "share a unit; Def_h = the seed's crisp definition of technique h (Naked and Hidden Single).",
    note="The rule axioms hold on the solvable boards still worth practising. hasSolution reads the reached "
         "assignment detached: it never teaches hasValue. An axiom with a 'by construction' entry is a constant of "
         "the groundings where that entry says (zero gradient): it is left out of SatAgg there and reported apart "
         "(`construction/<axiom>` in TensorBoard). tests/test_axioms_alive.py checks that every other axiom in SatAgg "
         "moves between batches and carries gradient, under every logic file and board model kind.")

VISUAL_THEORY = Theory("visual", (
    Axiom("is_correct_valid", "∀b:valid(b) isCorrect(b)", "isCorrect's calibration (+ hasValue with "
          "train.labels_teach_reader)", Steps.NONE, LABELLED),
    Axiom("not_is_correct_invalid", "∀b:¬valid(b) ¬isCorrect(b)", "as above", Steps.NONE, LABELLED_NOT),
    Axiom("rules_on_valid", "∀b:valid(b) SatAgg(model.axioms)(b), ∀b as the mean", HV, Steps.NONE,
          mean_over_boards, switch=when("train.rules_weight"), weight=ConfigKey("train.rules_weight")),
    Axiom("abduced_grids", "∀b:valid(b) ∀c hasValue(b, c, g*_b(c))", HV, Steps.NONE, LABELLED,
          switch=when("train.abduce_weight"), weight=ConfigKey("train.abduce_weight")),
), sat_agg=SatAgg.WEIGHTED_LOG_PRODUCT, loss=Loss.NEGATIVE_LOG,
    legend="No cell is given; hasValue is the digit reader; g*_b is the abduced grid of board b; SatAgg(model.axioms)"
           " is the rule axioms of `model.axioms` on the board's reading.")
THEORIES: tuple[Theory, ...] = (BOARD_THEORY, VISUAL_THEORY)


# ---- selection and SatAgg ----------------------------------------------------------------------------------------------
def kb_steps(steps: int, every: int) -> list[int]:
    """0-based refinement steps the rule axioms are grounded on: every `every`-th step and always the last."""
    return sorted({s for s in range(every - 1, steps, max(1, every))} | {steps - 1})


def weight_of(axiom: Axiom, switches: Mapping[str, object]) -> float:
    """The axiom's weight in SatAgg: its number, or the value of its config key."""
    weight = axiom.weight.read(switches) if isinstance(axiom.weight, ConfigKey) else axiom.weight
    return float(weight)  # type: ignore[arg-type]


def sat_agg(theory: Theory, ops: Operators, truths: list[torch.Tensor], weights: list[float]) -> torch.Tensor:
    """SatAgg of the selected closed axioms: the family's ∀ (board theory) or the weighted log-product ∀."""
    if theory.sat_agg is SatAgg.FORALL:
        if any(w != 1.0 for w in weights):
            raise ValueError(f"the {theory.name} theory's SatAgg takes no weights")
        return ops.sat_agg(truths)
    stacked = torch.stack([t.float().reshape(()) for t in truths])
    weight = torch.tensor(weights, device=stacked.device)
    logs = torch.log(stacked.clamp(min=AggregLogProduct.eps))
    return torch.exp((weight * logs).sum() / weight.sum())


def loss_of(theory: Theory, satisfaction: torch.Tensor) -> torch.Tensor:
    """The training loss read off SatAgg."""
    return 1 - satisfaction if theory.loss is Loss.ONE_MINUS else -torch.log(satisfaction)


# ---- the theories as tables (docs/reference/theory.md) ------------------------------------------------------------
def _cell(text: object) -> str:
    return str(text).replace("|", "\\|")


def theory_markdown() -> str:
    """docs/reference/theory.md: every theory's axioms as a table, generated from the records (the formulas' one
    copy), with what each kind of steps means. `python -m ltn_sudoku.logic.kb.theory` prints it."""
    lines = ["# The knowledge base", "",
             "Generated from `ltn_sudoku/logic/kb/theory.py` by `theory_markdown()` "
             "(`python -m ltn_sudoku.logic.kb.theory > docs/reference/theory.md`); do not edit by hand. "
             "The formulas are LTNtorch code in `ltn_sudoku/logic/kb/axioms.py`, each open in the board variable b.",
             ""]
    for theory in THEORIES:
        lines += [f"## The {theory.name} theory", ""]
        if theory.legend:
            lines += [theory.legend, ""]
        lines += ["| axiom | formula | trains | steps | in SatAgg | weight | holds by construction |",
                  "|-------|---------|--------|-------|-----------|--------|-----------------------|"]
        for a in theory.axioms:
            weight = f"`{a.weight.name}`" if isinstance(a.weight, ConfigKey) else f"{a.weight:g}"
            lines.append(f"| `{a.name}` | {_cell(a.formula)} | {_cell(a.trains)} | {a.steps.value} | {a.switch} "
                         f"| {weight} | {_cell(a.by_construction or '-')} |")
        lines += ["", f"SatAgg: {theory.sat_agg.value}; loss = {theory.loss.value}."
                  + (f" {theory.note}" if theory.note else ""), ""]
    lines += ["## Steps", "", "| steps | grounded and trained on |", "|-------|-------------------------|"]
    lines += [f"| {s.value} | {s.meaning} |" for s in Steps]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(theory_markdown(), end="")
