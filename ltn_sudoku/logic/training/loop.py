"""The one training loop of every model kind (the entry point `python -m ltn_sudoku.train` is ltn_sudoku/train.py).

`train(cfg, kind)` is a plain function; `ltn_sudoku.logic.kinds.train(cfg)` picks the kind by the config's
`model.kind` (tests call that). The kind's `TrainingTask` (ltn_sudoku/logic/training/task.py) supplies the model,
data, batches, objective, validation and checkpoint extras; the loop does the rest once for all: optimizer steps (a
batch with a non-finite gradient is skipped), the learning-rate schedule, early stopping on the task's monitor, DDP
(ltn_sudoku/logic/training/distributed.py) and resume. A run writes into its folder: last.pt (every epoch, to resume
with train.resume=PATH), best.pt (best validation figure), metrics.json, and TensorBoard events under tb/ (loss, every
axiom's satisfaction, every validation figure, learning rate, p, and the run's hparams for the HParams tab). While it
trains it holds the folder (RUN/train.lock, ltn_sudoku/logic/training/runtime.py: run_folder): another training into
it, or into a folder holding another run, is refused; a resume must be a run of the same config, up to the keys of
runtime.RESUMABLE.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import torch
from omegaconf import DictConfig, OmegaConf

from ltn_sudoku.io import strict_json
from ltn_sudoku.io.progress import progress  # a bar on a terminal, a line per epoch (or per 30 s) in a log
from ltn_sudoku.io.writers import atomic_copy, atomic_write_text
from ltn_sudoku.logic.checkpoints import CheckpointError, load_checkpoint, model_kind, save_checkpoint
from ltn_sudoku.logic.config.vocabulary import LR_SCHEDULES  # train.lr_schedule
from ltn_sudoku.logic.device import synchronize, to_list
from ltn_sudoku.logic.training import distributed
from ltn_sudoku.logic.training.runtime import (
    ResumeState,
    check_resume,
    config_changes,
    configure_torch,
    describe_changes,
    run_directory,
    run_folder,
)
from ltn_sudoku.logic.training.task import ModelKind, Outcome

LOG = logging.getLogger(__name__)


def axiom_gradient_norms(model: torch.nn.Module, truths: Mapping[str, torch.Tensor]) -> dict[str, float]:
    """Each SatAgg axiom's gradient norm with respect to the model's parameters (its closed truths summed over its
    steps): an axiom whose norm is 0 teaches nothing (tests/test_axioms_alive.py). The graph is kept for the loss."""
    parameters = [p for p in model.parameters() if p.requires_grad]
    norms: dict[str, torch.Tensor] = {}
    for name, truth in truths.items():
        grads = torch.autograd.grad(truth, parameters, retain_graph=True, allow_unused=True) \
            if truth.requires_grad else ()
        present = [g.reshape(-1) for g in grads if g is not None]
        norms[name] = torch.linalg.vector_norm(torch.cat(present)) if present else truth.new_zeros(())
    if not norms:
        return {}
    return dict(zip(norms, to_list(torch.stack([n.float() for n in norms.values()]))))


def _hparams(cfg: DictConfig) -> dict[str, Any]:
    """Flat scalar hyperparameters of a run (what a sweep varies) for TensorBoard's HParams tab."""
    flat = {}
    for group in ("model", "logic", "train", "data"):
        for key, value in OmegaConf.to_container(cfg[group], resolve=True).items():  # type: ignore[union-attr]
            if isinstance(value, (int, float, str, bool)):
                flat[f"{group}.{key!s}"] = value
    return flat


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


def _held_epoch(path: Path, size: int) -> int | None:
    """The epoch a best.pt holds, or None where it is missing or unreadable."""
    try:
        return int(load_checkpoint(path, size)["extra"]["epoch"])
    except (CheckpointError, KeyError, TypeError, ValueError):
        return None


def _best_extra(checkpoint_extra: Mapping[str, Any], epoch: int, metrics: dict[str, float],
                lineage: list[dict[str, Any]]) -> dict[str, Any]:
    """What best.pt holds beyond the weights: the task's extras (the same epoch's last.pt's, or the live task's), the
    epoch, its figures and the warm-start lineage."""
    return {**checkpoint_extra, "epoch": epoch, "metrics": metrics, "lineage": lineage}


