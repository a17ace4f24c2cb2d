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
from ltn_sudoku.logic.groundings.layers import feature_major_linear, mlp

EVIDENCE_FEATURES = 11  # the first layer's inputs: the given digit, filled, then the OPEN_FEATURES
OPEN_FEATURES = EVIDENCE_FEATURES - 2  # what varies on an open cell (`evidence`)
MLP_BLOCK_NODES = 2048  # nodes per block of the answering MLP (`_mlp_in_blocks`)


class EvidenceHasValue(RecurrentHasValue):
    """hasValue from evidence features; the recurrent state is the accumulated logits."""

    DESCRIPTION = ("givens, previous hasValue, and hand-made symbolic evidence computed from them each step: "
                   "isPossible (candidate elimination), a digit's open places per unit (hidden-single evidence), "
                   "candidate counts; a soft singles propagator")

    def __init__(self, grounding: Grounding, config: RecurrentConfig) -> None:
        super().__init__(grounding, config)
        self.first = nn.Linear(EVIDENCE_FEATURES, config.hidden)
        self.rest = mlp(config.hidden, config.hidden, config.layers - 1, 1)

    def evidence(self, assignment: torch.Tensor, filled: torch.Tensor, rows: torch.Tensor) -> torch.Tensor:
        """(OPEN_FEATURES, open cells x n) the features of every (cell, digit) pair of the open cells `rows` (indices
        into batch x N) given the previous assignment, feature-major (each feature one contiguous block), without the
        givens and `filled`: both are 0 on an open cell, the only cells the MLP reads, so their weights (the first
        layer's first two columns) add nothing. Each feature is cut to the open cells before they are joined: one
        pass over the board's features fewer than joining them first."""
        g = self.grounding
        n = g.n
        possible = g.possible(assignment, 1 - filled)
        elsewhere = g.elsewhere_in_units(assignment, unit_kind_first=True)
        places = g.elsewhere_in_units(possible * (1 - self._held_otherwise(assignment)), unit_kind_first=True)
        count = (possible.sum(-1, keepdim=True) / n).expand_as(possible)
        parts = (assignment[None], elsewhere, possible[None], places / n ** 0.5, count[None])
        return torch.cat([part.reshape(part.shape[0], -1, n).index_select(1, rows) for part in parts]).view(
            OPEN_FEATURES, -1)

    @staticmethod
    def _held_otherwise(assignment: torch.Tensor) -> torch.Tensor:
        """max over w != v of hasValue(c, w): how surely the cell already holds another digit than v."""
        first, where = assignment.max(-1, keepdim=True)  # the top two as topk(2) takes them (a tie counts twice),
        second = assignment.scatter(-1, where, -1.0).amax(-1, keepdim=True)  # in 0.6x of its time over 9 digits
        return torch.where(assignment >= first, second, first)

    def initial_state(self, givens: torch.Tensor) -> torch.Tensor:
        return torch.zeros_like(givens)

    def fixed_inputs(self, facts: torch.Tensor, filled: torch.Tensor) -> tuple[torch.Tensor, ...]:
        """The givens, `filled`, and the open cells (batch, N) bool: the only rows the MLP runs on."""
        return facts, filled, filled.squeeze(-1) == 0

    def step(self, state: torch.Tensor, fixed: tuple[torch.Tensor, ...],
             assignment: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The MLP reads the evidence of open cells only: a given cell's logits never reach hasValue (its digit is
        clamped), so they stay as they were; the layers run feature-major (hidden, open nodes), one product each."""
        _, filled, open_cells = fixed
        x = self.evidence(assignment, filled, open_cells.view(-1).nonzero().squeeze(1))
        if torch.is_grad_enabled() or x.device.type != "cpu" or torch.get_num_threads() > 1:
            x = self._mlp(x)
        else:  # answering on one CPU thread (classify-board's): a cache-sized block of nodes at a time
            x = self._mlp_in_blocks(x)
        logits = state.index_put((open_cells,), state[open_cells] + x.view(-1, assignment.shape[-1]))
        return logits, logits

    def _mlp(self, x: torch.Tensor) -> torch.Tensor:
        """The MLP on the open nodes' features (OPEN_FEATURES, nodes) -> (1, nodes), feature-major: one product per
        layer, no transposes; ReLU in place (a product's backward needs its inputs, not its output)."""
        x = feature_major_linear(self.first.weight[:, 2:], self.first.bias, x).relu_()  # (hidden, open nodes)
        for layer in self.rest:
            x = feature_major_linear(layer.weight, layer.bias, x) if isinstance(layer, nn.Linear) else x.relu_()
        return x

    def _mlp_in_blocks(self, x: torch.Tensor) -> torch.Tensor:
        """`_mlp` on MLP_BLOCK_NODES nodes at a time, without autograd: a block's hidden layers (hidden x 2,048
        floats, 256 kB) stay in the CPU's cache from one layer to the next, where a batch's (64 boards: about 3.7 MB
        a layer) go out to memory and back between the products, bias adds and ReLUs. Every node is computed
        alone, so the values are `_mlp`'s (to float rounding where the product's kernel differs by width; the same
        bits on the machine measured). On one thread only: on two, the whole batch's products split better and
        the blocks were slower. scripts/bench_classify_ltn.py --blocks-only has the figures."""
        out = x.new_empty(1, x.shape[1])
        for start in range(0, x.shape[1], MLP_BLOCK_NODES):
            out[:, start:start + MLP_BLOCK_NODES] = self._mlp(x[:, start:start + MLP_BLOCK_NODES])
        return out
