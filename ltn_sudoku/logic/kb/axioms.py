"""The knowledge base of docs/design.md §7.1, written with LTNtorch connectives and quantifiers.

Every axiom is returned open in the board variable b (one truth value per board of the batch), so the same formulas
give the training loss (∀b, then SatAgg), isCorrect (per board, on a closed board's own digits) and the features of
hasSolution. The formulas, as they read, are the records of ltn_sudoku/logic/kb/theory.py (their one
human-readable copy; docs/reference/theory.md has them as tables). The rule axioms' c1, c2 range over the ordered
pairs of distinct cells that share a unit: for any other pair every isSame* is false and the implication trivially
true, so leaving them out changes no truth value that matters, only the dilution of the pMean aggregators, and saves
3/4 of the work on 9x9. unit_has_digit (every unit holds every digit) is implied by the others for a crisp
assignment, but for a soft one it is what asks a digit's mass to gather in one place.
The seed's rules on the givens alone, evaluated crisply with Gödel quantifiers (min / max: they are facts about the
board, not learned truths):
- isPossible(b,c,v) = ¬filled(b,c) ∧ ∀c' (isPeer(c,c') → ¬G(b,c',v))
- NoSolution(b) = ∃c (¬filled(b,c) ∧ ∀v ¬isPossible(b,c,v))
                 ∨ ∃u,v (missing(b,u,v) ∧ ∀c (inUnit(c,u) → ¬isPossible(b,c,v)))
- the seed's definitions of two techniques, Naked Single = ∃c ∃!v isPossible(b,c,v) and
  Hidden Single = ∃u,v ∃!c (inUnit(c,u) ∧ isPossible(b,c,v)), tied to recommendsHeuristic by ↔ axioms.
"""

from __future__ import annotations

from typing import Callable, Iterable

import ltn
import torch
from ltn.core import LTNObject

from ltn_sudoku.logic.groundings.grounding import Grounding, TablePredicate, range_variable
from ltn_sudoku.logic.kb.operators import Operators, build_operators

UNIT_AXIOMS: tuple[str, str, str] = ("row", "col", "block")
RULE_AXIOMS: tuple[str, ...] = ("givens", "cell_has_value", "one_value_per_cell", *UNIT_AXIOMS, "unit_has_digit")
CONSTRAINT_AXIOMS: tuple[str, ...] = ("one_value_per_cell", *UNIT_AXIOMS)


def rule_axioms(grounding: Grounding, ops: Operators, assignment: torch.Tensor,
                givens: torch.Tensor, names: Iterable[str] = RULE_AXIOMS) -> dict[str, LTNObject]:
    """Per-board truth of every rule axiom in `names` (default: all) when hasValue is `assignment` (batch, N, n) and
    the givens `givens`; answering asks for the few its features read."""
    wanted = set(names)
    d = grounding.domain(assignment.shape[0])
    has_value = TablePredicate(assignment)
    axioms: dict[str, LTNObject] = {}
    if "givens" in wanted:
        is_given = TablePredicate(givens)
        axioms["givens"] = ops.forall([d.c, d.v], ops.Implies(is_given(d.b, d.c, d.v), has_value(d.b, d.c, d.v)))
    if "cell_has_value" in wanted:
        axioms["cell_has_value"] = ops.forall([d.c], ops.exists([d.v], has_value(d.b, d.c, d.v)))
    if "one_value_per_cell" in wanted:
        v1, v2 = grounding.digit_pair_variables()
        axioms["one_value_per_cell"] = ops.forall(
            [d.c, v1, v2], ops.Not(ops.And(has_value(d.b, d.c, v1), has_value(d.b, d.c, v2))))
    if wanted & set(UNIT_AXIOMS):
        c1, c2 = grounding.peer_pair_variables()
        # ¬(HV(b,c1,v) ∧ HV(b,c2,v)) over every peer pair, once: the row, column and block axioms read the same truths
        clash = ops.Not(ops.And(has_value(d.b, c1, d.v), has_value(d.b, c2, d.v)))
        for name, predicate in zip(UNIT_AXIOMS, grounding.unit_predicates().values()):
            if name not in wanted:
                continue
            c1, c2 = grounding.peer_pair_variables()  # afresh: a quantifier undoes its variables' diagonal
            shared = LTNObject(clash.value, list(clash.free_vars))  # LTNtorch reshapes its operands in place
            axioms[name] = ops.forall([c1, c2, d.v], ops.Implies(predicate(c1, c2), shared))
    if "unit_has_digit" in wanted:
        i = range_variable("i", grounding.n, assignment.device)
        in_unit = TablePredicate(assignment[:, grounding.unit_cells])  # (b, u, i, v): the unit's i-th cell holds v
        axioms["unit_has_digit"] = ops.forall([d.u, d.v], ops.exists([i], in_unit(d.b, d.u, i, d.v)))
    return {name: axioms[name] for name in RULE_AXIOMS if name in axioms}  # in RULE_AXIOMS' order, as before


