"""Where tensors live: the one place where a tensor leaves its device for numpy or Python data.

The learned half runs on whatever device the model is on (CPU, or CUDA under `device=auto`). A tensor on a GPU cannot
be handed to numpy (`Tensor.numpy()` raises on CUDA) and every bulk read of one (`tolist()`, `np.asarray`) is a device
sync, so the rule is: tensors meet only tensors of their own device, and the learned code converts a tensor to host
data only through `to_numpy` / `to_list` here. `host_transfer_guard()` enforces the rule at run time: inside it, a
conversion anywhere else raises `HostTransferError`, on a CPU-only machine too, so the device-parametrized tests
(tests/test_device.py) find the conversions a GPU would crash on without needing one.
"""

from __future__ import annotations

import sys
import threading
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any, Iterator

import numpy as np
import torch
from torch import nn
from torch.overrides import TorchFunctionMode

import ltn_sudoku

_HOST = threading.local()  # depth of to_numpy / to_list calls on this thread: conversions inside them are allowed
_CONVERSIONS = frozenset({"numpy", "tolist", "__array__"})
_PACKAGE = Path(ltn_sudoku.__file__).parent
_OURS = (str(_PACKAGE), str(_PACKAGE.parent / "scripts"))  # the package and its benchmark scripts
_TORCH = str(Path(torch.__file__).parent)


class HostTransferError(RuntimeError):
    """A tensor converted to numpy or Python data outside ltn_sudoku.logic.device."""


def resolve_device(name: str | torch.device) -> torch.device:
    """'auto' picks CUDA when present, else the CPU; 'cuda' without a GPU is an error."""
    name = str(name)
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name.startswith("cuda") and not torch.cuda.is_available():
        raise ValueError(f"device={name} but no CUDA device is available: use device=auto or device=cpu")
    return torch.device(name)


def device_of(model: nn.Module) -> torch.device:
    """The device of a model's parameters (the CPU for a model without any)."""
    first = next(model.parameters(), None)
    return first.device if first is not None else torch.device("cpu")


def synchronize(device: torch.device) -> None:
    """Wait for the device's queued work (CUDA runs asynchronously): call before reading a clock."""
    if device.type == "cuda":
        torch.cuda.synchronize(device)


@contextmanager
def _allowed() -> Iterator[None]:
    _HOST.depth = getattr(_HOST, "depth", 0) + 1
    try:
        yield
    finally:
        _HOST.depth -= 1


def to_numpy(tensor: torch.Tensor) -> np.ndarray:
    """A tensor's values as a numpy array on the host (detached, copied off the GPU when it is on one)."""
    with _allowed():
        return tensor.detach().cpu().numpy()


def to_list(tensor: torch.Tensor) -> Any:
    """A tensor's values as (nested) Python numbers: one device sync for the whole tensor."""
    with _allowed():
        return tensor.detach().cpu().tolist()


def _called_from_package() -> bool:
    """Whether the conversion was asked for by this package's code (not by torch's or another library's, which
    convert on their own terms, e.g. TensorBoard's writer copies to the host first)."""
    frame: FrameType | None = sys._getframe(2)
    while frame is not None and frame.f_code.co_filename.startswith(_TORCH):
        frame = frame.f_back
    return frame is not None and frame.f_code.co_filename.startswith(_OURS)


class _Guard(TorchFunctionMode):
    def __torch_function__(self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
        if (getattr(func, "__name__", None) in _CONVERSIONS and not getattr(_HOST, "depth", 0)
                and _called_from_package()):
            raise HostTransferError(f"Tensor.{func.__name__}() outside ltn_sudoku.logic.device: convert with "
                                    "to_numpy / to_list (a CUDA tensor cannot become numpy directly)")
        return func(*args, **(kwargs or {}))


@contextmanager
def host_transfer_guard() -> Iterator[None]:
    """Within the block, a tensor converted to numpy or a list by this package's code anywhere but to_numpy / to_list
    raises (other libraries' own conversions are theirs to get right)."""
    with _Guard():
        yield
