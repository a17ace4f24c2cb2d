"""`classify-board CELLS.npz --visual-checkpoint PT`: a board of handwritten digits, read by a visual model.

Input layout (documented in docs/visual.md): a NumPy .npz holding `images`, uint8, shape (n*n, 28, 28) or
(n, n, 28, 28), n = 4 or 9, the cells in row-major order (cell r*n + c), each an MNIST-style image (white digit on
black). An all-black image (every pixel below ltn_sudoku.logic.visual.answer.BLANK_LEVEL) is an empty cell, so open
boards can be given too. This module reads the file; the model runs in ltn_sudoku/logic/visual/answer.py (its reader
gives each filled cell its most probable digit; Q1/Q2/Q3 then run on that board exactly as on a typed one, and a
section adds the learned answer: isCorrect's truth on a closed board, and how sure the reading was).
"""

from __future__ import annotations

import argparse
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ltn_sudoku.board import Board
from ltn_sudoku.cli import UsageError
from ltn_sudoku.io import BoardRecord

if TYPE_CHECKING:  # the model's side imports torch: only when a visual checkpoint answers
    from ltn_sudoku.logic.visual.answer import VisualSection


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
    """The board the visual checkpoint reads from the cell images in `path`, and its section of the report;
    UsageError says what is wrong with the file or the checkpoint."""
    from ltn_sudoku.logic.visual import answer as visual

    try:
        return visual.read_visual_board(load_cells(path), checkpoint, device, source=f"the board in {path}")
    except visual.VisualAnswerError as e:
        raise UsageError(str(e)) from None


def visual_input(args: argparse.Namespace) -> tuple[str, Iterator[BoardRecord], VisualSection]:
    """(name, the one read board as a record, its visual section) for `classify --visual-checkpoint`."""
    if args.path is None or args.path == "-":
        raise UsageError("--visual-checkpoint reads a .npz file of cell images: give its path")
    board, section = read_visual_board(Path(args.path), args.visual_checkpoint, getattr(args, "device", "cpu"))
    return args.path, iter([BoardRecord(board, 1)]), section
