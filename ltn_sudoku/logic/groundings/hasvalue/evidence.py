"""The `evidence` grounding of hasValue: one MLP over hand-made evidence per (cell, digit), refined for several steps.

Each step reads the previous soft assignment through fixed evidence features:
- the givens and the previous hasValue(c, v);
- how much of v the cell's row / column / block already holds elsewhere (naked-single evidence);
- isPossible(c, v) under the product t-norm, and how many other open possible places v keeps in each of the cell's
  units (hidden-single evidence: a place counts while no peer holds v and the cell holds no other digit), and how
  many digits remain possible in the cell;
The features compute candidate elimination and hidden-single evidence symbolically: this grounding is a soft singles
propagator, the baseline the message-passing grounding is compared with, not a measure of what LTN learns.
"""

from __future__ import annotations

import torch
from torch import nn

from ltn_sudoku.logic.config.groundings import RecurrentConfig
from ltn_sudoku.logic.groundings.grounding import Grounding
from ltn_sudoku.logic.groundings.hasvalue.base import RecurrentHasValue
from ltn_sudoku.logic.groundings.layers import mlp

EVIDENCE_FEATURES = 11


class EvidenceHasValue(RecurrentHasValue):
    """hasValue from evidence features; the recurrent state is the accumulated logits."""

    DESCRIPTION = ("givens, previous hasValue, and hand-made symbolic evidence computed from them each step: "
                   "isPossible (candidate elimination), a digit's open places per unit (hidden-single evidence), "
                   "candidate counts; a soft singles propagator")

    def __init__(self, grounding: Grounding, config: RecurrentConfig) -> None:
        super().__init__(grounding, config)
        self.first = nn.Linear(EVIDENCE_FEATURES, config.hidden)
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

    def initial_state(self, givens: torch.Tensor) -> torch.Tensor:
        return torch.zeros_like(givens)

    def step(self, state: torch.Tensor, fixed: tuple[torch.Tensor, torch.Tensor],
             assignment: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        facts, filled = fixed
        hidden = torch.relu(self.first(self.evidence(assignment, facts, filled)))
        logits = state + self.rest(hidden).squeeze(-1)
        return logits, logits
