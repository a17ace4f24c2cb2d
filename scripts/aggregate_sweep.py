#!/usr/bin/env python
"""Turn a Hydra sweep folder into one pandas table (a row per job: what it varied + its metrics) and a plot.

    python scripts/aggregate_sweep.py multirun/2026-01-01/12-00-00_train [--csv table.csv] [--plot plot.png]
        [--metric val/solve/board_accuracy] [--by logic.family] [--hue train.epochs]

Each job folder must hold metrics.json (written by ltn_sudoku.train) and Hydra's .hydra/config.yaml.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pandas as pd
from omegaconf import OmegaConf

CONFIG_COLUMNS = ("model.name", "logic.family", "logic.p_forall", "logic.p_exists", "train.epochs", "train.lr",
                  "train.batch_size", "train.supervised", "seed")
SUMMARY_COLUMNS = ("val/solve/board_accuracy", "val/has_solution/accuracy", "val/is_correct/accuracy",
                   "val/heuristics/macro_f1", "val/loss", "train/stopped_epoch", "train/cpu_seconds")


def job_row(job: Path) -> dict[str, object]:
    """One job's config values of interest and all its metrics."""
    config = OmegaConf.load(job / ".hydra" / "config.yaml")
    row: dict[str, object] = {"job": job.name}
    for key in CONFIG_COLUMNS:
        row[key] = OmegaConf.select(config, key)
    row.update(json.loads((job / "metrics.json").read_text()))
    return row


def sweep_table(folder: Path) -> pd.DataFrame:
    """All finished jobs of a sweep (folders with a metrics.json), sorted by their config."""
    jobs = sorted(p.parent for p in folder.rglob("metrics.json") if (p.parent / ".hydra" / "config.yaml").is_file())
    if not jobs:
        raise SystemExit(f"{folder}: no job with metrics.json and .hydra/config.yaml found")
    frame = pd.DataFrame([job_row(job) for job in jobs])
    keys = [c for c in CONFIG_COLUMNS if frame[c].nunique(dropna=False) > 1] or ["job"]
    return frame.sort_values(keys).reset_index(drop=True)


def plot(frame: pd.DataFrame, metric: str, by: str, hue: str, path: Path) -> None:
    """Grouped bars of one metric: groups by `by`, bars by `hue`."""
    from _plotting import new_axes, save

    table = frame.pivot_table(index=by, columns=hue, values=metric, aggfunc="mean")
    figure, axes = new_axes((7, 4))
    table.plot.bar(ax=axes, rot=0)
    axes.set_ylabel(metric)
    axes.set_title(f"{metric} by {by} and {hue}")
    axes.legend(title=hue)
    save(figure, path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="a Hydra sweep folder (multirun/...)")
    parser.add_argument("--csv", type=Path, help="write the whole table here")
    parser.add_argument("--plot", type=Path, help="write a bar plot of --metric here (PNG)")
    parser.add_argument("--metric", default="val/solve/board_accuracy")
    parser.add_argument("--by", default="logic.family")
    parser.add_argument("--hue", default="train.epochs")
    args = parser.parse_args(argv)
    frame = sweep_table(args.folder)
    shown = [c for c in ("job", *CONFIG_COLUMNS, *SUMMARY_COLUMNS) if c in frame.columns]
    with pd.option_context("display.width", 200, "display.max_columns", 30):
        print(frame[shown].to_string(index=False, float_format=lambda v: f"{v:.4f}"))
    if args.csv:
        frame.to_csv(args.csv, index=False)
    if args.plot:
        if args.metric not in frame.columns:
            print(f"no metric {args.metric!r} in the sweep", file=sys.stderr)
            return 2
        plot(frame, args.metric, args.by, args.hue, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
