"""What the one training loop (ltn_sudoku/logic/training/loop.py) asks of a model kind: a `TrainingTask`.

The loop owns everything every kind shares (optimizer steps, the learning-rate schedule, early stopping, last.pt and
best.pt, resume, TensorBoard, metrics.json, the progress bar, DDP); a task supplies what differs: its model and data,
the batches of an epoch, the objective of one batch, validation (the monitored figure), what its checkpoints hold
beyond the loop's state, and the figures of a finished run. One task per model kind: BoardTask
(ltn_sudoku/logic/board/task.py), VisualTask (ltn_sudoku/logic/visual/train.py). A `ModelKind` is one row of the
table of kinds (ltn_sudoku/logic/kinds.py: KINDS, above the tasks): its task, its loader and its config rules.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, Sized, TypeVar

import numpy as np
import torch
from omegaconf import DictConfig
from torch import nn

from ltn_sudoku.logic.kb.aggregate import BatchResult, Gather
from ltn_sudoku.logic.kb.operators import Operators

B = TypeVar("B", bound="Shardable")
PICTURE_BOARDS = 4  # validation boards every task draws for TensorBoard at each validation (TrainingTask.pictures)


class Shardable(Sized, Protocol):
    """A global batch: DDP hands each process `select(its rows)`."""

    def select(self: B, rows: torch.Tensor) -> B: ...


Step = Callable[[nn.Module, Any, Gather], BatchResult]  # (model, batch, gather) -> the objective on the batch


class Writer(Protocol):
    """TensorBoard's SummaryWriter, or distributed.NullWriter on a non-zero rank."""

    def add_scalar(self, *args: Any, **kwargs: Any) -> None: ...

    def add_images(self, *args: Any, **kwargs: Any) -> None: ...


@dataclass(frozen=True)
class EpochBatches:
    """One epoch's global batches (an iterable, so that a task may build each batch when the loop reaches it) and
    how many there are (the progress bar's length)."""

    batches: Iterable[Shardable]
    count: int


@dataclass(frozen=True)
class Outcome:
    """How the loop ended: the last epoch's and the best epoch's validation figures, the monitored value of the best
    epoch (as recorded: val/loss as is, not negated) and the number of the last epoch trained (1-based)."""

    last: dict[str, float]
    best: dict[str, float]
    best_value: float
    stopped_epoch: int


class TrainingTask(Protocol):
    """One model kind's part of training (see the module docstring)."""

    @property
    def model(self) -> nn.Module:
        """The model being trained (read-only here, so that a task may hold a subclass of nn.Module)."""

    ops: Operators
    monitor: str  # the validation figure that picks best.pt and stops early
    ties_improve: bool  # an epoch that equals the best so far replaces it (the later, longer trained)
    train_size: int  # training boards in an epoch (the learning-rate schedule's length)

    def optimizer(self) -> torch.optim.Optimizer:
        """The optimizer of the model's parameters."""

    def step(self) -> Step:
        """The objective of one batch (this process's shard of it under DDP)."""

    def epoch(self, epoch: int, writer: Writer, seen: int) -> EpochBatches:
        """The global batches of this 0-based epoch, the same on every process."""

    def validate(self, epoch: int) -> dict[str, float]:
        """Validation figures, `monitor` among them (leaves the model in eval mode or train mode as it likes)."""

    def pictures(self) -> dict[str, np.ndarray]:
        """A few fixed validation boards drawn as the model sees them now, for TensorBoard's images: tag -> (N, H, W, 3)
        uint8 (ltn_sudoku/render/raster.py)."""

    def checkpoint_extra(self) -> dict[str, Any]:
        """What last.pt and best.pt hold beyond the loop's state (what a loaded model needs to answer)."""

    def training_state(self) -> dict[str, Any]:
        """What last.pt holds beyond the loop's state for a run to go on (e.g. a generator's state)."""

    def restore(self, extra: Mapping[str, Any], start_epoch: int) -> None:
        """Take a last.pt's state back (what `training_state` wrote: ResumeState.task_state, training/runtime.py)
        before epoch `start_epoch`."""

    def load_weights(self, state_dict: Mapping[str, torch.Tensor]) -> None:
        """A checkpoint's weights into the model."""

    def describe(self, metrics: Mapping[str, float]) -> str:
        """One epoch's figures in the log line."""

    def finish(self, outcome: Outcome, run_dir: Path, config: dict[str, Any], is_main: bool) -> dict[str, float]:
        """The run's final figures (metrics.json, TensorBoard's hparams); `is_main`: this process may write."""

    def provenance(self) -> dict[str, Any]:
        """Non-numeric entries of metrics.json (where the training boards came from)."""


@dataclass(frozen=True)
class ModelKind:
    """One model kind (`model.kind` of a config): everything that differs between kinds, in one row.

    `task` builds its TrainingTask from the composed config and, optionally, data in place of what the config would
    build (tests and benchmarks pass their own); `load` builds its model from a checkpoint's payload (weights loaded);
    `rules` yields its rules between config keys, one line each, for an entry point ('train' or 'evaluate')."""

    name: str
    task: Callable[[DictConfig, Any], TrainingTask]
    load: Callable[[dict[str, Any]], nn.Module]
    rules: Callable[[DictConfig, str], Iterator[str]]
