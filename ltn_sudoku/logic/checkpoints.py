"""Checkpoints: weights plus the resolved config as plain containers, loadable with torch.load(weights_only=True).

A checkpoint's config is data, never code: load_checkpoint refuses one that holds an OmegaConf interpolation
(`${...}`, which would read environment variables or other keys when resolved), so no loader can be made to resolve
it; paths to open come from the user's command, not from a checkpoint.

A checkpoint is a dict {format, version, size, config, state_dict, extra, sha256}; `extra` holds what a run needs to
go on (epoch, optimizer and RNG states, best metric) or what a shipped model needs to answer (calibrated threshold,
technique names). `sha256` (version 2) is the SHA-256 of everything else in the dict (`payload_sha256`: every
tensor's dtype, shape and bytes, every plain value), checked on every load; the zip records' CRCs, which torch.load
does not check, are checked too, so a damaged file is a CheckpointError, never a model with wrong weights. Version 1
files (no checksum) still load, their CRCs checked. Files are written through ltn_sudoku.io's one atomic writer (a
temporary file fsynced and renamed into place), so a crash never leaves a half-written last.pt or best.pt.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import zipfile
from pathlib import Path
from typing import Any, Iterable, Mapping

import torch

from ltn_sudoku.io.writers import atomic_write
from ltn_sudoku.logic.device import to_numpy
from ltn_sudoku.logic.errors import CheckpointError  # defined at the bottom, raised (and imported) here
from ltn_sudoku.paths import CHECKPOINTS_DIR

FORMAT = "ltn-sudoku-checkpoint"
VERSION = 2  # 2: with `sha256`; 1: without (still read)
READABLE_VERSIONS = (1, 2)


def shipped_checkpoint(size: int) -> Path:
    """Where the shipped board model of a side lives (checkpoints/<n>x<n>.pt)."""
    return CHECKPOINTS_DIR / f"{size}x{size}.pt"


def model_kind(config: Mapping[str, Any]) -> str:
    """The kind of model a config (composed, or a checkpoint's) describes: `model.kind`, absent on board models."""
    return str((config.get("model") or {}).get("kind", "board"))


HOW_TO_MAKE = "checkpoints are written by `python -m ltn_sudoku.train` (run_dir/last.pt, best.pt)"


def _interpolation(value: Any, where: str = "config") -> str | None:
    """The dotted key of the first string holding an OmegaConf interpolation ('${...}'), or None."""
    if isinstance(value, str):
        return where if "${" in value else None
    items: Iterable[tuple[Any, Any]]
    if isinstance(value, Mapping):
        items = value.items()
    elif isinstance(value, (list, tuple)):
        items = enumerate(value)
    else:
        return None
    return next((found for key, inner in items if (found := _interpolation(inner, f"{where}.{key}"))), None)


def _feed(h: Any, value: Any) -> None:
    """`value` into the hash, tagged by kind, so that different contents never feed the same bytes."""
    if isinstance(value, torch.Tensor):
        t = value.detach().cpu().contiguous()
        h.update(f"T{t.dtype}{tuple(t.shape)};".encode())
        h.update(to_numpy(t.reshape(-1).view(torch.uint8)).data)
    elif isinstance(value, Mapping):
        h.update(f"D{len(value)};".encode())
        for key, inner in sorted(value.items(), key=lambda kv: (type(kv[0]).__name__, repr(kv[0]))):
            _feed(h, key)
            _feed(h, inner)
    elif isinstance(value, (list, tuple)):
        h.update(f"{'L' if isinstance(value, list) else 'U'}{len(value)};".encode())
        for inner in value:
            _feed(h, inner)
    elif isinstance(value, str):
        data = value.encode("utf-8", "surrogatepass")
        h.update(f"S{len(data)};".encode() + data)
    elif isinstance(value, float):
        h.update(f"F{value.hex()};".encode())
    elif value is None or isinstance(value, (bool, int)):
        h.update(f"{type(value).__name__[0]}{value!r};".encode())
    else:  # anything else torch.load(weights_only=True) gives back (dtype, complex, ...): its type and repr
        text = f"{type(value).__qualname__}:{value!r}".encode("utf-8", "surrogatepass")
        h.update(f"O{len(text)};".encode() + text)


def payload_sha256(payload: Mapping[str, Any]) -> str:
    """The SHA-256 of a checkpoint's content: every key but `sha256` itself (the same before saving and after
    loading, whatever the zip layout)."""
    h = hashlib.sha256()
    _feed(h, {k: v for k, v in payload.items() if k != "sha256"})
    return h.hexdigest()


def save_checkpoint(path: str | os.PathLike[str], size: int, config: Mapping[str, Any],
                    state_dict: Mapping[str, torch.Tensor], extra: Mapping[str, Any] | None = None, *,
                    fsync: bool = True) -> None:
    """Write a checkpoint (with its checksum) atomically and durably."""
    payload: dict[str, Any] = {
        "format": FORMAT, "version": VERSION, "size": int(size), "config": dict(config),
        "state_dict": {k: v.detach().cpu() for k, v in state_dict.items()}, "extra": dict(extra or {})}
    payload["sha256"] = payload_sha256(payload)
    with atomic_write(path, "wb", fsync=fsync) as f:
        torch.save(payload, f)


def _damaged_member(source: Path) -> str | None:
    """The first zip record whose CRC-32 does not match its bytes (torch.load does not check), or None; raises on a
    file that is no zip archive at all."""
    with zipfile.ZipFile(source) as archive:
        return archive.testzip()


def load_checkpoint(path: str | os.PathLike[str], size: int | None = None) -> dict[str, Any]:
    """Read and check a checkpoint; CheckpointError says what is wrong (missing, corrupted, wrong size)."""
    source = Path(path)
    if not source.is_file():
        raise CheckpointError(f"{source}: no such checkpoint file")
    try:
        damaged = _damaged_member(source)
    except Exception as e:  # zipfile raises many types for a damaged archive: all mean the same to the user
        raise CheckpointError(f"{source}: not a readable checkpoint ({type(e).__name__}: damaged or not a torch "
                              f"file); {HOW_TO_MAKE}") from None
    if damaged is not None:
        record = damaged.split("/", 1)[-1]  # without the archive's own folder name
        raise CheckpointError(f"{source}: not a readable checkpoint (corrupted: the CRC of its record {record} does "
                              f"not match its bytes); {HOW_TO_MAKE}")
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
    if payload.get("version") not in READABLE_VERSIONS:
        raise CheckpointError(f"{source}: checkpoint version {payload.get('version')}, this code reads "
                              f"{', '.join(map(str, READABLE_VERSIONS))}")
    for key in ("size", "config", "state_dict", "extra", *(("sha256",) if payload["version"] >= 2 else ())):
        if key not in payload:
            raise CheckpointError(f"{source}: checkpoint lacks {key!r}")
    if payload["version"] >= 2 and payload["sha256"] != payload_sha256(payload):
        raise CheckpointError(f"{source}: not a readable checkpoint (corrupted: its content does not match its "
                              f"SHA-256); {HOW_TO_MAKE}")
    where = _interpolation(payload["config"])
    if where is not None:
        raise CheckpointError(f"{source}: unsafe checkpoint: {where} holds an interpolation ('${{...}}'); a "
                              f"checkpoint's config must be plain values, as training writes them")
    if size is not None and payload["size"] != size:
        n = payload["size"]
        raise CheckpointError(f"{source}: the checkpoint is a {n}x{n} model, the boards are {size}x{size}")
    return payload
