"""A config field's rule (the range or set of values it accepts), declared with the field itself: the schema
(ltn_sudoku/logic/config/schema.py) and the groundings' own configs (beside each network in ltn_sudoku/logic/groundings/hasvalue/) declare
their fields with these, and `schema.rule_violations` applies them. A field left MISSING is a key the config must set.
Low in the learned package, so that a grounding declares its config once, below the schema that registers it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from omegaconf import MISSING


@dataclass(frozen=True)
class Rule:
    """What one field accepts beyond its type: `accepts(value)`, and the words that say so in an error."""

    accepts: Callable[[Any], bool]
    expected: str


def number(value: Any) -> bool:
    """A finite int or float (not a bool)."""
    return not isinstance(value, bool) and isinstance(value, (int, float)) and math.isfinite(value)


def ruled(rule: Rule, default: Any = MISSING) -> Any:
    """A dataclass field with this rule in its metadata (MISSING: a key the config must set)."""
    return field(default=default, metadata={"rule": rule})


def at_least(low: int, default: Any = MISSING) -> Any:
    """An integer >= low."""
    return ruled(Rule(lambda v: v >= low, f"expected an integer >= {low}"), default)


def positive(default: Any = MISSING) -> Any:
    """A number > 0."""
    return ruled(Rule(lambda v: number(v) and v > 0, "expected a number > 0"), default)


def non_negative(default: Any = MISSING) -> Any:
    """A number >= 0."""
    return ruled(Rule(lambda v: number(v) and v >= 0, "expected a number >= 0"), default)


def p_mean(default: Any = MISSING) -> Any:
    """p of a pMean quantifier: below 1 it is no longer a mean that approaches min / max."""
    return ruled(Rule(lambda v: number(v) and v >= 1, "expected a number >= 1"), default)


def one_of(choices: Sequence[str], default: Any = MISSING) -> Any:
    """One of these strings."""
    return ruled(Rule(lambda v: v in choices, f"expected one of {', '.join(choices)}"), default)


def existing_file(default: Any = None) -> Any:
    """A path to read (a checkpoint to resume or evaluate): null, or a file that exists."""
    return ruled(Rule(lambda v: v is None or Path(str(v)).is_file(), "no such file"), default)
