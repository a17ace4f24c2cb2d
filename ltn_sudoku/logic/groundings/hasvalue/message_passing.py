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

How a step computes it (the same function, in fewer and narrower operations; docs/scale.md has the figures): the
message's last layer and the update's first layer are both linear, and so is a relation's mean, so a relation's
contribution to the update is a d×d matrix applied to sums of the message MLP's hidden layer (d wide) over groups of
nodes, never the R·m-wide messages themselves. Every relation is a difference of such group sums (the rest of the
row = the row's sum − the block segment's sum, ...), so a step sums the hidden layer once per group (cell, row
segment, row, column segment, column, block), applies one small matrix per group to the sums, and broadcasts them
back; the node's own term is one d×d product. The weights are those of the modules a checkpoint holds (message MLP,
update MLP, GRU cell, read-out), rearranged once per forward pass (`fixed_inputs`): every layer that reads the node's
inputs (hidden state, given, filled, previous hasValue) is one stacked product with the biases in it, the update
MLP's last layer is folded into the GRU's input gates, and the GRU's gates are one autograd record (`GruGates`).
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import torch
from torch import nn

from ltn_sudoku.logic.config.groundings import MessagePassingConfig
from ltn_sudoku.logic.groundings.grounding import Grounding
from ltn_sudoku.logic.groundings.hasvalue.base import RecurrentHasValue
from ltn_sudoku.logic.groundings.layers import feature_major_linear, mlp

RELATIONS: tuple[str, ...] = ("cell", "row_in_block", "row_out_block", "col_in_block", "col_out_block", "block_rest")
NODE_INPUTS = 3  # given here, cell filled, previous hasValue(c, v)


class FixedInputs(NamedTuple):
    """What every step of one forward pass reads that does not change from step to step (`fixed_inputs`)."""

    givens: torch.Tensor  # (nodes, 3): a node's given and cell-filled inputs, and a 1 (the biases' input)
    on_node: torch.Tensor  # (5d, d+4): message and update first layers and the GRU's hidden gates on the node's
    # inputs (hidden, given, filled, hasValue) and their biases (the message's last bias as it reaches the update)
    on_groups: list[torch.Tensor]  # 7 (d, d): what each group sum of the message hidden layer adds to the update
    on_update: torch.Tensor  # (3d, d): the GRU's input gates read off the update MLP's last hidden layer
    new_gate_bias: torch.Tensor  # (d,): the new gate's input bias (the other gates' biases are in on_node's)


# The groups of nodes whose sums of the message hidden layer make up the six relations, and each relation as
# +1 / -1 times them: cell = the cell's sum - the node itself, row_out_block = the row's sum - the row segment's, ...
GROUPS: tuple[str, ...] = ("self", "cell", "row_segment", "row", "col_segment", "col", "block")
RELATION_GROUPS: tuple[tuple[int, ...], ...] = (
    # self cell row_seg row col_seg col block
    (-1, 1, 0, 0, 0, 0, 0),  # cell: the other digits of the cell
    (-1, 0, 1, 0, 0, 0, 0),  # row_in_block
    (0, 0, -1, 1, 0, 0, 0),  # row_out_block
    (-1, 0, 0, 0, 1, 0, 0),  # col_in_block
    (0, 0, 0, 0, -1, 1, 0),  # col_out_block
    (1, 0, -1, 0, -1, 0, 1),  # block_rest: the block - the row segment - the column segment + the node itself
)


