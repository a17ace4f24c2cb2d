"""The learned predicates: hasValue (a recurrent message-passing MLP), hasSolution and recommendsHeuristic.

hasValue(c, v | b) is one MLP applied to every (cell, digit) pair of every board at once, for a number of refinement
steps with shared weights. Each step reads the previous soft assignment through fixed evidence features:
- the givens and the previous hasValue(c, v);
- how much of v the cell's row / column / block already holds elsewhere (naked-single evidence);
- isPossible(c, v) under the product t-norm, and how many other open possible places v keeps in each of the cell's
  units (hidden-single evidence: a place counts while no peer holds v and the cell holds no other digit), and how
  many digits remain possible in the cell;
optionally with the cell's positional features G(c) and a learned digit embedding G(v) (symmetry breakers, off by
default: the rules are invariant under digit relabelling and the geometry's symmetries).
The givens are clamped as facts: a given cell's hasValue is its one-hot digit at every step.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import torch
from torch import nn

from ltn_sudoku.logic.grounding import Grounding

EVIDENCE_FEATURES = 11
LOGIT_BOUND = 10.0


@dataclass(frozen=True)
class HasValueConfig:
    """Size of the hasValue network and how many refinement steps it runs."""

    hidden: int = 64
    layers: int = 2
    steps: int = 24
    digit_dim: int = 0
    cell_dim: int = 0

    @classmethod
    def from_cfg(cls, cfg: Mapping[str, Any]) -> HasValueConfig:
        return cls(**{k: int(cfg[k]) for k in cls.__dataclass_fields__ if k in cfg})


def mlp(inputs: int, hidden: int, layers: int, outputs: int) -> nn.Sequential:
    """`layers` hidden ReLU layers of width `hidden`."""
    parts: list[nn.Module] = []
    width = inputs
    for _ in range(layers):
        parts += [nn.Linear(width, hidden), nn.ReLU()]
        width = hidden
    parts.append(nn.Linear(width, outputs))
    return nn.Sequential(*parts)


class HasValueNet(nn.Module):
    """hasValue(c, v | b) for a whole batch: (batch, N, n) one-hot givens -> soft assignments after each step."""

    def __init__(self, grounding: Grounding, config: HasValueConfig) -> None:
        super().__init__()
        self.grounding = grounding
        self.config = config
        n = grounding.n
        self.first = nn.Linear(EVIDENCE_FEATURES, config.hidden)
        self.digit_embedding = nn.Parameter(0.1 * torch.randn(n, config.digit_dim)) if config.digit_dim else None
        self.digit_in = nn.Linear(config.digit_dim, config.hidden, bias=False) if config.digit_dim else None
        self.cell_in = nn.Linear(3 * n, config.hidden, bias=False) if config.cell_dim else None
        self.rest = mlp(config.hidden, config.hidden, config.layers - 1, 1)

    def evidence(self, assignment: torch.Tensor, givens: torch.Tensor, filled: torch.Tensor) -> torch.Tensor:
        """(batch, N, n, EVIDENCE_FEATURES) features of every (cell, digit) pair given the previous assignment."""
        g = self.grounding
        n = g.n
        empty = 1 - filled
        possible = g.possible(assignment, empty)
        elsewhere = g.elsewhere_in_units(assignment)
        places = g.elsewhere_in_units(possible * (1 - self._held_otherwise(assignment)))
        count = possible.sum(-1, keepdim=True) / n
        return torch.cat([
            givens.unsqueeze(-1), filled.unsqueeze(-1).expand(-1, -1, n, 1), assignment.unsqueeze(-1), elsewhere,
            possible.unsqueeze(-1), places / n ** 0.5, count.unsqueeze(-1).expand(-1, -1, n, 1),
        ], dim=-1)

    @staticmethod
    def _held_otherwise(assignment: torch.Tensor) -> torch.Tensor:
        """max over w != v of hasValue(c, w): how surely the cell already holds another digit than v."""
        top = assignment.topk(2, dim=-1).values
        return torch.where(assignment >= top[..., :1], top[..., 1:], top[..., :1])

    def _position_bias(self) -> torch.Tensor | int:
        bias: torch.Tensor | int = 0
        if self.cell_in is not None:
            bias = self.cell_in(self.grounding.cell_features)[:, None, :]
        if self.digit_in is not None and self.digit_embedding is not None:
            bias = bias + self.digit_in(self.digit_embedding)[None, :, :]
        return bias

    def forward(self, givens: torch.Tensor, steps: int | None = None, clamp_every: int = 0,
                clamp_threshold: float = 1.0) -> list[torch.Tensor]:
        """Soft assignments (batch, N, n) after each refinement step; givens stay clamped.

        With clamp_every > 0 (answering, not training), every clamp_every steps the open cells whose hasValue
        exceeds clamp_threshold are clamped too and read as givens from then on: what the model is sure of stops
        drifting while the rest of the board is refined (the learned predicate still decides every value).
        """
        facts = givens
        filled = givens.sum(-1, keepdim=True)
        logits = torch.zeros_like(givens)
        assignment = givens + (1 - filled) * logits.softmax(-1)
        bias = self._position_bias()
        outputs = []
        for step in range(steps or self.config.steps):
            hidden = torch.relu(self.first(self.evidence(assignment, facts, filled)) + bias)
            logits = logits + self.rest(hidden).squeeze(-1)
            assignment = facts + (1 - filled) * self._bounded(logits).softmax(-1)
            if clamp_every and (step + 1) % clamp_every == 0:
                sure = (assignment.amax(-1, keepdim=True) > clamp_threshold) & (filled == 0)
                chosen = nn.functional.one_hot(assignment.argmax(-1), givens.shape[-1]).to(givens.dtype)
                facts = torch.where(sure, chosen, facts)
                filled = facts.sum(-1, keepdim=True)
                assignment = facts + (1 - filled) * self._bounded(logits).softmax(-1)
            outputs.append(assignment)
        return outputs

    @staticmethod
    def _bounded(logits: torch.Tensor) -> torch.Tensor:
        """Logits squashed into ±LOGIT_BOUND: hasValue never reaches exactly 0 or 1 on an open cell, so an exactly
        satisfied formula (whose pMeanError root has an infinite derivative) cannot arise from a confident model."""
        return LOGIT_BOUND * torch.tanh(logits / LOGIT_BOUND)


# ---- hasSolution -----------------------------------------------------------------------------------------------------
SOLUTION_FEATURES = 12


def violation_scale(truth: torch.Tensor) -> torch.Tensor:
    """-log10(1 - truth) / 6 in [0, 1]: tells 0.9999 from 0.99 apart, which raw truths near 1 do not."""
    return -torch.log10((1 - truth).clamp(min=1e-6)) / 6


class HasSolutionNet(nn.Module):
    """hasSolution(b): a small MLP over what the solver reached on b (see SOLUTION_FEATURES in board_features)."""

    def __init__(self, hidden: int) -> None:
        super().__init__()
        self.mlp = mlp(SOLUTION_FEATURES, hidden, 1, 1)

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        return torch.sigmoid(self.mlp(features).squeeze(-1))


# ---- recommendsHeuristic -------------------------------------------------------------------------------------------
class PatternFeatures(nn.Module):
    """Candidate-grid facts per pattern instance, from the basic-rule candidates of a batch of boards.

    Instances: cells; (unit, digit); (block, line, digit) intersections; (unit, cell pair); (unit, digit pair). Each
    gets counts as indicators (0, 1, 2, more), the atoms the singles, intersections and subsets are defined from; the
    network learns the formulas over them.
    """

    def __init__(self, grounding: Grounding) -> None:
        super().__init__()
        self.grounding = grounding
        n = grounding.n
        units = grounding.unit_membership  # (3n, N)
        boxes, lines = units[2 * n:], units[:2 * n]
        inter = (boxes[:, None, :] * lines[None, :, :])  # (n, 2n, N)
        box_idx, line_idx = (inter.sum(-1) > 0).nonzero(as_tuple=True)
        self.register_buffer("inter", inter[box_idx, line_idx], persistent=False)  # (n*2k, N)
        self.register_buffer("inter_box", box_idx, persistent=False)
        self.register_buffer("inter_line", line_idx, persistent=False)
        pairs = torch.combinations(torch.arange(n), 2)  # positions within a unit
        cells = torch.stack([units[u].nonzero().flatten() for u in range(3 * n)])  # (3n, n)
        self.register_buffer("unit_cells", cells, persistent=False)
        self.register_buffer("cell_pairs", cells[:, pairs], persistent=False)  # (3n, P, 2)
        self.register_buffer("digit_pairs", pairs, persistent=False)

    @staticmethod
    def _counts(x: torch.Tensor) -> list[torch.Tensor]:
        return [(x == 0).float(), (x == 1).float(), (x == 2).float(), (x > 2).float()]

    def forward(self, givens: torch.Tensor) -> list[torch.Tensor]:
        """Per instance type, (batch, instances, features)."""
        g = self.grounding
        n = g.n
        batch = givens.shape[0]
        empty = 1 - givens.sum(-1, keepdim=True)
        cand = g.possible(givens, empty).round()
        count = cand.sum(-1)  # (B, N)
        units = g.unit_membership
        places = torch.einsum("uc,bcv->buv", units, cand)  # (B, 3n, n)
        present = torch.einsum("uc,bcv->buv", units, givens).clamp(max=1)
        unit_empty = torch.einsum("uc,bc->bu", units, empty.squeeze(-1))  # (B, 3n)
        cell_f = torch.stack([empty.squeeze(-1), *self._counts(count)], -1)  # (B, N, 5)
        unit_digit_f = torch.stack([1 - present, *self._counts(places),
                                    *self._counts(unit_empty[:, :, None].expand(-1, -1, n))], -1)
        in_inter = torch.einsum("ic,bcv->biv", self.inter, cand)  # (B, I, n)
        box_rest = places[:, 2 * n + self.inter_box] - in_inter
        line_rest = places[:, self.inter_line] - in_inter
        inter_f = torch.stack([*self._counts(in_inter), (box_rest == 0).float(), (line_rest == 0).float(),
                               (box_rest > 0).float(), (line_rest > 0).float()], -1)
        # naked subsets of two cells: both bivalue, same two digits, and those digits elsewhere in the unit
        c1, c2 = self.cell_pairs[..., 0], self.cell_pairs[..., 1]  # (3n, P)
        cand1, cand2 = cand[:, c1], cand[:, c2]  # (B, 3n, P, n)
        union = ((cand1 + cand2) > 0).float()
        others = places[:, :, None, :] - cand1 - cand2
        pair_f = torch.stack([*self._counts(count[:, c1]), *self._counts(count[:, c2]),
                              *self._counts(union.sum(-1)), ((union * others).sum(-1) > 0).float()], -1)
        # hidden subsets of two digits: both with two places, the same two cells, and other candidates there
        unit_cand = cand[:, self.unit_cells]  # (B, 3n, n cells, n digits)
        v1, v2 = self.digit_pairs[:, 0], self.digit_pairs[:, 1]
        both = unit_cand[..., v1] * unit_cand[..., v2]  # (B, 3n, n cells, P)
        extra = (both * (count[:, self.unit_cells][..., None] - 2)).sum(2)  # (B, 3n, P)
        digit_f = torch.stack([*self._counts(places[..., v1]), *self._counts(places[..., v2]),
                               *self._counts(both.sum(2)), (extra > 0).float()], -1)
        return [t.reshape(batch, -1, t.shape[-1]) for t in (cell_f, unit_digit_f, inter_f, pair_f, digit_f)]


INSTANCE_TYPES: tuple[str, ...] = ("cell", "unit_digit", "intersection", "cell_pair", "digit_pair")
# Where each technique's pattern lives (the instance types its definition quantifies over); a technique not listed
# here may be found in any of them.
PATTERN_TYPES: dict[str, tuple[str, ...]] = {
    "Full House": ("cell", "unit_digit"),
    "Naked Single": ("cell",),
    "Hidden Single": ("unit_digit",),
    "Locked Candidates Type 1 (Pointing)": ("intersection",),
    "Locked Candidates Type 2 (Claiming)": ("intersection",),
    "Naked Pair": ("cell_pair",),
    "Hidden Pair": ("digit_pair",),
}


class RecommendsHeuristicNet(nn.Module):
    """recommendsHeuristic(b, h) = ∃ pattern instance x of b: φ_h(x), with φ_h a learned MLP of technique h on the
    instance types where its patterns live (the technique applies when one instance is a pattern of it).

    ∃ is the log-sum-exp of the instances' logits, a smooth maximum: every instance gets gradient in proportion to
    its weight. With the hard maximum only the top instance learns, and a head whose top instance is one every board
    has (a filled cell, say) stays at its base rate; on 4x4 boards that happened in 3 of 4 seeds, with log-sum-exp in
    none. One MLP per technique and type, not one shared by all, for a similar reason: with shared hidden units the
    first technique learned (claiming) captured them and a similar one (pointing) stayed at its base rate.
    """

    def __init__(self, grounding: Grounding, techniques: Sequence[str], hidden: int) -> None:
        super().__init__()
        self.features = PatternFeatures(grounding)
        widths = [t.shape[-1] for t in self.features(torch.zeros(1, grounding.cells, grounding.n))]
        self.types = [tuple(INSTANCE_TYPES.index(t) for t in PATTERN_TYPES.get(name, INSTANCE_TYPES))
                      for name in techniques]
        self.heads = nn.ModuleList(nn.ModuleList(mlp(widths[t], hidden, 1, 1) for t in types) for types in self.types)

    def forward(self, givens: torch.Tensor) -> torch.Tensor:
        """(batch, techniques) truth values."""
        if not self.types:
            return givens.new_zeros(givens.shape[0], 0)
        features = self.features(givens)
        logits = [torch.stack([torch.logsumexp(head(features[t]).squeeze(-1), 1) for head, t in zip(heads, types)])
                  .amax(0) for heads, types in zip(self.heads, self.types)]
        return torch.sigmoid(torch.stack(logits, -1))


# ---- the bundle ------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ModelConfig:
    """Everything that shapes one size's model (conf/model/*.yaml)."""

    size: int
    has_value: HasValueConfig
    eval_steps: int
    kb_every: int
    solution_hidden: int
    heuristic_hidden: int
    techniques: tuple[str, ...]
    clamp_every: int = 0
    clamp_threshold: float = 0.99

    @classmethod
    def from_cfg(cls, cfg: Mapping[str, Any]) -> ModelConfig:
        return cls(size=int(cfg["size"]), has_value=HasValueConfig.from_cfg(cfg), eval_steps=int(cfg["eval_steps"]),
                   kb_every=int(cfg["kb_every"]), solution_hidden=int(cfg["solution_hidden"]),
                   heuristic_hidden=int(cfg["heuristic_hidden"]), techniques=tuple(cfg["techniques"]),
                   clamp_every=int(cfg.get("clamp_every", 0)), clamp_threshold=float(cfg.get("clamp_threshold", 0.99)))


class LtnSudoku(nn.Module):
    """The learned predicates of one board size, with the fixed groundings and the calibrated thresholds."""

    is_correct_threshold: torch.Tensor
    has_solution_threshold: torch.Tensor

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.config = config
        self.grounding = Grounding(config.size)
        self.has_value = HasValueNet(self.grounding, config.has_value)
        self.has_solution = HasSolutionNet(config.solution_hidden)
        self.recommends = RecommendsHeuristicNet(self.grounding, config.techniques, config.heuristic_hidden)
        self.register_buffer("is_correct_threshold", torch.tensor(0.5))
        self.register_buffer("has_solution_threshold", torch.tensor(0.5))

    @property
    def n(self) -> int:
        return self.grounding.n

    def refine(self, givens: torch.Tensor, steps: int | None = None) -> list[torch.Tensor]:
        """hasValue as it answers (not as it trains): eval_steps refinement steps with the configured clamping."""
        return self.has_value(givens, steps or self.config.eval_steps, self.config.clamp_every,
                              self.config.clamp_threshold)
