"""Long benchmarks say what they are doing: scripts/bench_visual.py announces each stage of each run (the LTN, the
CNN baseline, the oracle reader) with the time so far and, after the first run, the time left (it printed nothing
for 4 minutes before)."""

from __future__ import annotations

import pytest

from scripts.bench_visual import Progress


def test_each_stage_is_announced_with_the_time_left(capsys: pytest.CaptureFixture[str]) -> None:
    progress = Progress(runs=3)
    progress.say("training the LTN")
    progress.finished_run()
    progress.say("training the CNN baseline")
    first, second = capsys.readouterr().out.splitlines()
    assert "run 1/3] training the LTN" in first and "left" not in first
    assert "run 2/3, about " in second and "min left] training the CNN baseline" in second
