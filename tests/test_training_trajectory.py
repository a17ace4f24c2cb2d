"""The trainer's safety net: a 2-epoch tiny run of each 4x4 model kind reproduces the trajectory recorded before the
training loop was shared by every kind (scripts/record_training_trajectories.py): every batch's loss, metrics.json
and the weights of last.pt and best.pt.

The fixture was recorded on one CPU and is compared on others, whose kernels round float32 sums otherwise, so per
quantity (`compare()`): batch steps and bookkeeping exactly; losses and weight checksums within tolerances measured
across CPU kernels (TOLERANCES; tests/fixtures/drift.md); validation figures counted from decisions, which one rounding
can flip on a 2-epoch tiny model, within a board's worth. Bit-for-bit replay is tested where it holds, on one machine:
a resumed run against an uninterrupted one (tests/test_train.py, tests/test_visual_train.py)."""

from __future__ import annotations

import json

import pytest

from scripts.record_training_trajectories import FIXTURE, RUNS, TOLERANCES, compare, trajectory

RECORDED = json.loads(FIXTURE.read_text())


@pytest.mark.parametrize("name", list(RUNS))
def test_a_tiny_run_follows_the_recorded_trajectory(name: str) -> None:
    found = compare(name, RECORDED[name], trajectory(name), TOLERANCES)
    assert not found, "\n".join(found[:20])


def test_the_comparison_catches_a_changed_run() -> None:
    """Each rule can fail: a batch's loss moved by 1e-5, the weights by 1e-4 of Σ|w|, a validation figure by more
    than a board's worth, a count, a batch step; rounding-sized moves pass."""
    recorded = RECORDED["4x4_message_passing"]

    def changed(edit) -> list[str]:  # type: ignore[no-untyped-def]
        found = json.loads(json.dumps(recorded))
        edit(found)
        return compare("4x4_message_passing", recorded, found, TOLERANCES)

    scale = recorded["last"]["abs_sum"]
    assert not changed(lambda f: None)
    assert not changed(lambda f: f["losses"][3].__setitem__(1, f["losses"][3][1] + 1e-7))
    assert not changed(lambda f: f["last"].__setitem__("sum", f["last"]["sum"] + 2e-6 * scale))
    assert not changed(lambda f: f["metrics"].__setitem__("val/solve/cell_accuracy", 0.8))
    assert changed(lambda f: f["losses"][3].__setitem__(1, f["losses"][3][1] + 1e-5))
    assert changed(lambda f: f["last"].__setitem__("sum", f["last"]["sum"] + 1e-4 * scale))
    assert changed(lambda f: f["best"].__setitem__("abs_sum", f["best"]["abs_sum"] * (1 + 1e-4)))
    assert changed(lambda f: f["metrics"].__setitem__("val/loss", f["metrics"]["val/loss"] + 1e-5))
    assert changed(lambda f: f["metrics"].__setitem__("val/solve/board_accuracy",
                                                      f["metrics"]["val/solve/board_accuracy"] + 0.5))
    assert changed(lambda f: f["metrics"].__setitem__("val/solve/count", 9.0))
    assert changed(lambda f: f["losses"][3].__setitem__(0, 33))
    assert changed(lambda f: f["losses"].pop())
    assert changed(lambda f: f["metrics"].pop("val/loss"))


def test_an_earlier_best_epoch_is_told_by_the_runs_own_figures() -> None:
    """A flipped validation decision may make epoch 1 the best: best.pt then holds other weights than the recorded
    last-epoch ones and is not compared, provided the run's train/best_val_score says so; best.pt replaced while the
    last epoch scored best is caught."""
    recorded = RECORDED["4x4_evidence"]
    earlier = json.loads(json.dumps(recorded))
    earlier["best"] = {"sum": 1.0, "abs_sum": 60.0}
    assert compare("4x4_evidence", recorded, earlier, TOLERANCES)  # the run says its last epoch was best
    earlier["metrics"]["train/best_val_score"] = recorded["metrics"]["val/score"] + 0.02
    assert not compare("4x4_evidence", recorded, earlier, TOLERANCES)
    earlier["best"] = dict(earlier["last"])
    assert compare("4x4_evidence", recorded, earlier, TOLERANCES)  # an earlier best epoch, yet best.pt = last.pt
