"""scripts/bench_literature.py end to end on a tiny sample: both shipped 9x9 models beside the singles loop on the
shipped RRN-recipe stand-in; the two sets with no shipped sample are listed as not measured."""

from __future__ import annotations

import json
import shutil
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


def test_a_run_of_the_original_recipe_is_recorded_and_measured_beside_the_shipped_models(tmp_path: Path) -> None:
    """--original NAME=RUN: the run's last validation and compute into original.csv (read from its metrics.json), and
    a 9x9 run's best.pt measured on the sets like --extra (here a copy of the shipped 9x9 model, so its row must equal
    the shipped one's)."""
    run = tmp_path / "run"
    run.mkdir()
    shutil.copy(ROOT / "checkpoints" / "9x9.pt", run / "best.pt")
    figures = {"val/solve/board_accuracy": 0.61, "val/solve/singles_loop": 0.84, "val/states/board_accuracy": 0.7,
               "val/has_solution/accuracy": 0.9, "val/is_correct/accuracy": 1.0, "train/epoch": 20,
               "train/boards_seen": 20000, "train/cpu_seconds": 270.5}
    (run / "metrics.json").write_text(json.dumps(figures))
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "scripts/bench_literature.py", "--puzzles", "6", "--out", str(out),
                           "--original", f"orig={run}"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    original = pd.read_csv(out / "original.csv").iloc[0]
    assert original["model"] == "orig" and original["size"] == "9x9"
    assert (original.solved, original.singles_loop, original.epochs, original.train_cpu_seconds) == (0.61, 0.84, 20,
                                                                                                      270.5)
    ours = pd.read_csv(out / "ours.csv").set_index("model")
    assert ours.solved["orig"] == ours.solved["9x9"]
    assert "--original orig=" in json.loads((out / "original.json").read_text())["command"]


@pytest.mark.parametrize("args, message", [(["--puzzles", "0"], "--puzzles must be at least 1"),
                                           (["--extra", "nameless"], "expected a new NAME=PATH"),
                                           (["--extra", "x=/nonexistent.pt"], "no such file"),
                                           (["--original", "x=/nonexistent"], "expected NAME=RUN_DIR of a finished")])
def test_bench_literature_refuses_bad_options_in_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    done = subprocess.run([sys.executable, "scripts/bench_literature.py", *args, "--out", str(tmp_path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and message in done.stderr and not list(tmp_path.iterdir())
