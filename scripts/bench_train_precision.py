#!/usr/bin/env python
"""Does bf16 autocast (`train.amp=true`) change what 9x9 message passing learns on the CPU? Training runs in both
precisions from the same seeds, their validation and held-out figures side by side, paired by seed.

    .venv/bin/python scripts/bench_train_precision.py [--seeds 1,2,3] [--boards 4000] [--out-dir DIR] [--report]

Per seed and precision one run of scripts/learning_curve.py (`--variants rules_only`, one point of `--boards`
fresh generated boards from scratch, cosine schedule; `train.compile=true` on both sides, so the only difference is
the autocast), written to DIR/<precision>_s<seed>/ with its command beside the checkpoint; a point already recorded
is kept (the command resumes). Both sides of a seed draw the same boards and start from the same weights. Then, per
figure: each seed's float32 and bf16 values and the mean bf16 - float32 difference over the seeds with its 95 %
t-interval (scripts/aggregate_sweep.interval), beside the float32 runs' own seed-to-seed spread. The figures: the
training loop's validation (loss, solved boards and states, hasSolution's AUROC) and the learning curve's held-out
puzzles (200 generated 17-40-given puzzles and 200 Kaggle 3M test rows: solved without search, wrong guesses of the
complete solver with the model's value order), each beside its baseline on the same boards (the singles loop's
solved share, the ascending value order's wrong guesses), and the training's boards per CPU second. `--report`: the table
only, from what DIR holds.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scripts._machine import bf16_units, cpu_name  # noqa: E402
from scripts.aggregate_sweep import interval  # noqa: E402

PRECISIONS: dict[str, list[str]] = {"fp32": ["train.compile=true"], "bf16": ["train.compile=true", "train.amp=true"]}
EVAL = ["--eval-sets", "generated_17_40,kaggle_3m_test", "--eval-split", "test", "--eval-order", "root",
        "--eval-puzzles", "200"]
# (label, file, key): the figures compared; metrics.json is the training loop's, point.json the learning curve's
FIGURES: tuple[tuple[str, str, str], ...] = (
    ("validation loss (1 - SatAgg)", "metrics.json", "val/loss"),
    ("validation: boards solved", "metrics.json", "val/solve/board_accuracy"),
    ("validation: boards the singles loop solves (baseline)", "metrics.json", "val/solve/singles_loop"),
    ("validation: solving states completed", "metrics.json", "val/states/board_accuracy"),
    ("validation: hasSolution AUROC", "metrics.json", "val/has_solution/auroc"),
    ("held-out generated: solved", "point.json", "generated_17_40 solved"),
    ("held-out generated: solved by the singles loop (baseline)", "point.json", "generated_17_40 solved singles loop"),
    ("held-out generated: wrong guesses", "point.json", "generated_17_40 wrong guesses"),
    ("held-out generated: wrong guesses, ascending order (baseline)", "point.json",
     "generated_17_40 wrong guesses ascending"),
    ("held-out Kaggle 3M: wrong guesses", "point.json", "kaggle_3m_test wrong guesses"),
    ("held-out Kaggle 3M: wrong guesses, ascending order (baseline)", "point.json",
     "kaggle_3m_test wrong guesses ascending"),
    ("training boards per CPU second", "metrics.json", "train/boards_per_cpu_second"),
)


def run_folder(out_dir: Path, precision: str, seed: int, boards: int) -> Path:
    return out_dir / f"{precision}_s{seed}" / "rules_only" / f"b{boards}"


def train(out_dir: Path, precision: str, seed: int, boards: int) -> None:
    """One point of the learning curve in this precision (learning_curve.py skips a point already recorded)."""
    command = [sys.executable, str(ROOT / "scripts" / "learning_curve.py"), "--variants", "rules_only",
               "--min-boards", str(boards), "--max-boards", str(boards), "--seed", str(seed), *EVAL,
               "--out-dir", str(out_dir / f"{precision}_s{seed}"), *PRECISIONS[precision]]
    print(f"bench_train_precision: {precision}, seed {seed}", flush=True)
    subprocess.run(command, check=True)


def figure(folder: Path, file: str, key: str) -> float:
    path = folder / file
    if not path.is_file():
        return math.nan
    value = json.loads(path.read_text()).get(key)
    return math.nan if value is None else float(value)


def report(out_dir: Path, seeds: list[int], boards: int) -> int:
    """The table: per figure, each seed's pair, the paired difference's mean and interval, float32's own spread."""
    done = [s for s in seeds if all((run_folder(out_dir, p, s, boards) / "point.json").is_file() for p in PRECISIONS)]
    if not done:
        print(f"bench_train_precision: no seed has both precisions recorded in {out_dir}", file=sys.stderr)
        return 1
    print(f"CPU: {cpu_name()} (bf16 units: {bf16_units()}); 9x9 message passing, rules only, {boards} generated "
          f"training boards from scratch, train.compile on both sides; seeds {', '.join(map(str, done))}")
    print("| figure | float32 per seed | bf16 per seed | bf16 - float32, mean [95 % interval] | float32 seeds' "
          "spread (sd) |")
    print("|---|---|---|---:|---:|")
    for label, file, key in FIGURES:
        pairs = [(figure(run_folder(out_dir, "fp32", s, boards), file, key),
                  figure(run_folder(out_dir, "bf16", s, boards), file, key)) for s in done]
        _, mean, half = interval(pd.Series([b - a for a, b in pairs]))
        spread = pd.Series([a for a, _ in pairs]).std(ddof=1)
        print(f"| {label} | {' / '.join(f'{a:.3f}' for a, _ in pairs)} | {' / '.join(f'{b:.3f}' for _, b in pairs)} "
              f"| {mean:+.3f} [{mean - half:+.3f}, {mean + half:+.3f}] | {spread:.3f} |")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], epilog=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", default="1,2,3", help="training seeds, comma-separated (default 1,2,3)")
    parser.add_argument("--boards", type=int, default=4000, help="training boards of each run (default 4000)")
    parser.add_argument("--out-dir", type=Path, default=Path("outputs/precision"))
    parser.add_argument("--report", action="store_true", help="train nothing: the table of what --out-dir holds")
    args = parser.parse_args(argv)
    try:
        seeds = [int(s) for s in args.seeds.split(",") if s.strip()]
    except ValueError:
        parser.error(f"--seeds: integers separated by commas, not {args.seeds!r}")
    if not seeds or args.boards < 10:
        parser.error("--seeds: at least one; --boards: at least 10")
    if not args.report:
        for seed in seeds:  # precisions alternate, so that both meet the same machine load
            for precision in PRECISIONS:
                train(args.out_dir, precision, seed, args.boards)
    return report(args.out_dir, seeds, args.boards)


if __name__ == "__main__":
    sys.exit(main())
