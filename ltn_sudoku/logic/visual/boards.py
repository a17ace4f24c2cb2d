"""Visual boards: closed boards from the generators (ltn_sudoku.generate), every cell drawn as a handwritten digit.

A board of digits comes first (half valid grids, half invalid boards of the four kinds: random corruption, swapped
pair, changed digit, blocks-only Latin square, in equal shares); each cell holding digit d then gets an image drawn
from the pool's MNIST class d. The generator knows the digits it drew, so the board label (valid / invalid) is exact;
that is the only place digit classes are used, to build the data. Training sees `BoardImages` (images and board
labels); the digits stay in `VisualBoards.digits` for evaluation (permutation-matched digit accuracy) and for the
oracle baseline, which is the one model allowed to read them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ltn_sudoku.generate import generate
from ltn_sudoku.logic.visual.mnist import Pool

SPLIT_OFFSETS: dict[str, int] = {"train": 0, "val": 1, "test": 2}  # board seed = 3 * seed + offset: never shared


@dataclass(frozen=True)
class BoardImages:
    """What a board-level learner sees: images (boards, n*n, 28, 28) uint8 in row-major cell order, and whether
    each board is a valid Sudoku (boards,) bool. No digit labels."""

    images: np.ndarray
    valid: np.ndarray

    def __len__(self) -> int:
        return len(self.valid)

    @property
    def n(self) -> int:
        return round(self.images.shape[1] ** 0.5)


@dataclass(frozen=True)
class VisualBoards:
    """Boards as images with their ground truth: the digits (boards, n*n) in 1..n and each board's generator kind."""

    boards: BoardImages
    digits: np.ndarray
    kinds: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.boards)

    def select(self, rows: np.ndarray | slice) -> VisualBoards:
        """A subset of the boards (e.g. the first k of a training set)."""
        kinds = np.asarray(self.kinds, dtype=object)[rows]
        return VisualBoards(BoardImages(self.boards.images[rows], self.boards.valid[rows]), self.digits[rows],
                            tuple(kinds.tolist()))


def digit_boards(n: int, count: int, seed: int) -> tuple[np.ndarray, np.ndarray, tuple[str, ...]]:
    """(digits (count, n*n), valid (count,), kinds): count // 2 valid grids and the rest invalid boards of the four
    kinds, shuffled together; the exact solver checked every label (ltn_sudoku.generate)."""
    valid = generate(n, "closed_valid", count // 2, seed)
    invalid = generate(n, "closed_invalid", count - count // 2, seed)
    records = valid + invalid
    order = np.random.default_rng([seed, n, 7]).permutation(len(records))
    records = [records[i] for i in order]
    digits = np.array([r.board.values for r in records], dtype=np.int64).reshape(count, n * n)
    labels = np.array([r.label == "closed_valid" for r in records], dtype=bool)
    return digits, labels, tuple(r.kind for r in records)


def make_boards(n: int, count: int, seed: int, pool: Pool, split: str) -> VisualBoards:
    """`count` boards of side n for one split ("train", "val" or "test"), images drawn from that split's pool."""
    board_seed = 3 * seed + SPLIT_OFFSETS[split]
    digits, valid, kinds = digit_boards(n, count, board_seed)
    images = pool.draw(digits, np.random.default_rng([board_seed, n, 11]))
    return VisualBoards(BoardImages(images, valid), digits, kinds)
