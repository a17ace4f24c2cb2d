"""The trainer of the board models: `train(cfg)` (the entry point `python -m ltn_sudoku.train` is ltn_sudoku/train.py).

`train(cfg)` is a plain function (tests call it directly; a visual config goes to ltn_sudoku/logic/visual/train.py).
A run writes into
its folder: last.pt (every epoch, to resume with train.resume=PATH), best.pt (best validation score), metrics.json,
and TensorBoard events under tb/ (loss, every axiom's satisfaction, every validation metric, learning rate, p, and
the run's hparams for the HParams tab).
"""

from __future__ import annotations

import json
import logging
import math
import time
from typing import Any

import numpy as np
import torch
from omegaconf import DictConfig, OmegaConf
from tqdm import tqdm

from ltn_sudoku.io import atomic_write_text
from ltn_sudoku.logic import data, distributed
from ltn_sudoku.logic import assess
from ltn_sudoku.logic.checkpoint import load_checkpoint, save_checkpoint
from ltn_sudoku.logic.data import Splits, build_splits
from ltn_sudoku.logic.device import synchronize
from ltn_sudoku.logic.model import LtnSudoku, ModelConfig
from ltn_sudoku.logic.objective import objective
from ltn_sudoku.logic.operators import Operators, build_operators
from ltn_sudoku.logic.runtime import configure_torch, run_directory
from ltn_sudoku.logic.schema import LR_SCHEDULES, MONITORS
from ltn_sudoku.logic.visual.train import train_visual

LOG = logging.getLogger(__name__)


def validate(model: LtnSudoku, ops: Operators, splits: Splits) -> dict[str, float]:
    """Validation metrics after calibrating the thresholds on the validation boards."""
    model.eval()
    has_solution = assess.calibrate(model, ops, splits.val_closed, splits.val_open)
    solvable = splits.val_open.of_class(data.SOLVABLE)
    metrics = assess.solving(model, splits.val_open.select(splits.val_open.practice_mask()))
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


def _checkpoint_extra(model: LtnSudoku, **more: Any) -> dict[str, Any]:
    return {"is_correct_threshold": float(model.is_correct_threshold),
            "has_solution_threshold": float(model.has_solution_threshold),
            "techniques": list(model.config.techniques), **more}


def _hparams(cfg: DictConfig) -> dict[str, Any]:
    """Flat scalar hyperparameters of a run (what a sweep varies) for TensorBoard's HParams tab."""
    flat = {}
    for group in ("model", "logic", "train", "data"):
        for key, value in OmegaConf.to_container(cfg[group], resolve=True).items():  # type: ignore[union-attr]
            if isinstance(value, (int, float, str, bool)):
                flat[f"{group}.{key}"] = value
    return flat


def curriculum_floor(cfg: DictConfig, epoch: int) -> int | None:
    """The fewest givens a training board may have in this 0-based epoch: from train.curriculum.start_givens down
    to every board, linearly over train.curriculum.epochs epochs (dense boards first); None without a curriculum."""
    curriculum = cfg.train.get("curriculum")
    if not curriculum or int(curriculum.epochs) <= 0:
        return None
    start, epochs = int(curriculum.start_givens), int(curriculum.epochs)
    return round(start * max(0.0, 1 - epoch / epochs)) if epoch < epochs else None


def build_optimizer(model: LtnSudoku, cfg: DictConfig) -> torch.optim.Optimizer:
    """Adam; recommendsHeuristic's heads learn at train.heuristic_lr (at the solver's rate, 3e-3, the 4x4 pointing
    head stayed at its base rate in 1 of 3 seeds; at 1e-2 in none)."""
    heads = list(model.recommends.parameters())
    head_ids = {id(p) for p in heads}
    rest = [p for p in model.parameters() if id(p) not in head_ids]
    lr = float(cfg.train.lr)
    return torch.optim.Adam([{"params": rest, "lr": lr},
                             {"params": heads, "lr": float(cfg.train.get("heuristic_lr", lr))}])


