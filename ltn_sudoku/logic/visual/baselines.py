"""The two baselines of the visual task, trained on the same training boards as the LTN.

- CNN board classifier (the neural baseline of ViSudo-PC): the same per-cell CNN trunk, its features of all cells
  concatenated in row-major order (so position is known), an MLP to one logit; cross-entropy on the board labels.
  It knows no rule: what it finds of Sudoku it must find in the labels.
- Oracle grounding (the upper bound): a digit reader trained *with* the digit labels of the training boards' cells
  (supervision the LTN never gets), then the exact Q1 check on the read digits.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np
import torch
from torch import nn

from ltn_sudoku.logic.device import device_of, to_numpy
from ltn_sudoku.logic.groundings.hasvalue.reader import DigitReader
from ltn_sudoku.logic.visual.boards import BoardImages, VisualBoards
from ltn_sudoku.logic.visual.evaluate import crisp_valid


def minibatches(count: int, batch: int, generator: torch.Generator) -> Iterator[torch.Tensor]:
    """Shuffled index batches covering 0..count-1 once (one epoch)."""
    order = torch.randperm(count, generator=generator)  # host: an index, valid for tensors on any device
    yield from order.split(batch)


def fit(model: nn.Module, loss: Callable[[torch.Tensor], torch.Tensor], count: int, epochs: int, batch: int,
        lr: float, seed: int) -> None:
    """Adam on `loss(indices)` over `epochs` shuffled passes of `count` examples."""
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    generator = torch.Generator().manual_seed(seed)
    model.train()
    for _ in range(epochs):
        for rows in minibatches(count, batch, generator):
            optimizer.zero_grad()
            loss(rows).backward()
            optimizer.step()
    model.eval()


class BoardCnn(nn.Module):
    """CNN board classifier: per-cell CNN features, concatenated over the cells, then an MLP to a validity logit."""

    def __init__(self, n: int, features: int = 16, hidden: int = 128) -> None:
        super().__init__()
        self.cells = DigitReader(features)
        self.mlp = nn.Sequential(nn.Linear(n * n * features, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        """(boards, n*n, 28, 28) → (boards,) logits of 'valid'."""
        per_cell = torch.relu(self.cells.logits(images))
        return self.mlp(per_cell.reshape(len(images), -1)).squeeze(-1)


def train_board_cnn(train: BoardImages, epochs: int, batch: int, lr: float, seed: int) -> BoardCnn:
    """The CNN baseline, trained on board labels only."""
    torch.manual_seed(seed)
    model = BoardCnn(train.n)
    images, labels = torch.from_numpy(train.images), torch.from_numpy(train.valid).float()
    fit(model, lambda rows: nn.functional.binary_cross_entropy_with_logits(model(images[rows]), labels[rows]),
        len(train), epochs, batch, lr, seed)
    return model


@torch.no_grad()
def board_cnn_predict(model: BoardCnn, boards: BoardImages, batch: int = 256) -> np.ndarray:
    """(boards,) the CNN baseline's verdict: valid when its logit is positive."""
    device, images = device_of(model), torch.from_numpy(boards.images)
    return to_numpy(torch.cat([model(images[i:i + batch].to(device)) > 0 for i in range(0, len(images), batch)]))


def train_oracle_reader(train: VisualBoards, epochs: int, batch: int, lr: float, seed: int, channels: int = 8,
                        hidden: int = 32, pool: int = 2) -> DigitReader:
    """A digit reader trained with the digit labels of every training cell (the oracle grounding); give it the LTN
    reader's architecture (channels, hidden, pool) so that the two differ in supervision only."""
    torch.manual_seed(seed)
    n = train.boards.n
    reader = DigitReader(n, channels, hidden, pool)
    images = torch.from_numpy(train.boards.images.reshape(-1, 28, 28))
    targets = torch.from_numpy(train.digits.reshape(-1) - 1)
    fit(reader, lambda rows: nn.functional.cross_entropy(reader.logits(images[rows]), targets[rows]),
        len(targets), epochs, batch * n * n, lr, seed)
    return reader


@torch.no_grad()
def read_probabilities(reader: DigitReader, boards: BoardImages, batch: int = 256) -> np.ndarray:
    """(boards, n*n, n) each cell's digit probabilities under `reader` (the LTN's hasValue is its `reader`)."""
    device, images = device_of(reader), torch.from_numpy(boards.images)
    return to_numpy(torch.cat([reader(images[i:i + batch].to(device)) for i in range(0, len(images), batch)])) \
        if len(images) else np.zeros((0, boards.images.shape[1], reader.n), dtype=np.float32)


@torch.no_grad()
def read_digits(reader: DigitReader, boards: BoardImages, batch: int = 256) -> np.ndarray:
    """(boards, n*n) digits 1..n: each cell's most probable digit under `reader`."""
    device, images = device_of(reader), torch.from_numpy(boards.images)
    return to_numpy(torch.cat([reader(images[i:i + batch].to(device)).argmax(-1) + 1
                               for i in range(0, len(images), batch)]))


def oracle_predict(reader: DigitReader, boards: BoardImages) -> np.ndarray:
    """(boards,) the oracle's verdict: the exact check of the digits its reader reads."""
    return crisp_valid(read_digits(reader, boards), boards.n)
