"""Reasoning tiers of public 9x9 sets and generated 9x9 / 4x4 puzzles, and the speed of the symbolic baselines:
the figures of docs/tiers.md.

Per file (a reproducible random sample of --sample puzzles; all of a smaller file) or generated set (--sample unique
puzzles of ltn_sudoku.generate, givens 22-40 for 9x9 as the generator gives up below about 22, 4-10 for 4x4): the
tier distribution (ltn_sudoku.questions.tiers.run_tiers), the singles loop's solved share, and CPU seconds of
- tier labelling (run_tiers: the exact solver's batch call plus the T1..T5 engine stages),
- the singles loop, batched (one numpy call for the file) and one board at a time (singles_loop),
- the engine restricted to singles (Engine(["Full House", "Naked Single", "Hidden Single"], fallback=False).solve),
  the baseline the singles loop's speed is a ratio against; the two must reach the same boards (checked here too).

    .venv/bin/python scripts/bench_tiers.py [--sample 200] [--seed 0] [--files top95 top1465 ...]
    .venv/bin/python scripts/bench_tiers.py --exemplars

--exemplars instead prints the tiers of HoDoKu's exemplars 's <tag> s' (singles stall, the tagged technique, singles
finish: ltn_sudoku.techniques.hodoku.hodoku_exemplars) beside the tier of the tagged technique's family: where the tier
is lower, techniques of easier families also do the job, which is the difference between "needs" and "uses".

Times are CPU seconds (time.process_time) in this process, numba warmed up first; peak memory is the process's
maximum resident set size.
"""

from __future__ import annotations

import argparse
import random
import resource
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence, TypeVar

import numpy as np

from ltn_sudoku.board import Board
from ltn_sudoku.generate import generate
from ltn_sudoku.io import read_boards
from ltn_sudoku.paths import data_file
from ltn_sudoku.questions.engine import Engine
from ltn_sudoku.questions.tiers import SEARCH_TIER, run_tiers, singles_loop, singles_loop_batch, tier_techniques
from ltn_sudoku.techniques.hodoku import hodoku_exemplars

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # scripts/ as a package, wherever this runs from
from scripts._machine import machine_line  # noqa: E402

FILES: dict[str, str] = {
    "17clue": "9x9/17clue_49158.txt",
    "qqwing_simple": "9x9/qqwing_simple.txt",
    "qqwing_easy": "9x9/qqwing_easy.txt",
    "qqwing_intermediate": "9x9/qqwing_intermediate.txt",
    "qqwing_expert": "9x9/qqwing_expert.txt",
    "top95": "9x9/top95.txt",
    "top1465": "9x9/top1465.txt",
}
# HoDoKu exemplar tag -> (technique, tier of its family: its row in ltn_sudoku/techniques/families.py)
EXEMPLAR_TAGS: dict[str, tuple[str, int]] = {
    "lc1": ("Locked Candidates Type 1", 2), "lc2": ("Locked Candidates Type 2", 2), "l2": ("Locked Pair", 2),
    "l3": ("Locked Triple", 2), "n2": ("Naked Pair", 3), "n3": ("Naked Triple", 3), "n4": ("Naked Quadruple", 3),
    "h2": ("Hidden Pair", 3), "h3": ("Hidden Triple", 3), "bf2": ("X-Wing", 4), "bf3": ("Swordfish", 4),
    "fbf2": ("Finned X-Wing", 4), "fbf3": ("Finned Swordfish", 4), "sbf2": ("Sashimi X-Wing", 4),
    "sbf3": ("Sashimi Swordfish", 4), "sk": ("Skyscraper", 4), "2sk": ("2-String Kite", 4), "tf": ("Turbot Fish", 4),
    "er": ("Empty Rectangle", 4), "w": ("W-Wing", 4), "xy": ("XY-Wing", 4), "xyz": ("XYZ-Wing", 4),
    "u1": ("Uniqueness Test 1", 4), "u2": ("Uniqueness Test 2", 4), "u3": ("Uniqueness Test 3", 4),
    "bug1": ("BUG+1", 4), "rp": ("Remote Pair", 5), "x": ("X-Chain", 5), "xyc": ("XY-Chain", 5),
    "cnl": ("Continuous Nice Loop", 5), "dnl": ("Discontinuous Nice Loop", 5), "aic": ("AIC", 5),
    "gcnl": ("Grouped Continuous Nice Loop", 5), "gaic": ("Grouped AIC", 5), "sdc": ("Sue de Coq", 5),
    "fcv": ("Forcing Chain Verity", 6),
}
GENERATED: dict[str, tuple[int, tuple[int, int]]] = {"generated_9x9": (9, (22, 40)), "generated_4x4": (4, (4, 10))}
T = TypeVar("T")


@dataclass
class FileResult:
    name: str
    puzzles: int
    tiers: np.ndarray  # counts of tiers 0..6
    singles_solved: int
    tier_s: float
    loop_batch_s: float
    loop_each_s: float
    engine_singles_s: float


