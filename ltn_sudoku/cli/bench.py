"""`ltn-sudoku bench`: a quick run of the exact-solver benchmark (scripts/bench_exact.py has every option)."""

from __future__ import annotations

import argparse

from ltn_sudoku.cli import UsageError


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "bench",
        help="quick benchmark of the exact solvers against CaDiCaL (about a minute)",
        description="Time the exact solvers (numba kernel, pure-Python search, Dancing Links) on the shared 9x9 "
                    "benchmark files and the generalized 9x9..81x81 puzzles, in CPU time, with ratios against "
                    "python-sat's CaDiCaL measured in the same run. Reads ../shared/data beside the repository "
                    "(or $LTN_SUDOKU_SHARED). The full run is `python scripts/bench_exact.py`.",
    )
    p.add_argument("--limit", type=int, default=2000, help="puzzles per 9x9 file (default 2000)")
    p.add_argument("--ranks", type=int, nargs="+", default=list(range(3, 10)), metavar="K",
                   help="generalized box sizes k, n = k*k (default 3 .. 9)")
    return p


def run(args: argparse.Namespace) -> int:
    from ltn_sudoku.exact._bench import bench_all

    if args.limit < 1:
        raise UsageError("--limit must be at least 1")
    if any(not 3 <= k <= 9 for k in args.ranks):
        raise UsageError("--ranks takes box sizes 3 .. 9 (the generalized files: 9x9 .. 81x81)")
    bench_all(quick=True, repeats=1, limit=args.limit, pure_count=200, dlx_count=100, ranks=args.ranks,
              generalized_limit=20, pure_cap=2.0, generalized_pure_count=3)
    return 0
