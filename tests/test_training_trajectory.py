"""The trainer's safety net: a 2-epoch tiny run of each 4x4 model kind reproduces the trajectory recorded before the
training loop was shared by every kind (scripts/record_training_trajectories.py): every batch's loss, metrics.json
and the weights of last.pt and best.pt, within 1e-6 (float32 sums ordered by the thread count)."""

from __future__ import annotations

import json

import pytest

from scripts.record_training_trajectories import FIXTURE, RUNS, TOLERANCE, compare, trajectory


@pytest.mark.parametrize("name", list(RUNS))
def test_a_tiny_run_follows_the_recorded_trajectory(name: str) -> None:
    assert not compare(name, json.loads(FIXTURE.read_text())[name], trajectory(name), TOLERANCE)
