"""Metrics of a model against the symbolic oracle, per question (docs/design.md §7.2), shared by validation and
evaluation.

Ground truth always comes from the symbolic side: the generators' labels (checked by the exact solver), the exact
solver's counts after each move, the technique finders' labels, and the rules themselves for solved boards.
"""

from __future__ import annotations

import time
from typing import Sequence

import numpy as np
import torch

from ltn_sudoku.exact import count_solutions_batch
from ltn_sudoku.logic.board.data import CLOSED_VALID, SOLVABLE, BoardSet
from ltn_sudoku.logic.board.inference import (
    dead_end_probabilities,
    decoded,
    is_correct_truth,
    is_valid_assignment,
    reach,
)
from ltn_sudoku.logic.board.metrics import (
    accuracy,
    auroc,
    calibrate_threshold,
    expected_calibration_error,
    precision_recall_f1,
)
from ltn_sudoku.logic.board.model import LtnSudoku
from ltn_sudoku.logic.device import device_of, synchronize, to_list, to_numpy
from ltn_sudoku.logic.groundings.grounding import one_hot_givens
from ltn_sudoku.logic.kb.operators import Operators

Metrics = dict[str, float]
CHUNK = 256


def _chunks(boards: BoardSet, model: LtnSudoku) -> list[BoardSet]:
    """The boards in chunks on the model's device (validation sets are there already: then nothing is copied)."""
    return list(boards.to(device_of(model)).batches(CHUNK))


def is_correct_scores(model: LtnSudoku, ops: Operators, closed: BoardSet) -> tuple[np.ndarray, np.ndarray]:
    """(truths, labels) of isCorrect on closed boards."""
    with torch.no_grad():
        truths = [is_correct_truth(model, ops, c.puzzles) for c in _chunks(closed, model)]
    return (to_numpy(torch.cat(truths)) if truths else np.zeros(0)), to_numpy(closed.labels == CLOSED_VALID)


