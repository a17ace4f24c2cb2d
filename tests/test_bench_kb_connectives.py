"""scripts/bench_kb_connectives.py: LTNtorch's connective beside the package's broadcasting one, in one process (a
tiny run prints both rows with equal losses, and leaves the package's connective installed)."""

from __future__ import annotations

import subprocess
import sys

import ltn
import pytest
import torch

from ltn_sudoku.logic.kb import operators
from tests.script_loader import load_script

bench = load_script("bench_kb_connectives")


def test_a_tiny_run_times_both_connectives_on_the_same_losses(capsys: pytest.CaptureFixture[str]) -> None:
    threads = torch.get_num_threads()
    try:
        assert bench.main(["--boards", "4", "--batch", "2", "--repeats", "2"]) == 0
    finally:
        torch.set_num_threads(threads)  # the script runs on one thread; the worker goes on with its own
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith(("| knowledge base", "| whole training step"))]
    assert len(rows) == 2 and "CPU: " in out and "peak RSS" in out
    assert all(float(row.split("|")[-2]) == 0.0 for row in rows)  # the same losses to the bit
    assert ltn.Connective.__call__ is operators._broadcast_connective


def test_a_tiny_run_sets_whole_axes_beside_gathered_ones(capsys: pytest.CaptureFixture[str]) -> None:
    """--compare whole_axes: both rows with the same losses to the bit, the sides named, and the package's reading of
    whole axes left in place."""
    from ltn_sudoku.logic.groundings import grounding

    threads = torch.get_num_threads()
    try:
        assert bench.main(["--boards", "4", "--batch", "2", "--repeats", "2", "--compare", "whole_axes"]) == 0
    finally:
        torch.set_num_threads(threads)
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith(("| knowledge base", "| whole training step"))]
    assert len(rows) == 2 and "| every axis gathered, CPU s a pass | whole axes read as they are |" in out
    assert all(float(row.split("|")[-2]) == 0.0 for row in rows)
    assert grounding.WHOLE_RANGE == "whole_range"


def test_bad_sizes_are_a_usage_error() -> None:
    done = subprocess.run([sys.executable, str(bench.__file__), "--repeats", "0"], capture_output=True, text=True)
    assert done.returncode == 2 and "--repeats" in done.stderr
