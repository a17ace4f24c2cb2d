"""The theory in types: an axiom's steps and switch are small types, each formula is written once (its record), and
docs/reference/theory.md is generated from the records."""

from __future__ import annotations

import subprocess
import sys

import pytest

from ltn_sudoku.logic.kb.theory import (
    ALWAYS,
    BOARD_THEORY,
    NEVER,
    THEORIES,
    VISUAL_THEORY,
    ConfigKey,
    Steps,
    Switch,
    theory_markdown,
    weight_of,
    when,
)
from ltn_sudoku.paths import REPO_ROOT

THEORY_DOC = REPO_ROOT / "docs" / "reference" / "theory.md"


def test_the_docs_table_is_the_generated_one() -> None:
    """Regenerate with `python -m ltn_sudoku.logic.kb.theory > docs/reference/theory.md`."""
    assert THEORY_DOC.read_text(encoding="utf-8") == theory_markdown()


def test_the_module_prints_the_table() -> None:
    done = subprocess.run([sys.executable, "-m", "ltn_sudoku.logic.kb.theory"], capture_output=True, text=True,
                          encoding="utf-8", cwd=REPO_ROOT, timeout=120, check=True)
    assert done.stdout == theory_markdown()


def test_every_formula_is_in_the_table_once() -> None:
    text = theory_markdown()
    for theory in THEORIES:
        for axiom in theory.axioms:
            assert text.count(f"| `{axiom.name}` | {axiom.formula} |") == 1, axiom.name


@pytest.mark.parametrize(("steps", "exists_last", "trained"), [
    (Steps.KB, False, [1, 3, 5]), (Steps.KB, True, [1, 3, 5]), (Steps.KB_EXISTS, False, [1, 3, 5]),
    (Steps.KB_EXISTS, True, [5]), (Steps.LAST, False, [5]), (Steps.LAST, True, [5])])
def test_steps_say_which_grounded_steps_are_trained(steps: Steps, exists_last: bool, trained: list[int]) -> None:
    assert steps.trained([1, 3, 5], exists_last) == trained


def test_switches_and_weights_read_the_config() -> None:
    switches = {"model.unit_axiom": False, "train.supervised": True, "train.rules_weight": 0.0}
    assert ALWAYS.on(switches) and not NEVER.on(switches)
    assert not when("model.unit_axiom").on(switches) and when("train.supervised").on(switches)
    assert not when("train.rules_weight").on(switches)  # a weight of 0 switches its axiom off
    assert str(ALWAYS) == "always" and str(NEVER) == "never (reported)" and str(when("a.b")) == "`a.b`"
    both = when("model.exists_axioms", "model.unit_axiom")  # unit_has_digit: both keys true
    assert str(both) == "`model.exists_axioms` and `model.unit_axiom`"
    assert not both.on({"model.exists_axioms": True, "model.unit_axiom": False})
    assert both.on({"model.exists_axioms": True, "model.unit_axiom": True})
    rules = VISUAL_THEORY.axiom("rules_on_valid")
    assert rules.weight == ConfigKey("train.rules_weight")
    assert weight_of(rules, {"train.rules_weight": 0.25}) == pytest.approx(0.25)
    assert weight_of(BOARD_THEORY.axiom("row"), {}) == pytest.approx(1.0)


def test_the_records_are_typed() -> None:
    for theory in THEORIES:
        for axiom in theory.axioms:
            assert isinstance(axiom.steps, Steps) and isinstance(axiom.switch, Switch), axiom.name
    assert BOARD_THEORY.axiom("givens").switch is NEVER
    assert {a.name for a in BOARD_THEORY.axioms if a.steps is Steps.KB_EXISTS} == {"cell_has_value", "unit_has_digit"}
