"""Process set-up shared by the Hydra entry points: seeds, threads, device, and the run's output folder.

A training's run folder is its own (issue 41): while a run trains it holds RUN/train.lock (ltn_sudoku/io/locks.py:
pid and host, created with O_EXCL and flocked; a dead run's lock is taken over with a note), so a second training
into the folder is refused; a folder that holds another run's files (RUN_FILES) is refused too, unless this training
resumes that very run. A resume goes on with the run's own config: only the keys of RESUMABLE may change. The
default folder names (conf/config.yaml) carry the time to the microsecond and `${run_id:}`, a short id drawn once
per process, so two runs started in the same second never share one.
"""

from __future__ import annotations

import json
import os
import random
import secrets
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import ltn
import numpy as np
import torch
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig, OmegaConf, open_dict

from ltn_sudoku.io import locks
from ltn_sudoku.io.writers import TERMINATED_STATUS, sigterm_as_exit
from ltn_sudoku.logic.checkpoints import CheckpointError, load_checkpoint
from ltn_sudoku.logic.device import resolve_device
from ltn_sudoku.logic.errors import ConfigError
from ltn_sudoku.logic.training.sweep_names import sweep_job_name

RUN_LOCK = "train.lock"  # held in a run folder while a training writes it
RUN_FILES: tuple[str, ...] = ("last.pt", "best.pt", "metrics.json", "tb")  # what a training writes into its folder
# The keys a resume may change (the one list): how long and how visibly the run goes on, where it runs and writes,
# where it goes on from (a resume restores the weights and the warm-start lineage of its last.pt, so the
# train.init_from it was started with is not read again), and what evaluation alone reads. Every other key is the
# run's recipe: a resume with another value is refused, naming the key.
RESUMABLE: tuple[str, ...] = (
    "train.epochs", "train.patience", "train.progress", "train.compile", "train.grad_every",
    "train.resume", "train.init_from",
    "run_dir", "device", "device_resolved", "threads",
    "checkpoint", "evaluate",
)
RUN_ID = secrets.token_hex(3)  # this process's runs: the default folder names' `${run_id:}`
# use_cache: a multirun's jobs (and a launcher's copies of the config) resolve the sweep folder to the same name
OmegaConf.register_new_resolver("run_id", lambda: RUN_ID, use_cache=True, replace=True)
OmegaConf.register_new_resolver("sweep_job", sweep_job_name, replace=True)  # a sweep job's short folder name


# The loop's own keys of a last.pt's `extra` (ResumeState); the task's extras and training state sit beside them.
LOOP_STATE_KEYS: tuple[str, ...] = ("epoch", "best", "best_metrics", "best_epoch", "stale", "boards_seen",
                                    "train_seconds", "train_wall_seconds", "optimizer", "scheduler", "metrics",
                                    "lineage")