def has_solution_scores(model: LtnSudoku, ops: Operators, open_boards: BoardSet,
                        steps: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(truths, labels) of hasSolution on open boards."""
    with torch.no_grad():
        truths = [reach(model, ops, c.puzzles, steps).has_solution for c in _chunks(open_boards, model)]
    return (to_numpy(torch.cat(truths)) if truths else np.zeros(0)), to_numpy(open_boards.labels == SOLVABLE)


def binary_metrics(prefix: str, truths: np.ndarray, labels: np.ndarray, threshold: float) -> Metrics:
    """accuracy, AUROC and calibration error of a predicate's truths against labels."""
    return {f"{prefix}/accuracy": accuracy(truths >= threshold, labels), f"{prefix}/auroc": auroc(truths, labels),
            f"{prefix}/ece": expected_calibration_error(truths, labels), f"{prefix}/count": float(len(labels))}


def calibrate(model: LtnSudoku, ops: Operators, closed: BoardSet,
              open_boards: BoardSet) -> tuple[np.ndarray, np.ndarray] | None:
    """On these (validation) boards: fit hasSolution's Platt scaling, then set the isCorrect and hasSolution
    thresholds to the most accurate ones. Returns hasSolution's calibrated (truths, labels) on the open boards (one
    refinement pass serves the fit, the threshold and the caller's metrics)."""
    if len(closed):
        model.is_correct_threshold.fill_(calibrate_threshold(*is_correct_scores(model, ops, closed)))
    if not len(open_boards):
        return None
    model.has_solution.calibration.copy_(torch.tensor([1.0, 0.0], device=device_of(model)))
    truths, labels = has_solution_scores(model, ops, open_boards)
    raw = torch.logit(torch.as_tensor(truths, dtype=torch.float32), eps=1e-6)  # host: the fit is a tiny CPU problem
    model.has_solution.fit_calibration(raw, torch.as_tensor(labels))  # host
    scale, offset = to_list(model.has_solution.calibration)
    calibrated = to_numpy(torch.sigmoid(scale * raw + offset))
    model.has_solution_threshold.fill_(calibrate_threshold(calibrated, labels))
    return calibrated, labels


def solving(model: LtnSudoku, puzzles: BoardSet, steps: int | None = None, prefix: str = "solve") -> Metrics:
    """hasValue's argmax after refinement on solvable puzzles: cell accuracy (empty cells, against the solution) and
    board accuracy (the decoded board keeps the givens and breaks no rule, i.e. it is a solution)."""
    valid, cells_right, cells = [], 0, 0
    with torch.no_grad():
        for chunk in _chunks(puzzles, model):
            givens = one_hot_givens(chunk.puzzles, model.n)
            final = model.refine(givens, steps)[-1]
            valid.append(is_valid_assignment(model, givens, final))
            empty = (chunk.puzzles == 0) & (chunk.solutions > 0)
            cells_right += int(((decoded(final) == chunk.solutions) & empty).sum())
            cells += int(empty.sum())
    ok = to_numpy(torch.cat(valid)) if valid else np.zeros(0, bool)
    return {f"{prefix}/board_accuracy": float(ok.mean()) if len(ok) else float("nan"),
            f"{prefix}/cell_accuracy": cells_right / cells if cells else float("nan"),
            f"{prefix}/count": float(len(ok))}


def solving_by_givens(model: LtnSudoku, puzzles: BoardSet, bins: Sequence[tuple[int, int]],
                      steps: int | None = None) -> Metrics:
    """solving() per givens range [low, high]."""
    givens = (puzzles.puzzles > 0).sum(-1)
    out: Metrics = {}
    for low, high in bins:
        subset = puzzles.select((givens >= low) & (givens <= high))
        if len(subset):
            out.update(solving(model, subset, steps, prefix=f"solve_givens_{low}_{high}"))
    return out


def heuristics(model: LtnSudoku, states: BoardSet, prefix: str = "heuristics") -> Metrics:
    """recommendsHeuristic's precision, recall and F1 per technique (decision: truth >= 0.5) and their macro-F1."""
    names = model.config.techniques
    if not names or not len(states):
        return {}
    with torch.no_grad():
        truths = to_numpy(torch.cat([model.recommends(one_hot_givens(c.puzzles, model.n))
                                     for c in _chunks(states, model)]))
    labels = to_numpy(states.techniques) > 0.5
    out: Metrics = {}
    f1s: list[float] = []
    baseline: list[float] = []  # F1 of always answering yes: what the base rate alone gives
    for j, name in enumerate(names):
        p, r, f1 = precision_recall_f1(truths[:, j] >= 0.5, labels[:, j])
        key = name.replace(" ", "_")
        always_yes = precision_recall_f1(np.ones(len(labels), bool), labels[:, j])[2]
        out.update({f"{prefix}/{key}/precision": p, f"{prefix}/{key}/recall": r, f"{prefix}/{key}/f1": f1,
                    f"{prefix}/{key}/positive_rate": float(labels[:, j].mean()),
                    f"{prefix}/{key}/always_yes_f1": always_yes})
        f1s.append(f1)
        baseline.append(always_yes)
    out[f"{prefix}/macro_f1"] = float(np.mean(f1s))
    out[f"{prefix}/always_yes_macro_f1"] = float(np.mean(baseline))
    out[f"{prefix}/ece"] = expected_calibration_error(truths.reshape(-1), labels.reshape(-1))
    return out


def dead_ends(model: LtnSudoku, ops: Operators, puzzles: BoardSet, steps: int | None = None) -> Metrics:
    """Dead-end move detection on every candidate move of the puzzles; truth from the exact solver's count."""
    values = puzzles.puzzles.to(device_of(model))
    board, cell, digit, probability = dead_end_probabilities(model, ops, values, steps)
    after = values[board].clone()
    after[torch.arange(len(board), device=after.device), cell] = digit
    truth = count_solutions_batch(to_numpy(after), limit=1) == 0
    threshold = 1 - float(model.has_solution_threshold)
    prob = to_numpy(probability)
    p, r, f1 = precision_recall_f1(prob > threshold, truth)
    return {"dead_end/accuracy": accuracy(prob > threshold, truth), "dead_end/auroc": auroc(prob, truth),
            "dead_end/precision": p, "dead_end/recall": r, "dead_end/f1": f1,
            "dead_end/ece": expected_calibration_error(prob, truth), "dead_end/moves": float(len(truth)),
            "dead_end/share": float(truth.mean()) if len(truth) else float("nan")}


def inference_speed(model: LtnSudoku, ops: Operators, puzzles: BoardSet, steps: int | None = None) -> Metrics:
    """Boards per second of CPU (and wall) time for hasValue + hasSolution on these boards."""
    chunks = _chunks(puzzles, model)
    cpu, wall = time.process_time(), time.perf_counter()
    with torch.no_grad():
        for chunk in chunks:
            reach(model, ops, chunk.puzzles, steps)
    synchronize(device_of(model))
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return {"cost/inference_boards_per_cpu_second": len(puzzles) / max(cpu, 1e-9),
            "cost/inference_boards_per_wall_second": len(puzzles) / max(wall, 1e-9)}
