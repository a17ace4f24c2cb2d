#!/usr/bin/env python
"""Turn a Hydra sweep folder into one pandas table (a row per job: what it varied + its metrics), the seeds
aggregated, and a plot with its baselines.

    python scripts/aggregate_sweep.py multirun/2026-01-01/12-00-00_train [--csv table.csv] [--plot plot.png]
        [--metric val/solve/board_accuracy] [--by logic.family] [--hue train.epochs] [--summary summary.csv]

Each job folder must hold metrics.json (written by ltn_sudoku.train) and Hydra's .hydra/config.yaml. Jobs that differ
only in `seed` are one setting: the summary gives, per setting and metric, the number of seeds, the mean and its 95 %
interval (Student's t over the seeds; none for a single seed). The plot draws each setting's mean with that interval
and, beside it, the metric's baseline from the same runs (BASELINES: a trivial predictor's figure on the same
validation boards, recorded in metrics.json or computed from the config), so no learned figure stands alone.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Callable

import pandas as pd
from omegaconf import OmegaConf

CONFIG_COLUMNS = ("model.name", "logic.family", "logic.p_forall", "logic.p_exists", "train.epochs", "train.lr",
                  "train.batch_size", "train.supervised", "seed")
SUMMARY_COLUMNS = ("val/solve/board_accuracy", "val/has_solution/accuracy", "val/is_correct/accuracy",
                   "val/heuristics/macro_f1", "val/loss", "train/stopped_epoch", "train/cpu_seconds")
# Student's t, 97.5 % quantile, by degrees of freedom (1..30; 1.96 beyond): a 95 % interval without scipy
T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
        2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042)


def majority_accuracy(row: pd.Series, positive: str, negative: str) -> float | None:
    """Accuracy of always answering the validation set's larger class (its sizes from the job's config)."""
    try:
        p, n = float(row[positive]), float(row[negative])
    except (KeyError, TypeError, ValueError):
        return None
    return max(p, n) / (p + n) if p + n > 0 else None


# metric -> (the baseline's name, how to read it off a job's row): trivial predictors on the same validation boards
BASELINES: dict[str, tuple[str, Callable[[pd.Series], float | None]]] = {
    "val/solve/board_accuracy": ("singles loop", lambda r: r.get("val/solve/singles_loop")),
    "val/heuristics/macro_f1": ("always yes", lambda r: r.get("val/heuristics/always_yes_macro_f1")),
    "val/has_solution/accuracy": ("majority class", lambda r: majority_accuracy(
        r, "data.val.solvable", "data.val.impossible")),
    "val/is_correct/accuracy": ("majority class", lambda r: majority_accuracy(
        r, "data.val.closed_valid", "data.val.closed_invalid")),
}
BASELINE_CONFIG = ("data.val.solvable", "data.val.impossible", "data.val.closed_valid", "data.val.closed_invalid")


def job_row(job: Path) -> dict[str, object]:
    """One job's config values of interest and all its metrics."""
    config = OmegaConf.load(job / ".hydra" / "config.yaml")
    row: dict[str, object] = {"job": job.name}
    for key in (*CONFIG_COLUMNS, *BASELINE_CONFIG):
        row[key] = OmegaConf.select(config, key, default=None)
    row.update(json.loads((job / "metrics.json").read_text()))
    return row


SINGLES_LOOP = "val/solve/singles_loop"


def singles_loop_from_config(config_file: Path, cache: dict[str, float]) -> float:
    """The singles loop's solved share on a job's validation puzzles, for jobs run before validation recorded it:
    the puzzles are rebuilt from the job's config (seeded: the same boards the job validated on). One computation per
    distinct data config."""
    from ltn_sudoku.logic.board.data import build_splits
    from ltn_sudoku.logic.board.model import ModelConfig
    from ltn_sudoku.logic.board.task import singles_loop_share

    config = OmegaConf.load(config_file)
    key = json.dumps([OmegaConf.to_container(config.data, resolve=False), config.seed, config.model.size])
    if key not in cache:
        splits = build_splits(config, ModelConfig.from_cfg(config.model))  # type: ignore[arg-type]
        cache[key] = singles_loop_share(splits.val_puzzles, int(config.model.size))
    return cache[key]


def with_singles_loop(frame: pd.DataFrame, folder: Path) -> pd.DataFrame:
    """Fill val/solve/singles_loop where a job's metrics lack it (rebuilt from its config)."""
    cache: dict[str, float] = {}
    frame = frame.copy()
    if SINGLES_LOOP not in frame.columns:
        frame[SINGLES_LOOP] = float("nan")
    for i, row in frame.iterrows():
        if pd.isna(row[SINGLES_LOOP]):
            job = next(p.parent for p in folder.rglob(".hydra") if p.parent.name == row["job"])
            frame.at[i, SINGLES_LOOP] = singles_loop_from_config(job / ".hydra" / "config.yaml", cache)
    return frame


def sweep_table(folder: Path) -> pd.DataFrame:
    """All finished jobs of a sweep (folders with a metrics.json), sorted by their config."""
    jobs = sorted(p.parent for p in folder.rglob("metrics.json") if (p.parent / ".hydra" / "config.yaml").is_file())
    if not jobs:
        raise SystemExit(f"{folder}: no job with metrics.json and .hydra/config.yaml found")
    frame = pd.DataFrame([job_row(job) for job in jobs])
    keys = [c for c in CONFIG_COLUMNS if frame[c].nunique(dropna=False) > 1] or ["job"]
    return frame.sort_values(keys).reset_index(drop=True)


