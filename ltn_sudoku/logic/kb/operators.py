"""The fuzzy-logic semantics of the knowledge base: one t-norm family per `logic` config.

Every family is built from LTNtorch's own operators (``ltn.fuzzy_ops``); only the existential max of Gödel logic,
which LTNtorch lacks, is added here as an LTNtorch aggregation operator.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import ltn
import torch
from ltn.core import LTNObject

from ltn_sudoku.logic.config.vocabulary import LOGIC_FAMILIES
from ltn_sudoku.logic.retired import refuse_retired

FAMILIES = LOGIC_FAMILIES  # logic.family: the t-norm families (ltn_sudoku/logic/config/vocabulary.py)


class AggregMax(ltn.fuzzy_ops.AggregationOperator):
    """Gödel's existential quantifier: the maximum (masked-out values count as 0, the minimum truth)."""

    def __repr__(self) -> str:
        return "AggregMax()"

    def __call__(self, xs: torch.Tensor, dim: Any = None, keepdim: bool = False,
                 mask: torch.Tensor | None = None) -> torch.Tensor:
        if mask is not None:
            ltn.fuzzy_ops.check_mask(mask, xs)
            xs = torch.where(mask, xs, torch.zeros_like(xs))
        return torch.amax(xs, dim=dim, keepdim=keepdim)


class AggregLogProduct(ltn.fuzzy_ops.AggregationOperator):
    """∀ as the geometric mean, exp(mean log x): the product t-norm's ∀ normalised by the count (the log-product
    aggregator of van Krieken et al., "Analyzing differentiable fuzzy logic operators", 2022). Its gradient on a
    sigmoid truth never vanishes when the truth is confidently wrong, unlike a mean of truths, so labelled facts are
    learned from any start (it is the cross-entropy of the labels). Masked-out values are left out."""

    eps = 1e-6

    def __repr__(self) -> str:
        return "AggregLogProduct()"

    def __call__(self, xs: torch.Tensor, dim: Any = None, keepdim: bool = False,
                 mask: torch.Tensor | None = None) -> torch.Tensor:
        logs = torch.log(xs.clamp(min=self.eps))
        if mask is not None:
            ltn.fuzzy_ops.check_mask(mask, xs)
            logs = torch.where(mask, logs, torch.full_like(logs, float("nan")))
        mean = torch.nanmean(logs, dim=dim, keepdim=keepdim)
        return torch.exp(torch.nan_to_num(mean, nan=0.0))  # nothing left to check: true


@dataclass(frozen=True)
class Operators:
    """Connectives and quantifiers of one t-norm family, with the current p of the pMean quantifiers."""

    family: str
    And: ltn.Connective
    Or: ltn.Connective
    Implies: ltn.Connective
    Not: ltn.Connective
    Equiv: ltn.Connective
    forall_op: ltn.fuzzy_ops.AggregationOperator
    exists_op: ltn.fuzzy_ops.AggregationOperator
    p_forall: float
    p_exists: float
    labelled_op: ltn.fuzzy_ops.AggregationOperator | None = None  # None: the family's own ∀ (hand-computed tests)

    @property
    def uses_p(self) -> bool:
        """False for Gödel logic, whose quantifiers are min / max."""
        return self.family != "goedel"

    def forall(self, variables: Sequence[ltn.Variable], formula: LTNObject, **guard: Any) -> LTNObject:
        """∀ variables: formula (optionally guarded: cond_vars=..., cond_fn=...)."""
        q = ltn.Quantifier(self.forall_op, "f")
        return q(list(variables), formula, **guard, **({"p": self.p_forall} if self.uses_p else {}))

    def forall_labelled(self, variables: Sequence[ltn.Variable], formula: LTNObject, **guard: Any) -> LTNObject:
        """∀ over labelled facts (hasSolution's classes, recommendsHeuristic's techniques): the log-product
        aggregator (the family's own ∀ where `labelled_op` is None)."""
        if self.labelled_op is None:
            return self.forall(variables, formula, **guard)
        return ltn.Quantifier(self.labelled_op, "f")(list(variables), formula, **guard)

    def exists(self, variables: Sequence[ltn.Variable], formula: LTNObject, **guard: Any) -> LTNObject:
        """∃ variables: formula."""
        q = ltn.Quantifier(self.exists_op, "e")
        return q(list(variables), formula, **guard, **({"p": self.p_exists} if self.uses_p else {}))

    def sat_agg(self, truths: Sequence[torch.Tensor]) -> torch.Tensor:
        """SatAgg: the ∀ aggregation of closed formulas (scalars) into the knowledge base's satisfaction."""
        stacked = torch.stack([t.float() for t in truths])
        return self.forall_op(stacked, dim=0, **({"p": self.p_forall} if self.uses_p else {}))

