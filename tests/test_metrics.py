"""logic/board/metrics.py against independent values: hand-computed cases and scikit-learn on random inputs.

Every published AUROC, F1, accuracy and calibration figure goes through these functions.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.calibration import calibration_curve
from sklearn.metrics import accuracy_score, balanced_accuracy_score, precision_recall_fscore_support, roc_auc_score

from ltn_sudoku.logic.board.metrics import (
    accuracy,
    auroc,
    balanced_accuracy,
    calibrate_threshold,
    expected_calibration_error,
    precision_recall_f1,
    reliability,
)

SEEDS = range(40)


def _random_case(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Scores with ties (rounded) and labels of both classes, of random length."""
    rng = np.random.default_rng(seed)
    size = int(rng.integers(2, 300))
    labels = rng.random(size) < rng.uniform(0.1, 0.9)
    labels[:2] = [True, False]
    scores = np.round(rng.random(size) * 0.6 + 0.4 * labels * rng.random(), int(rng.integers(1, 4)))
    return scores, labels


# ---- hand-computed ----------------------------------------------------------------------------------------------
def test_auroc_by_hand() -> None:
    assert auroc([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1]) == pytest.approx(0.75)  # 3 of 4 pairs ordered right
    assert auroc([0.9, 0.8, 0.2], [1, 1, 0]) == 1.0
    assert auroc([0.1, 0.2, 0.9], [1, 1, 0]) == 0.0
    assert auroc([0.5, 0.5, 0.5, 0.5], [1, 0, 1, 0]) == 0.5  # all ties count half
    assert auroc([0.3, 0.3, 0.7], [0, 1, 1]) == pytest.approx(0.75)  # (0.5 + 1) / 2
    assert np.isnan(auroc([0.2, 0.4], [1, 1])) and np.isnan(auroc([0.2, 0.4], [0, 0]))


def test_precision_recall_f1_by_hand() -> None:
    decisions = [1, 1, 1, 0, 0, 1]
    labels = [1, 0, 1, 1, 0, 1]  # tp 3, fp 1, fn 1
    p, r, f1 = precision_recall_f1(decisions, labels)
    assert (p, r) == (0.75, 0.75) and f1 == pytest.approx(0.75)
    assert precision_recall_f1([1, 0], [1, 1]) == pytest.approx((1.0, 0.5, 2 / 3))
    assert precision_recall_f1([0, 0], [0, 0]) == (1.0, 1.0, 1.0)  # nothing to find, nothing flagged
    assert precision_recall_f1([1, 1], [0, 0]) == (0.0, 1.0, 0.0)
    assert precision_recall_f1([0, 0], [1, 0]) == (1.0, 0.0, 0.0)
    assert precision_recall_f1([1, 0], [0, 1]) == (0.0, 0.0, 0.0)  # all wrong: F1 0, not a division by zero


def test_accuracy_by_hand() -> None:
    assert accuracy([1, 0, 1, 1], [1, 1, 1, 0]) == 0.5
    assert np.isnan(accuracy([], []))


def test_expected_calibration_error_by_hand() -> None:
    # bin [0.1, 0.2): two predictions at 0.1, one positive -> |0.1 - 0.5| * 2/4; bin [0.9, 1]: 0.9 and 1.0, both
    # positive -> |0.95 - 1| * 2/4
    ece = expected_calibration_error([0.1, 0.1, 0.9, 1.0], [1, 0, 1, 1])
    assert ece == pytest.approx(0.5 * 0.4 + 0.5 * 0.05)
    assert expected_calibration_error([0.0, 1.0], [0, 1]) == 0.0
    assert expected_calibration_error([1.0, 1.0], [0, 0]) == 1.0
    assert np.isnan(expected_calibration_error([], []))


def test_calibrate_threshold_by_hand() -> None:
    t = calibrate_threshold([0.1, 0.3, 0.6, 0.9], [0, 0, 1, 1])
    assert 0.3 < t <= 0.6 and t == pytest.approx(0.45)
    t = calibrate_threshold([0.2, 0.4, 0.7], [1, 1, 1])  # all positive: just below the lowest score
    assert 0.2 - 1e-3 < t <= 0.2
    t = calibrate_threshold([0.2, 0.4, 0.7], [0, 0, 0])  # all negative: just above the highest
    assert 0.7 < t < 0.7 + 1e-3
    assert calibrate_threshold([], []) == 0.5