def _carry_best(resume: Path, run_dir: Path, state: dict[str, Any], resumed: ResumeState, size: int) -> None:
    """best.pt as the resumed last.pt names it: the best epoch so far, which a later epoch must beat. An epoch
    writes last.pt first (the record the run resumes from) and then best.pt, so a run stopped between the two has a
    last.pt that is itself the best epoch: best.pt is then written again from it. Otherwise the resumed run's
    best.pt is carried into this run's folder."""
    source, target = resume.with_name("best.pt"), run_dir / "best.pt"
    named, held = resumed.best_epoch, _held_epoch(source, size)
    if named is not None and held != named:
        if named == resumed.epoch:
            save_checkpoint(target, size, state["config"], state["state_dict"],
                            _best_extra(resumed.checkpoint_extra, named, resumed.metrics, resumed.lineage))
            LOG.warning("%s held epoch %s, not the best epoch %d that %s names (a run stopped between the two "
                        "writes): written again from %s", source, "none" if held is None else held + 1, named + 1,
                        resume, resume.name)
            return
        LOG.warning("%s holds epoch %s, but %s names epoch %d as the best: kept as it is", source,
                    "none" if held is None else held + 1, resume, named + 1)
    if source.is_file() and source.resolve() != target.resolve():
        atomic_copy(source, target)


def _model_differences(parent: Mapping[str, Any], ours: Mapping[str, Any]) -> str:
    """The model keys two configs set differently, the grounding's kind first: 'model.hasvalue is message_passing
    there, evidence here (and 5 more keys: ...)'."""
    changes = config_changes({"model": ours}, {"model": parent}, free=())
    changes.sort(key=lambda c: (c[0] not in ("model.kind", "model.hasvalue", "model.size"), c[0]))
    only = sorted({*parent} ^ {*ours})
    text = describe_changes(changes, "there", shown=1) if changes else ""
    if only:
        text += f"{'; ' if text else ''}model.{only[0]} is set only {'there' if only[0] in parent else 'here'}"
    return text or "the weights' shapes differ"


def _warm_start(cfg: DictConfig, kind: ModelKind, size: int) -> dict[str, Any] | None:
    """train.init_from's checkpoint (not when resuming: the resumed weights win), checked to fit the configured model
    before any data is made: CheckpointError naming the model keys that differ."""
    if not cfg.train.get("init_from") or cfg.train.resume:
        return None
    path = str(cfg.train.init_from)
    parent = load_checkpoint(path, size)
    ours: dict[str, Any] = OmegaConf.to_container(cfg.model, resolve=True)  # type: ignore[assignment]
    theirs = dict(parent["config"].get("model") or {})
    found = model_kind(parent["config"])
    if kind.name != found:
        raise CheckpointError(f"train.init_from={path}: a {found} model; the config trains a {kind.name} model "
                              f"(model={cfg.model.name})")
    try:
        with torch.random.fork_rng(devices=[]):  # a throwaway model: the run's own initialisation stays as it was
            kind.load({"config": {"model": ours}, "state_dict": parent["state_dict"], "extra": {}})
    except (RuntimeError, KeyError, TypeError, ValueError) as e:
        name = theirs.get("name")
        hint = f" (its model: model={name})" if name and name != cfg.model.name else ""
        raise CheckpointError(f"train.init_from={path}: its weights do not fit model={cfg.model.name}: "
                              f"{_model_differences(theirs, ours)}{hint} ({type(e).__name__}); warm-start from a "
                              "checkpoint of this model, or train its model") from None
    return parent


def _resumed(cfg: DictConfig, size: int) -> dict[str, Any] | None:
    """train.resume's last.pt, checked to hold a training state and to be a run of this config (up to the keys a
    resume may change, runtime.RESUMABLE): CheckpointError or ConfigError naming the file or the changed key."""
    if not cfg.train.resume:
        return None
    state = load_checkpoint(cfg.train.resume, size)
    if not ResumeState.held_by(state["extra"]):
        raise CheckpointError(f"{cfg.train.resume}: no training state to resume from (a best.pt? resume from "
                              "last.pt)")
    check_resume(cfg, state["config"], str(cfg.train.resume))
    return state


