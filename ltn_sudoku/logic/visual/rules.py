"""A visual model's rules between config keys (its entry `rules` in ltn_sudoku/logic/kinds.py: KINDS): trained and
scored by the training entry point only, and its MNIST files where data.mnist_path says."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from omegaconf import DictConfig

from ltn_sudoku.logic.visual.mnist import FILES


def visual_rules(cfg: DictConfig, entry: str) -> Iterator[str]:
    """The rules between a visual model's keys, for this entry point ('train' or 'evaluate')."""
    if entry != "train":
        yield (f"model={cfg.model.name}: visual models are trained and scored by `python -m ltn_sudoku.train` "
               "(test figures in its metrics.json) and scripts/bench_visual.py")
    folder = Path(str(cfg.data.mnist_path))
    missing = [name for pair in FILES.values() for name in pair if not (folder / name).is_file()]
    if missing:
        yield (f"data.mnist_path={folder}: MNIST idx files not found there ({', '.join(missing)}; "
               f"looked in {folder.resolve()})")
