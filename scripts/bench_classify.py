"""Benchmark: boards per second of classify() (Q1/Q2 with every move's dead-end flag) against the naive per-move
check (one solution count for the board, then count_solutions(board + move, limit=1) for every move), both run here,
on the same boards, with the same solver backend. CPU time, best of --repeat runs; the flags of both are compared.

    .venv/bin/python scripts/bench_classify.py [--boards 40] [--repeat 3] [--backends auto python]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from typing import Callable, Sequence

from ltn_sudoku.board import Board, iter_bits
from ltn_sudoku.exact import count_solutions, random_solutions
from ltn_sudoku.io import read_boards
from ltn_sudoku.paths import shared_file
from ltn_sudoku.questions import classify


def naive_flags(board: Board, backend: str) -> list[bool]:
    """The baseline: the board's own count, then one exact search per basic-rule move."""
    count_solutions(board, 2, backend=backend)
    return [count_solutions(board.with_value(c, b + 1), 1, backend=backend) == 0
            for c, mask in enumerate(board.candidate_masks()) for b in iter_bits(mask)]


def classify_flags(board: Board, backend: str) -> list[bool]:
    return [m.dead_end for m in classify(board, backend=backend, heuristics=False).moves]


def cut_puzzles(n: int, count: int, empty_share: float, seed: int) -> list[Board]:
    """Random grids with a share of cells emptied at random: a mix of unique and multi-solution boards."""
    rng = random.Random(seed)
    return [Board([0 if rng.random() < empty_share else int(v) for v in grid], n)
            for grid in random_solutions(n, count, seed=seed)]


def workloads(count: int) -> dict[str, list[Board]]:
    return {
        "4x4 random cut (60% empty)": cut_puzzles(4, count, 0.6, seed=4),
        "9x9 random cut (55% empty)": cut_puzzles(9, count, 0.55, seed=9),
        "9x9 qqwing_intermediate": read_boards(shared_file("9x9/qqwing_intermediate.txt"))[:count],
        "9x9 top95": read_boards(shared_file("9x9/top95.txt"))[:count],
    }


def best_cpu_seconds(flags: Callable[[Board, str], list[bool]], boards: list[Board], backend: str,
                     repeat: int) -> float:
    """The least CPU time, over `repeat` runs, to compute the flags of every board."""
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        for board in boards:
            flags(board, backend)
        best = min(best, time.process_time() - start)
    return best


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=40, help="boards per workload (default 40)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement, best kept (default 3)")
    parser.add_argument("--backends", nargs="+", default=["auto", "python"], help="solver backends to measure")
    args = parser.parse_args(argv)
    sets = workloads(args.boards)
    for backend in args.backends:  # warm up (numba loads its compiled code on first use)
        classify(sets["9x9 top95"][0], backend=backend, heuristics=False)
    header = f"{'workload':<28} {'backend':<7} {'boards':>6} {'moves/board':>11} {'classify/s':>11} {'naive/s':>9} " \
             f"{'speedup':>8}"
    print(header)
    print("-" * len(header))
    for name, boards in sets.items():
        moves = sum(len(classify_flags(b, "python")) for b in boards) / len(boards)
        for backend in args.backends:
            for b in boards:
                if classify_flags(b, backend) != naive_flags(b, backend):
                    raise SystemExit(f"dead-end flags differ from the naive check on {b.to_line()}")
            fast = best_cpu_seconds(classify_flags, boards, backend, args.repeat)
            slow = best_cpu_seconds(naive_flags, boards, backend, args.repeat)
            print(f"{name:<28} {backend:<7} {len(boards):>6} {moves:>11.0f} {len(boards) / fast:>11.1f} "
                  f"{len(boards) / slow:>9.1f} {slow / fast:>7.1f}x", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
