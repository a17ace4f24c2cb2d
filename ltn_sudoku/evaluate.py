"""Evaluation entry point: ``python -m ltn_sudoku.evaluate model=9x9 [checkpoint=PATH]`` (Hydra).

Every metric of DESIGN.md §6 on held-out boards (generated with evaluate.seed, and any board that also occurs in the
checkpoint's training data removed), with the symbolic engine as the oracle; written to metrics.json and TensorBoard
in the run folder. `evaluate(cfg)` is the plain function tests call.
"""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path
from typing import Any

import hydra
import numpy as np
import torch
from omegaconf import DictConfig, OmegaConf
from torch.utils.tensorboard import SummaryWriter

from ltn_sudoku import data
from ltn_sudoku.board import Board
from ltn_sudoku.exact import solve_batch
from ltn_sudoku.io import atomic_write_text, read_boards
from ltn_sudoku.logic import assess
from ltn_sudoku.logic.checkpoint import load_checkpoint
from ltn_sudoku.logic.labels import resolve_techniques
from ltn_sudoku.logic.metrics import accuracy
from ltn_sudoku.logic.model import LtnSudoku, ModelConfig
from ltn_sudoku.logic.operators import Operators, build_operators
from ltn_sudoku.logic.runtime import configure_torch, run_directory
from ltn_sudoku.paths import CHECKPOINTS_DIR, shared_file

DEFAULT_GIVENS_BINS: dict[int, list[tuple[int, int]]] = {4: [(4, 6), (7, 8), (9, 10)],
                                                          9: [(17, 23), (24, 29), (30, 35), (36, 40)]}
SEVENTEEN_CLUE_FILE = "9x9/17clue_49158.txt"


def default_checkpoint(size: int) -> Path:
    """The shipped checkpoint of a board size."""
    return CHECKPOINTS_DIR / f"{size}x{size}.pt"


def load_model(path: str | Path, size: int | None = None) -> tuple[LtnSudoku, Operators, dict[str, Any]]:
    """A checkpoint's model (thresholds included), its logic operators and its whole payload."""
    payload = load_checkpoint(path, size)
    config = payload["config"]
    model = LtnSudoku(ModelConfig.from_cfg(config["model"]))
    model.load_state_dict(payload["state_dict"])
    model.eval()
    return model, build_operators(config["logic"]), payload


def _without(boards: data.BoardSet, seen: set[tuple[int, ...]]) -> data.BoardSet:
    keep = [i for i, row in enumerate(boards.puzzles.tolist()) if tuple(row) not in seen]
    return boards.select(keep)


def _per_kind(prefix: str, truths: np.ndarray, labels: np.ndarray, kinds: tuple[str, ...],
              threshold: float) -> dict[str, float]:
    out = {}
    for kind in sorted(set(kinds)):
        mask = np.array([k == kind for k in kinds])
        out[f"{prefix}/{kind}/accuracy"] = accuracy(truths[mask] >= threshold, labels[mask])
        out[f"{prefix}/{kind}/count"] = float(mask.sum())
    return out


def training_boards(config: dict[str, Any]) -> set[tuple[int, ...]]:
    """Every board of the checkpoint's training and validation data (regenerated from its config)."""
    from ltn_sudoku.train import build_splits

    cfg = OmegaConf.create(config)
    splits = build_splits(cfg, ModelConfig.from_cfg(config["model"]))
    return {tuple(row) for s in (splits.train, splits.val_open, splits.val_closed) for row in s.puzzles.tolist()}


