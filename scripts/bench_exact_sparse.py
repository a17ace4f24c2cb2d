"""Benchmark the exact portfolio on random sparse large boards against python-sat's CaDiCaL, board by board.

    .venv/bin/python scripts/bench_exact_sparse.py                      # 200 boards: 50 per size 16, 25, 36, 49
    .venv/bin/python scripts/bench_exact_sparse.py --per-size 8         # a few minutes
    .venv/bin/python scripts/bench_exact_sparse.py --cadical-default    # the portfolio's CaDiCaL in its default mode
    .venv/bin/python scripts/bench_exact_sparse.py --per-board rows.csv # also each board's times, written as it goes

Per size: the counts, how many boards the kernel handed to CaDiCaL, portfolio and CaDiCaL times (CPU s, same
process), the worst ratio, the boards over 1 s and over 2x CaDiCaL, and the boards CaDiCaL alone takes over 1 s on;
then the peak memory. The figures in docs/exact.md come from this script.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:  # the shared benchmark code of scripts/bench_exact.py
    sys.path.insert(0, str(REPO_ROOT))

from ltn_sudoku.exact import sat  # noqa: E402
from ltn_sudoku.exact.sparse import SPARSE_SIZES  # noqa: E402
from scripts._machine import machine_line  # noqa: E402
from scripts.bench_exact import bench_sparse_portfolio  # noqa: E402


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--per-size", type=int, default=50, help="boards per size (default 50)")
    p.add_argument("--sizes", type=int, nargs="+", default=list(SPARSE_SIZES), help="sides (default 16 25 36 49)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--cadical-default", action="store_true",
                   help="the portfolio's CaDiCaL without sat.SAT_OPTIONS (default mode, as before fd74ecc), to compare")
    p.add_argument("--per-board", metavar="CSV", help="write each board's count, engine and times to this CSV file")
    args = p.parse_args(argv)
    if args.cadical_default:
        sat.SAT_OPTIONS.clear()
    print(machine_line())
    bench_sparse_portfolio(args.sizes, args.per_size, args.seed, args.per_board)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
