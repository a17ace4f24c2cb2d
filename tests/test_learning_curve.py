"""scripts/learning_curve.py on a tiny CPU setting: one 4x4 point trained, measured, recorded, and skipped on resume."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
TINY = ["data.val.solvable=8", "data.val.impossible=8", "data.val.closed_valid=4", "data.val.closed_invalid=4",
        "model.steps=2", "model.eval_steps=2", "threads=1"]


def run(out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(ROOT / "scripts/learning_curve.py"), "--model", "4x4_mp",
                           "--variants", "rules_only", "--min-boards", "20", "--max-boards", "20", "--device", "cpu",
                           "--budget-minutes", "5", "--eval-sets", "generated", "--eval-puzzles", "4",
                           "--out-dir", str(out), *TINY], cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_learning_curve_point_is_recorded_and_resumed(tmp_path: Path) -> None:
    done = run(tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    point = json.loads((tmp_path / "rules_only/b20/point.json").read_text())
    command = json.loads((tmp_path / "rules_only/b20/command.json").read_text())
    assert "data.train.solvable=16" in command["command"] and "device=cpu" in command["command"]
    assert 0 <= point["generated solved"] <= 1 and point["generated wrong guesses ascending"] >= 0
    assert point["boards_seen"] > 0 and point["train_wall_s"] > 0 and point["device"].startswith("cpu")
    curve = pd.read_csv(tmp_path / "curve.csv")
    assert list(curve.boards) == [20] and (tmp_path / "curve.png").stat().st_size > 0
    again = run(tmp_path)  # resumes: the point exists, nothing is trained
    assert again.returncode == 0 and "at 20 boards" not in again.stderr


def test_learning_curve_report_trains_nothing(tmp_path: Path) -> None:
    assert run(tmp_path).returncode == 0
    report = subprocess.run([sys.executable, str(ROOT / "scripts/learning_curve.py"), "--report", "--min-boards", "20", "--max-boards",
                             "40", "--eval-sets", "generated", "--out-dir", str(tmp_path)], cwd=ROOT,
                            capture_output=True, text=True, timeout=300)
    assert report.returncode == 0 and "at 40 boards" not in report.stderr and not (tmp_path / "rules_only/b40").exists()
    assert "rules_only" in report.stdout


@pytest.mark.slow
def test_a_chain_continues_the_previous_points_model_on_fresh_boards(tmp_path: Path) -> None:
    """--chain: the second point trains only the boards it adds, from the first point's last.pt, on other boards
    (seed + 1); each point is measured beside the singles loop and per tier; the compute adds up."""
    done = subprocess.run([sys.executable, str(ROOT / "scripts/learning_curve.py"), "--model", "4x4_mp",
                           "--variants", "rules_only", "--chain", "--min-boards", "10", "--max-boards", "20",
                           "--chain-step", "10", "--eval-sets", "generated", "--eval-puzzles", "4",
                           "--out-dir", str(tmp_path), "--record", str(tmp_path / "record"), *TINY],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    first = json.loads((tmp_path / "rules_only/b10/command.json").read_text())["command"]
    second = json.loads((tmp_path / "rules_only/b20/command.json").read_text())["command"]
    assert "seed=0" in first and not any(c.startswith("train.init_from") for c in first)
    assert f"train.init_from={tmp_path / 'rules_only/b10/last.pt'}" in second and "seed=1" in second
    assert "data.train.solvable=8" in second and "train.lr_schedule=constant" in second  # 10 added boards
    point = json.loads((tmp_path / "rules_only/b20/point.json").read_text())
    assert point["generated solved singles loop"] == 1.0  # every generated 4x4 puzzle is T1
    assert point["generated puzzles T1"] == 4 and 0 <= point["generated solved T1"] <= 1
    record = pd.read_csv(tmp_path / "record.csv")
    assert list(record.training) == [10, 20] and record.cpu_s.is_monotonic_increasing
