"""The visual trainer: `python -m ltn_sudoku.train model=visual_4x4` (ltn_sudoku.train hands visual configs here).

Training reads `BoardImages` only (cell images and valid / invalid board labels): `fit` has no way to receive a
digit label, and model selection uses the validation boards' labels, not their digits. The loss is 1 − SatAgg of
the labelled axioms ∀b:valid(b) isCorrect(b), ∀b:¬valid(b) ¬isCorrect(b) and, with weight `train.rules_weight`,
of the rule axioms themselves on the valid boards (the knowledge base says a valid board satisfies them all; this is
the same fact as the first labelled axiom, without the calibration in between; see
ltn_sudoku/logic/visual/objective.py for which part teaches the reader). A run writes last.pt (weights, resolved config, epoch and
the training state: `train.resume=.../last.pt` goes on from there as an uninterrupted run would) / best.pt (weights,
config, epoch, through ltn_sudoku.logic.checkpoint), TensorBoard events under tb/, and metrics.json with the
held-out test figures.
"""

from __future__ import annotations

import json
import logging
import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch
from omegaconf import DictConfig, OmegaConf
from torch.utils.tensorboard import SummaryWriter
from tqdm import tqdm

from ltn_sudoku.io import atomic_write_text
from ltn_sudoku.logic.checkpoint import CheckpointError, load_checkpoint, save_checkpoint
from ltn_sudoku.logic.device import device_of, to_numpy
from ltn_sudoku.logic.operators import Operators, build_operators
from ltn_sudoku.logic.runtime import configure_torch, run_directory
from ltn_sudoku.logic.visual.abduce import NO_GRID, SELF_TRAIN_FROM, abduced_grids
from ltn_sudoku.logic.visual.baselines import minibatches, read_probabilities
from ltn_sudoku.logic.visual.boards import BoardImages
from ltn_sudoku.logic.visual.data import VisualData, build_data
from ltn_sudoku.logic.visual.decode import BOUND, best_threshold_accuracy, decode_boards, map_decoding_metrics, margins
from ltn_sudoku.logic.visual.evaluate import BoardScores, best_permutation, confusion, crisp_valid, digit_accuracy
from ltn_sudoku.logic.visual.model import VisualConfig, VisualLtn
from ltn_sudoku.logic.visual.objective import objective

LOG = logging.getLogger(__name__)
# train.monitor: model selection by isCorrect's validation board accuracy (learned) or by the reader + MAP decoding's
VISUAL_MONITORS: tuple[str, ...] = ("val/board_accuracy", "val/map_decoding/board_accuracy")
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


