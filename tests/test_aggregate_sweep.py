"""scripts/aggregate_sweep.py aggregates a sweep's seeds (mean and 95 % interval, Student's t) and puts each metric's
baseline from the same runs beside it (always-yes macro-F1, the majority class of the validation boards)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]


def _job(folder: Path, logic: str, seed: int, f1: float) -> None:
    (folder / ".hydra").mkdir(parents=True)
    (folder / ".hydra" / "config.yaml").write_text(
        f"seed: {seed}\nmodel: {{name: 4x4}}\nlogic: {{family: {logic}}}\ntrain: {{epochs: 1}}\n"
        "data: {val: {solvable: 30, impossible: 10, closed_valid: 5, closed_invalid: 5}}\n")
    (folder / "metrics.json").write_text(json.dumps({
        "val/heuristics/macro_f1": f1, "val/heuristics/always_yes_macro_f1": 0.5, "val/has_solution/accuracy": 0.9,
        "val/solve/board_accuracy": 0.1 * seed}))


def test_seeds_are_aggregated_with_an_interval_and_baselines(tmp_path: Path) -> None:
    sweep = tmp_path / "sweep"
    for i, (logic, seed, f1) in enumerate([("product", 0, 0.6), ("product", 1, 0.7), ("product", 2, 0.8),
                                           ("goedel", 0, 0.5)]):
        _job(sweep / f"{i}_logic={logic}_seed={seed}", logic, seed, f1)
    out = subprocess.run([sys.executable, "scripts/aggregate_sweep.py", str(sweep), "--summary",
                          str(tmp_path / "s.csv"), "--plot", str(tmp_path / "p.png"), "--metric",
                          "val/heuristics/macro_f1", "--by", "logic.family", "--hue", "model.name"],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    summary = pd.read_csv(tmp_path / "s.csv")
    f1 = summary[summary.metric == "val/heuristics/macro_f1"].set_index("logic.family")
    assert f1.loc["product", "seeds"] == 3 and f1.loc["product", "mean"] == pytest.approx(0.7)
    half = 4.303 * 0.1 / 3 ** 0.5  # t(0.975, 2) * sd / sqrt(n)
    assert f1.loc["product", "ci95_high"] == pytest.approx(0.7 + half, abs=1e-6)
    assert f1.loc["goedel", "seeds"] == 1 and pd.isna(f1.loc["goedel", "ci95_high"])  # one seed: no interval
    assert (f1["baseline"] == "always yes").all() and (f1["baseline_mean"] == 0.5).all()
    acc = summary[summary.metric == "val/has_solution/accuracy"].iloc[0]
    assert acc["baseline"] == "majority class" and acc["baseline_mean"] == pytest.approx(0.75)  # 30 of 40
    assert (tmp_path / "p.png").stat().st_size > 0 and "95 % interval" in out.stdout
