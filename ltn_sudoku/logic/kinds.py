"""The one table of model kinds (`model.kind` of a config: board, visual) and what reads it: `train(cfg)`, the one
training loop run for the config's kind, and `load_model(path)`, the one loader of every kind's checkpoint.

Each row (`ModelKind`, ltn_sudoku/logic/training/task.py) holds the kind's training task, its loader (the model from
a checkpoint's payload) and its rules between config keys (ltn_sudoku/logic/commands/check.py reads them): no
`if kind == ...` anywhere. This module sits above the kinds it lists (ltn_sudoku/logic/board/, visual/) and below what
answers with them (ltn_sudoku/logic/answers/, evaluation/, commands/). The checkpoint file format is
ltn_sudoku/logic/checkpoints.py.
"""

from __future__ import annotations

import os
from typing import Any, NamedTuple

import torch
from omegaconf import DictConfig

from ltn_sudoku.logic.board.rules import board_rules
from ltn_sudoku.logic.checkpoints import CheckpointError, load_checkpoint, model_kind
from ltn_sudoku.logic.device import resolve_device
from ltn_sudoku.logic.groundings.model import LtnSudoku, ModelConfig
from ltn_sudoku.logic.kb.operators import Operators, build_operators
from ltn_sudoku.logic.training.task import ModelKind, TrainingTask
from ltn_sudoku.logic.visual.model import VisualConfig, VisualLtn
from ltn_sudoku.logic.visual.rules import visual_rules

# The training tasks and the loop are imported when a model is trained, not when one is loaded: answering with a
# checkpoint (classify-board, the complete solver, evaluation) needs neither Hydra's nor TensorBoard's modules.


def _board_task(cfg: DictConfig, data: Any) -> TrainingTask:
    from ltn_sudoku.logic.board.task import BoardTask

    return BoardTask(cfg, data)


def _visual_task(cfg: DictConfig, data: Any) -> TrainingTask:
    from ltn_sudoku.logic.visual.train import VisualTask

    return VisualTask(cfg, data)


def _board_model(payload: dict[str, Any]) -> LtnSudoku:
    model = LtnSudoku(ModelConfig.from_cfg(payload["config"]["model"]))
    model.load_weights(payload["state_dict"])
    return model


def _visual_model(payload: dict[str, Any]) -> VisualLtn:
    model = VisualLtn(VisualConfig.from_cfg(payload["config"]["model"]))
    model.load_state_dict(payload["state_dict"])
    if "digit_names" in payload["extra"]:
        model.names.copy_(torch.as_tensor(payload["extra"]["digit_names"]))  # host: copied into the buffer
    return model


# model.kind -> its row; a config or checkpoint without model.kind is a board model
KINDS: dict[str, ModelKind] = {
    "board": ModelKind("board", task=_board_task, load=_board_model, rules=board_rules),
    "visual": ModelKind("visual", task=_visual_task, load=_visual_model, rules=visual_rules),
}


def train(cfg: DictConfig, data: Any = None) -> dict[str, float]:
    """Train one model as configured (ltn_sudoku/logic/training/loop.py: train, for the config's kind); returns (and
    writes to metrics.json) the final figures. `data` replaces the boards the config would build."""
    from ltn_sudoku.logic.training import loop

    return loop.train(cfg, KINDS[model_kind(cfg)], data)


class LoadedModel(NamedTuple):
    """A checkpoint's model (eval mode, on the asked device), its logic's operators and the whole payload."""

    model: Any  # LtnSudoku or VisualLtn, as its kind's `load` builds it
    ops: Operators
    payload: dict[str, Any]


def load_model(path: str | os.PathLike[str], size: int | None = None, device: str | torch.device = "cpu",
               kind: str | None = None) -> LoadedModel:
    """Any checkpoint's model, operators and payload; `kind` ('board' or 'visual') refuses the other kind.
    CheckpointError when the file is missing, damaged, for another size or kind, or made for other code."""
    payload = load_checkpoint(path, size)
    found = model_kind(payload["config"])
    if kind is not None and found != kind:
        raise CheckpointError(f"{path}: not a {kind} checkpoint (model.kind is {found!r})")
    if found not in KINDS:
        raise CheckpointError(f"{path}: unknown model.kind {found!r}: expected one of {', '.join(KINDS)}")
    try:
        model = KINDS[found].load(payload)
        ops = build_operators(payload["config"]["logic"])
    except (KeyError, TypeError, ValueError, RuntimeError) as e:
        raise CheckpointError(f"{path}: checkpoint does not match this code's model ({e})".splitlines()[0]) from None
    return LoadedModel(model.to(resolve_device(device)).eval(), ops, payload)
