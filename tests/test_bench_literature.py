"""scripts/bench_literature.py end to end on a tiny sample: both shipped 9x9 models beside the singles loop on the
shipped RRN-recipe stand-in; the two sets with no shipped sample are listed as not measured."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_bench_literature_smoke(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "scripts/bench_literature.py", "--puzzles", "6", "--out", str(tmp_path),
                           "--extra", "again=checkpoints/9x9.pt"], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    ours = pd.read_csv(tmp_path / "ours.csv")
    assert list(ours.model) == ["9x9_message_passing", "9x9", "again"]
    assert ours.solved.iloc[1] == ours.solved.iloc[2]  # the same checkpoint under another name
    assert set(ours.set) == {"rrn_hard"} and set(ours.read_as) == {"rrn_recipe"} and (ours.puzzles == 6).all()
    assert ((ours.low <= ours.difference) & (ours.difference <= ours.high)).all()
    assert ((ours.solved - ours.singles_solved - ours.difference).abs() < 1e-3).all()
    models = pd.read_csv(tmp_path / "models.csv").set_index("model")
    assert (models.train_boards_seen > 0).all() and (models.train_cpu_hours > 0).all()
    assert models.label["9x9_message_passing"] == "LTN, message passing, rules-only"
    assert models.label["9x9"] == "LTN, evidence grounding" and "hand-made" in models.inputs["9x9"]
    info = json.loads((tmp_path / "literature.json").read_text())
    assert info["not_measured"] == ["satnet", "sudoku_extreme"] and info["peak_rss_mb"] > 0 and info["cpu"]


@pytest.mark.parametrize("args, message", [(["--puzzles", "0"], "--puzzles must be at least 1"),
                                           (["--extra", "nameless"], "expected a new NAME=PATH"),
                                           (["--extra", "x=/nonexistent.pt"], "no such file")])
def test_bench_literature_refuses_bad_options_in_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    done = subprocess.run([sys.executable, "scripts/bench_literature.py", *args, "--out", str(tmp_path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and message in done.stderr and not list(tmp_path.iterdir())
