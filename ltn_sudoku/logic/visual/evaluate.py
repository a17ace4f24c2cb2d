"""Figures of a visual model: board accuracy (Q1 on held-out image boards) and permutation-matched digit accuracy.

The rules are invariant under renaming the digits, so a grounding learned from board labels alone finds the digits
only up to a permutation: its digit accuracy is the accuracy after the best one-to-one renaming of its digits to the
true ones (the assignment problem on the confusion matrix, solved exactly: every permutation for n <= MAX_BRUTE,
the Hungarian algorithm beyond).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from ltn_sudoku.board import Board

MAX_BRUTE = 4  # 4! = 24 permutations


def confusion(read: np.ndarray, truth: np.ndarray, n: int) -> np.ndarray:
    """(n, n) counts[r - 1, t - 1] of cells read as r whose true digit is t."""
    counts = np.zeros((n, n), dtype=np.int64)
    np.add.at(counts, (read.reshape(-1) - 1, truth.reshape(-1) - 1), 1)
    return counts


def best_permutation(counts: np.ndarray) -> np.ndarray:
    """perm with perm[r] = the true digit index that read digit index r is renamed to, maximising the matches."""
    n = counts.shape[0]
    if n <= MAX_BRUTE:
        perms = np.array(list(itertools.permutations(range(n))), dtype=np.int64)
        scores = counts[np.arange(n), perms].sum(axis=1)
        return perms[int(scores.argmax())]
    return _hungarian(counts)


def _hungarian(counts: np.ndarray) -> np.ndarray:
    """Maximum-weight perfect matching of a square matrix (Kuhn-Munkres with potentials, O(n^3))."""
    cost = counts.max() - counts.astype(np.float64)
    n = cost.shape[0]
    u, v = np.zeros(n + 1), np.zeros(n + 1)
    match, way = np.zeros(n + 1, dtype=np.int64), np.zeros(n + 1, dtype=np.int64)
    for row in range(1, n + 1):
        match[0], col = row, 0
        low = np.full(n + 1, np.inf)
        used = np.zeros(n + 1, dtype=bool)
        while match[col] != 0:
            used[col] = True
            r = match[col]
            delta, nxt = np.inf, 0
            for j in range(1, n + 1):
                if not used[j]:
                    cur = cost[r - 1, j - 1] - u[r] - v[j]
                    if cur < low[j]:
                        low[j], way[j] = cur, col
                    if low[j] < delta:
                        delta, nxt = low[j], j
            for j in range(n + 1):
                if used[j]:
                    u[match[j]] += delta
                    v[j] -= delta
                else:
                    low[j] -= delta
            col = nxt
        while col:
            prev = way[col]
            match[col] = match[prev]
            col = prev
    perm = np.zeros(n, dtype=np.int64)
    for j in range(1, n + 1):
        perm[match[j] - 1] = j - 1
    return perm


def digit_accuracy(read: np.ndarray, truth: np.ndarray, n: int) -> float:
    """Share of cells read right after the best renaming of the read digits (1..n arrays of any equal shape)."""
    counts = confusion(read, truth, n)
    perm = best_permutation(counts)
    return float(counts[np.arange(n), perm].sum() / max(1, counts.sum()))


def crisp_valid(digits: np.ndarray, n: int) -> np.ndarray:
    """(boards,) the exact Q1 answer on boards of digits (boards, n*n): is each a valid completed Sudoku?"""
    return np.array([Board(row.tolist(), n).is_valid_solution for row in digits], dtype=bool)


@dataclass(frozen=True)
class BoardScores:
    """Board accuracy and its parts on a set of boards."""

    accuracy: float
    valid_recall: float  # share of valid boards called valid
    invalid_recall: float  # share of invalid boards called invalid

    @staticmethod
    def of(predicted: np.ndarray, valid: np.ndarray) -> BoardScores:
        predicted, valid = predicted.astype(bool), valid.astype(bool)
        return BoardScores(float((predicted == valid).mean()), float(predicted[valid].mean()) if valid.any() else 1.0,
                           float((~predicted[~valid]).mean()) if (~valid).any() else 1.0)

    def as_dict(self, prefix: str) -> dict[str, float]:
        return {f"{prefix}/board_accuracy": self.accuracy, f"{prefix}/valid_recall": self.valid_recall,
                f"{prefix}/invalid_recall": self.invalid_recall}
