"""A visual model's answers on one board of handwritten digits (classify-board's `visual` section), beside the board
model's answers (ltn_sudoku/logic/board/predict.py).

`read_visual_board(images, checkpoint)` runs the checkpoint's reader (hasValue) on the cell images: each filled cell
gets its most probable digit in the checkpoint's digit names; a closed board also gets isCorrect's truth and the MAP
decoding of the readings (the most likely valid grid, judged at the calibrated τ stored in best.pt or, for checkpoints
shipped before decoding existed, in the metrics file beside it). What cannot be answered (a checkpoint that is missing,
damaged or not visual, a board of another size) is a `VisualAnswerError`, which the command line reports as a usage
error. The images come as a (n*n, 28, 28) uint8 array (reading the file is the command's job: ltn_sudoku/cli/visual.py).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from ltn_sudoku.board import Board
from ltn_sudoku.logic.checkpoints import CheckpointError
from ltn_sudoku.logic.device import device_of, to_list, to_numpy
from ltn_sudoku.logic.visual.decode import decode
from ltn_sudoku.logic.visual.model import load_visual_model

BLANK_LEVEL = 32  # an image whose brightest pixel is darker than this is an empty cell


class VisualAnswerError(ValueError):
    """A visual checkpoint that cannot answer this board: its message names the file and what is wrong."""


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


def read_visual_board(images: np.ndarray, checkpoint: Path, device: str = "cpu",
                      source: str = "the board") -> tuple[Board, VisualSection]:
    """The board the visual checkpoint reads from (n*n, 28, 28) uint8 cell images (row-major), and its section of
    the report. VisualAnswerError: the checkpoint cannot answer (missing, damaged, not visual, another size);
    `source` names the images in it."""
    n = round(len(images) ** 0.5)
    try:
        model, ops, payload = load_visual_model(checkpoint, device=device)
    except CheckpointError as e:
        raise VisualAnswerError(str(e)) from None
    if model.n != n:
        raise VisualAnswerError(f"{checkpoint}: a {model.n}x{model.n} visual model, {source} is {n}x{n}")
    filled = images.reshape(len(images), -1).max(axis=1) >= BLANK_LEVEL
    with torch.no_grad():
        probs = model.has_value(torch.from_numpy(images).to(device_of(model))[None])[0]
        truth = float(to_list(model.is_correct(ops, probs[None]))[0]) if filled.all() else None
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
    decoded = decode(probs)
    grid = None if decoded.grid is None else Board((names[decoded.grid - 1] + 1).tolist(), len(names)).to_line()
    return {"method": "learned reader + exact MAP decoding (most likely valid grid)", "grid": grid,
            "margin": None if decoded.grid is None else decoded.margin, "tau": tau,
            "valid": None if tau is None else decoded.valid(tau), "timed_out": decoded.timed_out}