def lr_scheduler(optimizer: torch.optim.Optimizer, cfg: DictConfig, batches_per_epoch: int
                 ) -> torch.optim.lr_scheduler.LRScheduler:
    """Per-batch learning rate: constant, or cosine decay to zero over train.epochs (late updates stop the
    solver's board accuracy from swinging between epochs)."""
    name = str(cfg.train.get("lr_schedule", "constant"))
    if name not in LR_SCHEDULES:
        raise ValueError(f"train.lr_schedule={name!r}: expected one of {', '.join(LR_SCHEDULES)}")
    total = max(1, int(cfg.train.epochs) * batches_per_epoch)
    if name == "constant":
        return torch.optim.lr_scheduler.LambdaLR(optimizer, lambda _: 1.0)
    return torch.optim.lr_scheduler.LambdaLR(optimizer, lambda i: 0.5 * (1 + math.cos(math.pi * min(i, total) / total)))


def train(cfg: DictConfig) -> dict[str, float]:
    """Train one model as configured; returns (and writes to metrics.json) the final metrics."""
    if OmegaConf.select(cfg, "model.kind") == "visual":  # boards of handwritten digits: ltn_sudoku/logic/visual/train.py
        return train_visual(cfg)
    configure_torch(cfg)
    process = distributed.current()  # several under torchrun or a multi-task SLURM job; rank 0 alone writes
    run_dir = distributed.from_main(run_directory(cfg), process)
    model_config = ModelConfig.from_cfg(cfg.model)
    device = torch.device(str(cfg.device_resolved))
    model = LtnSudoku(model_config).to(device)
    base_ops = build_operators(cfg.logic)
    optimizer = build_optimizer(model, cfg)
    monitor = str(cfg.train.monitor)
    if monitor not in MONITORS:
        raise ValueError(f"train.monitor={monitor!r}: expected one of {', '.join(MONITORS)}")
    higher_is_better = monitor != "val/loss"
    start_epoch, best, stale, seen, elapsed, wall = 0, -math.inf, 0, 0, 0.0, 0.0
    scheduler_state = None
    lineage: list[dict[str, Any]] = []  # the configs of the warm-start parents: evaluation holds their boards out too
    if cfg.train.get("init_from") and not cfg.train.resume:  # warm start: weights only, a fresh optimizer and epoch 0
        parent = load_checkpoint(cfg.train.init_from, model_config.size)
        model.load_weights(parent["state_dict"])
        lineage = [parent["config"], *parent["extra"].get("lineage", [])]
    if cfg.train.resume:
        state = load_checkpoint(cfg.train.resume, model_config.size)
        model.load_weights(state["state_dict"])
        lineage = list(state["extra"].get("lineage", []))
        extra = state["extra"]
        optimizer.load_state_dict(extra["optimizer"])
        scheduler_state = extra.get("scheduler")
        start_epoch, best, stale = int(extra["epoch"]) + 1, float(extra["best"]), int(extra["stale"])
        seen, elapsed = int(extra["boards_seen"]), float(extra["train_seconds"])
        wall = float(extra.get("train_wall_seconds", 0.0))
        if start_epoch >= int(cfg.train.epochs) or stale > int(cfg.train.patience):
            LOG.warning("%s already finished (epoch %d of train.epochs=%d%s): nothing to train; raise train.epochs "
                        "to go on", cfg.train.resume, start_epoch, int(cfg.train.epochs),
                        ", stopped early" if stale > int(cfg.train.patience) else "")
            return dict(extra.get("metrics", {}))
    splits = build_splits(cfg, model_config)
    splits = Splits(splits.train.to(cfg.device_resolved), splits.val_open.to(cfg.device_resolved),
                    splits.val_closed.to(cfg.device_resolved))
    scheduler = lr_scheduler(optimizer, cfg, math.ceil(len(splits.train) / int(cfg.train.batch_size)))
    if scheduler_state is not None:
        scheduler.load_state_dict(scheduler_state)
    resolved = OmegaConf.to_container(cfg, resolve=True)
    loss_fn = distributed.loss_function(model, cfg, process)  # DDP on this rank's shard, amp, compile as configured
    writer = distributed.summary_writer(process, run_dir / "tb", seen if cfg.train.resume else None)  # no repeats
    shuffle = torch.Generator().manual_seed(int(cfg.seed))
    for _ in range(start_epoch):  # the same batch order as an uninterrupted run
        torch.randperm(len(splits.train), generator=shuffle)  # host: advances the seeded generator
    metrics: dict[str, float] = {}
    epoch = start_epoch - 1
    for epoch in range(start_epoch, int(cfg.train.epochs)):
        ops = base_ops
        started, wall_started, epoch_boards = time.process_time(), time.perf_counter(), seen
        floor = curriculum_floor(cfg, epoch)
        keep = None if floor is None else (splits.train.puzzles > 0).sum(-1) >= floor
        batches = list(splits.train.batches(int(cfg.train.batch_size), shuffle, keep))
        bar = tqdm(batches, desc=f"epoch {epoch + 1}/{cfg.train.epochs}", unit="batch", dynamic_ncols=True,
                   disable=not cfg.train.progress or not process.is_main)
        for batch in bar:
            result = loss_fn(ops, batch, bool(cfg.train.supervised))
            optimizer.zero_grad()
            result.loss.backward()
            finite = [torch.isfinite(p.grad).all() for p in model.parameters() if p.grad is not None]
            if not finite or torch.stack(finite).all():  # one device sync, not one per parameter
                optimizer.step()
            else:
                writer.add_scalar("train/nonfinite_batches", 1, seen)
            writer.add_scalar("train/lr", optimizer.param_groups[0]["lr"], seen)
            scheduler.step()
            seen += len(batch)
            bar.set_postfix(loss=f"{result.loss.item():.4f}")
            writer.add_scalar("train/loss", result.loss.item(), seen)
            for name, value in result.satisfaction.items():
                writer.add_scalar(f"sat/{name}", value, seen)
        synchronize(device)  # CUDA runs ahead of the host: the clock stops when the epoch's work is done
        elapsed += time.process_time() - started
        epoch_wall = time.perf_counter() - wall_started
        wall += epoch_wall
        metrics = validate(model, ops, splits)
        metrics.update({"train/epoch": epoch + 1, "train/boards_seen": seen, "train/cpu_seconds": elapsed,
                        "train/boards_per_cpu_second": seen / max(elapsed, 1e-9),  # rank 0's CPU
                        "train/wall_seconds": wall,  # training steps only, validation left out
                        "train/boards_per_second": (seen - epoch_boards) / max(epoch_wall, 1e-9),  # this epoch's
                        "train/processes": process.world_size})
        for name, value in metrics.items():
            writer.add_scalar(name, value, seen)
        writer.add_scalar("logic/p_forall", ops.p_forall, seen)
        writer.add_scalar("logic/p_exists", ops.p_exists, seen)
        value = metrics[monitor] if higher_is_better else -metrics[monitor]
        improved = value > best
        best, stale = (value, 0) if improved else (best, stale + 1)
        extra = _checkpoint_extra(model, epoch=epoch, best=best, stale=stale, boards_seen=seen,
                                  train_seconds=elapsed, train_wall_seconds=wall, optimizer=optimizer.state_dict(),
                                  scheduler=scheduler.state_dict(), metrics=metrics, lineage=lineage)
        if process.is_main:
            save_checkpoint(run_dir / "last.pt", model_config.size, resolved, model.state_dict(), extra)
        if improved and process.is_main:
            save_checkpoint(run_dir / "best.pt", model_config.size, resolved, model.state_dict(),
                            _checkpoint_extra(model, epoch=epoch, metrics=metrics, lineage=lineage))
        LOG.info("epoch %d/%d: loss %.4f, solved %.4f, hasSolution %.4f, isCorrect %.4f, heuristics F1 %s, "
                 "%.0f boards/CPU s%s", epoch + 1, int(cfg.train.epochs), metrics["val/loss"],
                 metrics["val/solve/board_accuracy"], metrics["val/has_solution/accuracy"],
                 metrics["val/is_correct/accuracy"], f"{metrics.get('val/heuristics/macro_f1', float('nan')):.4f}",
                 metrics["train/boards_per_cpu_second"], " (best)" if improved else "")
        if distributed.from_main(stale > int(cfg.train.patience), process):
            break
    metrics["train/best_" + monitor.replace("/", "_")] = best if higher_is_better else -best
    metrics["train/stopped_epoch"] = float(epoch + 1)
    writer.add_hparams(_hparams(cfg), {k: v for k, v in metrics.items() if math.isfinite(v)}, run_name="hparams")
    writer.close()
    if process.is_main:
        recorded = {**metrics, **data.train_origins(cfg.data)}  # strings: not in TensorBoard's hparams
        atomic_write_text(run_dir / "metrics.json", json.dumps(recorded, indent=2, sort_keys=True) + "\n")
    return metrics