def evaluate(cfg: DictConfig) -> dict[str, float]:
    """All metrics of one checkpoint on held-out boards; also written to metrics.json and TensorBoard."""
    configure_torch(cfg)
    run_dir = run_directory(cfg)
    size = int(cfg.model.size)
    path = Path(str(cfg.checkpoint)) if cfg.checkpoint else default_checkpoint(size)
    model, ops, payload = load_model(path, size)
    if cfg.evaluate.get("eval_steps"):
        model.config = replace(model.config, eval_steps=int(cfg.evaluate.eval_steps))
    n, e, seed = model.n, cfg.evaluate, int(cfg.evaluate.seed)
    seen = training_boards(payload["config"])
    half = lambda count: int(count) // 2  # noqa: E731
    closed = _without(data.BoardSet.concat([data.generated(n, "closed_valid", half(e.closed), seed),
                                            data.generated(n, "closed_invalid", half(e.closed), seed)]), seen)
    open_boards = _without(data.BoardSet.concat([data.generated(n, "open_solvable", half(e.open), seed),
                                                 data.generated(n, "open_impossible", half(e.open), seed)]), seen)
    solving = _without(data.generated(n, "open_solvable", int(e.solving), seed + 1,
                                      givens=(min(DEFAULT_GIVENS_BINS[n])[0], max(DEFAULT_GIVENS_BINS[n])[1])
                                      if n in DEFAULT_GIVENS_BINS else None), seen)
    metrics: dict[str, float] = {"heldout/removed_seen_boards": float(
        int(e.closed) + int(e.open) + int(e.solving) - len(closed) - len(open_boards) - len(solving))}

    truths, labels = assess.is_correct_scores(model, ops, closed)
    threshold = float(model.is_correct_threshold)
    metrics.update(assess.binary_metrics("q1_is_correct", truths, labels, threshold))
    metrics.update(_per_kind("q1_is_correct", truths, labels, closed.kinds, threshold))

    truths, labels = assess.has_solution_scores(model, ops, open_boards)
    threshold = float(model.has_solution_threshold)
    metrics.update(assess.binary_metrics("q2_has_solution", truths, labels, threshold))
    metrics.update(_per_kind("q2_has_solution", truths, labels, open_boards.kinds, threshold))

    bins = [tuple(b) for b in e.givens_bins] if e.givens_bins else DEFAULT_GIVENS_BINS.get(n, [])
    metrics.update(assess.solving(model, solving))
    metrics.update(assess.solving_by_givens(model, solving, bins))
    if n == 9 and e.kaggle_path:
        kaggle = _without(data.kaggle(e.kaggle_path, n, int(e.kaggle_limit)), seen)
        metrics.update(assess.solving(model, kaggle, prefix="solve_kaggle"))
    if n == 9 and int(e.seventeen) > 0:
        boards = read_boards(shared_file(SEVENTEEN_CLUE_FILE))[: int(e.seventeen)]
        counts, firsts = solve_batch(np.array([b.values for b in boards], dtype=np.int8))  # their solutions
        solutions = [Board(row.tolist(), n) if count == 1 else None for row, count in zip(firsts, counts)]
        seventeen = data.from_boards(n, boards, solutions, ["open_solvable"] * len(boards), ["17-clue"] * len(boards))
        metrics.update(assess.solving(model, seventeen, prefix="solve_17_clue"))

    techniques = resolve_techniques(model.config.techniques, n)
    states = data.label_techniques(data.solving_states(solving, seed), techniques)
    metrics.update(assess.heuristics(model, states))
    metrics.update(assess.dead_ends(model, ops, solving.select(range(min(len(solving), int(e.dead_end_puzzles))))))
    metrics.update(assess.inference_speed(model, ops, solving))
    trained = payload["extra"].get("metrics", {})
    for key in ("train/cpu_seconds", "train/boards_seen", "train/boards_per_cpu_second", "train/epoch"):
        if key in trained:
            metrics[key.replace("train/", "cost/train_")] = float(trained[key])
    metrics["checkpoint/is_correct_threshold"] = float(model.is_correct_threshold)
    metrics["checkpoint/has_solution_threshold"] = float(model.has_solution_threshold)
    metrics["checkpoint/eval_steps"] = float(model.config.eval_steps)

    writer = SummaryWriter(str(run_dir / "tb"))
    for name, value in metrics.items():
        if math.isfinite(value):
            writer.add_scalar(f"eval/{name}", value, 0)
    writer.close()
    report = {"checkpoint": str(path), "metrics": metrics}
    atomic_write_text(run_dir / "metrics.json", json.dumps(report, indent=2, sort_keys=True) + "\n")
    return metrics


@hydra.main(version_base="1.3", config_path="../conf", config_name="config")
def main(cfg: DictConfig) -> None:
    with torch.no_grad():
        evaluate(cfg)


if __name__ == "__main__":
    main()