def build_operators(cfg: Mapping[str, Any]) -> Operators:
    """Operators from a `logic` config (family, p_forall, p_exists), the composed one or a checkpoint's."""
    refuse_retired(cfg, "logic")
    family = str(cfg["family"])
    p_forall = float(cfg.get("p_forall", 2))
    p_exists = float(cfg.get("p_exists", 6))
    if family in ("product", "stable_product"):
        stable = family == "stable_product"
        and_op: Any = ltn.fuzzy_ops.AndProd(stable=stable)
        ops: dict[str, Any] = dict(
            And=and_op, Or=ltn.fuzzy_ops.OrProbSum(stable=stable),
            Implies=ltn.fuzzy_ops.ImpliesReichenbach(stable=stable),
            forall_op=ltn.fuzzy_ops.AggregPMeanError(p=p_forall, stable=stable),
            exists_op=ltn.fuzzy_ops.AggregPMean(p=p_exists, stable=stable))
    elif family == "lukasiewicz":
        and_op = ltn.fuzzy_ops.AndLuk()
        ops = dict(And=and_op, Or=ltn.fuzzy_ops.OrLuk(), Implies=ltn.fuzzy_ops.ImpliesLuk(),
                   forall_op=ltn.fuzzy_ops.AggregPMeanError(p=p_forall, stable=False),
                   exists_op=ltn.fuzzy_ops.AggregPMean(p=p_exists, stable=False))
    elif family == "goedel":
        and_op = ltn.fuzzy_ops.AndMin()
        ops = dict(And=and_op, Or=ltn.fuzzy_ops.OrMax(), Implies=ltn.fuzzy_ops.ImpliesGodel(),
                   forall_op=ltn.fuzzy_ops.AggregMin(), exists_op=AggregMax())
    else:
        raise ValueError(f"unknown logic family {family!r}: expected one of {', '.join(FAMILIES)}")
    implies_op = ops["Implies"]
    return Operators(
        family=family,
        And=ltn.Connective(and_op), Or=ltn.Connective(ops["Or"]), Implies=ltn.Connective(implies_op),
        Not=ltn.Connective(ltn.fuzzy_ops.NotStandard()),
        Equiv=ltn.Connective(ltn.fuzzy_ops.Equiv(and_op, implies_op)),
        forall_op=ops["forall_op"], exists_op=ops["exists_op"],
        p_forall=p_forall, p_exists=p_exists, labelled_op=AggregLogProduct())


def _check_truth_values(*values: torch.Tensor) -> None:
    """LTNtorch's check that operands are truth values in [0, 1], in one pass and without temporaries.

    The library's own check builds three full-size temporaries per operand; on the knowledge base's pairwise axioms
    that was two thirds of the training step. Same contract, same error.
    """
    for v in values:
        if v.numel() == 0:
            continue
        low, high = torch.aminmax(v.detach())
        if low < 0.0 or high > 1.0 or torch.isnan(low) or torch.isnan(high):
            raise ValueError("Expected inputs of connectives and quantifiers to be tensors of truth values in the range"
                             " [0., 1.], but got some values outside this range.")


ltn.fuzzy_ops.check_values = _check_truth_values


_LTN_CONNECTIVE = ltn.Connective.__call__  # LTNtorch's own: what _broadcast_connective does not take goes there


def _broadcast_connective(self: ltn.Connective, *operands: Any, **kwargs: Any) -> LTNObject:
    """LTNtorch's Connective.__call__ without copying the operands into one shape first.

    LTNtorch repeats each operand along the variables it lacks, copies it into the common order of the variables and
    flattens it, then applies the element-wise connective. Here each operand is a view, with an axis of size 1 for
    each variable it lacks, permuted into that order, and the connective broadcasts. The output has the same variables,
    shape, contiguous layout and values; the gradients sum the same terms (tests/test_logic.py checks outputs and
    gradients against LTNtorch's). The knowledge base's forward and backward run 1.28-1.31x faster without the
    copies, which on the whole training step is within its noise (scripts/bench_kb_connectives.py). Anything else (an
    operand with axes beyond its variables, the wrong number of operands, a variable of two sizes) goes to
    LTNtorch's own call, whose errors it keeps."""
    unary = isinstance(self.connective_op, ltn.fuzzy_ops.UnaryConnectiveOperator)
    if (not isinstance(self.connective_op, (ltn.fuzzy_ops.UnaryConnectiveOperator,
                                            ltn.fuzzy_ops.BinaryConnectiveOperator))
            or len(operands) != (1 if unary else 2)
            or not all(isinstance(o, LTNObject) and o.value.dim() == len(o.free_vars) for o in operands)):
        return _LTN_CONNECTIVE(self, *operands, **kwargs)
    sizes: dict[str, int] = {}
    for o in operands:
        for label, size in zip(o.free_vars, o.value.shape):
            if sizes.setdefault(label, size) != size:
                return _LTN_CONNECTIVE(self, *operands, **kwargs)
    ltn.fuzzy_ops.check_values(*[o.value for o in operands])
    labels = list(sizes)
    values = []
    for o in operands:
        own, value = list(o.free_vars), o.value
        missing = [label for label in labels if label not in own]
        if missing:
            value = value.reshape(*value.shape, *[1] * len(missing))
            own += missing
        if own != labels:
            value = value.permute([own.index(label) for label in labels])
        values.append(value)
    output = self.connective_op(*values).reshape(tuple(sizes.values()))
    return LTNObject(output.contiguous(), labels)


ltn.Connective.__call__ = _broadcast_connective
