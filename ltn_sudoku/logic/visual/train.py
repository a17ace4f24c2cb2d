"""The visual models' part of training: `VisualTask` (a `TrainingTask`, ltn_sudoku/logic/training/task.py), which the one loop
(ltn_sudoku/logic/training/loop.py: `python -m ltn_sudoku.train model=visual_4x4`) drives, with DDP and resume as for every
kind; also augmentation, abduction per epoch and the held-out test figures.

Training reads `BoardImages` only (cell images and valid / invalid board labels): the task has no way to receive a
digit label, and model selection uses the validation boards' labels, not their digits. The loss is 1 − SatAgg of
the labelled axioms ∀b:valid(b) isCorrect(b), ∀b:¬valid(b) ¬isCorrect(b) and, with weight `train.rules_weight`,
of the rule axioms themselves on the valid boards (the knowledge base says a valid board satisfies them all; this is
the same fact as the first labelled axiom, without the calibration in between; see
ltn_sudoku/logic/visual/objective.py for which part teaches the reader). Beyond the loop's files, best.pt holds the
digits' display names and MAP decoding's τ, last.pt the seeded generator of batches and augmentation, and
metrics.json the held-out test figures.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from omegaconf import DictConfig, OmegaConf

from ltn_sudoku.logic.checkpoints import load_checkpoint, save_checkpoint
from ltn_sudoku.logic.config.vocabulary import VISUAL_MONITORS
from ltn_sudoku.logic.device import device_of, to_numpy
from ltn_sudoku.logic.kb.aggregate import BatchResult, Gather
from ltn_sudoku.logic.kb.operators import Operators, build_operators
from ltn_sudoku.logic.training.task import PICTURE_BOARDS, EpochBatches, Outcome, Step, Writer
from ltn_sudoku.logic.visual.abduce import NO_GRID, SELF_TRAIN_FROM, abduced_grids
from ltn_sudoku.logic.visual.baselines import minibatches, read_probabilities
from ltn_sudoku.logic.visual.boards import BoardImages
from ltn_sudoku.logic.visual.data import VisualData, build_data
from ltn_sudoku.logic.visual.decode import (
    BOUND,
    TIME_LIMIT,
    best_threshold_accuracy,
    decode_boards,
    map_decoding_metrics,
    margins,
)
from ltn_sudoku.logic.visual.evaluate import BoardScores, best_permutation, confusion, crisp_valid, digit_accuracy
from ltn_sudoku.logic.visual.model import VisualConfig, VisualLtn
from ltn_sudoku.logic.visual.objective import objective
from ltn_sudoku.render.raster import reader_images

LOG = logging.getLogger(__name__)
# train.monitor: model selection by isCorrect's validation board accuracy (learned) or by the reader + MAP decoding's
MONITOR_TIME_LIMIT = 0.25  # CPU seconds of RC2 per validation board when monitoring MAP decoding


def shifted(images: torch.Tensor, pixels: int, generator: torch.Generator) -> torch.Tensor:
    """Each image moved by its own random offset of up to `pixels` in each direction (zero fill): augmentation that
    leaves every digit, so every board label, as it was; it keeps the reader from memorising the few training
    images into labellings that satisfy each board's rules without being a digit reader."""
    if pixels <= 0:
        return images
    lead = images.shape[:-2]
    flat = images.reshape(-1, 28, 28)
    count = len(flat)
    padded = torch.nn.functional.pad(flat, (pixels, pixels, pixels, pixels))
    dy, dx = (torch.randint(0, 2 * pixels + 1, (2, count), generator=generator)).to(images.device)
    grid = torch.arange(28, device=images.device)
    rows = (grid[None, :] + dy[:, None])[:, :, None]
    cols = (grid[None, :] + dx[:, None])[:, None, :]
    return padded[torch.arange(count, device=images.device)[:, None, None], rows, cols].reshape(*lead, 28, 28)


