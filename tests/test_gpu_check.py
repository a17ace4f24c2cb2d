"""scripts/gpu_check.py end to end in its tiniest setting on the CPU (the GPU run is the same command with
--device cuda; docs/scale.md holds its figures)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from ltn_sudoku.paths import REPO_ROOT


def test_gpu_check_runs_every_measuring_section_on_the_cpu(tmp_path: Path) -> None:
    out = tmp_path / "check.json"
    command = [sys.executable, "scripts/gpu_check.py", "--device", "cpu", "--quick", "--sections", "train", "ddp",
               "answer", "--models", "4x4 evidence", "--modes", "fp32", "--max-batch", "32", "--ddp-model",
               "4x4 evidence", "--answer-boards", "4", "--out", str(out)]
    done = subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(out.read_text())
    assert report["machine"].startswith("CPU only")
    [row] = report["train"]
    assert row["model"] == "4x4 evidence" and row["batch"] == 32 and row["boards_per_s"] > 0
    ddp = report["ddp"]
    assert ddp["same_batches"] and ddp["max_loss_difference"] < 1e-4  # DDP with one process: the same loss curve
    assert ddp["torchrun, 1 process (DDP)"]["processes"] == 1
    assert [r["checkpoint"] for r in report["answer"]] == ["9x9.pt", "9x9_message_passing.pt"]
    assert "| 4x4 evidence | fp32 | 32 |" in done.stdout
