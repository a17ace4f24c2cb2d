"""The board models' part of training (a `TrainingTask`, ltn_sudoku/logic/training/task.py): generated / Kaggle boards of
givens, the board objective (ltn_sudoku/logic/board/objective.py), validation after calibrating the thresholds, and the
thresholds and technique names in every checkpoint (what a loaded model needs to answer)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import torch
from omegaconf import DictConfig

from ltn_sudoku.logic.board import assess, data
from ltn_sudoku.logic.board.data import Splits, build_splits
from ltn_sudoku.logic.board.inference import reach
from ltn_sudoku.logic.board.model import LtnSudoku, ModelConfig
from ltn_sudoku.logic.board.objective import objective
from ltn_sudoku.logic.config.vocabulary import BOARD_MONITORS
from ltn_sudoku.logic.device import to_numpy
from ltn_sudoku.logic.errors import ConfigError
from ltn_sudoku.logic.kb.aggregate import Gather
from ltn_sudoku.logic.kb.operators import Operators, build_operators
from ltn_sudoku.logic.training.task import PICTURE_BOARDS, EpochBatches, Outcome, Step, Writer
from ltn_sudoku.questions.tiers import singles_loop_completes
from ltn_sudoku.render.raster import hasvalue_images

# the validation figures a board run may monitor (train.monitor; the schema accepts these)


def singles_loop_share(puzzles: data.BoardSet, n: int) -> float:
    """The share of the puzzles the singles loop (naked and hidden singles to their fixpoint, ~20 lines) completes:
    the baseline printed beside the model's solved share, so that no learned figure stands alone."""
    completed = singles_loop_completes(to_numpy(puzzles.puzzles), n)
    return float(completed.mean()) if len(completed) else float("nan")


def validate(model: LtnSudoku, ops: Operators, splits: Splits) -> dict[str, float]:
    """Validation metrics after calibrating the thresholds on the validation boards."""
    model.eval()
    has_solution = assess.calibrate(model, ops, splits.val_closed, splits.val_open)
    solvable = splits.val_open.of_class(data.SOLVABLE)
    # solved: the puzzles as given (the package's one meaning, as `evaluate` counts it); the solving states the
    # solver practises on (as given and partly filled) are a different figure, "states completed"
    metrics = assess.solving(model, splits.val_puzzles)
    metrics["solve/singles_loop"] = singles_loop_share(splits.val_puzzles, model.n)  # the baseline, same puzzles
    metrics.update(assess.solving(model, splits.val_open.select(splits.val_open.practice_mask()), prefix="states"))
    metrics.update(assess.binary_metrics("is_correct", *assess.is_correct_scores(model, ops, splits.val_closed),
                                         float(model.is_correct_threshold)))
    metrics.update(assess.binary_metrics("has_solution", *(has_solution or assess.has_solution_scores(
        model, ops, splits.val_open)), float(model.has_solution_threshold)))
    metrics.update(assess.heuristics(model, solvable))
    with torch.no_grad():
        losses = [objective(model, ops, batch).loss.item() for batch in splits.val_open.batches(256)]
    metrics["loss"] = float(np.mean(losses))
    parts = [metrics["solve/board_accuracy"], metrics["has_solution/accuracy"]]
    if "heuristics/macro_f1" in metrics:
        parts.append(metrics["heuristics/macro_f1"])
    metrics["score"] = float(np.mean(parts))
    model.train()
    return {f"val/{k}": v for k, v in metrics.items()}


def curriculum_floor(cfg: DictConfig, epoch: int) -> int | None:
    """The fewest givens a training board may have in this 0-based epoch: from train.curriculum.start_givens down
    to every board, linearly over train.curriculum.epochs epochs (dense boards first); None without a curriculum."""
    curriculum = cfg.train.get("curriculum")
    if not curriculum or int(curriculum.epochs) <= 0:
        return None
    start, epochs = int(curriculum.start_givens), int(curriculum.epochs)
    return round(start * max(0.0, 1 - epoch / epochs)) if epoch < epochs else None


def _check_curriculum(cfg: DictConfig, train: data.BoardSet) -> None:
    """ConfigError before any step when the curriculum's first epoch keeps no training board (its floor above the
    densest board made; the up-front rule, logic/board/rules.py, knows only the board size)."""
    floor = curriculum_floor(cfg, 0)
    densest = int((train.puzzles > 0).sum(-1).max()) if len(train) else 0
    if floor is not None and densest < floor:
        raise ConfigError(f"train.curriculum.start_givens={floor}: the densest training board has {densest} givens, "
                          f"so the curriculum's first epoch would keep no board; set it to at most {densest}")


def build_optimizer(model: LtnSudoku, cfg: DictConfig) -> torch.optim.Optimizer:
    """Adam; recommendsHeuristic's heads learn at train.heuristic_lr (at the solver's rate, 3e-3, the 4x4 pointing
    head stayed at its base rate in 1 of 3 seeds; at 1e-2 in none)."""
    heads = list(model.recommends.parameters())
    head_ids = {id(p) for p in heads}
    rest = [p for p in model.parameters() if id(p) not in head_ids]
    lr = float(cfg.train.lr)
    return torch.optim.Adam([{"params": rest, "lr": lr},
                             {"params": heads, "lr": float(cfg.train.get("heuristic_lr", lr))}])


