"""scripts/bench_learned_tiers.py end to end on a tiny setting: a learned model beside the singles loop per tier on
held-out generated puzzles, recorded, and the results page rendered from the record."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from tests.script_loader import load_script

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_a_model_beside_the_singles_loop_per_tier_is_recorded_and_rendered(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(ROOT / "scripts/bench_learned_tiers.py"), "--model",
                           "evidence=checkpoints/9x9.pt", "--puzzles", "12", "--kaggle", "0", "--seventeen", "0",
                           "--record", str(tmp_path)], cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    rows = pd.read_csv(tmp_path / "rows.csv.gz")
    assert set(rows.solver) == {"evidence", "singles loop"} and len(rows) == 2 * 12
    tiers = pd.read_csv(tmp_path / "tiers.csv")
    singles = tiers[(tiers.solver == "singles loop") & (tiers.tier == "T1 singles")]
    assert singles.solved.item() == 1.0  # the singles loop solves every T1 puzzle, by the tiers' definition
    both = rows.pivot_table(index="puzzle", columns="solver", values="solved")
    everything = tiers[(tiers.solver == "evidence") & (tiers.tier == "all")].iloc[0]
    assert everything["minus singles"] == pytest.approx((both.evidence - both["singles loop"]).mean(), abs=1e-4)  # CSV: 4 digits
    assert everything.low <= everything["minus singles"] <= everything.high
    meta = json.loads((tmp_path / "learned.json").read_text())
    assert meta["models"]["evidence"]["hasvalue"] == "evidence" and meta["removed_seen"] >= 0
    text = load_script("_learned_page").render(tmp_path)
    assert "| T1 singles | " in text and "evidence (minus singles [95 %])" in text


def test_a_missing_checkpoint_is_a_usage_error(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(ROOT / "scripts/bench_learned_tiers.py"), "--model",
                           f"x={tmp_path / 'none.pt'}"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and "LABEL=CHECKPOINT" in done.stderr
