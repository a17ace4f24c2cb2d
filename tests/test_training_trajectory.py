"""The trainer's safety net: a 2-epoch tiny run of each 4x4 model kind reproduces the trajectory recorded before the
training loop was shared by every kind (scripts/record_training_trajectories.py): every batch's loss, metrics.json
and the weights of last.pt and best.pt, within 1e-6 (float32 sums ordered by the thread count)."""

from __future__ import annotations

import json

import pytest

from scripts.record_training_trajectories import FIXTURE, RUNS, TOLERANCE, differences, trajectory

# metrics.json entries a kind gained with the shared loop: a visual run now says how many processes trained it (DDP)
GAINED = {"4x4_visual": {"train/processes"}}


@pytest.mark.parametrize("name", list(RUNS))
def test_a_tiny_run_follows_the_recorded_trajectory(name: str) -> None:
    recorded, found = json.loads(FIXTURE.read_text())[name], trajectory(name)
    gained = set(found["metrics"]) - set(recorded["metrics"])
    assert gained == GAINED.get(name, set())
    found["metrics"] = {k: v for k, v in found["metrics"].items() if k not in gained}
    assert not differences(recorded, found, TOLERANCE, name)
