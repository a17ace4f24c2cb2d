"""The refinement loop every hasValue grounding shares: clamped givens, bounded logits."""

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

    Subclasses define the recurrent state (`initial_state`) and one refinement step (`step`), which returns the new
    state and the step's logits over digits; this class turns the logits into distributions with the givens clamped.
    `DESCRIPTION` says what a step reads (metrics.json's `inputs`).
    """

    DESCRIPTION = ""

    def __init__(self, grounding: Grounding, config: Any) -> None:
        super().__init__()
        self.grounding = grounding
        self.config = config

    def initial_state(self, givens: torch.Tensor) -> Any:
        raise NotImplementedError

    def step(self, state: Any, facts: torch.Tensor, filled: torch.Tensor,
             assignment: torch.Tensor) -> tuple[Any, torch.Tensor]:
        """One refinement step: (new state, logits (batch, N, n))."""
        raise NotImplementedError

    def forward(self, givens: torch.Tensor, steps: int | None = None, detach_every: int = 0) -> list[torch.Tensor]:
        """Soft assignments (batch, N, n) after each refinement step; givens stay clamped.

        With detach_every > 0 (training), the recurrent state is detached every detach_every steps, so each
        segment learns from the losses on its own steps only (deep supervision with truncated backpropagation).
        """
        facts = givens
        filled = givens.sum(-1, keepdim=True)
        assignment = givens + (1 - filled) / givens.shape[-1]
        state = self.initial_state(givens)
        outputs = []
        for index in range(steps or self.config.steps):
            if detach_every and index and index % detach_every == 0:
                state = _detached(state)
                assignment = assignment.detach()
            state, logits = self.step(state, facts, filled, assignment)
            assignment = facts + (1 - filled) * bounded(logits).softmax(-1)
            outputs.append(assignment)
        return outputs


def _detached(state: Any) -> Any:
    if isinstance(state, torch.Tensor):
        return state.detach()
    return type(state)(_detached(s) for s in state)
