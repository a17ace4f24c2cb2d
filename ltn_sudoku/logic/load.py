"""Loading a model: `load_model(path)`, the one loader of every model kind (a board model, a visual model: the
checkpoint config's `model.kind`), and `shipped_checkpoint(size)`, where the shipped board models live.

The file format itself (atomic writes, what a checkpoint must hold, what is refused) is ltn_sudoku/logic/checkpoint.py.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable, Mapping, NamedTuple

import torch
from torch import nn

from ltn_sudoku.logic.checkpoint import CheckpointError, load_checkpoint
from ltn_sudoku.logic.device import resolve_device
from ltn_sudoku.logic.model import LtnSudoku, ModelConfig
from ltn_sudoku.logic.operators import Operators, build_operators
from ltn_sudoku.logic.visual.model import VisualConfig, VisualLtn
from ltn_sudoku.paths import CHECKPOINTS_DIR


def shipped_checkpoint(size: int) -> Path:
    """Where the shipped board model of a side lives (checkpoints/<n>x<n>.pt)."""
    return CHECKPOINTS_DIR / f"{size}x{size}.pt"


class LoadedModel(NamedTuple):
    """A checkpoint's model (eval mode, on the asked device), its logic's operators and the whole payload."""

    model: Any  # LtnSudoku or VisualLtn, as MODEL_KINDS builds it
    ops: Operators
    payload: dict[str, Any]


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


# model.kind -> the model it builds from a payload; a checkpoint without model.kind holds a board model
MODEL_KINDS: dict[str, Callable[[dict[str, Any]], nn.Module]] = {"board": _board_model, "visual": _visual_model}


def model_kind(config: Mapping[str, Any]) -> str:
    """The kind of model a checkpoint's config describes."""
    return str((config.get("model") or {}).get("kind", "board"))


def load_model(path: str | os.PathLike[str], size: int | None = None, device: str | torch.device = "cpu",
               kind: str | None = None) -> LoadedModel:
    """Any checkpoint's model, operators and payload; `kind` ('board' or 'visual') refuses the other kind.
    CheckpointError when the file is missing, damaged, for another size or kind, or made for other code."""
    payload = load_checkpoint(path, size)
    found = model_kind(payload["config"])
    if kind is not None and found != kind:
        raise CheckpointError(f"{path}: not a {kind} checkpoint (model.kind is {found!r})")
    if found not in MODEL_KINDS:
        raise CheckpointError(f"{path}: unknown model.kind {found!r}: expected one of {', '.join(MODEL_KINDS)}")
    try:
        model = MODEL_KINDS[found](payload)
        ops = build_operators(payload["config"]["logic"])
    except (KeyError, TypeError, ValueError, RuntimeError) as e:
        raise CheckpointError(f"{path}: checkpoint does not match this code's model ({e})".splitlines()[0]) from None
    return LoadedModel(model.to(resolve_device(device)).eval(), ops, payload)