@dataclass
class ResumeState:
    """What last.pt holds for a run to go on (its `extra`), as one typed object: written by `to_dict` at the end of
    every epoch, read back by `from_dict` alone, which also reads the older shapes that shipped and stopped runs hold
    (a visual last.pt written before the loop was shared: the best epoch's figures as `best`, no scheduler, wall
    seconds or lineage; a last.pt without `best_epoch`: the best figures' `train/epoch`)."""

    epoch: int  # the 0-based epoch this last.pt ends; a resume goes on from the next
    best: float  # the best epoch's monitored value, signed so that higher is better (val/loss negated)
    best_metrics: dict[str, float]  # the best epoch's validation figures
    best_epoch: int | None  # the 0-based best epoch (None: the file names none)
    stale: int  # epochs since the best one (early stopping)
    boards_seen: int
    train_seconds: float  # CPU seconds of training steps so far
    train_wall_seconds: float
    optimizer: dict[str, Any]
    scheduler: dict[str, Any] | None
    metrics: dict[str, float]  # this epoch's validation figures
    lineage: list[dict[str, Any]]  # the configs of the warm-start parents (evaluation holds their boards out too)
    checkpoint_extra: dict[str, Any] = field(default_factory=dict)  # the task's extras, which best.pt holds too
    task_state: dict[str, Any] = field(default_factory=dict)  # the task's own training state (training_state)

    @staticmethod
    def held_by(extra: Mapping[str, Any]) -> bool:
        """Whether a checkpoint's `extra` holds a training state to go on from (a last.pt; a best.pt does not)."""
        return "optimizer" in extra

    def to_dict(self) -> dict[str, Any]:
        """last.pt's `extra`: the task's extras, the loop's keys, the task's training state."""
        return {**self.checkpoint_extra, "epoch": self.epoch, "best": self.best, "best_metrics": self.best_metrics,
                "best_epoch": self.best_epoch, "stale": self.stale, "boards_seen": self.boards_seen,
                "train_seconds": self.train_seconds, "train_wall_seconds": self.train_wall_seconds,
                "optimizer": self.optimizer, "scheduler": self.scheduler, "metrics": self.metrics,
                "lineage": self.lineage, **self.task_state}

    @classmethod
    def from_dict(cls, extra: Mapping[str, Any], monitor: str, sign: float,
                  checkpoint_keys: Iterable[str] = ()) -> ResumeState:
        """A last.pt's `extra` read back, of any shape it was written in: `monitor` and `sign` read a best that is
        the best epoch's figures; `checkpoint_keys`, the task's extras, tell them from its training state."""
        if isinstance(extra["best"], dict):  # a visual last.pt from before the loop was shared
            best_metrics = dict(extra["best"])
            best = sign * float(best_metrics[monitor])
        else:
            best, best_metrics = float(extra["best"]), dict(extra.get("best_metrics", {}))
        if "best_epoch" in extra:
            best_epoch: int | None = None if extra["best_epoch"] is None else int(extra["best_epoch"])
        else:
            best_epoch = int(best_metrics["train/epoch"]) - 1 if "train/epoch" in best_metrics else None
        keys = [k for k in checkpoint_keys if k in extra]
        return cls(epoch=int(extra["epoch"]), best=best, best_metrics=best_metrics, best_epoch=best_epoch,
                   stale=int(extra["stale"]), boards_seen=int(extra["boards_seen"]),
                   train_seconds=float(extra["train_seconds"]),
                   train_wall_seconds=float(extra.get("train_wall_seconds", 0.0)), optimizer=extra["optimizer"],
                   scheduler=extra.get("scheduler"), metrics=dict(extra.get("metrics", {})),
                   lineage=list(extra.get("lineage", [])), checkpoint_extra={k: extra[k] for k in keys},
                   task_state={k: v for k, v in extra.items() if k not in LOOP_STATE_KEYS and k not in keys})


def configure_torch(cfg: DictConfig) -> None:
    """Seed every generator, set the CPU thread count, pick the device (stored as cfg.device_resolved) and make
    LTNtorch put its variables there too."""
    seed = int(cfg.seed)
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    if int(cfg.threads) > 0:
        torch.set_num_threads(int(cfg.threads))
    device = resolve_device(str(cfg.device))
    ltn.device = device
    with open_dict(cfg):
        cfg.device_resolved = str(device)


def run_directory(cfg: DictConfig) -> Path:
    """cfg.run_dir when set, else Hydra's output folder of this job; created if needed."""
    if cfg.get("run_dir"):
        path = Path(str(cfg.run_dir))
    elif HydraConfig.initialized():
        path = Path(HydraConfig.get().runtime.output_dir)
    else:
        raise ValueError("no run folder: set run_dir=PATH when calling outside Hydra")
    path.mkdir(parents=True, exist_ok=True)
    return path


# ---- a run's config against another's ---------------------------------------------------------------------------------
def _flat(node: Any, prefix: str = "") -> dict[str, Any]:
    """Dotted key -> value of a config's leaves (a list is one value)."""
    if not isinstance(node, Mapping):
        return {prefix.rstrip("."): node}
    flat: dict[str, Any] = {}
    for key, value in node.items():
        flat.update(_flat(value, f"{prefix}{key}.") if isinstance(value, Mapping) and value else
                    {f"{prefix}{key}": value})
    return flat


