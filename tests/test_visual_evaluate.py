"""Permutation-matched digit accuracy against scipy's assignment solver and hand-made cases."""

from __future__ import annotations

import numpy as np
from scipy.optimize import linear_sum_assignment

from ltn_sudoku.logic.visual.evaluate import _hungarian, best_permutation, confusion, digit_accuracy


def test_renamed_digits_score_full_marks() -> None:
    rng = np.random.default_rng(0)
    truth = rng.integers(1, 10, size=(5, 81))
    rename = np.array([0, 3, 1, 2, 9, 8, 7, 6, 5, 4])  # digit d read as rename[d]
    assert digit_accuracy(rename[truth], truth, 9) == 1.0
    read = rename[truth].copy()
    read[0, :9] = rename[truth[0, :9]] % 9 + 1  # 9 cells read as some other digit
    assert digit_accuracy(read, truth, 9) == 1 - 9 / 405


def test_matching_is_optimal() -> None:
    rng = np.random.default_rng(1)
    for n in (4, 9, 16):
        for _ in range(10):
            counts = rng.integers(0, 40, size=(n, n))
            rows, cols = linear_sum_assignment(-counts)
            optimum = counts[rows, cols].sum()
            assert counts[np.arange(n), _hungarian(counts)].sum() == optimum
            if n <= 4:
                assert counts[np.arange(n), best_permutation(counts)].sum() == optimum


def test_confusion_counts() -> None:
    assert confusion(np.array([1, 1, 2]), np.array([2, 2, 2]), 2).tolist() == [[0, 2], [0, 1]]
