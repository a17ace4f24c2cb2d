"""hasValue(c, v | b) on visual boards: a small CNN reads each cell's image into a softmax over the n digits.

The network sees one cell image at a time (no position, no neighbours), so whatever it learns is a digit reader;
the rules tie the cells together only through the knowledge base (ltn_sudoku.visual.model).
"""

from __future__ import annotations

import torch
from torch import nn


class DigitReader(nn.Module):
    """Small CNN: (…, 28, 28) uint8 or float images → (…, n) digit probabilities (a softmax).

    The image is averaged down to 14x14 first and the convolutions are narrow: about 75k multiply-adds per image,
    a fifteenth of LeNet's, so that training stays within minutes on a shared 2-core CPU."""

    def __init__(self, n: int, channels: int = 8, hidden: int = 32) -> None:
        super().__init__()
        self.n = n
        self.features = nn.Sequential(
            nn.AvgPool2d(2),
            nn.Conv2d(1, channels, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(channels, 2 * channels, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten())
        self.head = nn.Sequential(nn.Linear(2 * channels * 9, hidden), nn.ReLU(), nn.Linear(hidden, n))

    def logits(self, images: torch.Tensor) -> torch.Tensor:
        """Unnormalised digit scores of every image, in the images' leading shape."""
        lead = images.shape[:-2]
        x = images.reshape(-1, 1, 28, 28).float()
        if images.dtype == torch.uint8:
            x = x / 255.0
        return self.head(self.features(x)).reshape(*lead, self.n)

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        return torch.softmax(self.logits(images), dim=-1)