def warped(images: torch.Tensor, pixels: int, degrees: float, scale: float, generator: torch.Generator
           ) -> torch.Tensor:
    """Each image rotated by up to ±`degrees`, scaled by a factor within 1 ± `scale` and moved by up to `pixels`
    (its own random draw of each; bilinear, zero fill): the small affine distortions that leave a handwritten digit
    what it is (Simard et al., 2003), so every board label stays as it was. With `degrees` and `scale` 0 this is
    `shifted`, draw for draw."""
    if degrees <= 0 and scale <= 0:
        return shifted(images, pixels, generator)
    lead = images.shape[:-2]
    flat = images.reshape(-1, 1, 28, 28).float()
    if images.dtype == torch.uint8:
        flat = flat / 255.0
    count = len(flat)
    draws = torch.rand((4, count), generator=generator)  # host: the seeded CPU generator's draws
    angle, zoom, dy, dx = (2 * draws - 1).to(images.device)
    angle, zoom = angle * math.radians(degrees), 1 + zoom * scale
    cos, sin = torch.cos(angle) / zoom, torch.sin(angle) / zoom  # the grid maps output to input: inverse zoom
    theta = torch.stack([torch.stack([cos, -sin, dx * 2 * pixels / 28], -1),
                         torch.stack([sin, cos, dy * 2 * pixels / 28], -1)], 1)
    grid = torch.nn.functional.affine_grid(theta, [count, 1, 28, 28], align_corners=False)
    out = torch.nn.functional.grid_sample(flat, grid, align_corners=False, padding_mode="zeros")
    return out.reshape(*lead, 28, 28)


@torch.no_grad()
def is_correct_truth(model: VisualLtn, ops: Operators, images: torch.Tensor, batch: int = 128) -> torch.Tensor:
    """(boards,) isCorrect's truth on boards of images."""
    return torch.cat([model.is_correct(ops, model.has_value(images[i:i + batch]))
                      for i in range(0, len(images), batch)]) if len(images) else torch.zeros(0, device=images.device)


def abduction(model: VisualLtn, train: BoardImages, t: DictConfig, epoch: int) -> torch.Tensor | None:
    """(boards, n*n) the abduced grids of the training boards for this epoch (ltn_sudoku.logic.visual.abduce), or None
    while abduction is off (`train.abduce_weight` 0) or before `train.abduce_from_epoch` (1-based)."""
    if float(t.get("abduce_weight", 0.0)) <= 0 or epoch + 1 < int(t.get("abduce_from_epoch", 1)):
        return None
    return torch.from_numpy(abduced_grids(model.reader, train, float(t.get("abduce_bound", BOUND)),
                                          float(t.get("self_train_confident", 0.0))))


def map_decoding_accuracy(model: VisualLtn, val: BoardImages, t: DictConfig, epoch: int) -> float:
    """The `val/map_decoding/board_accuracy` monitor: validation board accuracy of the reader + MAP decoding at the best
    τ for those same boards (model selection only: how well the margins separate the labels; the test figure
    calibrates τ on validation and scores the held-out boards). Before `train.abduce_from_epoch` (with abduction on)
    it is −inf: an early reader's near-uniform readings cost RC2 up to a second per board, and no such epoch would be
    chosen."""
    if float(t.get("abduce_weight", 0.0)) > 0 and epoch + 1 < int(t.get("abduce_from_epoch", 1)):
        return -math.inf
    margin = margins(decode_boards(read_probabilities(model.reader, val), time_limit=MONITOR_TIME_LIMIT))
    return best_threshold_accuracy(margin, val.valid)


def test_metrics(model: VisualLtn, ops: Operators, data: VisualData, time_limit: float = TIME_LIMIT
                 ) -> dict[str, float]:
    """Held-out figures: isCorrect's board accuracy, the exact check of the read digits, MAP decoding of the readings
    (learned reader + symbolic reasoning; τ from the validation boards' labels, ltn_sudoku.logic.visual.decode),
    permutation-matched digit accuracy (the test digits are read here, after training, for evaluation only)."""
    n = model.n
    images = torch.from_numpy(data.test.boards.images).to(device_of(model))
    truth = to_numpy(is_correct_truth(model, ops, images))
    raw = to_numpy(model.read_raw(images))
    out = BoardScores.of(truth > 0.5, data.test.boards.valid).as_dict("test")
    out.update(BoardScores.of(crisp_valid(raw, n), data.test.boards.valid).as_dict("test/read_then_check"))
    out.update(map_decoding_metrics(read_probabilities(model.reader, data.val.boards), data.val.boards.valid,
                                    read_probabilities(model.reader, data.test.boards), data.test.boards.valid,
                                    time_limit=time_limit))
    out["test/digit_accuracy"] = digit_accuracy(raw, data.test.digits, n)
    out["test/digit_accuracy_val_names"] = float((to_numpy(model.read(images)) == data.test.digits).mean())
    out["test/boards"] = float(len(data.test))
    return out