def fit(model: VisualLtn, ops: Operators, train: BoardImages, val: BoardImages, cfg: DictConfig,
        writer: SummaryWriter | None,
        on_epoch: Callable[[int, bool, dict[str, float], dict[str, Any]], None] | None = None,
        resumed: dict[str, Any] | None = None) -> dict[str, float]:
    """Train on board images and board labels only; returns the best epoch's validation figures.

    `on_epoch(epoch, improved, metrics, state)` is called after each epoch (checkpointing; `state` is what a resumed
    run needs: optimizer, the seeded generator's state, best, stale, boards seen, CPU seconds); it never sees digits.
    `resumed`: such a state and its epoch (a last.pt's extra), to go on from the next epoch as an uninterrupted run."""
    t = cfg.train
    device = torch.device(str(cfg.get("device_resolved", "cpu")))
    images, valid = torch.from_numpy(train.images).to(device), torch.from_numpy(train.valid).to(device)
    val_images, val_valid = torch.from_numpy(val.images).to(device), val.valid
    optimizer = torch.optim.Adam(model.parameters(), lr=float(t.lr))
    generator = torch.Generator().manual_seed(int(cfg.seed))
    monitor = str(t.get("monitor", VISUAL_MONITORS[0]))
    best: dict[str, float] = {monitor: -math.inf}
    stale, seen, elapsed, start_epoch = 0, 0, 0.0, 0
    if resumed is not None:
        optimizer.load_state_dict(resumed["optimizer"])
        generator.set_state(resumed["generator"])
        best, stale, seen = dict(resumed["best"]), int(resumed["stale"]), int(resumed["boards_seen"])
        elapsed, start_epoch = float(resumed["train_seconds"]), int(resumed["epoch"]) + 1
        if stale > int(t.patience):
            return best
    for epoch in range(start_epoch, int(t.epochs)):
        started = time.process_time()
        model.train()
        abduced = abduction(model, train, t, epoch)
        with_grid = 0.0
        if abduced is not None and bool(valid.any()):
            with_grid = float((abduced[to_numpy(valid)][:, 0] != NO_GRID).sum()) / int(valid.sum())
            if writer is not None:
                writer.add_scalar("abduce/valid_boards_with_grid", with_grid, seen)
        # rotation and scaling wait for abduction to explain half the valid boards when asked (the 9x9 model): with
        # them from the start one 9x9 split never left the rules-only phase (docs/visual.md)
        warp = not bool(t.get("warp_once_explained", False)) or with_grid >= SELF_TRAIN_FROM
        degrees, scale = (float(t.get("rotate", 0.0)), float(t.get("scale", 0.0))) if warp else (0.0, 0.0)
        batches = list(minibatches(len(valid), int(t.batch_size), generator))
        for rows in tqdm(batches, desc=f"epoch {epoch + 1}/{t.epochs}", unit="batch", disable=not t.progress):
            batch = warped(images[rows], int(t.get("shift", 0)), degrees, scale, generator)
            result = objective(model, ops, batch, valid[rows], float(t.rules_weight), bool(t.labels_teach_reader),
                               None if abduced is None else abduced[rows].to(device),  # host grids
                               float(t.get("abduce_weight", 0.0)))
            loss, parts = result.loss, result.satisfaction
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            seen += len(rows)
            if writer is not None:
                writer.add_scalar("train/loss", loss.item(), seen)
                for name, value in parts.items():
                    writer.add_scalar(f"sat/{name}", value, seen)
        elapsed += time.process_time() - started
        model.eval()
        predicted = to_numpy(is_correct_truth(model, ops, val_images) > 0.5)
        metrics = {**BoardScores.of(predicted, val_valid).as_dict("val"), "train/epoch": epoch + 1,
                   "train/boards_seen": seen, "train/cpu_seconds": elapsed}
        if monitor == VISUAL_MONITORS[1]:
            metrics[monitor] = map_decoding_accuracy(model, val, t, epoch)
        if writer is not None:
            for name, value in metrics.items():
                writer.add_scalar(name, value, seen)
        improved = metrics[monitor] >= best[monitor]  # a tie: the later, longer trained
        best, stale = (metrics, 0) if improved else (best, stale + 1)
        if on_epoch is not None:
            on_epoch(epoch, improved, metrics, {"optimizer": optimizer.state_dict(), "generator": generator.get_state(),
                                                "best": best, "stale": stale, "boards_seen": seen,
                                                "train_seconds": elapsed})
        if stale > int(t.patience):
            break
    return best


def test_metrics(model: VisualLtn, ops: Operators, data: VisualData) -> dict[str, float]:
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
                                    read_probabilities(model.reader, data.test.boards), data.test.boards.valid))
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


