"""Checkpoints: weights plus the resolved config as plain containers, loadable with torch.load(weights_only=True).

A checkpoint's config is data, never code: load_checkpoint refuses one that holds an OmegaConf interpolation
(`${...}`, which would read environment variables or other keys when resolved), so no loader can be made to resolve
it; paths to open come from the user's command, not from a checkpoint.

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
from typing import Any, Mapping

import torch

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

