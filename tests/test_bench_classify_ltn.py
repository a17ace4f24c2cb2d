"""scripts/bench_classify_ltn.py's complete-solver section end to end on a tiny setting."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_bench_classify_ltn_complete_section_smoke(kaggle_data_home: Path) -> None:
    """scripts/bench_classify_ltn.py --complete-only on three puzzles: the hand-made rows, the section's baseline and
    both limits, answers checked against the exact solver inside the script, peak memory printed (the 3M rows: the
    shipped sample, conftest.kaggle_data_home)."""
    done = subprocess.run([sys.executable, str(ROOT / "scripts/bench_classify_ltn.py"), "--complete-only",
                           "--complete-sizes", "kaggle_3m_test=2,top1465=1", "--complete-checkpoints",
                           "checkpoints/9x9.pt"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    out = done.stdout
    assert out.index("kaggle_3m_test: 2 puzzles") < out.index("top1465: 1 puzzles")
    assert out.count("+ --ltn-complete 1") == out.count("+ --ltn-complete 2") == 2
    assert out.count("ascending, limit 1 (no model)") == 2 and "peak memory" in out
    ratio = next(line for line in out.splitlines() if "+ --ltn-complete 2" in line).split()[4]
    assert ratio.endswith("x") and float(ratio[:-1]) > 0


def test_bench_classify_ltn_profile_section_smoke() -> None:
    """--profile-only on a few shipped rows of each Kaggle sample: a row per set, the parts within the whole (each
    part is timed inside the whole's time) and the rest their difference."""
    done = subprocess.run([sys.executable, str(ROOT / "scripts/bench_classify_ltn.py"), "--profile-only", "--boards",
                           "6"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    rows = [line.split() for line in done.stdout.splitlines() if line.strip().startswith("kaggle_")]
    assert [row[0] for row in rows] == ["kaggle_1m", "kaggle_3m", "kaggle_9m"]
    for row in rows:
        whole, parts, rest = float(row[2]), [float(x) for x in row[3:-1]], float(row[-1])
        # printed to 0.01 ms: six roundings apart at most
        assert len(parts) == 5 and parts[0] > 0 and sum(parts) <= whole + 0.03 and abs(sum(parts) + rest - whole) < 0.04
    assert "peak memory" in done.stdout


def test_bench_classify_ltn_blocks_section_smoke() -> None:
    """--blocks-only on a few shipped rows of each Kaggle sample: a row per set with both timings, their ratio and
    whether the blocks' refinement equals the whole batch's to the bit (it must here: every node is computed alone)."""
    done = subprocess.run([sys.executable, str(ROOT / "scripts/bench_classify_ltn.py"), "--blocks-only", "--boards",
                           "6"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    rows = [line.split() for line in done.stdout.splitlines() if line.strip().startswith("kaggle_")]
    assert [row[0] for row in rows] == ["kaggle_1m", "kaggle_3m", "kaggle_9m"]
    for _, boards, whole, blocks, ratio, same in rows:
        assert boards == "2" and float(whole) > 0 and float(blocks) > 0 and ratio.endswith("x") and same == "True"
    assert "peak memory" in done.stdout