def _container(config: DictConfig | Mapping[str, Any]) -> dict[str, Any]:
    if isinstance(config, DictConfig):
        return OmegaConf.to_container(config, resolve=True)  # type: ignore[return-value]
    return dict(config)


def _free(key: str, free: Sequence[str]) -> bool:
    return any(key == k or key.startswith(f"{k}.") for k in free)


def config_changes(new: DictConfig | Mapping[str, Any], old: Mapping[str, Any],
                   free: Sequence[str] = RESUMABLE) -> list[tuple[str, Any, Any]]:
    """(key, old value, new value) of every key that both configs hold with different values, but the `free` ones
    (and keys under them). A key only one side holds (added to the schema or retired since) is not compared."""
    a, b = _flat(old), _flat(_container(new))
    shared = [k for k in b if k in a and not _free(k, free)]
    return [(k, a[k], b[k]) for k in shared if a[k] != b[k] and not _same_number(a[k], b[k])]


def _same_number(a: Any, b: Any) -> bool:
    numbers = (int, float)
    return isinstance(a, numbers) and isinstance(b, numbers) and not isinstance(a, bool) and float(a) == float(b)


def describe_changes(changes: Sequence[tuple[str, Any, Any]], there: str = "in that run", shown: int = 3) -> str:
    """'train.lr is 0.003 in that run, 0.5 here; seed is 0 ..., 7 here (and 2 more keys)'."""
    parts = [f"{key} is {old!r} {there}, {new!r} here" for key, old, new in changes[:shown]]
    more = len(changes) - shown
    return "; ".join(parts) + (f" (and {more} more key{'s' * (more > 1)}: "
                               f"{', '.join(k for k, _, _ in changes[shown:])})" if more > 0 else "")


def check_resume(cfg: DictConfig, recorded: Mapping[str, Any], path: str) -> None:
    """ConfigError naming every changed key when `cfg` is not the config of the run that wrote `recorded` (a last.pt's
    config), up to the RESUMABLE keys."""
    changes = config_changes(cfg, recorded)
    if changes:
        raise ConfigError(f"train.resume={path}: the config changed: {describe_changes(changes)}; a resume goes on "
                          f"with its run's own config and may change only {', '.join(RESUMABLE)}: set the others as "
                          f"that run had them, or start a new run from it (train.init_from={path})")


# ---- the run folder ----------------------------------------------------------------------------------------------------
def _recorded_config(folder: Path) -> tuple[Mapping[str, Any] | None, str]:
    """The config of the run a folder holds (its last.pt, else its best.pt) and where it was read, or None and why."""
    for name in ("last.pt", "best.pt"):
        path = folder / name
        if path.is_file():
            try:
                return load_checkpoint(path)["config"], name
            except CheckpointError as e:
                return None, f"its {name} cannot be read: {e}"
    return None, "no checkpoint of it is left"


def _busy(folder: Path, owner: dict[str, object] | None) -> str:
    """A run folder another training holds, in one line that names the lock file to remove if that run is gone."""
    return (f"run folder {folder} is being written by {locks.owner_text(owner)}: wait for it to end, or train into "
            f"another folder (run_dir=PATH); {locks.remove_hint(folder / RUN_LOCK, owner)}")