def satisfaction(ops: Operators, per_board: dict[str, LTNObject]) -> dict[str, torch.Tensor]:
    """∀b of each per-board axiom: one scalar satisfaction per axiom."""
    return {name: _forall_boards(ops, truth) for name, truth in per_board.items()}


def _forall_boards(ops: Operators, truth: LTNObject) -> torch.Tensor:
    b = range_variable("b", truth.value.shape[0], truth.value.device)
    return ops.forall([b], LTNObject(truth.value.float(), list(truth.free_vars))).value


def board_satisfaction(ops: Operators, per_board: dict[str, LTNObject], names: tuple[str, ...]) -> torch.Tensor:
    """(batch,) SatAgg over the named axioms of each board separately (isCorrect's truth on a closed board)."""
    stacked = torch.stack([per_board[name].value.float() for name in names], dim=-1)
    return ops.forall_op(stacked, dim=-1, **({"p": ops.p_forall} if ops.uses_p else {}))


CRISP: Operators = build_operators({"family": "goedel"})


def is_possible(grounding: Grounding, givens: torch.Tensor) -> LTNObject:
    """isPossible(b, c, v) on the givens alone (free variables b, c, v): the seed's basic-rule candidates."""
    ops = CRISP
    d = grounding.domain(givens.shape[0])
    is_given = TablePredicate(givens)
    filled = TablePredicate(givens.sum(-1))
    no_peer_holds = ops.forall([d.c2], ops.Implies(grounding.is_peer(d.c, d.c2), ops.Not(is_given(d.b, d.c2, d.v))))
    return ops.And(ops.Not(filled(d.b, d.c)), no_peer_holds)


def no_solution(grounding: Grounding, givens: torch.Tensor) -> torch.Tensor:
    """(batch,) truth of the seed's NoSolution axiom: a cell with no candidate or a missing digit with no place."""
    ops = CRISP
    d = grounding.domain(givens.shape[0])
    possible = TablePredicate(_values(is_possible(grounding, givens), ["b", "c", "v"]))
    filled = TablePredicate(givens.sum(-1))
    missing = TablePredicate(1 - torch.einsum("uc,bcv->buv", grounding.unit_membership, givens).clamp(max=1))
    dead_cell = ops.exists([d.c], ops.And(ops.Not(filled(d.b, d.c)),
                                          ops.forall([d.v], ops.Not(possible(d.b, d.c, d.v)))))
    nowhere = ops.forall([d.c], ops.Implies(grounding.in_unit(d.c, d.u), ops.Not(possible(d.b, d.c, d.v))))
    dead_digit = ops.exists([d.u, d.v], ops.And(missing(d.b, d.u, d.v), nowhere))
    return _values(ops.Or(dead_cell, dead_digit), ["b"])


def _values(obj: LTNObject, order: list[str]) -> torch.Tensor:
    """The truth tensor of an LTN object with its axes in the given variable order."""
    return obj.value.permute([obj.free_vars.index(v) for v in order]).float()


def supervised_axiom(grounding: Grounding, ops: Operators, assignment: torch.Tensor,
                     solutions: torch.Tensor) -> LTNObject:
    """The optional supervised axiom ∀b,c,v Sol(b,c,v) → HV(b,c,v) (one-hot solutions; all-zero rows are skipped)."""
    d = grounding.domain(assignment.shape[0])
    return ops.forall([d.c, d.v], ops.Implies(TablePredicate(solutions)(d.b, d.c, d.v),
                                              TablePredicate(assignment)(d.b, d.c, d.v)))


