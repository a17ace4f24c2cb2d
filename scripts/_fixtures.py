"""What the fixture recorders share (record_objective_pins.py, record_training_trajectories.py): write today's
figures into the fixture file, or with --check list where they differ from it beyond the test's tolerances (--exact:
at all) and write nothing; and the walk over two recordings that both comparisons and scripts/measure_fixture_drift.py
use.

A float fixture recorded on one CPU is compared on another within tolerances measured across CPU kernels
(tests/fixtures/drift.md); bit-for-bit equality holds only on the machine that recorded it (`--check --exact`)."""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any


def leaves(expected: Any, found: Any, where: str = "") -> Iterator[tuple[str, Any, Any] | str]:
    """Every pair of leaves of two recordings of the same shape, by place ("/a/b[2]"); a place where the shapes differ
    (other keys, another length, a list against a number) comes as a string saying so."""
    if isinstance(expected, dict):
        if not isinstance(found, dict) or set(expected) != set(found):
            yield f"{where}: keys {sorted(expected)} != {sorted(found) if isinstance(found, dict) else found!r}"
            return
        for key in expected:
            yield from leaves(expected[key], found[key], f"{where}/{key}")
    elif isinstance(expected, list):
        if not isinstance(found, list) or len(expected) != len(found):
            yield f"{where}: length {len(expected)} != {len(found) if isinstance(found, list) else found!r}"
            return
        for i, (e, f) in enumerate(zip(expected, found)):
            yield from leaves(e, f, f"{where}[{i}]")
    else:
        yield where, expected, found


def is_float(expected: Any, found: Any) -> bool:
    """Both numbers and at least one a float (an integer against an integer is compared exactly)."""
    numbers = all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (expected, found))
    return numbers and (isinstance(expected, float) or isinstance(found, float))


def drift(expected: float, found: float, scale: float | None = None) -> float:
    """How far `found` moved from `expected`: |Δ| / scale (default max(1, |expected|)); 0 for NaN against NaN and
    for the same infinity, inf when only one side is finite."""
    if math.isnan(expected) or math.isnan(found):
        return 0.0 if math.isnan(expected) and math.isnan(found) else math.inf
    if math.isinf(expected) or math.isinf(found):
        return 0.0 if expected == found else math.inf
    return abs(expected - found) / (max(1.0, abs(expected)) if scale is None else scale)


Drift = tuple[str | None, float, str]  # (quantity, drift, "where: recorded x, found y"); quantity None: exact


def measure(recorded: Any, found: Any, classify: Callable[[str, Any, Any], tuple[str | None, float]],
           where: str = "") -> list[Drift]:
    """Every leaf of two recordings with its quantity and drift, `classify(where, recorded, found)` deciding both
    (a figure compared exactly: quantity None, drift 0 or inf); a difference of shape is an exact one."""
    out: list[Drift] = []
    for leaf in leaves(recorded, found, where):
        if isinstance(leaf, str):
            out.append((None, math.inf, leaf))
        else:
            where, expected, got = leaf
            quantity, moved = classify(where, expected, got)
            out.append((quantity, moved, f"{where}: recorded {expected!r}, found {got!r}"))
    return out


def exactly(expected: Any, found: Any) -> tuple[None, float]:
    """The classification of a figure compared exactly."""
    return None, 0.0 if expected == found else math.inf


def beyond(moved: list[Drift], tolerances: dict[str, float]) -> list[str]:
    """Every figure that moved more than its quantity's tolerance (exact figures: at all)."""
    return [line for quantity, value, line in moved if value > (tolerances[quantity] if quantity else 0.0)]


def largest(moved: list[Drift]) -> dict[str, float]:
    """The largest drift of each quantity; "exact": how many figures compared exactly differ."""
    out: dict[str, float] = {"exact": 0}
    for quantity, value, _ in moved:
        if quantity is None:
            out["exact"] += value > 0
        else:
            out[quantity] = max(out.get(quantity, 0.0), value)
    return out


def record_or_check(description: str, fixture: Path, figures: Callable[[], dict[str, Any]],
                    differences: Callable[[dict[str, Any], dict[str, Any], bool], list[str]],
                    argv: Sequence[str] | None = None) -> int:
    """The recorders' `main`: 0 once written or when within tolerance, 1 when --check finds differences.
    `differences(recorded, found, exact)`: what the test asserts (exact=False) or every figure that moved at all."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--check", action="store_true", help="compare with the recorded file instead of writing it, "
                        "within the test's tolerances (measured across CPUs: tests/fixtures/drift.md)")
    parser.add_argument("--exact", action="store_true", help="with --check: list every figure that moved at all "
                        "(bit-for-bit holds only on the CPU that recorded the file)")
    args = parser.parse_args(argv)
    found = figures()
    if args.check:
        listed = differences(json.loads(fixture.read_text()), json.loads(json.dumps(found)), args.exact)
        print("\n".join(listed) or ("identical" if args.exact else "within tolerance"))
        return 1 if listed else 0
    from ltn_sudoku.io import atomic_write_text

    atomic_write_text(fixture, json.dumps(found, indent=1, sort_keys=True) + "\n")
    print(f"wrote {fixture}")
    return 0