def train(cfg: DictConfig, kind: ModelKind, data: Any = None) -> dict[str, float]:
    """Train one model of this kind as configured; returns (and writes to metrics.json) the final figures. `data`
    replaces the boards the config would build (the task's own kind of data). The checkpoints to start from are read and checked
    first, and the run folder claimed (runtime.run_folder: ConfigError when another run holds it), before any data is
    made."""
    configure_torch(cfg)
    process = distributed.current()  # several under torchrun or a multi-task SLURM job; rank 0 alone writes
    size = int(cfg.model.size)
    parent, state = _warm_start(cfg, kind, size), _resumed(cfg, size)
    run_dir = distributed.from_main(run_directory(cfg), process)
    with run_folder(run_dir, cfg, writes=process.is_main):
        return _train(cfg, kind, data, process, run_dir, parent, state)


def _train(cfg: DictConfig, kind: ModelKind, data: Any, process: distributed.Process, run_dir: Path,
           parent: dict[str, Any] | None, state: dict[str, Any] | None) -> dict[str, float]:
    task = kind.task(cfg, data)
    model, size = task.model, int(cfg.model.size)
    optimizer = task.optimizer()
    sign = -1.0 if task.monitor == "val/loss" else 1.0
    start_epoch, best, stale, seen, elapsed, wall = 0, -math.inf, 0, 0, 0.0, 0.0
    best_metrics: dict[str, float] = {}
    best_epoch: int | None = None
    scheduler_state = None
    lineage: list[dict[str, Any]] = []  # the configs of the warm-start parents: evaluation holds their boards out too
    patience = int(cfg.train.patience)
    if parent is not None:  # warm start: weights only, a fresh optimizer and epoch 0
        task.load_weights(parent["state_dict"])
        lineage = [parent["config"], *parent["extra"].get("lineage", [])]
    if state is not None:
        resumed = ResumeState.from_dict(state["extra"], task.monitor, sign, task.checkpoint_extra())
        task.load_weights(state["state_dict"])
        lineage = resumed.lineage
        optimizer.load_state_dict(resumed.optimizer)
        scheduler_state = resumed.scheduler
        start_epoch, stale = resumed.epoch + 1, resumed.stale
        best, best_metrics, best_epoch = resumed.best, resumed.best_metrics, resumed.best_epoch
        seen, elapsed, wall = resumed.boards_seen, resumed.train_seconds, resumed.train_wall_seconds
        if process.is_main:
            _carry_best(Path(str(cfg.train.resume)), run_dir, state, resumed, size)
        if start_epoch >= int(cfg.train.epochs) or stale > patience:
            LOG.warning("%s already finished (epoch %d of train.epochs=%d%s): nothing to train; raise train.epochs "
                        "to go on", cfg.train.resume, start_epoch, int(cfg.train.epochs),
                        ", stopped early" if stale > patience else "")
            return dict(resumed.metrics)
        task.restore(resumed.task_state, start_epoch)
    scheduler = lr_scheduler(optimizer, cfg, math.ceil(task.train_size / int(cfg.train.batch_size)))
    if scheduler_state is not None:
        scheduler.load_state_dict(scheduler_state)
    resolved: dict[str, Any] = OmegaConf.to_container(cfg, resolve=True)  # type: ignore[assignment]
    loss_fn = distributed.loss_function(model, cfg, process, task.step())  # DDP on this rank's shard, amp, compile
    writer = distributed.summary_writer(process, run_dir / "tb", seen if cfg.train.resume else None)  # no repeats
    device = torch.device(str(cfg.device_resolved))
    metrics: dict[str, float] = {}
    # per-axiom gradients take one backward pass each: on one process only (DDP's hooks expect one backward a step)
    grad_every = int(cfg.train.get("grad_every", 0)) if not process.distributed else 0
    epoch = start_epoch - 1
    for epoch in range(start_epoch, int(cfg.train.epochs)):
        model.train()
        started, wall_started, epoch_boards = time.process_time(), time.perf_counter(), seen
        batches = task.epoch(epoch, writer, seen)
        bar = progress(batches.batches, total=batches.count, desc=f"epoch {epoch + 1}/{cfg.train.epochs}", unit="batch",
                   dynamic_ncols=True, disable=not cfg.train.progress or not process.is_main)
        for index, batch in enumerate(bar):
            result = loss_fn(batch)
            if grad_every and index % grad_every == 0:  # before backward: the graph is still whole
                for name, norm in axiom_gradient_norms(model, result.truths).items():
                    writer.add_scalar(f"grad/{name}", norm, seen)
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
            for name, value in result.constant.items():  # holds by construction: not a figure (kb/theory.py)
                writer.add_scalar(f"construction/{name}", value, seen)
        synchronize(device)  # CUDA runs ahead of the host: the clock stops when the epoch's work is done
        elapsed += time.process_time() - started
        epoch_wall = time.perf_counter() - wall_started
        wall += epoch_wall
        validation_started = time.perf_counter()
        metrics = task.validate(epoch)
        validation_seconds = time.perf_counter() - validation_started
        metrics.update({"train/epoch": epoch + 1, "train/boards_seen": seen, "train/cpu_seconds": elapsed,
                        "train/boards_per_cpu_second": seen / max(elapsed, 1e-9),  # rank 0's CPU
                        "train/wall_seconds": wall,  # training steps only, validation left out
                        "train/boards_per_second": (seen - epoch_boards) / max(epoch_wall, 1e-9),  # this epoch's
                        "train/processes": process.world_size})
        for name, value in metrics.items():
            writer.add_scalar(name, value, seen)
        if process.is_main:  # what the model believes on a few fixed validation boards, as pictures
            pictures_started = time.perf_counter()
            for tag, images in task.pictures().items():
                writer.add_images(tag, images, seen, dataformats="NHWC")
            writer.add_scalar("time/validation_seconds", validation_seconds, seen)
            writer.add_scalar("time/pictures_seconds", time.perf_counter() - pictures_started, seen)
        writer.add_scalar("logic/p_forall", task.ops.p_forall, seen)
        writer.add_scalar("logic/p_exists", task.ops.p_exists, seen)
        value = sign * metrics[task.monitor]
        improved = value >= best if task.ties_improve else value > best
        best, best_metrics, stale = (value, metrics, 0) if improved else (best, best_metrics, stale + 1)
        best_epoch = epoch if improved else best_epoch
        if process.is_main:  # last.pt first: a run stopped before best.pt is written has it written again on resume
            live = task.checkpoint_extra()
            last = ResumeState(epoch=epoch, best=best, best_metrics=best_metrics, best_epoch=best_epoch, stale=stale,
                               boards_seen=seen, train_seconds=elapsed, train_wall_seconds=wall,
                               optimizer=optimizer.state_dict(), scheduler=scheduler.state_dict(), metrics=metrics,
                               lineage=lineage, checkpoint_extra=live, task_state=task.training_state())
            save_checkpoint(run_dir / "last.pt", size, resolved, model.state_dict(), last.to_dict())
            if improved:
                save_checkpoint(run_dir / "best.pt", size, resolved, model.state_dict(),
                                _best_extra(live, epoch, metrics, lineage))
        LOG.info("epoch %d/%d: %s, %.0f boards/CPU s%s", epoch + 1, int(cfg.train.epochs), task.describe(metrics),
                 metrics["train/boards_per_cpu_second"], " (best)" if improved else "")
        if distributed.from_main(stale > patience, process):
            break
    outcome = Outcome(metrics, best_metrics, sign * best, epoch + 1)
    final = task.finish(outcome, run_dir, resolved, process.is_main)
    writer.add_hparams(_hparams(cfg), {k: v for k, v in final.items() if math.isfinite(v)}, run_name="hparams")
    writer.close()
    if process.is_main:
        recorded = {**final, **task.provenance()}  # strings: not in TensorBoard's hparams
        atomic_write_text(run_dir / "metrics.json", strict_json.dumps(recorded, indent=2, sort_keys=True) + "\n")
    return final