# ---- against scikit-learn --------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", SEEDS)
def test_auroc_matches_scikit_learn(seed: int) -> None:
    scores, labels = _random_case(seed)
    assert auroc(scores, labels) == pytest.approx(roc_auc_score(labels, scores), abs=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_precision_recall_f1_and_accuracy_match_scikit_learn(seed: int) -> None:
    scores, labels = _random_case(seed)
    decisions = scores >= np.median(scores)
    p, r, f1, _ = precision_recall_fscore_support(labels, decisions, average="binary", zero_division=1.0)
    assert precision_recall_f1(decisions, labels) == pytest.approx((p, r, f1), abs=1e-12)
    assert accuracy(decisions, labels) == pytest.approx(accuracy_score(labels, decisions), abs=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_expected_calibration_error_matches_scikit_learn_bins(seed: int) -> None:
    """calibration_curve (uniform bins) gives each non-empty bin's share of positives and mean prediction; their
    count-weighted gap is the ECE. Continuous probabilities (and the edges 0 and 1): a value exactly on an inner bin
    edge may fall either side by rounding (0.3 * 10 > 3), in both codes."""
    _, labels = _random_case(seed)
    rng = np.random.default_rng(seed)
    probabilities = np.clip(rng.random(len(labels)) * 0.7 + 0.3 * labels * rng.random(len(labels)), 0, 1)
    probabilities[rng.random(len(labels)) < 0.05] = 1.0
    probabilities[rng.random(len(labels)) < 0.05] = 0.0
    bins = int(rng.integers(2, 15))
    share, mean = calibration_curve(labels, probabilities, n_bins=bins, strategy="uniform")
    edges = np.linspace(0.0, 1.0, bins + 1)
    counts = np.bincount(np.searchsorted(edges[1:-1], probabilities, side="right"), minlength=bins)
    weights = counts[counts > 0] / len(probabilities)
    expected = float(np.sum(weights * np.abs(mean - share)))
    assert expected_calibration_error(probabilities, labels, bins) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_calibrate_threshold_reaches_the_best_accuracy(seed: int) -> None:
    """Brute force over every score as the cut: no threshold is more accurate than the chosen one."""
    scores, labels = _random_case(seed)
    best = max(accuracy_score(labels, scores >= t) for t in [*np.unique(scores), np.inf])
    assert accuracy_score(labels, scores >= calibrate_threshold(scores, labels)) == pytest.approx(best)


def test_balanced_accuracy_and_reliability_by_hand() -> None:
    assert balanced_accuracy([1, 1, 1, 0], [1, 1, 0, 0]) == 0.75  # recall 1 on positives, 1/2 on negatives
    assert balanced_accuracy([1, 0], [1, 1]) == 0.5  # one class present: its recall
    assert np.isnan(balanced_accuracy([], []))
    points = reliability([0.1, 0.15, 0.9, 1.0], [1, 0, 1, 1], bins=10)
    assert [p[2] for p in points] == [2, 2]
    assert [v for p in points for v in p[:2]] == pytest.approx([0.125, 0.5, 0.95, 1.0])


@pytest.mark.parametrize("seed", SEEDS)
def test_balanced_accuracy_and_reliability_match_scikit_learn(seed: int) -> None:
    scores, labels = _random_case(seed)
    decisions = scores >= np.median(scores)
    assert balanced_accuracy(decisions, labels) == pytest.approx(balanced_accuracy_score(labels, decisions), abs=1e-12)
    rng = np.random.default_rng(seed)
    probabilities = rng.random(len(labels))
    share, mean = calibration_curve(labels, probabilities, n_bins=10, strategy="uniform")
    points = reliability(probabilities, labels, bins=10)
    assert [p[0] for p in points] == pytest.approx(mean) and [p[1] for p in points] == pytest.approx(share)
    assert sum(p[2] for p in points) == len(labels)