def train_visual(cfg: DictConfig, data: VisualData | None = None) -> dict[str, float]:
    """Train one visual model as configured; returns (and writes to metrics.json) validation and test figures.

    `data` replaces the boards the config would build (tests pass their own)."""
    configure_torch(cfg)
    run_dir = run_directory(cfg)
    model_config = VisualConfig.from_cfg(OmegaConf.to_container(cfg.model, resolve=True))  # type: ignore[arg-type]
    n = model_config.size
    data = data if data is not None else build_data(n, cfg.data, int(cfg.seed))
    torch.manual_seed(int(cfg.seed))
    model = VisualLtn(model_config).to(cfg.device_resolved)
    ops = build_operators(cfg.logic)
    resolved = OmegaConf.to_container(cfg, resolve=True)
    resumed = resume(cfg, model, run_dir)
    writer = SummaryWriter(str(run_dir / "tb"), purge_step=None if resumed is None else int(resumed["boards_seen"]))
    wall = time.perf_counter()

    def checkpoint(epoch: int, improved: bool, metrics: dict[str, float], state: dict[str, Any]) -> None:
        extra = {"epoch": epoch, "metrics": metrics}
        save_checkpoint(run_dir / "last.pt", n, resolved, model.state_dict(),  # type: ignore[arg-type]
                        {**extra, **state})
        if improved:
            save_checkpoint(run_dir / "best.pt", n, resolved, model.state_dict(), extra)  # type: ignore[arg-type]
        decoded = metrics.get(VISUAL_MONITORS[1])
        LOG.info("epoch %d: val board accuracy %.4f%s%s", epoch + 1, metrics["val/board_accuracy"],
                 "" if decoded is None else f", with MAP decoding {decoded:.4f}", " (best)" if improved else "")

    best = fit(model, ops, data.train.boards, data.val.boards, cfg, writer, checkpoint, resumed)
    payload = load_checkpoint(run_dir / "best.pt", n)
    model.load_state_dict(payload["state_dict"])
    names = name_digits(model, data)
    metrics = {**best, **test_metrics(model, ops, data), "train/wall_seconds": time.perf_counter() - wall,
               "train/boards": float(len(data.train))}
    save_checkpoint(run_dir / "best.pt", n, resolved, model.state_dict(),  # type: ignore[arg-type]
                    {**payload["extra"], "digit_names": names, "map_tau": metrics["test/map_decoding/tau"]})
    writer.add_hparams({k: v for k, v in _flat(resolved).items()}, {k: v for k, v in metrics.items()
                                                                     if math.isfinite(v)}, run_name="hparams")
    writer.close()
    atomic_write_text(run_dir / "metrics.json", json.dumps(metrics, indent=2, sort_keys=True) + "\n")
    LOG.info("test: isCorrect board accuracy %.4f, digit accuracy %.4f", metrics["test/board_accuracy"],
             metrics["test/digit_accuracy"])
    return metrics


def resume(cfg: DictConfig, model: VisualLtn, run_dir: Path) -> dict[str, Any] | None:
    """With train.resume=PATH (a last.pt): its weights into `model`, its best.pt copied into this run's folder (the
    best epoch so far), and its training state for `fit`; None without."""
    path = cfg.train.get("resume")
    if not path:
        return None
    payload = load_checkpoint(path, model.n)
    model.load_state_dict(payload["state_dict"])
    if "optimizer" not in payload["extra"]:
        raise CheckpointError(f"{path}: no training state to resume from (a best.pt? resume from last.pt)")
    best = Path(str(path)).with_name("best.pt")
    if best.resolve() != (run_dir / "best.pt").resolve():
        previous = load_checkpoint(best, model.n)
        save_checkpoint(run_dir / "best.pt", model.n, previous["config"], previous["state_dict"], previous["extra"])
    return payload["extra"]


def _flat(resolved: Any) -> dict[str, Any]:
    """Scalar hyperparameters of the model, logic, train and data groups (TensorBoard's HParams tab)."""
    return {f"{group}.{k}": v for group in ("model", "logic", "train", "data")
            for k, v in resolved.get(group, {}).items() if isinstance(v, (int, float, str, bool))}


def board_predictions(model: VisualLtn, ops: Operators, boards: BoardImages) -> tuple[np.ndarray, np.ndarray]:
    """(isCorrect truth (boards,), read digits (boards, n*n)) of boards of images."""
    images = torch.from_numpy(boards.images).to(device_of(model))
    return to_numpy(is_correct_truth(model, ops, images)), to_numpy(model.read(images))