def interval(values: pd.Series) -> tuple[int, float, float]:
    """(seeds, mean, half-width of the 95 % interval: NaN for one seed) of one setting's values."""
    v = values.dropna().astype(float)
    n = len(v)
    if n < 2:
        return n, float(v.mean()) if n else math.nan, math.nan
    t = T975[n - 2] if n - 1 <= len(T975) else 1.96
    return n, float(v.mean()), t * float(v.std(ddof=1)) / math.sqrt(n)


def settings(frame: pd.DataFrame) -> list[str]:
    """The config columns that vary across the sweep, seed excluded: what one setting is."""
    return [c for c in CONFIG_COLUMNS if c != "seed" and c in frame and frame[c].nunique(dropna=False) > 1]


def summary(frame: pd.DataFrame, metrics: list[str]) -> pd.DataFrame:
    """Per setting and metric: seeds, mean, the 95 % interval and the baseline's mean (where the metric has one)."""
    keys = settings(frame) or ["model.name"]
    rows = []
    for setting, group in frame.groupby(keys, dropna=False, sort=True):
        values = setting if isinstance(setting, tuple) else (setting,)
        for metric in (m for m in metrics if m in group):
            n, mean, half = interval(group[metric])
            base = BASELINES.get(metric)
            base_values = pd.Series([base[1](r) for _, r in group.iterrows()], dtype=float) if base else None
            rows.append({**dict(zip(keys, values)), "metric": metric, "seeds": n, "mean": mean,
                         "ci95_low": mean - half, "ci95_high": mean + half,
                         "baseline": base[0] if base else None,
                         "baseline_mean": float(base_values.mean()) if base_values is not None else None})
    return pd.DataFrame(rows)


def plot(frame: pd.DataFrame, metric: str, by: str, hue: str, path: Path) -> None:
    """Grouped bars of one metric's mean over seeds (groups by `by`, bars by `hue`) with 95 % intervals, and the
    metric's baseline as a dashed line per group (or a note that it has none)."""
    from _plotting import new_axes, save

    stats = frame.groupby([by, hue], dropna=False)[metric].apply(lambda v: interval(v)).apply(pd.Series)
    stats.columns = ["seeds", "mean", "half"]
    means, halves = stats["mean"].unstack(hue), stats["half"].unstack(hue).fillna(0.0)
    figure, axes = new_axes((7, 4))
    means.plot.bar(ax=axes, rot=0, yerr=halves, capsize=3)
    seeds = int(stats["seeds"].max())
    base = BASELINES.get(metric)
    if base is not None:
        per_group = frame.assign(_base=[base[1](r) for _, r in frame.iterrows()]).groupby(by)["_base"].mean()
        for i, group in enumerate(means.index):
            value = per_group.get(group)
            if value is not None and not math.isnan(value):
                axes.hlines(value, i - 0.4, i + 0.4, colors="black", linestyles="dashed",
                            label=f"baseline: {base[0]}" if i == 0 else None)
    axes.set_ylabel(metric)
    note = f"mean of {seeds} seeds, 95 % interval" if seeds > 1 else "one seed (no interval)"
    axes.set_title(f"{metric} by {by} and {hue}\n{note}" + ("" if base else "; no baseline recorded for this metric"),
                   fontsize=9)
    axes.legend(title=hue, fontsize=8)
    save(figure, path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="a Hydra sweep folder (multirun/...)")
    parser.add_argument("--csv", type=Path, help="write the whole table here")
    parser.add_argument("--plot", type=Path, help="write a bar plot of --metric here (PNG)")
    parser.add_argument("--metric", default="val/solve/board_accuracy")
    parser.add_argument("--by", default="logic.family")
    parser.add_argument("--hue", default="train.epochs")
    parser.add_argument("--summary", type=Path, help="write the seeds' summary here (CSV: mean, 95 %% interval, "
                        "baseline per setting and metric)")
    parser.add_argument("--singles-loop", action="store_true", help="jobs run before validation recorded "
                        f"{SINGLES_LOOP}: rebuild their validation puzzles from the config and run the singles loop "
                        "on them (the solved share's baseline; a minute or two per distinct data config)")
    args = parser.parse_args(argv)
    frame = sweep_table(args.folder)
    if args.singles_loop:
        frame = with_singles_loop(frame, args.folder)
    shown = [c for c in ("job", *CONFIG_COLUMNS, *SUMMARY_COLUMNS) if c in frame.columns]
    seeds = summary(frame, [c for c in SUMMARY_COLUMNS if c in frame.columns])
    with pd.option_context("display.width", 200, "display.max_columns", 30):
        print(frame[shown].to_string(index=False, float_format=lambda v: f"{v:.4f}"))
        print("\nper setting, over seeds (mean and 95 % interval; the baseline from the same runs):")
        print(seeds.to_string(index=False, float_format=lambda v: f"{v:.4f}"))
    if args.csv:
        frame.to_csv(args.csv, index=False)
    if args.summary:
        seeds.to_csv(args.summary, index=False)
    if args.plot:
        if args.metric not in frame.columns:
            print(f"no metric {args.metric!r} in the sweep", file=sys.stderr)
            return 2
        plot(frame, args.metric, args.by, args.hue, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
