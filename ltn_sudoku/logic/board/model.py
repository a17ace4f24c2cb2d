"""The board model (model kind `board`): the learned predicates bundled per board size, hasValue
(ltn_sudoku.logic.groundings.hasvalue, one grounding per module), hasSolution and recommendsHeuristic, with the fixed
groundings and the calibrated thresholds; and its checkpoints' loader (`load_board_model`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Mapping, Sequence, cast

import torch
from torch import nn

from ltn_sudoku.logic.checkpoints import LoadedModel, load_kind
from ltn_sudoku.logic.config.vocabulary import SOLUTION_INPUTS
from ltn_sudoku.logic.groundings.grounding import Grounding
from ltn_sudoku.logic.groundings.hasvalue import (
    GROUNDINGS,
    RecurrentConfig,
    RecurrentHasValue,
    build_has_value,
    grounding_config,
)
from ltn_sudoku.logic.groundings.layers import mlp, run_mlp
from ltn_sudoku.logic.retired import refuse_retired

# ---- hasSolution -----------------------------------------------------------------------------------------------------
# What hasSolution reads: SOLUTION_INPUTS (ltn_sudoku/logic/config/vocabulary.py; inference.solution_features)


class HasSolutionNet(nn.Module):
    """hasSolution(b): a small MLP over what the solver reached on b (see inference.solution_features).

    Its logit passes through a Platt scaling (scale, offset) fitted on validation boards after training
    (`fit_calibration`), so that a truth of 0.8 means "solvable 8 times in 10" on boards like those; untrained and
    old checkpoints keep the identity (1, 0).
    """

    calibration: torch.Tensor

    def __init__(self, hidden: int, inputs: str = "reached") -> None:
        super().__init__()
        if inputs not in SOLUTION_INPUTS:
            raise ValueError(f"model.solution_inputs={inputs!r}: expected one of {', '.join(SOLUTION_INPUTS)}")
        self.inputs = inputs
        self.mlp = mlp(SOLUTION_INPUTS[inputs], hidden, 1, 1)
        self.register_buffer("calibration", torch.tensor([1.0, 0.0]))

    def logit(self, features: torch.Tensor) -> torch.Tensor:
        return self.mlp(features).squeeze(-1)

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        return torch.sigmoid(self.calibration[0] * self.logit(features) + self.calibration[1])

    def fit_calibration(self, logits: torch.Tensor, labels: torch.Tensor, steps: int = 200) -> None:
        """Platt scaling: the (scale, offset) minimising the cross-entropy of sigmoid(scale * logit + offset)."""
        params = torch.tensor([1.0, 0.0], requires_grad=True)  # host: fitted on the host copy of the truths
        optimizer = torch.optim.LBFGS([params], max_iter=steps, line_search_fn="strong_wolfe")
        target = labels.float()

        def closure() -> torch.Tensor:
            optimizer.zero_grad()
            loss = nn.functional.binary_cross_entropy_with_logits(params[0] * logits + params[1], target)
            loss.backward()
            return loss

        with torch.enable_grad():
            optimizer.step(closure)
        if torch.isfinite(params).all() and params[0] > 0:
            self.calibration.copy_(params.detach())


# ---- recommendsHeuristic -------------------------------------------------------------------------------------------
class PatternFeatures(nn.Module):
    """Candidate-grid facts per pattern instance, from the basic-rule candidates of a batch of boards.

    Instances: cells; (unit, digit); (block, line, digit) intersections; (unit, cell pair); (unit, digit pair). Each
    gets counts as indicators (0, 1, 2, more), the atoms the singles, intersections and subsets are defined from; the
    network learns the formulas over them.
    """

    inter: torch.Tensor
    inter_box: torch.Tensor
    inter_line: torch.Tensor
    unit_cells: torch.Tensor
    cell_pairs: torch.Tensor
    digit_pairs: torch.Tensor

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
        logits = [torch.stack([torch.logsumexp(run_mlp(head, features[t]).squeeze(-1), 1)
                               for head, t in zip(cast(nn.ModuleList, heads), types)])
                  .amax(0) for heads, types in zip(self.heads, self.types)]
        return torch.sigmoid(torch.stack(logits, -1))


# ---- the bundle ------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ModelConfig:
    """Everything that shapes one size's model (conf/model/*.yaml)."""

    size: int
    has_value: RecurrentConfig  # its grounding's own config (RecurrentConfig or MessagePassingConfig)
    eval_steps: int
    kb_every: int
    solution_hidden: int
    heuristic_hidden: int
    techniques: tuple[str, ...]
    unit_axiom: bool = False  # train with the unit_has_digit axiom too (message passing; the evidence models without)
    detach_every: int = 0  # training: detach hasValue's recurrent state every so many steps (0 = never)
    solution_inputs: str = "symbolic"  # what hasSolution reads (SOLUTION_INPUTS); checkpoints without it: symbolic
    exists_last: bool = False  # train the existential rule axioms on the last step only (collisions on every kb step)
    exists_axioms: bool = True  # the existential rule axioms in SatAgg at all (false: reported only; docs/ltn.md)

    @classmethod
    def from_cfg(cls, cfg: Mapping[str, Any]) -> ModelConfig:
        """From a `model` config, the composed one or a checkpoint's (keys added later take the value they had
        before they existed; a retired knob set to anything but its old default is refused)."""
        refuse_retired(cfg, "model")
        has_value = grounding_config(cfg)
        if GROUNDINGS[has_value.grounding].reads != "givens":
            raise ValueError(f"model.hasvalue={has_value.grounding!r}: not a grounding of a board model (it reads "
                             f"{GROUNDINGS[has_value.grounding].reads})")
        assert isinstance(has_value, RecurrentConfig)
        return cls(size=int(cfg["size"]), has_value=has_value, eval_steps=int(cfg["eval_steps"]),
                   kb_every=int(cfg["kb_every"]), solution_hidden=int(cfg["solution_hidden"]),
                   heuristic_hidden=int(cfg["heuristic_hidden"]), techniques=tuple(cfg["techniques"]),
                   unit_axiom=bool(cfg.get("unit_axiom", False)), detach_every=int(cfg.get("detach_every", 0)),
                   solution_inputs=str(cfg.get("solution_inputs", "symbolic")),
                   exists_last=bool(cfg.get("exists_last", False)),
                   exists_axioms=bool(cfg.get("exists_axioms", True)))


