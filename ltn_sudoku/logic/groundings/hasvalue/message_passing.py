"""The `message_passing` grounding of hasValue: a recurrent network on the fixed constraint graph of the board.

One node per (cell, digit) pair keeps a hidden state. Each step, every node sends a learned message (an MLP of its
state, its givens and its previous hasValue) to the nodes it shares a constraint with, and receives their mean along
six fixed relations, read off the isSameRow / isSameCol / isSameBlock structure:

- the other digits of the same cell;
- the same digit in the cells of the same row inside the block, and in the rest of the row;
- the same digit in the cells of the same column inside the block, and in the rest of the column;
- the same digit in the rest of the block (neither same row nor same column).

(Splitting rows and columns at the block boundary is what lets a node tell that a digit's places in a block all lie
on its line, the pattern behind locked candidates; the network still has to learn to use it.) A GRU cell updates
the state from the received messages; a linear read-out gives the node's logit and hasValue(c, ·) is the softmax
over the cell's digits. The weights are shared by all nodes and steps, so the network is equivariant under digit
relabelling (and under the row/column permutations that keep the blocks), and works for any k²×k² board.
Its inputs are the givens, its own state, the previous hasValue and the fixed structure: no candidate, count or
single is computed for it, so whatever it propagates it has learned.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch
from torch import nn

from ltn_sudoku.logic.fields import at_least
from ltn_sudoku.logic.groundings.grounding import Grounding
from ltn_sudoku.logic.groundings.hasvalue.base import RecurrentConfig, RecurrentHasValue
from ltn_sudoku.logic.groundings.layers import mlp

RELATIONS: tuple[str, ...] = ("cell", "row_in_block", "row_out_block", "col_in_block", "col_out_block", "block_rest")
NODE_INPUTS = 3  # given here, cell filled, previous hasValue(c, v)


@dataclass
class MessagePassingConfig(RecurrentConfig):
    """The message-passing grounding: a recurrent one whose messages along the peer graph have their own width."""

    kind: str = field(default="message_passing", metadata={"omegaconf_ignore": True})
    message_dim: int = at_least(1)  # the width of each relation's message


class MessagePassingHasValue(RecurrentHasValue):
    """Recurrent message passing over (cell, digit) nodes; state = (hidden (batch*N*n, hidden), logits)."""

    DESCRIPTION = ("givens, its own hidden state and previous hasValue, exchanged as learned messages along the fixed "
                   "isSameRow/isSameCol/isSameBlock relations; no candidate or single evidence")
    relation_size: torch.Tensor

    def __init__(self, grounding: Grounding, config: MessagePassingConfig) -> None:
        super().__init__(grounding, config)
        n = grounding.n
        self.k = math.isqrt(n)
        if self.k * self.k != n:
            raise ValueError(f"message passing needs a k²×k² board, got side {n}")
        d, m = config.hidden, config.message_dim
        self.message = mlp(d + NODE_INPUTS, d, 1, len(RELATIONS) * m)
        self.update_in = mlp(d + NODE_INPUTS + len(RELATIONS) * m, d, max(0, config.layers - 1), d)
        self.cell = nn.GRUCell(d, d)
        self.readout = nn.Linear(d, 1)
        k = self.k
        sizes = torch.tensor([n - 1, k - 1, n - k, k - 1, n - k, (k - 1) ** 2], dtype=torch.float32).clamp(min=1)
        self.register_buffer("relation_size", sizes.repeat_interleave(m), persistent=False)

    def aggregate(self, messages: torch.Tensor) -> torch.Tensor:
        """(batch, N, n, R*m) messages -> (batch, N, n, R*m): each node's mean over its relation partners."""
        batch, cells, n, width = messages.shape
        k, m = self.k, width // len(RELATIONS)
        x = messages.view(batch, k, k, k, k, n, len(RELATIONS), m)  # band, row in band, stack, column in stack
        cell, row_in, row_out, col_in, col_out, rest = x.unbind(6)
        row_in_sum = row_in.sum(4, keepdim=True)
        col_in_sum = col_in.sum(2, keepdim=True)
        parts = [
            cell.sum(5, keepdim=True) - cell,
            row_in_sum - row_in,
            row_out.sum((3, 4), keepdim=True) - row_out.sum(4, keepdim=True),
            col_in_sum - col_in,
            col_out.sum((1, 2), keepdim=True) - col_out.sum(2, keepdim=True),
            rest.sum((2, 4), keepdim=True) - rest.sum(4, keepdim=True) - rest.sum(2, keepdim=True) + rest,
        ]
        shape = (batch, k, k, k, k, n, m)
        out = torch.stack([p.expand(shape) for p in parts], 6).reshape(batch, cells, n, width)
        return out / self.relation_size

    def initial_state(self, givens: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        hidden = givens.new_zeros(givens.numel(), self.config.hidden)
        return hidden, torch.zeros_like(givens)

    def step(self, state: tuple[torch.Tensor, torch.Tensor], facts: torch.Tensor, filled: torch.Tensor,
             assignment: torch.Tensor) -> tuple[tuple[torch.Tensor, torch.Tensor], torch.Tensor]:
        hidden, _ = state
        batch, cells, n = facts.shape
        inputs = torch.stack([facts, filled.expand(-1, -1, n), assignment], -1)  # (batch, N, n, 3)
        node = torch.cat([hidden.view(batch, cells, n, -1), inputs], -1)
        received = self.aggregate(self.message(node))
        update = self.update_in(torch.cat([node, received], -1))
        hidden = self.cell(update.reshape(-1, update.shape[-1]), hidden)
        logits = self.readout(hidden).view(batch, cells, n)
        return (hidden, logits), logits
