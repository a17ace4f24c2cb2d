"""A small, fast profile of the fuzzing of every input path (scripts/fuzz_targets.py; scripts/fuzz.py runs the long
one): board text, the file readers, the Kaggle reader, the commands in process, checkpoint loading and Hydra
overrides."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from scripts.fuzz_targets import TARGETS

EXAMPLES = {"board text": 150, "file readers": 150, "file bytes": 100, "kaggle reader": 50, "commands": 25,
            "checkpoints": 25, "hydra overrides": 15}


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_no_input_gives_a_traceback_or_a_wrong_answer(name: str) -> None:
    check, strategy = TARGETS[name]
    profile = settings(max_examples=EXAMPLES[name], deadline=None, database=None, derandomize=True,
                       suppress_health_check=list(HealthCheck))
    profile(given(strategy)(check))()