class LtnSudoku(nn.Module):
    """The learned predicates of one board size, with the fixed groundings and the calibrated thresholds."""

    is_correct_threshold: torch.Tensor
    has_solution_threshold: torch.Tensor

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.config = config
        self.grounding = Grounding(config.size)
        self.has_value: RecurrentHasValue = build_has_value(self.grounding, config.has_value)  # type: ignore
        self.has_solution = HasSolutionNet(config.solution_hidden, config.solution_inputs)
        self.recommends = RecommendsHeuristicNet(self.grounding, config.techniques, config.heuristic_hidden)
        self.register_buffer("is_correct_threshold", torch.tensor(0.5))
        self.register_buffer("has_solution_threshold", torch.tensor(0.5))

    @property
    def n(self) -> int:
        return self.grounding.n

    def load_weights(self, state_dict: Mapping[str, torch.Tensor]) -> None:
        """load_state_dict for checkpoints of every version: buffers added later keep their defaults."""
        defaults = {"has_solution.calibration": self.has_solution.calibration}
        self.load_state_dict({**defaults, **state_dict})

    def refine(self, givens: torch.Tensor, steps: int | None = None) -> list[torch.Tensor]:
        """hasValue as it answers (not as it trains): eval_steps refinement steps."""
        return self.has_value(givens, steps or self.config.eval_steps)

    def settle(self, givens: torch.Tensor, steps: int | None = None,
               tolerance: float = 0.0) -> tuple[torch.Tensor, torch.Tensor]:
        """hasValue's last assignment as it answers, each board stopping once a step moves its truths by no more
        than `tolerance` (RecurrentHasValue.settle): (final assignments, steps each board ran)."""
        return self.has_value.settle(givens, steps or self.config.eval_steps, tolerance)


def describe_inputs(config: ModelConfig) -> dict[str, str]:
    """Which inputs each learned predicate receives, and which of them are symbolic computations (metrics.json)."""
    has_value = GROUNDINGS[config.has_value.grounding].description
    solution = {
        "reached": "soft truths of the constraint axioms and unit_has_digit on the assignment hasValue reached, its "
                   "confidence (mean, least) and the share of open cells; no crisp verdict",
        "symbolic": "soft and decoded truths of the constraint axioms on what hasValue reached, plus two crisp "
                    "symbolic verdicts: the decoded board's validity and the seed's NoSolution on the givens",
    }[config.solution_inputs]
    return {"hasValue": has_value, "hasSolution": solution,
            "isCorrect": "the constraint axioms on the closed board's own digits (no learned part on symbolic input)",
            "recommendsHeuristic": "crisp basic-rule candidate facts per pattern instance (counts of candidates and "
                                   "places), computed symbolically from the givens; the formulas over them are learned"}


def build_board_model(payload: dict[str, Any]) -> LtnSudoku:
    """A board model from a checkpoint's payload, its weights loaded (the board row of logic/kinds.py: KINDS)."""
    model = LtnSudoku(ModelConfig.from_cfg(payload["config"]["model"]))
    model.load_weights(payload["state_dict"])
    return model


def load_board_model(path: str | os.PathLike[str], size: int | None = None,
                     device: str | torch.device = "cpu") -> LoadedModel:
    """A board checkpoint's model (eval mode, on `device`), its operators and payload. CheckpointError when the file
    is missing, damaged, for another size, a visual model's, or made for other code."""
    return load_kind(path, "board", build_board_model, size, device)
