"""The config schema and its checks (ltn_sudoku/logic/config/) load no torch and no training code: refusing a bad
value is quick, and the value sets the schema accepts are the ones the code that reads them uses."""

from __future__ import annotations

import subprocess
import sys

from ltn_sudoku.paths import REPO_ROOT

LIGHT = """
import sys
from ltn_sudoku.logic.config.schema import compose_config, rule_violations
cfg = compose_config(["train.epochs=0", "logic=product"])
print(list(rule_violations(cfg.train, "train.")))
try:
    compose_config(["train.epochs=abc"])
except Exception as e:
    print("refused:", type(e).__name__)
heavy = sorted(m for m in sys.modules if m.split(".")[0] in ("torch", "ltn") or m.startswith("ltn_sudoku.logic.training"))
print("heavy:", heavy)
"""


def test_checking_a_config_imports_no_torch_and_no_training_code() -> None:
    out = subprocess.run([sys.executable, "-c", LIGHT], cwd=REPO_ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "['train.epochs=0: expected an integer >= 1']"
    assert lines[1].startswith("refused:")
    assert lines[2] == "heavy: []"


def test_the_value_sets_are_the_readers_own() -> None:
    """The tables moved out of the training code (config/vocabulary.py) are what that code reads."""
    from ltn_sudoku.logic.config import vocabulary
    from ltn_sudoku.logic.kb.axioms import RULE_AXIOMS
    from ltn_sudoku.logic.kb.operators import FAMILIES, build_operators

    assert vocabulary.VISUAL_AXIOMS == tuple(a for a in RULE_AXIOMS if a != "givens")
    assert FAMILIES == vocabulary.LOGIC_FAMILIES
    for family in vocabulary.LOGIC_FAMILIES:
        build_operators({"family": family, "p_forall": 2, "p_exists": 2})
