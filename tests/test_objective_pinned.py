"""The training objective and the shipped models' answers pinned: on fixed seeded batches, the loss, the gradient
reaching each predicate and every axiom's satisfaction of each model kind (4x4 / 9x9 evidence, message passing,
visual), and the answers of every shipped checkpoint on fixed boards, as recorded in tests/fixtures/objective_pins.json
by scripts/record_objective_pins.py before the knowledge base became one declared theory (issue 28). A rewrite that
changes what is trained or answered fails here.

The floats are compared within the recorder's TOLERANCE (3e-6, relative to max(1, |x|)) rather than exactly: the
fixture was recorded on one CPU and is compared on others, whose kernels (vector width, MKL / oneDNN code paths) round
float32 reductions otherwise. The tolerance is the largest drift measured across CPU kernels and thread counts
(2.4e-7; tests/fixtures/drift.md, scripts/measure_fixture_drift.py) with a margin of about 12; it also covers the
declared theory's rewrite of the visual objective (a masked mean over every cell, −log of the log-product SatAgg: up
to 4e-7 relative). The digits read are compared exactly: their smallest decision margin (0.0039) is 10^4 times that
drift, so they are the same on every CPU.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest

from tests.script_loader import load_script

ROOT = Path(__file__).resolve().parents[1]


def _recorder() -> ModuleType:
    return load_script("record_objective_pins")


RECORDER = _recorder()
TOLERANCE: float = RECORDER.TOLERANCE
EXPECTED = json.loads(RECORDER.FIXTURE.read_text())
PINS = RECORDER.pinned_figures()


def test_every_pin_is_recorded() -> None:
    assert set(EXPECTED) == set(PINS)


@pytest.mark.parametrize("name", sorted(PINS))
def test_pinned_figures_unchanged(name: str) -> None:
    got = json.loads(json.dumps(RECORDER.compute(PINS[name])))  # the same types the fixture holds
    found = RECORDER.differences(EXPECTED[name], got, TOLERANCE, name)
    assert not found, "\n".join(found[:20])


def test_the_comparison_catches_a_changed_figure() -> None:
    """The comparison itself can fail: a figure moved by 1e-5, a key lost, a digit changed; rounding-sized moves
    (1e-7, the measured drift's order) pass."""
    loss = EXPECTED["objective/4x4_evidence"]["loss"]
    assert RECORDER.differences({"loss": loss}, {"loss": loss + 1e-5}, TOLERANCE)
    assert not RECORDER.differences({"loss": loss}, {"loss": loss + 1e-7}, TOLERANCE)
    assert RECORDER.differences({"a": 1, "b": 2}, {"a": 1}, TOLERANCE)
    assert RECORDER.differences({"digits": [1, 2]}, {"digits": [1, 3]}, TOLERANCE)
