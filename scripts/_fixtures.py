"""What the fixture recorders share (record_objective_pins.py, record_training_trajectories.py): write today's
figures into the fixture file, or with --check list where they differ from it and write nothing."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any, Callable, Sequence


def record_or_check(description: str, fixture: Path, figures: Callable[[], dict[str, Any]],
                    differences: Callable[[dict[str, Any], dict[str, Any]], list[str]],
                    argv: Sequence[str] | None = None) -> int:
    """The recorders' `main`: 0 once written or when identical, 1 when --check finds differences."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--check", action="store_true", help="compare with the recorded file instead of writing it")
    args = parser.parse_args(argv)
    found = figures()
    if args.check:
        listed = differences(json.loads(fixture.read_text()), found)
        print("\n".join(listed) or "identical")
        return 1 if listed else 0
    from ltn_sudoku.io import atomic_write_text

    atomic_write_text(fixture, json.dumps(found, indent=1, sort_keys=True) + "\n")
    print(f"wrote {fixture}")
    return 0
