"""Checkpoints: weights plus the resolved config as plain containers, loadable with torch.load(weights_only=True).

A checkpoint's config is data, never code: load_checkpoint refuses one that holds an OmegaConf interpolation
(`${...}`, which would read environment variables or other keys when resolved), so no loader can be made to resolve
it; paths to open come from the user's command, not from a checkpoint.

`load_model(path)` is the one loader of every model kind (a board model, a visual model: `model.kind` in the config),
and `shipped_checkpoint(size)` the one place of the shipped board models.

A checkpoint is a dict {format, version, size, config, state_dict, extra}; `extra` holds what a run needs to go on
(epoch, optimizer and RNG states, best metric) or what a shipped model needs to answer (calibrated threshold,
technique names). Files are written atomically (a temporary file renamed into place), so a crash never leaves a
half-written last.pt or best.pt.
"""

from __future__ import annotations

import os
import pickle
import tempfile
from pathlib import Path
from typing import Any, Callable, Mapping, NamedTuple

import torch
from torch import nn

from ltn_sudoku.logic.device import resolve_device
from ltn_sudoku.logic.model import LtnSudoku, ModelConfig
from ltn_sudoku.logic.operators import Operators, build_operators
from ltn_sudoku.logic.visual.model import VisualConfig, VisualLtn
from ltn_sudoku.paths import CHECKPOINTS_DIR

FORMAT = "ltn-sudoku-checkpoint"
VERSION = 1


class CheckpointError(ValueError):
    """A checkpoint that cannot be used: missing, corrupted, unsafe, or made for another board size."""


HOW_TO_MAKE = "checkpoints are written by `python -m ltn_sudoku.train` (run_dir/last.pt, best.pt)"


def _interpolation(value: Any, where: str = "config") -> str | None:
    """The dotted key of the first string holding an OmegaConf interpolation ('${...}'), or None."""
    if isinstance(value, str):
        return where if "${" in value else None
    if isinstance(value, Mapping):
        items = value.items()
    elif isinstance(value, (list, tuple)):
        items = enumerate(value)
    else:
        return None
    return next((found for key, inner in items if (found := _interpolation(inner, f"{where}.{key}"))), None)


def save_checkpoint(path: str | os.PathLike[str], size: int, config: Mapping[str, Any],
                    state_dict: Mapping[str, torch.Tensor], extra: Mapping[str, Any] | None = None) -> None:
    """Write a checkpoint atomically."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    payload = {"format": FORMAT, "version": VERSION, "size": int(size), "config": dict(config),
               "state_dict": {k: v.detach().cpu() for k, v in state_dict.items()}, "extra": dict(extra or {})}
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    try:
        torch.save(payload, tmp)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def load_checkpoint(path: str | os.PathLike[str], size: int | None = None) -> dict[str, Any]:
    """Read and check a checkpoint; CheckpointError says what is wrong (missing, corrupted, wrong size)."""
    source = Path(path)
    if not source.is_file():
        raise CheckpointError(f"{source}: no such checkpoint file")
    try:
        payload = torch.load(source, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as e:  # Python objects beyond tensors and plain containers: never unpickled
        if "weights_only" in str(e) or "Weights only" in str(e):
            raise CheckpointError(f"{source}: not an ltn-sudoku checkpoint, or an unsafe file: it holds Python objects "
                                  f"that are not loaded (only tensors and plain values are); {HOW_TO_MAKE}") from None
        raise CheckpointError(f"{source}: not a readable checkpoint (damaged file); {HOW_TO_MAKE}") from None
    except Exception as e:  # torch raises many types for a damaged file: all mean the same to the user
        raise CheckpointError(f"{source}: not a readable checkpoint ({type(e).__name__}); {HOW_TO_MAKE}") from None
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise CheckpointError(f"{source}: not an ltn-sudoku checkpoint (expected format {FORMAT!r})")
    if payload.get("version") != VERSION:
        raise CheckpointError(f"{source}: checkpoint version {payload.get('version')}, this code reads {VERSION}")
    for key in ("size", "config", "state_dict", "extra"):
        if key not in payload:
            raise CheckpointError(f"{source}: checkpoint lacks {key!r}")
    where = _interpolation(payload["config"])
    if where is not None:
        raise CheckpointError(f"{source}: unsafe checkpoint: {where} holds an interpolation ('${{...}}'); a "
                              f"checkpoint's config must be plain values, as training writes them")
    if size is not None and payload["size"] != size:
        n = payload["size"]
        raise CheckpointError(f"{source}: the checkpoint is a {n}x{n} model, the boards are {size}x{size}")
    return payload


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
