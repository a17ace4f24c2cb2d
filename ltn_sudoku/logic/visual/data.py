"""The boards of one visual run: training, validation and test sets from disjoint image pools (conf/data/visual.yaml).

The run's `seed` is its split: it draws the training and validation boards (digits and images); the test boards
come from `data.test_seed` and MNIST's t10k file, the same for every split of a sweep.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ltn_sudoku.logic.visual.boards import VisualBoards, make_boards
from ltn_sudoku.logic.visual.mnist import image_pools


@dataclass(frozen=True)
class VisualData:
    """Training, validation and held-out test boards of one split."""

    train: VisualBoards
    val: VisualBoards
    test: VisualBoards


def build_data(n: int, data_cfg: Mapping[str, Any], seed: int) -> VisualData:
    """The boards a `data: visual` config asks for (mnist_path, train_boards, val_boards, test_boards, test_seed)."""
    pools = image_pools(Path(str(data_cfg["mnist_path"])), n)
    return VisualData(make_boards(n, int(data_cfg["train_boards"]), seed, pools["train"], "train"),
                      make_boards(n, int(data_cfg["val_boards"]), seed, pools["val"], "val"),
                      make_boards(n, int(data_cfg["test_boards"]), int(data_cfg["test_seed"]), pools["test"], "test"))
