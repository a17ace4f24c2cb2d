"""scripts/bench_train_step.py runs the training step of today's code beside the baseline commit's step modules in
one process, on the same boards from the same weights (issue 50): a tiny run prints both sides and their ratio."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_a_tiny_comparison_prints_both_sides_and_the_ratio() -> None:
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "bench_train_step.py"), "--boards", "2", "--batch",
                          "2", "--repeats", "1", "--models", "message_passing", "--amp"], capture_output=True,
                         text=True, check=True).stdout
    assert "CPU: " in out and "baseline 1b4e7c4" in out and "peak RSS" in out and "bf16 units: " in out
    rows = [line for line in out.splitlines() if line.startswith("| 9x9 message_passing")]
    assert len(rows) == 2 and "| today |" in rows[0] and "train.amp (bf16)" in rows[1]
    assert all("x** (" in row for row in rows)
    fp32, bf16 = (float(row.split("|")[-2].split()[0]) for row in rows)
    assert fp32 < 1e-4  # the two sides' losses: float32 rounding apart
    assert 1e-6 < bf16 < 0.05  # in bf16 autocast: bf16 rounding apart, so the side did run in bf16


def test_unknown_models_are_a_usage_error() -> None:
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "bench_train_step.py"), "--models", "nope"],
                          capture_output=True, text=True)
    assert done.returncode == 2 and "--models" in done.stderr
