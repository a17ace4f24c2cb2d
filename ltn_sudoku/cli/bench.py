"""`ltn-sudoku bench`: a quick run of the exact-solver benchmark (scripts/bench_exact.py has every option)."""

from __future__ import annotations

import argparse
import runpy

from ltn_sudoku.cli import UsageError
from ltn_sudoku.paths import REPO_ROOT

BENCH_SCRIPT = REPO_ROOT / "scripts" / "bench_exact.py"  # benchmarks live in scripts/ of a checkout (not in a wheel)


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "bench",
        help="quick benchmark of the exact solvers against CaDiCaL (about a minute)",
        description="Time the exact solvers (numba kernel, pure-Python search, Dancing Links) on the shared 9x9 "
                    "benchmark files and the generalized 9x9..81x81 puzzles, in CPU time, with ratios against "
                    "python-sat's CaDiCaL measured in the same run. Reads the data home ($LTN_SUDOKU_DATA; "
                    "`ltn-sudoku data fetch`). Runs scripts/bench_exact.py, so it needs a clone of the repository "
                    "(an installed wheel has no scripts/); the full run is `python scripts/bench_exact.py`.",
    )
    p.add_argument("--limit", type=int, default=2000, help="puzzles per 9x9 file (default 2000)")
    p.add_argument("--ranks", type=int, nargs="+", default=list(range(3, 10)), metavar="K",
                   help="generalized box sizes k, n = k*k (default 3 .. 9)")
    return p


def run(args: argparse.Namespace) -> int:
    if args.limit < 1:
        raise UsageError("--limit must be at least 1")
    if any(not 3 <= k <= 9 for k in args.ranks):
        raise UsageError("--ranks takes box sizes 3 .. 9 (the generalized files: 9x9 .. 81x81)")
    if not BENCH_SCRIPT.is_file():
        raise UsageError(f"`ltn-sudoku bench` runs scripts/bench_exact.py of a clone of the repository, and there is "
                         f"none here ({BENCH_SCRIPT} not found: an installed wheel ships no scripts/)")
    main = runpy.run_path(str(BENCH_SCRIPT), run_name="bench_exact")["main"]
    return main(["--quick", "--limit", str(args.limit), "--ranks", *map(str, args.ranks)])