def run_folder_problem(folder: Path, cfg: DictConfig) -> str | None:
    """Why a training with config `cfg` may not write into `folder`, as one line naming it, or None: another live
    training holds the folder's lock, or the folder holds another run's files and this is no resume of that run."""
    refusal = locks.foreign(folder / RUN_LOCK, f"run folder {folder}")
    if refusal is not None:  # before Hydra writes its files into the folder
        return str(refusal)
    owner = locks.holder(folder / RUN_LOCK)
    if owner is not None and owner.get("pid") != os.getpid():
        return _busy(folder, owner or None)
    found = [name for name in RUN_FILES if (folder / name).exists()]
    if not found:
        return None
    held = f"run folder {folder} holds another run ({', '.join(found)})"
    choose = "train into another folder (run_dir=PATH), or remove that run"
    resume = cfg.train.get("resume")
    if not resume:
        go_on = f", or go on with it: train.resume={folder / 'last.pt'}" if "last.pt" in found else ""
        return f"{held}: {choose}{go_on}"
    recorded, where = _recorded_config(folder)
    if recorded is None:
        return f"{held}, {where}: {choose}"
    changes = config_changes(cfg, recorded)
    if changes:
        return f"{held}, not the run train.resume={resume} goes on with ({describe_changes(changes, 'there')}): {choose}"
    return None


@contextmanager
def run_folder(folder: Path, cfg: DictConfig, writes: bool = True) -> Iterator[Path]:
    """Hold `folder` for this training (RUN/train.lock) while the block runs, after checking that it may write there
    (run_folder_problem: ConfigError). `writes` False (a DDP rank other than 0, which writes nothing): no lock.
    SIGTERM (a cluster's time limit) ends the training as an exception (exit status 143): the lock is released and
    the folder's last.pt, written at the end of every epoch, is where a resume goes on, on this node or another."""
    with sigterm_as_exit():
        if not writes:
            yield folder
            return
        path = folder / RUN_LOCK
        try:
            fd = locks.acquire(path, f"run folder {folder}")
        except locks.LockBusy as e:
            raise ConfigError(_busy(folder, e.owner)) from None
        except locks.LockError as e:
            raise ConfigError(str(e)) from None
        try:
            problem = run_folder_problem(folder, cfg)
            if problem is not None:
                raise ConfigError(problem)
            yield folder
        except SystemExit as e:
            if e.code == TERMINATED_STATUS:
                print(f"stopped by SIGTERM: {path} released; {_go_on(folder)}", file=sys.stderr, flush=True)
            raise
        finally:
            locks.release(fd, path)


def _go_on(folder: Path) -> str:
    """How a stopped training goes on: from the last.pt of its last finished epoch (written atomically each epoch)."""
    last = folder / "last.pt"
    return (f"go on from its last finished epoch with train.resume={last}" if last.is_file() else
            "it had finished no epoch: start it again")


EVALUATION_FOLDER = "evaluation"  # where evaluate writes inside a training's run folder, beside its record


def evaluation_folder(folder: Path) -> Path:
    """Where `python -m ltn_sudoku.evaluate` writes (metrics.json, tb/) when its run folder is `folder`: the folder
    itself, unless it holds a training's record (its checkpoints, its lock, or a metrics.json that is no
    evaluation's), which is never written over: then FOLDER/evaluation/ beside it."""
    metrics = folder / "metrics.json"
    try:
        evaluation = metrics.is_file() and "tables" in json.loads(metrics.read_text())
    except (OSError, ValueError, TypeError):
        evaluation = False
    trained = any((folder / name).exists() for name in ("last.pt", "best.pt", RUN_LOCK)) or \
        (metrics.is_file() and not evaluation)
    if not trained:
        return folder
    inside = folder / EVALUATION_FOLDER
    inside.mkdir(exist_ok=True)
    print(f"note: {folder} holds a training's record: the evaluation is written beside it, to {inside}",
          file=sys.stderr)
    return inside


def explicit_run_folder(overrides: Sequence[str], cfg: DictConfig) -> Path | None:
    """The folder a single run's command line names (run_dir=PATH, or a hydra.run.dir=PATH without interpolations),
    or None (Hydra's default folder, unique per run)."""
    if cfg.get("run_dir"):
        return Path(str(cfg.run_dir))
    for override in overrides:
        key, _, value = override.partition("=")
        if key.lstrip("+") == "hydra.run.dir" and value and "${" not in value:
            return Path(value.strip("'\""))
    return None
