"""`make demo` end to end: scripts/demo.py classifies every example board with the symbolic engine and the shipped
LTN models, trains the 4x4 model for two epochs and answers with the fresh checkpoint."""

from __future__ import annotations

import subprocess
import sys

import pytest

from ltn_sudoku.paths import REPO_ROOT


@pytest.mark.slow
def test_demo_runs_every_part() -> None:
    done = subprocess.run([sys.executable, "scripts/demo.py"], cwd=REPO_ROOT, capture_output=True, text=True,
                          timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    out = done.stdout
    assert "Summary" in out and "seed_9x9.csv" in out and "unique solution" in out
    assert out.count("LTN model:") >= 10  # every example report, plus the fresh checkpoint's answer
    assert "no LTN model for 16x16 boards" in out
    assert "no LTN model for 4x4" not in out and "no LTN model for 9x9" not in out  # the shipped models answered
    assert "answered by" in out and "demo finished" in out
    assert "open outputs/demo_report.html in a browser" in out
    assert (REPO_ROOT / "outputs" / "demo_report.html").read_text().count('<section class="board"') == 1
