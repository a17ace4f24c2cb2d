"""The fixed train / validation / test split of puzzles: a function of the puzzle alone, the same on every machine.

A puzzle's split is read off the SHA-256 of its canonical string: the 81 cells, empty as ``0``, after relabelling the
digits in order of first appearance (row-major), so that a digit relabelling of a test puzzle is a test puzzle too
(symmetry augmentation by relabelling cannot leak a test puzzle into training). The first 8 bytes of the digest, as
a fraction of 2**64, fall into [0, train), [train, train + val) or the rest: test. Geometric symmetries (transposition,
band / stack and row / column permutations) are not canonicalised: augment with them after splitting, from training
puzzles only.
"""

from __future__ import annotations

import hashlib
from typing import Sequence

import numpy as np

from ltn_sudoku.board import Board

SPLITS: tuple[str, str, str] = ("train", "val", "test")
DEFAULT_FRACTIONS: tuple[float, float, float] = (0.8, 0.1, 0.1)


def canonical(values: np.ndarray) -> np.ndarray:
    """(M, N) digits relabelled in order of first appearance in each row (0 stays 0): 1 is the first digit seen."""
    values = np.asarray(values, dtype=np.int64)
    if values.ndim == 1:
        return canonical(values[None])[0]
    m, cells = values.shape
    n = int(values.max(initial=0))
    digits = np.arange(1, n + 1)
    present = values[:, None, :] == digits[None, :, None]  # (M, n, N)
    first = np.where(present.any(-1), present.argmax(-1), cells)  # (M, n): first cell of each digit, N if absent
    rank = np.argsort(np.argsort(first, axis=1, kind="stable"), axis=1, kind="stable")  # 0 for the first seen
    table = np.zeros((m, n + 1), dtype=np.int64)
    table[:, 1:] = rank + 1
    return np.take_along_axis(table, values, axis=1)


def fractions_of(puzzles: np.ndarray) -> np.ndarray:
    """(M,) where each puzzle's SHA-256 falls in [0, 1): the hash of its canonical string, one ASCII digit per cell
    ('0' empty; two digits per cell for sides above 9)."""
    rows = canonical(np.asarray(puzzles))
    if rows.shape[1] <= 81:
        text = (rows + ord("0")).astype(np.uint8)
        keys = [text[i].tobytes() for i in range(len(rows))]
    else:
        keys = ["".join(f"{v:02d}" for v in row).encode("ascii") for row in rows.tolist()]
    return np.array([int.from_bytes(hashlib.sha256(k).digest()[:8], "big") / 2**64 for k in keys])


def _check(fractions: Sequence[float]) -> tuple[float, float]:
    if len(fractions) != 3 or min(fractions) < 0 or abs(sum(fractions) - 1) > 1e-9:
        raise ValueError(f"split fractions {tuple(fractions)}: expected three non-negative numbers summing to 1")
    return float(fractions[0]), float(fractions[0]) + float(fractions[1])


def splits_of(puzzles: np.ndarray, fractions: Sequence[float] = DEFAULT_FRACTIONS) -> np.ndarray:
    """(M,) split names ("train", "val", "test") of puzzles given as an (M, 81) array of digits, 0 = empty."""
    train_end, val_end = _check(fractions)
    where = fractions_of(puzzles)
    index = np.where(where < train_end, 0, np.where(where < val_end, 1, 2))
    return np.array(SPLITS)[index]


def split_of(puzzle: str | Board | Sequence[int], fractions: Sequence[float] = DEFAULT_FRACTIONS) -> str:
    """The split of one puzzle: an 81-character string ('0' or '.' empty), a Board or its digits."""
    if isinstance(puzzle, str):
        values = [0 if ch in ".0" else int(ch) for ch in puzzle.strip()]
    elif isinstance(puzzle, Board):
        values = list(puzzle.values)
    else:
        values = [int(v) for v in puzzle]
    return str(splits_of(np.array([values]), fractions)[0])
