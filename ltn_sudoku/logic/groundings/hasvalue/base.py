"""What every hasValue grounding shares: its config's base (`GroundingConfig`), and the refinement loop of the
recurrent ones (`RecurrentConfig`, `RecurrentHasValue`: clamped givens, bounded logits)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import Field, dataclass, field, fields
from typing import Any

import torch
from omegaconf import MISSING
from torch import nn

from ltn_sudoku.logic.fields import at_least
from ltn_sudoku.logic.groundings.grounding import Grounding

LOGIT_BOUND = 10.0


def config_fields(config: Any) -> list[Field[Any]]:
    """The fields a grounding reads from a model config (every field but `kind`, which the registry fills in)."""
    return [f for f in fields(config) if not f.metadata.get("omegaconf_ignore")]


@dataclass
class GroundingConfig:
    """A hasValue grounding's config, declared once: the fields it reads from the flat `model` config node, each with
    its rule (ltn_sudoku/logic/fields.py). The schema (ltn_sudoku/logic/schema.py) builds the model schemas from these
    classes, and `from_cfg` reads one from a composed config or a checkpoint's `model` node. Every field is required
    (the YAML files and every checkpoint set them). `kind` is the grounding's name in GROUNDINGS; it is not a config
    key (`model.hasvalue` or `model.kind` names it), so OmegaConf ignores it."""

    kind: str = field(default="", metadata={"omegaconf_ignore": True})

    def __post_init__(self) -> None:
        missing = [f.name for f in config_fields(self) if getattr(self, f.name) == MISSING]
        if missing:
            raise TypeError(f"{type(self).__name__}: {', '.join(missing)} not given (every field of a grounding's "
                            "config is required)")

    @classmethod
    def from_cfg(cls, kind: str, cfg: Mapping[str, Any]) -> GroundingConfig:
        """The config of grounding `kind` from a model config; KeyError names a field it lacks."""
        missing = [f.name for f in config_fields(cls) if f.name not in cfg]
        if missing:
            raise KeyError(f"model.{missing[0]}: missing (the {kind} grounding of hasValue reads it)")
        return cls(kind=kind, **{f.name: int(cfg[f.name]) for f in config_fields(cls)})


@dataclass
class RecurrentConfig(GroundingConfig):
    """A recurrent board grounding (evidence): width and depth of its step, refinement steps while training."""

    kind: str = field(default="evidence", metadata={"omegaconf_ignore": True})
    hidden: int = at_least(1)
    layers: int = at_least(1)
    steps: int = at_least(1)


def bounded(logits: torch.Tensor) -> torch.Tensor:
    """Logits squashed into ±LOGIT_BOUND: hasValue never reaches exactly 0 or 1 on an open cell, so an exactly
    satisfied formula (whose pMeanError root has an infinite derivative) cannot arise from a confident model."""
    return LOGIT_BOUND * torch.tanh(logits / LOGIT_BOUND)


class RecurrentHasValue(nn.Module):
    """hasValue(c, v | b) for a whole batch: (batch, N, n) one-hot givens -> soft assignments after each step.

    Subclasses define the recurrent state (`initial_state`), what every step reads that depends on the givens alone
    (`fixed_inputs`, computed once per forward pass, not once per step) and one refinement step (`step`), which
    returns the new state and the step's logits over digits; this class turns the logits into distributions with the
    givens clamped. `DESCRIPTION` says what a step reads (metrics.json's `inputs`).
    """

    DESCRIPTION = ""
    cpu_part_nodes: int | None = None  # refine this many nodes at a time on the CPU (None: the whole batch)

    def __init__(self, grounding: Grounding, config: Any) -> None:
        super().__init__()
        self.grounding = grounding
        self.config = config

    def initial_state(self, givens: torch.Tensor) -> Any:
        raise NotImplementedError

    def fixed_inputs(self, facts: torch.Tensor, filled: torch.Tensor) -> Any:
        """What every step reads that does not change from step to step: by default the one-hot givens `facts`
        (batch, N, n) and `filled` (batch, N, 1). Not part of the state, so never detached."""
        return facts, filled

    def step(self, state: Any, fixed: Any, assignment: torch.Tensor) -> tuple[Any, torch.Tensor]:
        """One refinement step from the state, the fixed inputs and the previous hasValue: (new state, logits
        (batch, N, n))."""
        raise NotImplementedError

    def forward(self, givens: torch.Tensor, steps: int | None = None, detach_every: int = 0) -> list[torch.Tensor]:
        """Soft assignments (batch, N, n) after each refinement step; givens stay clamped.

        With detach_every > 0 (training), the recurrent state is detached every detach_every steps, so each
        segment learns from the losses on its own steps only (deep supervision with truncated backpropagation).
        On the CPU a grounding with `cpu_part_nodes` refines the boards that many (cell, digit) nodes at a time:
        boards never meet inside hasValue, and a step's tensors of a few boards stay in the CPU's caches where a
        whole batch's do not (a GPU takes the batch at once).
        """
        per_part = max(1, (self.cpu_part_nodes or givens.numel()) // (givens.shape[1] * givens.shape[2]))
        if givens.device.type != "cpu" or givens.shape[0] <= per_part:
            return self._refine(givens, steps, detach_every)
        parts = [self._refine(part, steps, detach_every) for part in givens.split(per_part)]
        return [torch.cat(step) for step in zip(*parts)]

    def _refine(self, givens: torch.Tensor, steps: int | None, detach_every: int) -> list[torch.Tensor]:
        facts = givens
        filled = givens.sum(-1, keepdim=True)
        assignment = givens + (1 - filled) / givens.shape[-1]
        state = self.initial_state(givens)
        fixed = self.fixed_inputs(facts, filled)
        outputs = []
        for index in range(steps or self.config.steps):
            if detach_every and index and index % detach_every == 0:
                state = _detached(state)
                assignment = assignment.detach()
            state, logits = self.step(state, fixed, assignment)
            assignment = facts + (1 - filled) * bounded(logits).softmax(-1)
            outputs.append(assignment)
        return outputs


def _detached(state: Any) -> Any:
    if isinstance(state, torch.Tensor):
        return state.detach()
    return type(state)(_detached(s) for s in state)
