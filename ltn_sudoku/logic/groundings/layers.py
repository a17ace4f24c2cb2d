"""Small building blocks shared by the learned predicates."""

from __future__ import annotations

from torch import nn


def mlp(inputs: int, hidden: int, layers: int, outputs: int) -> nn.Sequential:
    """`layers` hidden ReLU layers of width `hidden`, then a linear output."""
    parts: list[nn.Module] = []
    width = inputs
    for _ in range(layers):
        parts += [nn.Linear(width, hidden), nn.ReLU()]
        width = hidden
    parts.append(nn.Linear(width, outputs))
    return nn.Sequential(*parts)
