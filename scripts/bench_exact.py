"""Benchmark the exact solvers: kernel, pure-Python search and DLX against python-sat's CaDiCaL in the same run.

    .venv/bin/python scripts/bench_exact.py            # everything (about 10 minutes on 2 shared cores)
    .venv/bin/python scripts/bench_exact.py --quick    # trimmed, about a minute
    .venv/bin/python scripts/bench_exact.py --sections single --limit 20000   # one section
    .venv/bin/python scripts/bench_exact.py --sections nine --tdoku ../tdoku/build/libtdoku_shared.so

Prints markdown tables: compile and first-call times, 9x9 rates against CaDiCaL, the single-board path against the
batch call, the generalized puzzles, and the portfolio on sparse 16x16..49x49 boards against CaDiCaL (CPU time,
ratios against baselines run in the same process, peak memory); the figures in docs/exact.md come from these runs.
"""

from __future__ import annotations

import argparse
from typing import Sequence

from ltn_sudoku.exact._bench import SECTIONS, bench_all


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="small subsets: a minute instead of ten")
    p.add_argument("--repeats", type=int, help="kernel and CaDiCaL runs per 9x9 file (default 3, quick 1)")
    p.add_argument("--limit", type=int, help="puzzles per 9x9 file (default all, quick 2000)")
    p.add_argument("--pure-count", type=int, help="puzzles per file for the pure-Python search (default 5000, "
                                                  "quick 200); also per generalized size (default 10, quick 3)")
    p.add_argument("--dlx-count", type=int, help="puzzles per 9x9 file for DLX (default 1000, quick 100)")
    p.add_argument("--ranks", type=int, nargs="+", default=list(range(3, 10)),
                   help="generalized box sizes k (n = k*k) to run (default 3..9)")
    p.add_argument("--generalized-limit", type=int, help="puzzles per generalized size (default all, quick 20)")
    p.add_argument("--pure-cap", type=float, help="CPU seconds per generalized puzzle for python/DLX "
                                                  "(default 10, quick 2)")
    p.add_argument("--sparse-per-size", type=int, help="sparse boards per size 16..49 for the portfolio against "
                                                       "CaDiCaL (default 50, quick 2 for 16 and 25 only)")
    p.add_argument("--sections", nargs="+", choices=SECTIONS, default=list(SECTIONS),
                   help="what to run (default all): compile and first-call times, 9x9 rates, single vs batch, "
                        "generalized puzzles, sparse boards")
    p.add_argument("--tdoku", metavar="PATH", help="tdoku's shared library, built by you (git clone "
                   "https://github.com/t-dillon/tdoku; mkdir build; cd build; cmake ..; make tdoku_shared): adds "
                   "tdoku's rate measured in this run to the 9x9 table")
    args = p.parse_args(argv)
    q = args.quick
    pick = lambda given, full, quick: given if given is not None else (quick if q else full)  # noqa: E731
    pure = pick(args.pure_count, 5000, 200)
    bench_all(
        quick=q,
        repeats=pick(args.repeats, 3, 1),
        limit=pick(args.limit, None, 2000),
        pure_count=pure,
        dlx_count=pick(args.dlx_count, 1000, 100),
        ranks=args.ranks,
        generalized_limit=pick(args.generalized_limit, None, 20),
        pure_cap=pick(args.pure_cap, 10.0, 2.0),
        generalized_pure_count=args.pure_count if args.pure_count is not None else (3 if q else 10),
        sparse_per_size=args.sparse_per_size,
        sections=args.sections,
        tdoku_path=args.tdoku,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
