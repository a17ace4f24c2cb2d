"""Strict JSON: the one way the package writes JSON (files, JSON Lines, the HTML report's data blocks).

Python's json writes float('nan') and infinities as `NaN` / `Infinity` / `-Infinity`, which are not JSON: strict
parsers (JavaScript's JSON.parse, jq, most languages' libraries) reject the whole file. A figure that does not exist
(a metric never computed, an accuracy of nothing) is written as `null` instead, here and nowhere else. The common case
costs one json.dumps call: only a value that holds a non-finite float is walked and copied.
"""

from __future__ import annotations

import json
import math
from typing import Any


def finite(value: Any) -> Any:
    """`value` with every non-finite float (NaN, +-inf; numpy's too) replaced by None, containers copied."""
    if isinstance(value, float):  # numpy.float64 is a float
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(v) for v in value]
    if hasattr(value, "dtype") and getattr(value, "ndim", None) == 0 and value.dtype.kind == "f":  # numpy scalars
        number = float(value)
        return number if math.isfinite(number) else None
    return value


def dumps(value: Any, **options: Any) -> str:
    """json.dumps that never writes NaN or Infinity (they become null); `options` as json.dumps takes them."""
    try:
        return json.dumps(value, allow_nan=False, **options)
    except ValueError:  # a non-finite float somewhere (a circular structure raises again below)
        return json.dumps(finite(value), allow_nan=False, **options)


def loads(text: str) -> Any:
    """json.loads that refuses NaN and Infinity (what a strict parser does): for tests and readers of our files."""

    def refuse(token: str) -> Any:
        raise ValueError(f"not JSON: {token}")

    return json.loads(text, parse_constant=refuse)