class MessagePassingHasValue(RecurrentHasValue):
    """Recurrent message passing over (cell, digit) nodes; state = (hidden (hidden, batch*N*n), logits).

    A step holds every node-wise tensor feature-major, (features, nodes): a layer's slice of a stacked product is
    then a contiguous block of rows, which the CPU's element-wise kernels run through in one loop (a column slice of
    node-major rows costs them a loop per node)."""

    DESCRIPTION = ("givens, its own hidden state and previous hasValue, exchanged as learned messages along the fixed "
                   "isSameRow/isSameCol/isSameBlock relations; no candidate or single evidence")
    cpu_part_nodes = 8192  # 11 boards of 9x9 a part: about 7 % faster training than a batch of 32 at once
    relation_size: torch.Tensor
    partners: torch.Tensor
    relation_groups: torch.Tensor

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
        partners = torch.tensor([n - 1, k - 1, n - k, k - 1, n - k, (k - 1) ** 2], dtype=torch.float32)
        self.register_buffer("relation_size", partners.clamp(min=1), persistent=False)  # a mean's divisor
        self.register_buffer("partners", partners, persistent=False)
        self.register_buffer("relation_groups", torch.tensor(RELATION_GROUPS, dtype=torch.float32), persistent=False)

    def initial_state(self, givens: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        hidden = givens.new_zeros(self.config.hidden, givens.numel())
        return hidden, torch.zeros_like(givens)

    def fixed_inputs(self, facts: torch.Tensor, filled: torch.Tensor) -> FixedInputs:
        d, m, relations = self.config.hidden, self.config.message_dim, len(RELATIONS)
        first_message, last_message, first_update = self.message[0], self.message[2], self.update_in[0]
        assert isinstance(first_message, nn.Linear) and isinstance(last_message, nn.Linear)
        assert isinstance(first_update, nn.Linear)
        # the update's first layer reads [the node's inputs (hidden, given, filled, hasValue) | received messages]
        on_received = (first_update.weight[:, d + NODE_INPUTS:].reshape(d, relations, m)
                       / self.relation_size.view(relations, 1))  # (d, R, m): the update's weights on each mean
        message_weight = last_message.weight.reshape(relations, m, d)
        per_relation = torch.einsum("irm,rmj->rij", on_received, message_weight)  # (R, d, d): hidden layer -> update
        on_groups = list(torch.einsum("rg,rij->gij", self.relation_groups, per_relation).unbind())
        # the message's bias reaches the update once per partner: sum over the partners / the mean's divisor
        message_bias = torch.einsum("irm,rm,r->i", on_received, last_message.bias.reshape(relations, m),
                                    self.partners)
        on_update, update_bias = self._input_gates()
        # the reset and update gates sum both products, so the input gates' biases join the hidden ones there
        gate_bias = self.cell.bias_hh + torch.cat([update_bias[:2 * d], torch.zeros_like(update_bias[2 * d:])])
        hidden_only = nn.functional.pad(self.cell.weight_hh, (0, NODE_INPUTS))  # the GRU's hidden gates read h alone
        on_node = torch.cat([torch.cat([first_message.weight, first_update.weight[:, :d + NODE_INPUTS], hidden_only]),
                             torch.cat([first_message.bias, first_update.bias + message_bias, gate_bias])[:, None]], 1)
        givens = torch.stack([facts.reshape(-1), filled.expand_as(facts).reshape(-1), torch.ones_like(facts).reshape(-1)])
        return FixedInputs(givens, on_node, on_groups, on_update, update_bias[2 * d:])

    def select_boards(self, state: tuple[torch.Tensor, torch.Tensor], fixed: FixedInputs,
                      rows: torch.Tensor) -> tuple[tuple[torch.Tensor, torch.Tensor], FixedInputs]:
        """The boards `rows` only: the node tensors are feature-major (features, boards x nodes), cut per board."""
        hidden, logits = state
        nodes = logits.shape[1] * logits.shape[2]

        def cut(x: torch.Tensor) -> torch.Tensor:
            return x.view(x.shape[0], -1, nodes)[:, rows].reshape(x.shape[0], -1)

        return (cut(hidden), logits[rows]), fixed._replace(givens=cut(fixed.givens))

    def _input_gates(self) -> tuple[torch.Tensor, torch.Tensor]:
        """The GRU's input gates as one linear map of the update MLP's last hidden layer, (weight, bias):
        W_ih·(W·x + b) + b_ih = (W_ih·W)·x + (W_ih·b + b_ih)."""
        last = self.update_in[-1]
        assert isinstance(last, nn.Linear)
        if len(self.update_in) == 1:  # one update layer: its output (the first layer's) is the GRU's input
            return self.cell.weight_ih, self.cell.bias_ih
        return self.cell.weight_ih @ last.weight, self.cell.weight_ih @ last.bias + self.cell.bias_ih

    def step(self, state: tuple[torch.Tensor, torch.Tensor], fixed: Any,
             assignment: torch.Tensor) -> tuple[tuple[torch.Tensor, torch.Tensor], torch.Tensor]:
        hidden, _ = state
        batch, cells, n = assignment.shape
        d, k = self.config.hidden, self.k
        # the modules' node input (hidden, given, filled, hasValue) and a 1 for the biases
        node = torch.cat([hidden, fixed.givens[:2], assignment.reshape(1, -1), fixed.givens[2:]])
        # one product for everything the node's inputs feed; split, not sliced: a split's gradient is one
        # concatenation, a slice's a zero-filled full-size tensor
        message_first, update_first, hidden_gates = (fixed.on_node @ node).split([d, d, 3 * d])
        message_hidden = torch.relu(message_first)
        received = torch.addmm(update_first, fixed.on_groups[0], message_hidden)
        shape = (d, batch, k, k, k, k, n)  # band, row in band, stack, column in stack
        received = _with_group_terms(received.view(shape), message_hidden.view(shape), fixed.on_groups).view(d, -1)
        for layer in list(self.update_in)[1:-1]:  # the update MLP's hidden layers between its first and last
            received = (feature_major_linear(layer.weight, layer.bias, received) if isinstance(layer, nn.Linear)
                        else layer(received))
        gates = gru_gates if torch.compiler.is_compiling() else GruGates.apply  # the compiler fuses plain ops
        hidden = gates(fixed.on_update @ received, hidden_gates, fixed.new_gate_bias, hidden)
        logits = torch.addmm(self.readout.bias[:, None], self.readout.weight, hidden).view(batch, cells, n)
        return (hidden, logits), logits


def _with_group_terms(out: torch.Tensor, x: torch.Tensor, on_groups: list[torch.Tensor]) -> torch.Tensor:
    """`out` plus every group's sum of x (d, batch, band, row in band, stack, column in stack, digit) times its
    matrix, broadcast back over the group (out of place: an in-place add to a view costs autograd a full copy)."""
    def times(group: int, sums: torch.Tensor) -> torch.Tensor:
        return (on_groups[group] @ sums.reshape(sums.shape[0], -1)).view(sums.shape)

    row_segment = x.sum(5, keepdim=True)
    col_segment = x.sum(3, keepdim=True)
    along_rows = (times(2, row_segment) + times(3, row_segment.sum(4, keepdim=True))
                  + times(6, row_segment.sum(3, keepdim=True)))  # row segment, row, block
    along_cols = times(4, col_segment) + times(5, col_segment.sum(2, keepdim=True))
    return out + along_rows + along_cols + times(1, x.sum(6, keepdim=True))


def gru_gates(x: torch.Tensor, h: torch.Tensor, new_bias: torch.Tensor, hidden: torch.Tensor) -> torch.Tensor:
    """GruGates' function in plain operations, for torch.compile: it fuses them, forward and backward, into fewer
    loops than the hand-written backward (which it cannot see into) takes in eager mode."""
    d = hidden.shape[0]
    reset = torch.sigmoid(x[:d] + h[:d])
    update = torch.sigmoid(x[d:2 * d] + h[d:2 * d])
    new = torch.tanh(x[2 * d:] + reset * h[2 * d:] + new_bias[:, None])
    return (hidden - new) * update + new


class GruGates(torch.autograd.Function):
    """nn.GRUCell's gates from its two products, feature-major, without ATen's dozen autograd records: (x = W_ih·input
    (3d, N), h = W_hh·hidden + b_hh (3d, N), b_in = the new gate's b_ih (d,), hidden (d, N)) -> the new hidden state,
    the reset and update gates' b_ih added to x or h (only their sums are read):
    reset, update = σ(x_r + h_r), σ(x_z + h_z); new = tanh(x_n + reset·h_n + b_in); h' = (hidden − new)·update + new.
    The backward pass is written out from the saved gates, in place where it can be."""

    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, h: torch.Tensor, new_bias: torch.Tensor,
                hidden: torch.Tensor) -> torch.Tensor:
        d = hidden.shape[0]
        reset = torch.sigmoid_(x[:d] + h[:d])
        update = torch.sigmoid_(x[d:2 * d] + h[d:2 * d])
        new = torch.tanh_(torch.addcmul(x[2 * d:], reset, h[2 * d:]).add_(new_bias[:, None]))
        kept = hidden - new
        ctx.save_for_backward(reset, update, h, new, kept)
        return torch.addcmul(new, kept, update)

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor, ...]:
        reset, update, h, new, kept = ctx.saved_tensors
        d = new.shape[0]
        grad_hidden = grad * update
        grad_x = torch.empty(3 * d, grad.shape[1], dtype=grad.dtype, device=grad.device)
        grad_h = torch.empty_like(grad_x)
        through = grad - grad_hidden  # reaches the new gate, then through tanh: · (1 − new²)
        grad_new = torch.addcmul(through, through * new, new, value=-1, out=grad_x[2 * d:])
        for gate, part, out in ((reset, grad_new * h[2 * d:], grad_x[:d]),  # σ' = σ(1 − σ)
                                (update, grad * kept, grad_x[d:2 * d])):
            part.mul_(gate)
            torch.addcmul(part, part, gate, value=-1, out=out)
        grad_h[:2 * d] = grad_x[:2 * d]  # the reset and update gates sum both products
        torch.mul(grad_new, reset, out=grad_h[2 * d:])
        return grad_x, grad_h, grad_new.sum(1), grad_hidden
