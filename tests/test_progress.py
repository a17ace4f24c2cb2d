"""Progress in a log file is a few plain lines, not tqdm's redraw stream (ltn_sudoku/io/progress.py)."""

from __future__ import annotations

import io

from tqdm import tqdm

from ltn_sudoku.io import progress as progress_module
from ltn_sudoku.io.progress import LineProgress, progress


def test_a_log_gets_lines_without_carriage_returns() -> None:
    log = io.StringIO()
    seen = list(LineProgress(range(1000), desc="epoch 1/2", unit="batch", every_s=0.0, file=log))
    assert seen == list(range(1000))
    text = log.getvalue()
    assert "\r" not in text
    lines = text.splitlines()
    assert lines[-1].startswith("epoch 1/2: 1000/1000 batch (100.0%)")
    assert all(len(line) < 200 for line in lines)


def test_lines_are_rate_limited() -> None:
    log = io.StringIO()
    bar = LineProgress(total=10_000, unit="board", every_s=3600.0, file=log)
    for _ in range(10_000):
        bar.update(1)
    bar.set_postfix(loss=0.41234567)
    bar.close()
    bar.close()  # twice is once
    assert log.getvalue().splitlines() == [log.getvalue().splitlines()[0]]
    assert "10000/10000 board" in log.getvalue() and "loss=0.4123" in log.getvalue()


def test_disabled_prints_nothing() -> None:
    log = io.StringIO()
    for _ in LineProgress(range(5), disable=True, every_s=0.0, file=log):
        pass
    assert log.getvalue() == ""


def test_terminal_gets_tqdm_and_a_file_gets_lines(monkeypatch) -> None:
    monkeypatch.setattr(progress_module, "stderr_is_terminal", lambda: True)
    assert isinstance(progress(range(3), disable=True), tqdm)
    monkeypatch.setattr(progress_module, "stderr_is_terminal", lambda: False)
    assert isinstance(progress(range(3), disable=True), LineProgress)
