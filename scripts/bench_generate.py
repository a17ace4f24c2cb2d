"""Generator throughput: boards per CPU-second per class and size, the pure-Python path as the in-run baseline, and the
time to make a mixed 9x9 set (default 100,000 boards) in one process and with two worker processes.

    .venv/bin/python scripts/bench_generate.py [--quick] [--mixed 100000] [--repeat 3]
    .venv/bin/python scripts/bench_generate.py --distributions 20000   # what the boards look like, no timing

CPU time (time.process_time, plus the children's CPU for worker runs) is the measure: the machine is shared, so wall
time is printed for the worker runs only. Each class figure is the median of --repeat runs with different seeds.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Callable

from ltn_sudoku.candidates import CandidateGrid
from ltn_sudoku.exact import kernel
from ltn_sudoku.generate import CLASSES, LabelledBoard, generate, generate_mixed

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # scripts/ as a package, wherever this runs from
from scripts._machine import machine_line  # noqa: E402

COUNTS = {4: 4000, 9: 2000, 16: 40}  # boards per class and size, compiled-kernel path
PYTHON_COUNTS = {4: 2000, 9: 200, 16: 8}  # the same work on the pure-Python path
QUICK_DIVISOR = 10


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def cpu_seconds(make: Callable[[int], object], repeat: int) -> float:
    """Median CPU seconds of `repeat` runs of make(seed) (this process and any worker processes)."""
    times = []
    for seed in range(repeat):
        start, start_children = time.process_time(), children_cpu()
        make(seed)
        times.append(time.process_time() - start + children_cpu() - start_children)
    return statistics.median(times)


def bench_classes(repeat: int, divisor: int) -> None:
    print("| size | class | boards | kernel boards/s | python boards/s | ratio |")
    print("|---:|---|---:|---:|---:|---:|")
    for size in (4, 9, 16):
        for label in CLASSES:
            count = max(4, COUNTS[size] // divisor)
            py_count = max(4, PYTHON_COUNTS[size] // divisor)
            fast = count / cpu_seconds(lambda s: generate(size, label, count, s), repeat)
            slow = py_count / cpu_seconds(lambda s: generate(size, label, py_count, s, backend="python"), repeat)
            print(f"| {size}x{size} | {label} | {count} | {fast:,.0f} | {slow:,.0f} | {fast / slow:.1f}x |", flush=True)


def bench_mixed(count: int, python_count: int) -> None:
    print("\nmixed 9x9 set (four classes, kinds mixed):")
    py = cpu_seconds(lambda s: generate_mixed(9, python_count, s, backend="python"), 1)
    print(f"  python path, {python_count:,} boards: {py:.1f} s CPU ({python_count / py:,.0f} boards/s)", flush=True)
    one = cpu_seconds(lambda s: generate_mixed(9, count, s), 1)
    print(f"  1 process, {count:,} boards: {one:.1f} s CPU ({count / one:,.0f} boards/s; "
          f"{count / one / (python_count / py):.1f}x the python path)", flush=True)
    start_wall, start, start_children = time.perf_counter(), time.process_time(), children_cpu()
    generate_mixed(9, count, 0, workers=2)
    wall = time.perf_counter() - start_wall
    parent, workers = time.process_time() - start, children_cpu() - start_children
    print(f"  2 worker processes, {count:,} boards: {wall:.1f} s wall, CPU {parent:.1f} s parent + {workers:.1f} s "
          f"workers (about {parent + workers / 2:.1f} s on each of 2 idle cores)")


def histogram(values: list[int]) -> str:
    counts = Counter(values)
    return " ".join(f"{v}:{counts[v]}" for v in sorted(counts))


def describe(size: int, unique: bool, records: list[LabelledBoard]) -> None:
    """Givens per class and kind, repeated boards, conflicts of invalid boards, dead-end reasons of obvious ones."""
    repeated = len(records) - len({r.board for r in records})
    print(f"\n{size}x{size}, unique={unique}: {len(records):,} boards, {repeated:,} repeated")
    for label, kind in sorted({(r.label, r.kind) for r in records}):
        group = [r for r in records if (r.label, r.kind) == (label, kind)]
        head = f"  {label}/{kind} ({len(group)}, {len({r.board for r in group})} distinct)"
        if label.startswith("open"):
            givens = [r.board.givens for r in group]
            print(f"{head}: givens mean {statistics.mean(givens):.1f}; {histogram(givens)}")
        else:
            cells = [len({c for conflict in r.board.conflicts() for c in conflict.cells}) for r in group]
            print(f"{head}: cells in conflict {histogram(cells)}")
        if kind == "obvious":
            reasons = Counter((CandidateGrid.from_board(r.board).dead_end() or "").split()[0] for r in group)
            print(f"    dead end: {reasons['cell']} cells without candidate, {reasons['digit']} digits without place")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mixed", type=int, default=100_000, help="boards in the mixed 9x9 set (default 100000)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per class figure (median; default 3)")
    parser.add_argument("--quick", action="store_true", help="a tenth of the class counts, 10,000 mixed boards")
    parser.add_argument("--distributions", type=int, metavar="N",
                        help="instead of timing: describe N mixed 4x4 and 9x9 boards, seed 0, unique=True and False")
    args = parser.parse_args()
    print(machine_line())
    if args.distributions:
        for size in (4, 9):
            for unique in (True, False):
                describe(size, unique, generate_mixed(size, args.distributions, 0, unique=unique))
        return
    kernel.warm_up()
    generate_mixed(9, 8, 0)  # load every compiled function before timing
    divisor = QUICK_DIVISOR if args.quick else 1
    bench_classes(args.repeat, divisor)
    bench_mixed(10_000 if args.quick else args.mixed, 400 if args.quick else 2000)


if __name__ == "__main__":
    main()
