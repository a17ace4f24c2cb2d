"""Checkpoints: weights plus the resolved config as plain containers, loadable with torch.load(weights_only=True).

A checkpoint's config is data, never code: load_checkpoint refuses one that holds an OmegaConf interpolation
(`${...}`, which would read environment variables or other keys when resolved), so no loader can be made to resolve
it; paths to open come from the user's command, not from a checkpoint.

A checkpoint is a dict {format, version, size, config, state_dict, extra, sha256}; `extra` holds what a run needs to
go on (epoch, optimizer and RNG states, best metric) or what a shipped model needs to answer (calibrated threshold,
technique names). `sha256` (version 2) is the SHA-256 of everything else in the dict (`payload_sha256`: every
tensor's dtype, shape and bytes, every plain value), checked on every load; the zip records' CRCs, which torch.load
does not check, are checked too, so a damaged file is a CheckpointError, never a model with wrong weights. Version 1
files (no checksum) still load, their CRCs checked.

A file is judged before any tensor is materialised (issue 49): its zip records must be stored as torch.save stores
them (a compressed record could expand without bound), its tensors are mapped from the file (torch.load(mmap=True)),
not read, and every tensor must hold no more elements than its storage in the file has bytes for (an expanded view
of one stored number as a 20000x20000 weight is a 44 KB file whose checksum would materialise 1.6 GB). Only then is
the checksum computed, on the stored bytes in place, so a crafted file of any size is refused at a normal load's
memory (scripts/bench_faults.py measures it). Files are written through ltn_sudoku.io's one atomic writer (a
temporary file fsynced and renamed into place), so a crash never leaves a half-written last.pt or best.pt.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import zipfile
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, NamedTuple

import torch
from torch import nn

from ltn_sudoku.io.writers import atomic_write
from ltn_sudoku.logic.device import resolve_device, to_numpy
from ltn_sudoku.logic.errors import CheckpointError  # defined at the bottom, raised (and imported) here
from ltn_sudoku.logic.kb.operators import Operators, build_operators
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


HASH_CHUNK = 1 << 20  # bytes of a tensor fed to the hash at a time


def _feed(h: Any, value: Any) -> None:
    """`value` into the hash, tagged by kind, so that different contents never feed the same bytes."""
    if isinstance(value, torch.Tensor):
        t = value.detach().cpu()
        h.update(f"T{t.dtype}{tuple(t.shape)};".encode())
        stored = to_numpy(t.contiguous().reshape(-1).view(torch.uint8))  # a stored tensor's bytes in place
        for start in range(0, len(stored), HASH_CHUNK):
            h.update(stored[start:start + HASH_CHUNK].data)
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
    """Why the archive cannot be a checkpoint, or None: a record compressed (torch.save stores every record as it is,
    so a record's size in the file is its size once read; a compressed one could expand without bound), or the first
    record whose CRC-32 does not match its bytes (torch.load does not check). Raises on a file that is no zip archive
    at all."""
    with zipfile.ZipFile(source) as archive:
        for info in archive.infolist():
            if info.compress_type != zipfile.ZIP_STORED:
                return (f"its record {_record(info.filename)} is compressed ({info.file_size:,} bytes from "
                        f"{info.compress_size:,}), which torch.save never does: a crafted file")
        damaged = archive.testzip()
    return None if damaged is None else (f"corrupted: the CRC of its record {_record(damaged)} does not match its "
                                         "bytes")


def _record(name: str) -> str:
    return name.split("/", 1)[-1]  # without the archive's own folder name


def _tensors(value: Any, where: str) -> Iterable[tuple[str, torch.Tensor]]:
    """Every tensor of a loaded payload with its dotted place (state_dict.w, extra.optimizer.state.0.exp_avg)."""
    if isinstance(value, torch.Tensor):
        yield where, value
    elif isinstance(value, Mapping):
        for key, inner in value.items():
            yield from _tensors(inner, f"{where}.{key}" if where else str(key))
    elif isinstance(value, (list, tuple)):
        for i, inner in enumerate(value):
            yield from _tensors(inner, f"{where}.{i}")


def _unstored(payload: Any) -> str | None:
    """The first tensor that holds more elements than its storage has bytes for (an expanded or overlapping view:
    materialising it, as the checksum would, could take any memory), in words; None when every tensor's elements are
    stored. Reads sizes only, never the tensors' bytes."""
    for where, t in _tensors(payload, ""):
        stored = t.untyped_storage().nbytes()
        if t.numel() * t.element_size() > stored:
            return (f"tensor {where} of shape {tuple(t.shape)} has {t.numel():,} elements, its storage in the file "
                    f"{stored:,} bytes: a view of numbers not stored")
    return None


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
        raise CheckpointError(f"{source}: not a readable checkpoint ({damaged}); {HOW_TO_MAKE}")
    try:  # mapped, not read: no tensor is in memory before its size is judged (_unstored)
        payload = torch.load(source, map_location="cpu", weights_only=True, mmap=True)
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
    unstored = _unstored(payload)
    if unstored is not None:
        raise CheckpointError(f"{source}: not a readable checkpoint ({unstored}: a crafted or damaged file); "
                              f"{HOW_TO_MAKE}")
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


class LoadedModel(NamedTuple):
    """A checkpoint's model (eval mode, on the asked device), its logic's operators and the whole payload."""

    model: Any  # LtnSudoku or VisualLtn, as its kind's builder makes it
    ops: Operators
    payload: dict[str, Any]


def built_model(path: str | os.PathLike[str], payload: dict[str, Any], build: Callable[[dict[str, Any]], nn.Module],
                device: str | torch.device = "cpu") -> LoadedModel:
    """A loaded payload's model, made by its kind's `build` (the model from a payload, weights loaded), with its
    operators, on `device` in eval mode. CheckpointError when the payload does not fit this code's model."""
    try:
        model = build(payload)
        ops = build_operators(payload["config"]["logic"])
    except (KeyError, TypeError, ValueError, RuntimeError) as e:
        raise CheckpointError(f"{path}: checkpoint does not match this code's model ({e})".splitlines()[0]) from None
    return LoadedModel(model.to(resolve_device(device)).eval(), ops, payload)


def load_kind(path: str | os.PathLike[str], kind: str, build: Callable[[dict[str, Any]], nn.Module],
              size: int | None = None, device: str | torch.device = "cpu") -> LoadedModel:
    """A checkpoint of one model kind, built by that kind's `build` (each kind loads its own: board/model.py,
    visual/model.py). CheckpointError when the file is missing, damaged, for another size or another kind."""
    payload = load_checkpoint(path, size)
    found = model_kind(payload["config"])
    if found != kind:
        raise CheckpointError(f"{path}: not a {kind} checkpoint (model.kind is {found!r})")
    return built_model(path, payload, build, device)
