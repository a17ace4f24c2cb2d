"""What `make demo` runs: the symbolic answers (Q1/Q2) for every example board shipped in data/examples/.

Each part of the demo is one function taking no arguments and printing its own section; main() runs them in order,
so a later part (e.g. a short LTN training) is one more function in PARTS.
"""

from __future__ import annotations

import sys
import time
from typing import Callable

from ltn_sudoku.io import read_records
from ltn_sudoku.paths import DATA_DIR
from ltn_sudoku.questions import classify
from ltn_sudoku.report_text import render_report

EXAMPLES_DIR = DATA_DIR / "examples"


def _heading(text: str) -> None:
    print(f"\n{'#' * 100}\n# {text}\n{'#' * 100}\n")


def classify_examples() -> None:
    """Print the full report of every example board, then a one-line summary per file."""
    paths = sorted(EXAMPLES_DIR.glob("*.csv"))
    if not paths:
        raise SystemExit(f"no example boards in {EXAMPLES_DIR}")
    _heading(f"Q1/Q2: the exact answers for the {len(paths)} example boards in {EXAMPLES_DIR}")
    summary = []
    for path in paths:
        comment = path.read_text(encoding="utf-8").splitlines()[0].lstrip("# ")
        for record in read_records(path):
            report = classify(record.board)
            print(f"# {comment}")
            print(render_report(report, path.name) + "\n")
            if report.closed:
                answer = "valid" if report.valid else f"invalid ({len(report.conflicts)} conflicts)"
            else:
                answer = {0: "no solution", 1: "unique solution"}.get(report.solution_count, "several solutions")
                answer += f", {report.dead_ends}/{len(report.moves)} dead-end moves"
            summary.append(f"{path.name:<34} {answer}")
    _heading("Summary")
    print("\n".join(summary))


PARTS: tuple[Callable[[], None], ...] = (classify_examples,)


def main() -> int:
    start = time.perf_counter()
    for part in PARTS:
        part()
    print(f"\ndemo finished in {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