def cpu(fn: Callable[[], T]) -> tuple[T, float]:
    start = time.process_time()
    out = fn()
    return out, time.process_time() - start


def sample(name: str, count: int, seed: int) -> list[Board]:
    """A file's puzzles (a sample of `count`), or `count` unique puzzles from the generator (kind 'unique')."""
    if name in GENERATED:
        n, givens = GENERATED[name]
        return [r.board for r in generate(n, "open_solvable", count, seed, kind="unique", givens=givens)]
    boards = read_boards(data_file(FILES[name]))
    return boards if count >= len(boards) else random.Random(seed).sample(boards, count)


def measure(name: str, boards: Sequence[Board]) -> FileResult:
    array, n = np.array([b.values for b in boards]), boards[0].n
    run, tier_s = cpu(lambda: run_tiers(boards))
    loop, loop_batch_s = cpu(lambda: singles_loop_batch(array, n))
    each, loop_each_s = cpu(lambda: [singles_loop(b) for b in boards])
    engine = Engine(list(tier_techniques(1)), fallback=False)
    finals, engine_s = cpu(lambda: [engine.solve(b).final for b in boards])
    if [list(b.values) for b in each] != loop.tolist() or [list(f.values) for f in finals if f] != loop.tolist():
        raise AssertionError(f"{name}: the singles loop and the engine restricted to singles reach different boards")
    solved = int((loop > 0).all(1).sum())
    if solved != int((run.tiers == 1).sum()):
        raise AssertionError(f"{name}: singles loop solves {solved}, T1 has {(run.tiers == 1).sum()}")
    return FileResult(name, len(boards), np.bincount(run.tiers, minlength=SEARCH_TIER + 1), solved, tier_s,
                      loop_batch_s, loop_each_s, engine_s)


def tables(results: Sequence[FileResult]) -> str:
    head = ["| file | puzzles | T1 | T2 | T3 | T4 | T5 | T6 | no solution | singles loop solves |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        shares = [f"{c} ({c / r.puzzles:.0%})" for c in r.tiers[1:]]
        head.append(f"| {r.name} | {r.puzzles} | {' | '.join(shares)} | {r.tiers[0]} | "
                    f"{r.singles_solved / r.puzzles:.1%} |")
    speed = ["", ("| file | tier labelling puzzles/s | singles loop batched puzzles/s | singles loop one by one "
                  "puzzles/s | engine singles puzzles/s | batched loop / engine singles | one-by-one loop / engine "
                  "singles |"), "|---|---:|---:|---:|---:|---:|---:|"]
    total = FileResult("all", sum(r.puzzles for r in results), sum(r.tiers for r in results),
                       sum(r.singles_solved for r in results), sum(r.tier_s for r in results),
                       sum(r.loop_batch_s for r in results), sum(r.loop_each_s for r in results),
                       sum(r.engine_singles_s for r in results))
    for r in [*results, total]:
        speed.append(f"| {r.name} | {r.puzzles / r.tier_s:.0f} | {r.puzzles / r.loop_batch_s:.0f} | "
                     f"{r.puzzles / r.loop_each_s:.0f} | {r.puzzles / r.engine_singles_s:.0f} | "
                     f"{r.engine_singles_s / r.loop_batch_s:.1f}x | {r.engine_singles_s / r.loop_each_s:.1f}x |")
    footer = ["", (f"tier labelling of all {total.puzzles} puzzles: {total.tier_s:.1f} CPU s; "
                   f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")]
    return "\n".join(head + speed + footer)


def exemplar_table() -> str:
    rows = ["| tag | technique | its family's tier | exemplars | our tiers |", "|---|---|---:|---:|---|"]
    for tag, (technique, family_tier) in EXEMPLAR_TAGS.items():
        boards = [e.puzzle for e in hodoku_exemplars(tag) if e.before == "s" and e.after == "s"]
        counts = Counter(run_tiers(boards).tiers.tolist())
        rows.append(f"| {tag} | {technique} | T{family_tier} | {len(boards)} | "
                    f"{', '.join(f'T{t}: {c}' for t, c in sorted(counts.items()))} |")
    return "\n".join(rows)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", nargs="+", choices=[*FILES, *GENERATED], default=[*FILES, *GENERATED])
    parser.add_argument("--sample", type=int, default=200, help="puzzles per file (all of a smaller file)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--exemplars", action="store_true", help="tiers of HoDoKu's exemplars per technique")
    args = parser.parse_args(argv)
    print(machine_line())
    if args.exemplars:
        print(exemplar_table())
        return
    run_tiers([sample("top95", 1, 0)[0]])  # numba compile outside the timings
    results = []
    for name in args.files:
        results.append(measure(name, sample(name, args.sample, args.seed)))
        print(f"{name}: {results[-1].tier_s:.1f} CPU s", flush=True)
    print(tables(results))


if __name__ == "__main__":
    main()
