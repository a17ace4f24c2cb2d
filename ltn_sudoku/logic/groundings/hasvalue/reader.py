"""hasValue(c, v | b) on visual boards (the `visual` grounding): a small CNN reads each cell's image into a softmax over the n
digits.

The network sees one cell image at a time (no position, no neighbours), so whatever it learns is a digit reader;
the rules tie the cells together only through the knowledge base (ltn_sudoku.logic.visual.model).
"""

from __future__ import annotations

import torch
from torch import nn


class DigitReader(nn.Module):
    """Small CNN: (…, 28, 28) uint8 or float images → (…, n) digit probabilities (a softmax).

    By default (`pool` 2) the image is averaged down to 14x14 first and the convolutions are narrow: about 75k
    multiply-adds per image, a fifteenth of LeNet's, so that training stays within minutes on a shared 2-core CPU.
    `pool` 1 reads the full 28x28 image (about 4x the work at 8 channels; the stroke detail the pooled reader loses
    caps it near 97 % of 9x9 digits even with every digit label, docs/visual.md)."""

    DESCRIPTION = ("a CNN over each cell's MNIST image alone (no position, no neighbours): a digit reader; the rules "
                   "tie the cells together only through the knowledge base")

    def __init__(self, n: int, channels: int = 8, hidden: int = 32, pool: int = 2) -> None:
        super().__init__()
        if pool not in (1, 2):
            raise ValueError(f"pool={pool}: expected 1 (28x28 input) or 2 (14x14)")
        self.n = n
        side = 28 // pool // 4  # after the two 2x2 max-pools
        self.features = nn.Sequential(
            nn.AvgPool2d(pool),
            nn.Conv2d(1, channels, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(channels, 2 * channels, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten())
        self.head = nn.Sequential(nn.Linear(2 * channels * side * side, hidden), nn.ReLU(), nn.Linear(hidden, n))

    def logits(self, images: torch.Tensor) -> torch.Tensor:
        """Unnormalised digit scores of every image, in the images' leading shape."""
        lead = images.shape[:-2]
        x = images.reshape(-1, 1, 28, 28).float()
        if images.dtype == torch.uint8:
            x = x / 255.0
        return self.head(self.features(x)).reshape(*lead, self.n)

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        return torch.softmax(self.logits(images), dim=-1)
