"""What every recurrent hasValue grounding shares: the refinement loop (`RecurrentHasValue`: clamped givens, bounded
logits). Their configs (`GroundingConfig`, `RecurrentConfig`) are ltn_sudoku/logic/config/groundings.py."""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from ltn_sudoku.logic.groundings.grounding import Grounding

LOGIT_BOUND = 10.0


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