def name_digits(model: VisualLtn, data: VisualData) -> list[int]:
    """After training, for display only: call each learned digit by the true digit it is most often on the validation
    boards (best one-to-one renaming); sets model.names and returns it. Training never reads this."""
    images = torch.from_numpy(data.val.boards.images).to(device_of(model))
    raw = to_numpy(model.read_raw(images))
    names = best_permutation(confusion(raw, data.val.digits, model.n))
    model.names.copy_(torch.as_tensor(names, device=model.names.device))
    return [int(x) for x in names]


@dataclass(frozen=True)
class VisualBatch:
    """One batch of training boards: their (augmented) images, board labels and abduced grids (or None)."""

    images: torch.Tensor
    valid: torch.Tensor
    abduced: torch.Tensor | None

    def __len__(self) -> int:
        return len(self.valid)

    def select(self, rows: torch.Tensor) -> VisualBatch:
        return VisualBatch(self.images[rows], self.valid[rows], None if self.abduced is None else self.abduced[rows])


class VisualTask:
    """Training of a visual model (a `TrainingTask`, ltn_sudoku/logic/training/task.py) on board images and board labels only:
    nothing here can receive a digit label; model selection reads the validation boards' labels, not their digits."""

    ties_improve = True  # a tie: the later, longer trained

    def __init__(self, cfg: DictConfig, data: VisualData | None = None) -> None:
        self.cfg = cfg
        config = VisualConfig.from_cfg(OmegaConf.to_container(cfg.model, resolve=True))  # type: ignore[arg-type]
        self.data = data if data is not None else build_data(config.size, cfg.data, int(cfg.seed))
        torch.manual_seed(int(cfg.seed))
        self.device = torch.device(str(cfg.device_resolved))
        self.model = VisualLtn(config).to(self.device)
        self.ops = build_operators(cfg.logic)
        self.monitor = str(cfg.train.get("monitor", VISUAL_MONITORS[0]))
        train = self.data.train.boards
        self.images = torch.from_numpy(train.images).to(self.device)
        self.valid = torch.from_numpy(train.valid).to(self.device)
        self.val_images = torch.from_numpy(self.data.val.boards.images).to(self.device)
        self.train_size = len(train.valid)
        self.generator = torch.Generator().manual_seed(int(cfg.seed))  # batch order and augmentation

    def optimizer(self) -> torch.optim.Optimizer:
        return torch.optim.Adam(self.model.parameters(), lr=float(self.cfg.train.lr))

    def step(self) -> Step:
        t, ops = self.cfg.train, self.ops
        rules_weight, teach = float(t.rules_weight), bool(t.labels_teach_reader)
        abduce_weight = float(t.get("abduce_weight", 0.0))

        def step(model: torch.nn.Module, batch: VisualBatch, gather: Gather) -> BatchResult:
            return objective(model, ops, batch.images, batch.valid, rules_weight, teach,  # type: ignore[arg-type]
                             batch.abduced, abduce_weight, gather=gather)

        return step

    def epoch(self, epoch: int, writer: Writer, seen: int) -> EpochBatches:
        t = self.cfg.train
        abduced = abduction(self.model, self.data.train.boards, t, epoch)
        with_grid = 0.0
        if abduced is not None and bool(self.valid.any()):
            with_grid = float((abduced[to_numpy(self.valid)][:, 0] != NO_GRID).sum()) / int(self.valid.sum())
            writer.add_scalar("abduce/valid_boards_with_grid", with_grid, seen)
        # rotation and scaling wait for abduction to explain half the valid boards when asked (the 9x9 model): with
        # them from the start one 9x9 split never left the rules-only phase (docs/visual.md)
        warp = not bool(t.get("warp_once_explained", False)) or with_grid >= SELF_TRAIN_FROM
        degrees, scale = (float(t.get("rotate", 0.0)), float(t.get("scale", 0.0))) if warp else (0.0, 0.0)
        order = list(minibatches(len(self.valid), int(t.batch_size), self.generator))

        def batches() -> Iterator[VisualBatch]:  # augmented as the loop reaches each: one batch of images at a time
            for rows in order:
                yield VisualBatch(warped(self.images[rows], int(t.get("shift", 0)), degrees, scale, self.generator),
                                  self.valid[rows], None if abduced is None else abduced[rows].to(self.device))

        return EpochBatches(batches(), len(order))

    def validate(self, epoch: int) -> dict[str, float]:
        self.model.eval()
        predicted = to_numpy(is_correct_truth(self.model, self.ops, self.val_images) > 0.5)
        metrics = BoardScores.of(predicted, self.data.val.boards.valid).as_dict("val")
        if self.monitor == VISUAL_MONITORS[1]:
            metrics[self.monitor] = map_decoding_accuracy(self.model, self.data.val.boards, self.cfg.train, epoch)
        return metrics

    def pictures(self) -> dict[str, np.ndarray]:
        """The first PICTURE_BOARDS validation boards' cell images beside the digits the reader reads in them now
        (no digit label is read: a misreading shows as the wrong digit beside its image)."""
        k = min(PICTURE_BOARDS, len(self.val_images))
        if k == 0:
            return {}
        read = to_numpy(self.model.read(self.val_images[:k]))
        return {"val/reader": reader_images(self.data.val.boards.images[:k], read)}

    def checkpoint_extra(self) -> dict[str, Any]:
        return {}

    def training_state(self) -> dict[str, Any]:
        return {"generator": self.generator.get_state()}

    def restore(self, extra: Mapping[str, Any], start_epoch: int) -> None:
        self.generator.set_state(extra["generator"])

    def load_weights(self, state_dict: Mapping[str, torch.Tensor]) -> None:
        self.model.load_state_dict(state_dict)

    def describe(self, metrics: Mapping[str, float]) -> str:
        decoded = metrics.get(VISUAL_MONITORS[1])
        return (f"val board accuracy {metrics['val/board_accuracy']:.4f}"
                + ("" if decoded is None else f", with MAP decoding {decoded:.4f}"))

    def finish(self, outcome: Outcome, run_dir: Path, config: dict[str, Any], is_main: bool) -> dict[str, float]:
        """The best epoch's validation figures and, on rank 0, the held-out test figures of best.pt, which then also
        holds the digits' display names and MAP decoding's τ."""
        if not is_main:
            return dict(outcome.best)
        n = self.model.n
        payload = load_checkpoint(run_dir / "best.pt", n)
        self.model.load_state_dict(payload["state_dict"])
        names = name_digits(self.model, self.data)
        limit = float(self.cfg.train.get("decode_time_limit", TIME_LIMIT))  # runs from before the key: the default
        metrics = {**outcome.best, **test_metrics(self.model, self.ops, self.data, limit),
                   "train/boards": float(len(self.data.train))}
        save_checkpoint(run_dir / "best.pt", n, config, self.model.state_dict(),
                        {**payload["extra"], "digit_names": names, "map_tau": metrics["test/map_decoding/tau"]})
        LOG.info("test: isCorrect board accuracy %.4f, digit accuracy %.4f", metrics["test/board_accuracy"],
                 metrics["test/digit_accuracy"])
        return metrics

    def provenance(self) -> dict[str, Any]:
        return {}


def board_predictions(model: VisualLtn, ops: Operators, boards: BoardImages) -> tuple[np.ndarray, np.ndarray]:
    """(isCorrect truth (boards,), read digits (boards, n*n)) of boards of images."""
    images = torch.from_numpy(boards.images).to(device_of(model))
    return to_numpy(is_correct_truth(model, ops, images)), to_numpy(model.read(images))
