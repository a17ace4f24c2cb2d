"""`classify-board CELLS.npz --visual-checkpoint PT`: a board of handwritten digits, read by a visual model.

Input layout (documented in docs/visual.md): a NumPy .npz holding `images`, uint8, shape (n*n, 28, 28) or
(n, n, 28, 28), n = 4 or 9, the cells in row-major order (cell r*n + c), each an MNIST-style image (white digit on
black). An all-black image (every pixel below BLANK_LEVEL) is an empty cell, so open boards can be given too.
The model's reader gives each filled cell its most probable digit; Q1/Q2/Q3 then run on that board exactly as on a
typed one, and a section adds the learned answer: isCorrect's truth on a closed board, and how sure the reading was.
"""

from __future__ import annotations

import argparse
import json
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ltn_sudoku.board import Board
from ltn_sudoku.cli import UsageError
from ltn_sudoku.io import BoardRecord

BLANK_LEVEL = 32  # an image whose brightest pixel is darker than this is an empty cell


@dataclass(frozen=True)
class VisualSection:
    """The visual model's answers on one board of images."""

    read: Board
    is_correct: float | None  # None on an open board (isCorrect is a closed board's predicate)
    least_sure: float  # the smallest winning probability over the read cells
    checkpoint: str
    decoding: dict[str, object] | None = None  # MAP decoding of the readings (closed boards only), see `decoding_of`

    @property
    def title(self) -> str:
        return "Visual model (digits read from the images; trained from board labels only)"

    def as_dict(self) -> dict[str, object]:
        return {"visual": {"read": self.read.to_line(), "is_correct": self.is_correct,
                           "valid": None if self.is_correct is None else self.is_correct > 0.5,
                           "least_sure_cell": self.least_sure, "checkpoint": self.checkpoint,
                           "map_decoding": self.decoding}}

    def describe(self) -> list[str]:
        verdict = ("n/a (open board: Q2/Q3 above answer on the read digits)" if self.is_correct is None else
                   f"{self.is_correct:.4f} -> {'valid' if self.is_correct > 0.5 else 'invalid'}")
        lines = [f"read digits: {self.read.to_line()}", f"isCorrect (learned): {verdict}",
                 f"least sure cell: p = {self.least_sure:.3f}", f"checkpoint: {self.checkpoint}"]
        if self.decoding is not None:
            d = self.decoding
            verdict = "n/a (no calibrated tau)" if d["valid"] is None else "valid" if d["valid"] else "invalid"
            margin = "none within the bound" if d["margin"] is None else f"{d['margin']:.2f} nats"
            tau = "none" if d["tau"] is None else f"{d['tau']:.2f}"
            lines.append(f"MAP decoding (reader + exact reasoning): {verdict}; most likely valid grid {d['grid']} "
                         f"(log-likelihood vs the reading: {margin}; tau {tau})")
        return lines


def load_cells(path: Path) -> np.ndarray:
    """(n*n, 28, 28) uint8 cell images of a .npz; UsageError says what is wrong with the file."""
    try:
        with np.load(path, allow_pickle=False) as npz:
            if "images" not in npz.files:
                raise UsageError(f"{path}: no 'images' array (found {', '.join(npz.files) or 'none'}); expected "
                                 f"images of shape (n*n, 28, 28) uint8, cells in row-major order")
            images = npz["images"]
    except (OSError, ValueError, zipfile.BadZipFile) as e:
        raise UsageError(f"{path}: not a readable .npz of cell images ({e})") from None
    if images.ndim == 4:
        images = images.reshape(-1, *images.shape[2:])
    cells = images.shape[0] if images.ndim == 3 else 0
    if images.ndim != 3 or images.shape[1:] != (28, 28) or cells not in (16, 81) or images.dtype != np.uint8:
        raise UsageError(f"{path}: images of shape {images.shape} {images.dtype}: expected (16, 28, 28) or "
                         f"(81, 28, 28) uint8 (a 4x4 or 9x9 board, cells in row-major order)")
    return images


def read_visual_board(path: Path, checkpoint: Path, device: str = "cpu") -> tuple[Board, VisualSection]:
    """The board the visual checkpoint reads from the cell images in `path`, and its section of the report."""
    import torch

    from ltn_sudoku.logic.checkpoint import CheckpointError
    from ltn_sudoku.logic.device import device_of, to_numpy
    from ltn_sudoku.logic.load import load_model

    images = load_cells(path)
    n = round(len(images) ** 0.5)
    try:
        model, ops, payload = load_model(checkpoint, device=device, kind="visual")
    except CheckpointError as e:
        raise UsageError(str(e)) from None
    if model.n != n:
        raise UsageError(f"{checkpoint}: a {model.n}x{model.n} visual model, the board in {path} is {n}x{n}")
    filled = images.reshape(len(images), -1).max(axis=1) >= BLANK_LEVEL
    with torch.no_grad():
        probs = model.has_value(torch.from_numpy(images).to(device_of(model))[None])[0]
        truth = float(model.is_correct(ops, probs[None])[0]) if filled.all() else None
    probs, names = to_numpy(probs), to_numpy(model.names)
    digits = np.where(filled, names[probs.argmax(-1)] + 1, 0)  # the checkpoint's digit names
    sure = probs.max(-1)[filled]
    board = Board(digits.tolist(), n)
    decoding = decoding_of(probs, names, map_tau(payload, checkpoint)) if filled.all() else None
    return board, VisualSection(board, truth, float(sure.min()) if sure.size else 1.0, str(checkpoint), decoding)


def map_tau(payload: dict[str, Any], checkpoint: Path) -> float | None:
    """The checkpoint's calibrated τ: stored in best.pt by training, or (checkpoints shipped before decoding existed)
    in the metrics file beside it that scripts/ship_visual.py writes; None if neither has one."""
    if "map_tau" in payload["extra"]:
        return float(payload["extra"]["map_tau"])
    metrics = checkpoint.with_suffix(".metrics.json")
    tau = json.loads(metrics.read_text()).get("map_tau") if metrics.is_file() else None
    return None if tau is None else float(tau)


def decoding_of(probs: np.ndarray, names: np.ndarray, tau: float | None) -> dict[str, object]:
    """The `map_decoding` answer: the most likely valid grid of the readings (in the checkpoint's digit names), its
    log-likelihood against the reading's, and the verdict at τ (ltn_sudoku.logic.visual.decode)."""
    from ltn_sudoku.logic.visual.decode import decode

    decoded = decode(probs)
    grid = None if decoded.grid is None else Board((names[decoded.grid - 1] + 1).tolist(), len(names)).to_line()
    return {"method": "learned reader + exact MAP decoding (most likely valid grid)", "grid": grid,
            "margin": None if decoded.grid is None else decoded.margin, "tau": tau,
            "valid": None if tau is None else decoded.valid(tau), "timed_out": decoded.timed_out}


def visual_input(args: argparse.Namespace) -> tuple[str, Iterator[BoardRecord], VisualSection]:
    """(name, the one read board as a record, its visual section) for `classify --visual-checkpoint`."""
    if args.path is None or args.path == "-":
        raise UsageError("--visual-checkpoint reads a .npz file of cell images: give its path")
    board, section = read_visual_board(Path(args.path), args.visual_checkpoint, getattr(args, "device", "cpu"))
    return args.path, iter([BoardRecord(board, 1)]), section
