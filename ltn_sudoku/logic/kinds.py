"""The one table of model kinds (`model.kind` of a config: board, visual) and what reads it: `train(cfg)`, the one
training loop run for the config's kind, and `load_model(path)`, which loads a checkpoint of any kind.

Each row (`ModelKind`, ltn_sudoku/logic/training/task.py) holds the kind's training task, its builder (the model from
a checkpoint's payload, declared in the kind's own model.py, which also loads the kind's checkpoints) and its rules
between config keys (ltn_sudoku/logic/commands/check.py reads them): no `if kind == ...` anywhere. This module sits
above the kinds it lists (ltn_sudoku/logic/board/, visual/: each kind's model, training, answers and evaluation) and
below what serves them all (ltn_sudoku/logic/api.py, commands/). The checkpoint file format is
ltn_sudoku/logic/checkpoints.py.
"""

from __future__ import annotations

import os
from typing import Any

import torch
from omegaconf import DictConfig

from ltn_sudoku.logic.board.model import build_board_model
from ltn_sudoku.logic.board.rules import board_rules
from ltn_sudoku.logic.checkpoints import CheckpointError, LoadedModel, built_model, load_checkpoint, model_kind
from ltn_sudoku.logic.training.task import ModelKind, TrainingTask
from ltn_sudoku.logic.visual.model import build_visual_model
from ltn_sudoku.logic.visual.rules import visual_rules

# The training tasks and the loop are imported when a model is trained, not when one is loaded: answering with a
# checkpoint (classify-board, the complete solver, evaluation) needs neither Hydra's nor TensorBoard's modules.


def _board_task(cfg: DictConfig, data: Any) -> TrainingTask:
    from ltn_sudoku.logic.board.task import BoardTask

    return BoardTask(cfg, data)


def _visual_task(cfg: DictConfig, data: Any) -> TrainingTask:
    from ltn_sudoku.logic.visual.train import VisualTask

    return VisualTask(cfg, data)


# model.kind -> its row; a config or checkpoint without model.kind is a board model
KINDS: dict[str, ModelKind] = {
    "board": ModelKind("board", task=_board_task, load=build_board_model, rules=board_rules),
    "visual": ModelKind("visual", task=_visual_task, load=build_visual_model, rules=visual_rules),
}


def train(cfg: DictConfig, data: Any = None) -> dict[str, float]:
    """Train one model as configured (ltn_sudoku/logic/training/loop.py: train, for the config's kind); returns (and
    writes to metrics.json) the final figures. `data` replaces the boards the config would build."""
    from ltn_sudoku.logic.training import loop

    return loop.train(cfg, KINDS[model_kind(cfg)], data)


def load_model(path: str | os.PathLike[str], size: int | None = None, device: str | torch.device = "cpu",
               kind: str | None = None) -> LoadedModel:
    """Any checkpoint's model, operators and payload (a kind's own loader, `board.model.load_board_model` or
    `visual.model.load_visual_model`, when the kind is known); `kind` ('board' or 'visual') refuses the other kind.
    CheckpointError when the file is missing, damaged, for another size or kind, or made for other code."""
    payload = load_checkpoint(path, size)
    found = model_kind(payload["config"])
    if kind is not None and found != kind:
        raise CheckpointError(f"{path}: not a {kind} checkpoint (model.kind is {found!r})")
    if found not in KINDS:
        raise CheckpointError(f"{path}: unknown model.kind {found!r}: expected one of {', '.join(KINDS)}")
    return built_model(path, payload, KINDS[found].load, device)