def board_step(ops: Operators, supervised: bool) -> Step:
    """The board objective of one batch with these operators (supervised: the reference runs' solution axiom)."""
    def step(model: torch.nn.Module, batch: data.BoardSet, gather: Gather) -> Any:
        return objective(model, ops, batch, supervised, gather=gather)  # type: ignore[arg-type]

    return step


class BoardTask:
    """Training of a board model (LtnSudoku with an evidence or message-passing hasValue)."""

    ties_improve = False

    def __init__(self, cfg: DictConfig, splits: Splits | None = None) -> None:
        self.cfg = cfg
        self.config = ModelConfig.from_cfg(cfg.model)
        device = str(cfg.device_resolved)
        self.model = LtnSudoku(self.config).to(torch.device(device))
        self.ops = build_operators(cfg.logic)
        self.monitor = str(cfg.train.monitor)
        if self.monitor not in BOARD_MONITORS:
            raise ValueError(f"train.monitor={self.monitor!r}: expected one of {', '.join(BOARD_MONITORS)}")
        built = splits if splits is not None else build_splits(cfg, self.config)
        self.splits = built.to(device)
        self.train_size = len(self.splits.train)
        self.shuffle = torch.Generator().manual_seed(int(cfg.seed))
        _check_curriculum(cfg, self.splits.train)

    def optimizer(self) -> torch.optim.Optimizer:
        return build_optimizer(self.model, self.cfg)

    def step(self) -> Step:
        return board_step(self.ops, bool(self.cfg.train.supervised))

    def epoch(self, epoch: int, writer: Writer, seen: int) -> EpochBatches:
        floor = curriculum_floor(self.cfg, epoch)
        keep = None if floor is None else (self.splits.train.puzzles > 0).sum(-1) >= floor
        batches = list(self.splits.train.batches(int(self.cfg.train.batch_size), self.shuffle, keep))
        return EpochBatches(batches, len(batches))

    def validate(self, epoch: int) -> dict[str, float]:
        return validate(self.model, self.ops, self.splits)

    def pictures(self) -> dict[str, np.ndarray]:
        """hasValue after refinement on the first PICTURE_BOARDS solvable validation boards (the same every epoch):
        per cell the likeliest digit shaded by its truth, every digit's truth as a bar, cells unlike the solution
        marked."""
        boards = self.splits.val_open.of_class(data.SOLVABLE)
        k = min(PICTURE_BOARDS, len(boards))
        if k == 0:
            return {}
        puzzles, n = boards.puzzles[:k], self.model.grounding.n
        was_training = self.model.training
        self.model.eval()
        with torch.no_grad():
            truths = reach(self.model, self.ops, puzzles).final.reshape(k, n * n, n)
        self.model.train(was_training)
        return {"val/hasValue": hasvalue_images(to_numpy(puzzles), to_numpy(truths), to_numpy(boards.solutions[:k]))}

    def checkpoint_extra(self) -> dict[str, Any]:
        return {"is_correct_threshold": float(self.model.is_correct_threshold),
                "has_solution_threshold": float(self.model.has_solution_threshold),
                "techniques": list(self.config.techniques)}

    def training_state(self) -> dict[str, Any]:
        return {}  # the batch order's generator is replayed from the seed (restore)

    def restore(self, extra: Mapping[str, Any], start_epoch: int) -> None:
        for _ in range(start_epoch):  # the same batch order as an uninterrupted run
            torch.randperm(len(self.splits.train), generator=self.shuffle)  # host: advances the seeded generator

    def load_weights(self, state_dict: Mapping[str, torch.Tensor]) -> None:
        self.model.load_weights(state_dict)

    def describe(self, metrics: Mapping[str, float]) -> str:
        return (f"loss {metrics['val/loss']:.4f}, solved {metrics['val/solve/board_accuracy']:.4f} (singles loop "
                f"{metrics.get('val/solve/singles_loop', float('nan')):.4f}; states completed "
                f"{metrics['val/states/board_accuracy']:.4f}), hasSolution "
                f"{metrics['val/has_solution/accuracy']:.4f}, isCorrect {metrics['val/is_correct/accuracy']:.4f}, "
                f"heuristics F1 {metrics.get('val/heuristics/macro_f1', float('nan')):.4f}")

    def finish(self, outcome: Outcome, run_dir: Path, config: dict[str, Any], is_main: bool) -> dict[str, float]:
        """The last epoch's figures, the best monitored value and the epoch training stopped after."""
        return {**outcome.last, "train/best_" + self.monitor.replace("/", "_"): outcome.best_value,
                "train/stopped_epoch": float(outcome.stopped_epoch)}

    def provenance(self) -> dict[str, Any]:
        return data.train_origins(self.cfg.data)
