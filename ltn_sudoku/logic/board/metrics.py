"""Plain metric functions on truth values and labels (numpy in, floats out): the same code for validation and
evaluation, no scikit-learn needed."""

from __future__ import annotations

import numpy as np


def accuracy(decisions: np.ndarray, labels: np.ndarray) -> float:
    """Share of decisions equal to the labels (nan for no data)."""
    decisions, labels = np.asarray(decisions, bool), np.asarray(labels, bool)
    return float((decisions == labels).mean()) if len(labels) else float("nan")


def auroc(scores: np.ndarray, labels: np.ndarray) -> float:
    """Area under the ROC curve, ties counted half (Mann-Whitney U); nan when one class is missing."""
    scores, labels = np.asarray(scores, float), np.asarray(labels, bool)
    positives, negatives = int(labels.sum()), int((~labels).sum())
    if positives == 0 or negatives == 0:
        return float("nan")
    order = np.argsort(scores, kind="mergesort")
    ranks = np.empty(len(scores))
    sorted_scores = scores[order]
    # average ranks over ties
    _, first, counts = np.unique(sorted_scores, return_index=True, return_counts=True)
    for start, count in zip(first, counts):
        ranks[order[start:start + count]] = start + (count + 1) / 2
    return float((ranks[labels].sum() - positives * (positives + 1) / 2) / (positives * negatives))


def expected_calibration_error(probabilities: np.ndarray, labels: np.ndarray, bins: int = 10) -> float:
    """ECE: the bin-weighted gap between mean predicted truth and the share of positives, over equal-width bins."""
    probabilities, labels = np.asarray(probabilities, float), np.asarray(labels, float)
    if not len(labels):
        return float("nan")
    which = np.minimum((probabilities * bins).astype(int), bins - 1)
    total = 0.0
    for b in range(bins):
        mask = which == b
        if mask.any():
            total += mask.mean() * abs(probabilities[mask].mean() - labels[mask].mean())
    return float(total)


def precision_recall_f1(decisions: np.ndarray, labels: np.ndarray) -> tuple[float, float, float]:
    """Of the positive class; a metric with an empty denominator is 1.0 when there is nothing to find or flag."""
    decisions, labels = np.asarray(decisions, bool), np.asarray(labels, bool)
    tp = int((decisions & labels).sum())
    fp = int((decisions & ~labels).sum())
    fn = int((~decisions & labels).sum())
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def calibrate_threshold(scores: np.ndarray, labels: np.ndarray) -> float:
    """The threshold t (decide positive when score >= t) with the best accuracy, placed midway in its gap."""
    scores, labels = np.asarray(scores, float), np.asarray(labels, bool)
    if not len(scores):
        return 0.5
    values = np.unique(scores)
    cuts = np.concatenate([[values[0] - 1e-6], (values[:-1] + values[1:]) / 2, [values[-1] + 1e-6]])
    accuracies = [((scores >= t) == labels).mean() for t in cuts]
    return float(cuts[int(np.argmax(accuracies))])


def balanced_accuracy(decisions: np.ndarray, labels: np.ndarray) -> float:
    """Mean of the recall of each class present (the accuracy a majority-class guess cannot inflate)."""
    decisions, labels = np.asarray(decisions, bool), np.asarray(labels, bool)
    recalls = [float((decisions[labels == cls] == cls).mean()) for cls in (False, True) if (labels == cls).any()]
    return float(np.mean(recalls)) if recalls else float("nan")


def reliability(probabilities: np.ndarray, labels: np.ndarray, bins: int = 10) -> list[tuple[float, float, int]]:
    """Per equal-width bin of predicted truth with boards in it: (mean predicted, share of positives, count), the
    points of a reliability diagram (ECE is their count-weighted mean gap)."""
    probabilities, labels = np.asarray(probabilities, float), np.asarray(labels, float)
    which = np.minimum((probabilities * bins).astype(int), bins - 1)
    return [(float(probabilities[which == b].mean()), float(labels[which == b].mean()), int((which == b).sum()))
            for b in range(bins) if (which == b).any()]
