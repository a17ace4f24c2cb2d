"""scripts/bench_compile_variants.py: the ways of compiling the message-passing step that docs/scale.md reports as
tried, side by side in one process (a tiny run prints every variant's row with its ratio to the first)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "bench_compile_variants.py"


@pytest.mark.slow  # two compiles of the step: about 20 CPU s
def test_a_tiny_run_prints_each_variant_beside_the_first() -> None:
    out = subprocess.run([sys.executable, str(SCRIPT), "--boards", "2", "--batch", "2", "--repeats", "1",
                          "--variants", "default,parts16k"], capture_output=True, text=True, check=True).stdout
    rows = [line for line in out.splitlines() if line.startswith(("| default", "| parts16k"))]
    assert len(rows) == 2 and "CPU: " in out and "peak RSS" in out
    assert rows[0].split("|")[4].strip() == "1.00x"
    assert all(float(row.split("|")[-2]) < 1e-4 for row in rows)  # the same losses: float rounding apart


def test_unknown_variants_are_a_usage_error() -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "--variants", "nope"], capture_output=True, text=True)
    assert done.returncode == 2 and "--variants" in done.stderr
