"""Small building blocks shared by the learned predicates of both model kinds."""

from __future__ import annotations

import torch
from torch import nn


def violation_scale(truth: torch.Tensor) -> torch.Tensor:
    """-log10(1 - truth) / 6 in [0, 1]: tells 0.9999 from 0.99 apart, which raw truths near 1 do not."""
    return -torch.log10((1 - truth).clamp(min=1e-6)) / 6


def mlp(inputs: int, hidden: int, layers: int, outputs: int) -> nn.Sequential:
    """`layers` hidden ReLU layers of width `hidden`, then a linear output."""
    parts: list[nn.Module] = []
    width = inputs
    for _ in range(layers):
        parts += [nn.Linear(width, hidden), nn.ReLU()]
        width = hidden
    parts.append(nn.Linear(width, outputs))
    return nn.Sequential(*parts)


def feature_major_linear(weight: torch.Tensor, bias: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """A linear layer on feature-major x (features, nodes): weight @ x + bias per row. As a product and an in-place
    add, not torch.addmm, which first copies the bias, broadcast over every node, into its output and then
    accumulates the product there: with this the evidence model's training step went from 1.41x to 1.59-1.62x of
    the baseline's speed (scripts/bench_train_step.py --models evidence). The two agree to float rounding
    (tests/test_logic.py; bit for bit on the machine measured)."""
    return (weight @ x).add_(bias[:, None])


def run_mlp(layers: nn.Module, x: torch.Tensor) -> torch.Tensor:
    """An `mlp` on node-major x (..., inputs): each hidden layer a product, an in-place bias add and an in-place ReLU
    instead of addmm (which copies the bias, broadcast over every row, into its output first) and a ReLU that
    allocates a second output: recommendsHeuristic's heads run on about 3,000 pattern instances a 9x9 board, where
    those copies cost more than the products. The same function as `layers(x)` (tests/test_logic.py); the output
    layer, one or a few units wide, stays a plain linear."""
    *hidden, last = layers.children()
    for layer in hidden:
        if isinstance(layer, nn.Linear):
            x = (x @ layer.weight.T).add_(layer.bias)
        else:
            assert isinstance(layer, nn.ReLU), f"run_mlp takes Linear and ReLU layers, not {type(layer).__name__}"
            x = x.relu_()
    assert isinstance(last, nn.Linear)
    return nn.functional.linear(x, last.weight, last.bias)
