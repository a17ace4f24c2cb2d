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