def labelled_axiom(ops: Operators, truth: torch.Tensor, facts: torch.Tensor, negated: bool = False) -> torch.Tensor:
    """A labelled axiom as a scalar: ∀x:facts(x) P(x), or negated ∀x:¬facts(x) ¬P(x), where P's truth and the facts
    range over boards and optionally one more variable (techniques h, cells c): the guarded ∀ of labelled facts
    (Operators.forall_labelled, the log-product)."""
    variables = [range_variable(name, size, truth.device)
                 for name, size in zip(("b", "h", "c"), truth.shape)]
    atom = TablePredicate(truth)(*variables)
    holds = facts.bool()
    return ops.forall_labelled(variables, ops.Not(atom) if negated else atom, cond_vars=variables,
                               cond_fn=lambda *xs: holds[tuple(x.value.reshape(-1) for x in xs)] != negated
                               ).value.float()


def class_axioms(ops: Operators, truth: torch.Tensor, positive: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Labelled axioms of a board predicate P: (∀b:positive(b) P(b), ∀b:¬positive(b) ¬P(b)) as scalars."""
    return labelled_axiom(ops, truth, positive), labelled_axiom(ops, truth, positive, negated=True)


def technique_axioms(ops: Operators, truth: torch.Tensor, labels: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Labelled axioms of recommendsHeuristic(b, h): (∀b,h:L(b,h) R(b,h), ∀b,h:¬L(b,h) ¬R(b,h)) as scalars."""
    return labelled_axiom(ops, truth, labels), labelled_axiom(ops, truth, labels, negated=True)


def _exactly_one(ops: Operators, truth: LTNObject, over: ltn.Variable, other: ltn.Variable) -> LTNObject:
    """∃!x P(x) = ∃x (P(x) ∧ ∀x' (x ≠ x' → ¬P(x'))): `truth` is P over `over`; `other` a copy of that domain."""
    renamed = LTNObject(truth.value, [other.free_vars[0] if v == over.free_vars[0] else v for v in truth.free_vars])
    different = TablePredicate(1 - torch.eye(over.value.shape[0], device=truth.value.device))
    only = ops.forall([other], ops.Implies(different(over, other), ops.Not(renamed)))
    return ops.exists([over], ops.And(LTNObject(truth.value, list(truth.free_vars)), only))


def naked_single_definition(grounding: Grounding, givens: torch.Tensor) -> torch.Tensor:
    """(batch,) the seed's Naked Single: ∃c (¬filled(b,c) ∧ ∃!v isPossible(b,c,v)), crisp."""
    ops = CRISP
    d = grounding.domain(givens.shape[0])
    possible = TablePredicate(_values(is_possible(grounding, givens), ["b", "c", "v"]))
    filled = TablePredicate(givens.sum(-1))
    single = _exactly_one(ops, possible(d.b, d.c, d.v), d.v, d.v2)
    return _values(ops.exists([d.c], ops.And(ops.Not(filled(d.b, d.c)), single)), ["b"])


def hidden_single_definition(grounding: Grounding, givens: torch.Tensor) -> torch.Tensor:
    """(batch,) the seed's Hidden Single: ∃u,v ∃!c (inUnit(c,u) ∧ isPossible(b,c,v)), crisp; cells of a unit are
    indexed by their position i in it, so the inner quantifiers range over n cells, not n*n."""
    ops = CRISP
    n = grounding.n
    possible = _values(is_possible(grounding, givens), ["b", "c", "v"])
    in_unit = TablePredicate(possible[:, grounding.unit_cells])  # (b, u, i, v)
    d = grounding.domain(givens.shape[0])
    i = range_variable("i", n, givens.device)
    i2 = range_variable("i2", n, givens.device)
    single = _exactly_one(ops, in_unit(d.b, d.u, i, d.v), i, i2)
    return _values(ops.exists([d.u, d.v], single), ["b"])


DEFINITIONS: dict[str, Callable[[Grounding, torch.Tensor], torch.Tensor]] = {
    "Naked Single": naked_single_definition,
    "Hidden Single": hidden_single_definition,
}


def definition_axioms(ops: Operators, truth: torch.Tensor, definitions: torch.Tensor) -> torch.Tensor:
    """∀b recommendsHeuristic(b, h) ↔ Def_h(b) for each defined technique h: (defined techniques,) scalars."""
    b = range_variable("b", truth.shape[0], truth.device)
    h = range_variable("h", truth.shape[1], truth.device)
    equiv = ops.Equiv(TablePredicate(truth)(b, h), TablePredicate(definitions)(b, h))
    return _values(ops.forall([b], equiv), ["h"])


