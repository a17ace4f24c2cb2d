"""Benchmarks of classify-board, three sections (pick with --sections):

- moves: boards per second of classify() (Q1/Q2 with every move's dead-end flag) against the naive per-move check
  (one solution count for the board, then count_solutions(board + move, limit=1) for every move), both run here, on
  the same boards, with the same solver backend. CPU time, best of --repeat runs; the flags of both are compared.
- scale: `classify-board FILE --no-ltn --no-heuristics --out results.csv|.jsonl` as a separate process on --scale
  boards (default 1,000,000): the Kaggle 1M set's first 24,997 rows (kaggle/kaggle_1m_first24997.csv.gz of the data home)
  repeated into a temporary CSV. Prints CPU seconds (user + system, resource.getrusage(RUSAGE_CHILDREN)), wall
  seconds, boards per CPU second and the peak resident memory of the process (ru_maxrss), and the ratio against the
  one-board-at-a-time path (questions.report.classify per board) measured in this process on the first 20,000 boards.
- sizes: the default command's answer time per board (Q1/Q2, Q3, and the LTN where a model exists) on every file of
  the data home's generalized/ (up to --per-file boards each) and on random sparse 16x16 boards (192 empty cells),
  CPU and wall seconds, worst and mean, and how many answers said they were limited.
- sparse: the same on the sparse boards of the exact benchmark (ltn_sudoku.exact.sparse, --sparse-sizes), where a
  single exact count can take seconds to minutes (docs/exact.md, sparse boards).
- kaggle: the default command's CPU per board on --sample random rows (seed 29) of each real Kaggle set (1M, 9M, 3M in
  the data home's kaggle/) and of top1465, answered as classify-board answers a chunk (ltn_sudoku.answering, after
  warm-up): Q1/Q2 alone, + Q3, + the LTN (the default), and the default with Q3's complete survey (the survey before issue 29)
  in the same process, with its ratio; then the whole command on the same rows as a child process (start-up
  included). Peak = the largest resident set of this process or the child. With --baseline REV the kaggle section
  instead sets this tree beside the package of commit REV (`git archive` into a temporary folder): each side answers
  the same rows in child processes (`--kaggle-parts`, the package chosen by PYTHONPATH), --sides-passes children a
  side, alternating, each the best of --repeat interleaved passes after a warm-up pass; Q1/Q2, + Q3 and the default
  per set (--kaggle-sets), and the ratios.
- q3profile: where Q3's CPU goes on top1465 (--sample rows, seed 29, the kaggle section's): each technique's finder
  CPU per board (the memory tracker's timing of every finder call of the solving path), its share of Q3's CPU and its
  calls per board; --top picks how many techniques are listed.
- dataset: the default command on the 24,997 real 1M rows (kaggle/kaggle_1m_first24997.csv.gz of the data home) into a
  CSV, as child processes: --jobs 1, --jobs 2, --dask with a LocalCluster of 1 and 2 workers (--runs picks). Wall
  seconds, user and system CPU seconds of the whole process tree (the workers included: RUSAGE_CHILDREN), CPU ms per
  board, the ratio of wall time against --jobs 2 (and whether Dask is within 20 % of it), the peak of the tree's
  summed resident memory (psutil, sampled; Dask's workers are grandchildren); the results files are compared. --dataset-rows N runs it on the file's first N rows (a quick check).

    .venv/bin/python scripts/bench_classify.py --sections moves [--boards 40] [--repeat 3] [--backends auto python]
    .venv/bin/python scripts/bench_classify.py --sections scale [--scale 1000000] [--jobs 1] [--formats csv jsonl]
    .venv/bin/python scripts/bench_classify.py --sections sizes [--per-file 10]
    .venv/bin/python scripts/bench_classify.py --sections sparse [--sparse-sizes 25 36] [--per-file 10]
    .venv/bin/python scripts/bench_classify.py --sections kaggle [--sample 200] [--baseline REV --repeat 3 --kaggle-sets ...]
    .venv/bin/python scripts/bench_classify.py --sections q3profile [--sample 200] [--top 15] [--q3-set "Kaggle 3M"]
    .venv/bin/python scripts/bench_classify.py --sections dataset [--runs jobs1 jobs2 dask1 dask2] [--dataset-rows N]
    .venv/bin/python scripts/bench_classify.py --sections allocator [--dataset-rows 1000]
"""

from __future__ import annotations

import argparse
import functools
import gzip
import itertools
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Callable, NamedTuple, Sequence

from tqdm import tqdm

from ltn_sudoku.answering import Answerer, Chunk, Written, chunks, write_chunk
from ltn_sudoku.board import Board, iter_bits
from ltn_sudoku.cli.allocator import keep_large_arrays_in_heap
from ltn_sudoku.cli.results import flat_row
from ltn_sudoku.exact import count_solutions, random_solutions
from ltn_sudoku.io import iter_records, parse_board_text, read_boards
from ltn_sudoku.paths import data_file
from ltn_sudoku.questions.report import classify

if TYPE_CHECKING:
    import psutil


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
        "9x9 qqwing_intermediate": read_boards(data_file("9x9/qqwing_intermediate.txt"))[:count],
        "9x9 top95": read_boards(data_file("9x9/top95.txt"))[:count],
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


def moves_section(args: argparse.Namespace) -> None:
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


KAGGLE_1M = "kaggle/kaggle_1m_first24997.csv.gz"
BASELINE_BOARDS = 20_000


def scale_input(count: int, folder: Path) -> Path:
    """A Kaggle-format CSV of `count` boards: the data home's Kaggle rows, repeated."""
    with gzip.open(data_file(KAGGLE_1M), "rt", encoding="utf-8") as f:
        header, *rows = [line for line in f.read().splitlines() if line]
    path = folder / f"kaggle_x{count}.csv"
    with open(path, "w", encoding="utf-8") as out:
        out.write(header + "\n")
        for i in range(count):
            out.write(rows[i % len(rows)] + "\n")
    return path


def baseline_boards_per_cpu_second(path: Path) -> float:
    """The one-board-at-a-time path (classify per board, what classify-board did before chunks) in this process."""
    records = list(itertools.islice(iter_records(path), BASELINE_BOARDS))
    classify(records[0].board, heuristics=False)
    start = time.process_time()
    for r in records:
        flat_row(classify(r.board, heuristics=False).as_dict())
    return len(records) / (time.process_time() - start)


def scale_section(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="bench_classify_") as tmp:
        path = scale_input(args.scale, Path(tmp))
        baseline = baseline_boards_per_cpu_second(path)
        print(f"{args.scale:,} 9x9 boards: {KAGGLE_1M} repeated; --no-ltn --no-heuristics --jobs {args.jobs}; "
              f"CPU = user + system of the classify process (resource.getrusage RUSAGE_CHILDREN), peak = its ru_maxrss")
        header = f"{'output':<7} {'CPU s':>8} {'wall s':>8} {'boards/CPU s':>13} {'vs one-by-one':>14} {'peak MB':>8}"
        print(header)
        print("-" * len(header))
        for fmt in args.formats:
            out = Path(tmp) / f"results.{fmt}"
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            subprocess.run([sys.executable, "-m", "ltn_sudoku", "classify", str(path), "--no-ltn", "--no-heuristics",
                            "--jobs", str(args.jobs), "--out", str(out)], check=True, stdout=subprocess.DEVNULL)
            wall = time.perf_counter() - start
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            peak_mb = after.ru_maxrss / 1024  # the largest child so far (KiB on Linux); csv runs first
            print(f"{fmt:<7} {cpu:>8.1f} {wall:>8.1f} {args.scale / cpu:>13,.0f} {args.scale / cpu / baseline:>13.1f}x "
                  f"{peak_mb:>8.0f}", flush=True)
            out.unlink()


def sparse_16x16(count: int, seed: int = 16) -> list[Board]:
    """Random 16x16 grids with 192 of their 256 cells emptied at random (many solutions)."""
    rng = random.Random(seed)
    boards = []
    for grid in random_solutions(16, count, seed=seed):
        values = [int(v) for v in grid]
        for cell in rng.sample(range(256), 192):
            values[cell] = 0
        boards.append(Board(values, 16))
    return boards


def time_default_command(sets: dict[str, list[Board]]) -> None:
    """Per set: the default command's CPU and wall seconds per board (worst, mean) and the answers that were limited."""
    from ltn_sudoku.io import BoardRecord

    answerer = _answerer(True, True, output="jsonl")  # the default command, one JSON line per board
    header = f"{'boards':<32} {'n':>3} {'count':>5} {'worst CPU s':>11} {'mean CPU s':>10} {'worst wall s':>12} " \
             f"{'limited':>7}"
    print("the default command (Q1/Q2, Q3, LTN where a model exists), one board at a time")
    print(header)
    print("-" * len(header))
    for name, boards in sets.items():
        cpu, wall, limited = [], [], 0
        for i, board in enumerate(boards):
            c0, w0 = time.process_time(), time.perf_counter()
            text = answerer([(i, BoardRecord(board, i + 1))]).text
            cpu.append(time.process_time() - c0)
            wall.append(time.perf_counter() - w0)
            answer = json.loads(text)
            limited += bool(answer.get("dead_end_limit") or answer.get("heuristics_limit"))
        print(f"{name:<32} {boards[0].n:>3} {len(boards):>5} {max(cpu):>11.2f} {sum(cpu) / len(cpu):>10.2f} "
              f"{max(wall):>12.2f} {limited:>7}", flush=True)


def sizes_section(args: argparse.Namespace) -> None:
    sets = {p.name: [r.board for r in itertools.islice(iter_records(p), args.per_file)]
            for p in sorted(data_file("generalized").glob("sudoku_rank_*.csv"))}
    sets["random sparse 16x16 (192 empty)"] = sparse_16x16(args.per_file)
    time_default_command(sets)


def sparse_section(args: argparse.Namespace) -> None:
    """The sparse boards of the exact benchmark (ltn_sudoku.exact.sparse, seed 1: 30-50 % givens, every third with
    a changed given), where one exact count can take seconds to minutes."""
    from ltn_sudoku.exact.sparse import sparse_boards

    time_default_command({f"sparse {n}x{n} (exact/sparse.py)": [Board(row.tolist(), n) for row in
                                                               sparse_boards(n, args.per_file, 1)[0]]
                          for n in args.sparse_sizes})


KAGGLE_SETS: dict[str, str] = {
    "Kaggle 1M": KAGGLE_1M,
    "Kaggle 9M": "kaggle/kaggle_9m_first10000.csv.gz",
    "Kaggle 3M": "kaggle/kaggle_3m_first13211_noratings.csv.gz",
    "top1465": "9x9/top1465.txt",
}


KAGGLE_TARGETS_MS = {"Kaggle 1M": 10.0, "Kaggle 3M": 50.0, "top1465": 200.0}  # issue 29's, default CPU ms per board


WARM_UP_9X9 = "530070000600195000098000060800060003400803001700020006060000280000419005000080079"  # a classic


def _answerer(heuristics: bool, ltn: bool, survey: str = "tiered",
              output: str = "csv") -> Callable[[Chunk], Written]:
    """classify-board's pipeline answering a chunk and writing it as a CSV or JSON Lines (the command's default
    options unless told), loaded and compiled."""
    from ltn_sudoku.cli.results import CsvWriter, JsonLinesWriter, csv_columns
    from ltn_sudoku.io import BoardRecord

    writer = CsvWriter(csv_columns(heuristics, ltn)) if output == "csv" else JsonLinesWriter()
    pipeline = Answerer(heuristics=heuristics, ltn=ltn, survey=survey)  # type: ignore[arg-type]
    answerer = functools.partial(write_chunk, pipeline, writer)
    for warm_up in ("1.34 34.2 2143 432.", WARM_UP_9X9):  # each size's model loaded before any timing (a chunk
        answerer([(0, BoardRecord(parse_board_text(warm_up), 1))])  # holds one size)
    return answerer


def _peak_mb() -> float:
    return max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) / 1024


class ChildRun(NamedTuple):
    """What one `classify` child process tree cost: user and system CPU s (workers included), wall s, and the peak
    of the tree's summed resident memory (sampled every SAMPLE_S; None without psutil)."""

    user: float
    system: float
    wall: float
    tree_peak_mb: float | None

    @property
    def cpu(self) -> float:
        return self.user + self.system


SAMPLE_S = 0.2


def _tree_rss_mb(process: psutil.Process) -> float:
    """The resident memory of a process and all its descendants (a Dask worker is a grandchild), in MB."""
    import psutil

    total = 0
    for member in [process, *process.children(recursive=True)]:
        try:
            total += member.memory_info().rss
        except psutil.Error:  # the member ended between the listing and the reading
            pass
    return total / 2**20


def _run_command(argv: list[str]) -> ChildRun:
    """The cost of `python -m ltn_sudoku classify ARGV` as a child process tree."""
    try:
        import psutil
    except ImportError:  # the tree's memory needs psutil (pip install 'ltn-sudoku[dask]' brings it)
        psutil = None
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-m", "ltn_sudoku", "classify", *argv], stdout=subprocess.DEVNULL)
    peak: float | None = None
    if psutil is not None:
        process = psutil.Process(child.pid)
        peak = 0.0
        while child.poll() is None:
            try:
                peak = max(peak, _tree_rss_mb(process))
            except psutil.Error:  # the child itself has just ended
                break
            time.sleep(SAMPLE_S)
    if child.wait() != 0:
        raise SystemExit(f"classify {' '.join(argv)}: exit {child.returncode}")
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ChildRun(after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime, wall, peak)


def kaggle_section(args: argparse.Namespace) -> None:
    from ltn_sudoku.io import BoardRecord, boards_to_text

    if args.baseline:
        kaggle_versus_baseline(args)
        return
    parts = {"Q1/Q2": _answerer(False, False), "+ Q3": _answerer(True, False), "default (+ LTN)": _answerer(True, True),
             "old survey": _answerer(True, True, "complete")}
    as_the_command_starts()
    defaults: dict[str, float] = {}
    print(f"{args.sample} random rows (seed 29) per set; CPU ms per board (time.process_time of this process, after "
          "warm-up), answered as one classify-board chunk; 'old survey' = the default with Q3's complete survey")
    header = f"{'set':<10} {'Q1/Q2':>7} {'+ Q3':>7} {'default':>8} {'old survey':>10} {'ratio':>6} " \
             f"{'command CPU s':>13} {'wall s':>7} {'per board':>9}"
    print(header)
    print("-" * len(header))
    for name, path in KAGGLE_SETS.items():
        boards = random.Random(29).sample(read_boards(data_file(path)), args.sample)
        chunk = [(i, BoardRecord(b, i + 1)) for i, b in enumerate(boards)]
        ms = {}
        for part, answerer in parts.items():
            forget_board_caches()  # each part meets the rows afresh (the default would find + Q3's searches cached)
            start = time.process_time()
            answerer(chunk)
            ms[part] = (time.process_time() - start) * 1000 / len(boards)
        with tempfile.TemporaryDirectory(prefix="bench_classify_") as tmp:
            source = Path(tmp) / "boards.txt"
            source.write_text(boards_to_text(boards))
            run = _run_command([str(source), "--out", str(Path(tmp) / "results.csv")])
            cpu, wall = run.cpu, run.wall
        print(f"{name:<10} {ms['Q1/Q2']:>7.2f} {ms['+ Q3']:>7.2f} {ms['default (+ LTN)']:>8.2f} "
              f"{ms['old survey']:>10.2f} {ms['old survey'] / ms['default (+ LTN)']:>5.1f}x {cpu:>13.1f} {wall:>7.1f} "
              f"{cpu * 1000 / len(boards):>7.1f}ms", flush=True)
        defaults[name] = ms["default (+ LTN)"]
    print(f"peak resident memory: {_peak_mb():.0f} MB; load average now: {os.getloadavg()[0]:.1f}")
    for name, target in KAGGLE_TARGETS_MS.items():
        verdict = "meets" if defaults[name] <= target else "misses"
        print(f"{name}: default {defaults[name]:.2f} ms per board {verdict} the {target:g} ms target")


ROOT = Path(__file__).resolve().parents[1]
KAGGLE_PARTS = ("Q1/Q2", "+ Q3", "default (+ LTN)")


def as_the_command_starts() -> None:
    """What classify-board does to its process before the first board (cli/allocator.py: the malloc thresholds, and
    gc.freeze of the start-up objects), done here by hand: a baseline tree's package may predate the function that
    does both, and the in-process figures are to be the command's own."""
    import gc

    keep_large_arrays_in_heap()
    gc.freeze()


def forget_board_caches() -> None:
    """Empty the technique engine's caches in this process (every StateCache and every functools cache of
    ltn_sudoku.techniques), so that a timed pass meets its boards for the first time, as classify-board does (a
    second pass over the same rows would find the subsets', fish' and chains' searches of the first remembered)."""
    import functools
    import gc

    from ltn_sudoku.techniques.cache import StateCache

    frozen = gc.get_freeze_count() > 0  # gc.get_objects() does not list frozen objects (as_the_command_starts)
    gc.unfreeze()
    for thing in gc.get_objects():  # by type(), which reads no attribute: a weak proxy to a dead object raises
        # ReferenceError at isinstance (a test process holds some)
        if issubclass(type(thing), StateCache):
            thing.clear()
        elif (type(thing) is functools._lru_cache_wrapper
              and getattr(thing, "__module__", "").startswith("ltn_sudoku.techniques")):
            thing.cache_clear()
    if frozen:
        gc.freeze()


def kaggle_parts(sample: int, sets: Sequence[str], repeats: int) -> dict[str, dict[str, float]]:
    """CPU ms per board of each part of the default command (KAGGLE_PARTS) on `sample` random rows (seed 29) of each
    set, answered as a classify-board chunk by whichever ltn_sudoku this process imports: the best of `repeats`
    passes, the parts interleaved, after a warm-up pass over the first set (first-use costs are not a board's)."""
    from ltn_sudoku.io import BoardRecord

    parts = dict(zip(KAGGLE_PARTS, (_answerer(False, False), _answerer(True, False), _answerer(True, True))))
    as_the_command_starts()
    figures: dict[str, dict[str, float]] = {}
    for index, name in enumerate(sets):
        boards = random.Random(29).sample(read_boards(data_file(KAGGLE_SETS[name])), sample)
        chunk = [(i, BoardRecord(b, i + 1)) for i, b in enumerate(boards)]
        if index == 0:
            for answerer in parts.values():
                answerer(chunk)
        figures[name] = {}
        for _ in range(repeats):
            for part, answerer in parts.items():
                forget_board_caches()
                start = time.process_time()
                answerer(chunk)
                ms = (time.process_time() - start) * 1000 / len(boards)
                figures[name][part] = min(figures[name].get(part, ms), ms)
    return figures


def kaggle_versus_baseline(args: argparse.Namespace) -> None:
    """This tree beside commit --baseline on the same rows: child processes, sides alternating, best of --repeat."""
    sys.path.insert(0, str(ROOT))  # scripts/ as a package, wherever this script was loaded from
    from scripts._machine import cpu_name
    from scripts.bench_first_run import baseline_tree  # the one way a benchmark unpacks an older commit

    with tempfile.TemporaryDirectory(prefix="bench_classify_baseline_") as tmp:
        given = Path(args.baseline)  # a folder holding the old tree (a checkout) is taken as it is
        trees = {"today": ROOT,
                 f"@{args.baseline}": given if given.is_dir() else baseline_tree(args.baseline, Path(tmp))}
        best: dict[str, dict[str, dict[str, float]]] = {}
        for repeat in range(args.sides_passes):
            for side in (list(trees) if repeat % 2 == 0 else list(trees)[::-1]):
                env = dict(os.environ, PYTHONPATH=str(trees[side]))
                done = subprocess.run([sys.executable, __file__, "--kaggle-parts", str(args.sample), "--repeat",
                                       str(args.repeat), "--kaggle-sets", *args.kaggle_sets], env=env,
                                      cwd=trees[side], capture_output=True, text=True)
                if done.returncode:
                    raise SystemExit(f"bench_classify: the {side} side failed: {done.stderr.strip()[-2000:]}")
                figures = json.loads(done.stdout.strip().splitlines()[-1])
                mine = best.setdefault(side, figures)
                for name, parts in figures.items():
                    for part, ms in parts.items():
                        mine[name][part] = min(mine[name][part], ms)
                print(f"  pass {repeat + 1}, {side}: done", flush=True)
    old = f"@{args.baseline}"
    print(f"{args.sample} random rows (seed 29) per set; CPU ms per board, best of {args.sides_passes} child "
          f"processes a side (sides alternating) x {args.repeat} passes each; {cpu_name()}")
    header = f"{'set':<10} {'part':<16} {old:>10} {'today':>8} {'ratio':>7}"
    print(header)
    print("-" * len(header))
    for name in args.kaggle_sets:
        for part in KAGGLE_PARTS:
            before, after = best[old][name][part], best["today"][name][part]
            print(f"{name:<10} {part:<16} {before:>10.2f} {after:>8.2f} {before / after:>6.2f}x")
    print(f"load average now: {os.getloadavg()[0]:.1f}")


def q3_profile_section(args: argparse.Namespace) -> None:
    """Where Q3's CPU goes on a set (--q3-set, default top1465): each technique's finder time (the memory tracker's,
    which times every finder call of the solving path) per board and its share of Q3's CPU, on the kaggle section's
    rows of that set."""
    import collections

    from ltn_sudoku.questions.q3 import answer_q3

    profiled = args.q3_set
    boards = random.Random(29).sample(read_boards(data_file(KAGGLE_SETS[profiled])), args.sample)
    for board in boards[:3]:
        answer_q3(board)  # warm-up: first-use imports and compilation
    spent: collections.Counter[str] = collections.Counter()
    calls: collections.Counter[str] = collections.Counter()
    start = time.process_time()
    for board in tqdm(boards, desc=f"Q3 on {profiled}", unit="board"):
        for name, stats in answer_q3(board).tracker.stats.items():
            spent[name] += stats.time_s
            calls[name] += stats.tried
    total = time.process_time() - start
    print(f"Q3 (default) on {len(boards)} {profiled} rows (seed 29): {total * 1000 / len(boards):.1f} CPU ms per board, "
          f"finders {sum(spent.values()) * 1000 / len(boards):.1f}; load average now {os.getloadavg()[0]:.1f}")
    print(f"{'technique':<34} {'ms/board':>8} {'share':>6} {'calls/board':>11}")
    for name, seconds in spent.most_common(args.top):
        print(f"{name:<34} {seconds * 1000 / len(boards):>8.2f} {seconds / total:>6.1%} "
              f"{calls[name] / len(boards):>11.1f}")


DATASET_RUNS: dict[str, list[str]] = {
    "jobs1": ["--jobs", "1"], "jobs2": ["--jobs", "2"], "dask1": ["--dask", "--jobs", "1"],
    "dask2": ["--dask", "--jobs", "2"],
}


def _without_times(path: Path) -> list[str]:
    """The results rows without the `stats` column (Q3's measured finder times differ from run to run)."""
    import csv

    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    drop = rows[0].index("stats")
    return [",".join(r[:drop] + r[drop + 1:]) for r in rows]


def _first_rows(count: int, folder: Path) -> Path:
    """The Kaggle 1M file's header and first `count` real rows, as a CSV in `folder`."""
    with gzip.open(data_file(KAGGLE_1M), "rt", encoding="utf-8") as f:
        lines = list(itertools.islice(f, count + 1))
    path = folder / f"kaggle_1m_first{count}.csv"
    path.write_text("".join(lines), encoding="utf-8")
    return path


def dataset_section(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="bench_classify_") as tmp:
        source = data_file(KAGGLE_1M) if args.dataset_rows is None else _first_rows(args.dataset_rows, Path(tmp))
        _dataset_runs(args, source)


def _dataset_runs(args: argparse.Namespace, source: Path) -> None:
    boards = sum(1 for _ in iter_records(source))
    print(f"the default command on {boards:,} real rows (the first of {KAGGLE_1M}) -> results.csv; CPU = user + "
          "system of the whole process tree (workers included), peak = the largest summed resident memory of the "
          f"process tree (sampled every {SAMPLE_S} s); load average before: {os.getloadavg()[0]:.1f}")
    header = (f"{'run':<24} {'wall s':>7} {'user s':>7} {'system s':>8} {'CPU ms/board':>12} {'wall vs --jobs 2':>16} "
              f"{'peak MB':>8}")
    print(header)
    print("-" * len(header))
    walls: dict[str, float] = {}
    reference: list[str] | None = None
    with tempfile.TemporaryDirectory(prefix="bench_classify_") as tmp:
        for name in args.runs:
            out = Path(tmp) / f"{name}.csv"
            run = _run_command([str(source), "--out", str(out), *DATASET_RUNS[name]])
            walls[name] = run.wall
            rows = _without_times(out)
            if reference is None:
                reference = rows
            elif rows != reference:
                raise SystemExit(f"{name}: the results differ from {args.runs[0]}'s")
            ratio = f"{run.wall / walls['jobs2']:.2f}" if "jobs2" in walls else "-"
            peak = f"{run.tree_peak_mb:.0f}" if run.tree_peak_mb is not None else "-"
            print(f"{' '.join(DATASET_RUNS[name]):<24} {run.wall:>7.1f} {run.user:>7.1f} {run.system:>8.1f} "
                  f"{run.cpu * 1000 / boards:>12.2f} {ratio:>16} {peak:>8}", flush=True)
    print("every run's results file is the same (the stats column's finder times aside)")
    for dask, jobs in (("dask1", "jobs1"), ("dask2", "jobs2")):  # the target: Dask within 20 % of --jobs, as many
        if dask in walls and jobs in walls:
            ratio = walls[dask] / walls[jobs]
            print(f"{' '.join(DATASET_RUNS[dask])}: wall {ratio:.2f}x {' '.join(DATASET_RUNS[jobs])}'s "
                  f"({'within' if ratio <= 1.2 else 'NOT within'} 20 %)")


KEEP_HEAP = "BENCH_CLASSIFY_KEEP_HEAP"  # tells an allocator child to set the thresholds as classify-board does
ALLOCATOR_ENVIRONMENTS: dict[str, dict[str, str]] = {
    "none (as --jobs)": {},
    "MALLOC_TRIM_THRESHOLD_=65536 (Dask's default)": {"MALLOC_TRIM_THRESHOLD_": "65536"},
    "MALLOC_TRIM_THRESHOLD_=134217728 (raised)": {"MALLOC_TRIM_THRESHOLD_": "134217728"},
    "+ MALLOC_MMAP_THRESHOLD_=33554432 (--dask's)": {"MALLOC_TRIM_THRESHOLD_": "65536",
                                                      "MALLOC_MMAP_THRESHOLD_": "33554432"},
    "mallopt, no variable (classify-board's own)": {KEEP_HEAP: "1"},
}


def allocator_child(rows: int) -> None:
    """In a child process: the default answers of the 1M file's first `rows` rows, answered in a thread as a Dask
    worker answers a partition; prints user s, system s and minor page faults as JSON."""
    from concurrent.futures import ThreadPoolExecutor

    records = list(itertools.islice(iter_records(data_file(KAGGLE_1M)), rows))
    if os.environ.get(KEEP_HEAP):
        keep_large_arrays_in_heap()
    answerer = _answerer(True, True)
    before = resource.getrusage(resource.RUSAGE_SELF)
    with ThreadPoolExecutor(1) as pool:
        for chunk in chunks(iter(records)):
            pool.submit(answerer, chunk).result()
    after = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({"user": after.ru_utime - before.ru_utime, "system": after.ru_stime - before.ru_stime,
                      "faults": after.ru_minflt - before.ru_minflt}))


def allocator_section(args: argparse.Namespace) -> None:
    """Why a Dask worker cost more CPU than a --jobs process: glibc's environment variables, one child each; and
    classify-board's own setting (cli/allocator.py: mallopt at start-up, no variable)."""
    rows = args.dataset_rows or 1000
    print(f"the default answers of the 1M file's first {rows:,} real rows in a worker thread, one child process per "
          f"environment (after warm-up); load average before: {os.getloadavg()[0]:.1f}")
    header = f"{'environment':<48} {'user s':>7} {'system s':>8} {'page faults':>12} {'CPU vs none':>11}"
    print(header)
    print("-" * len(header))
    baseline: float | None = None
    for name, variables in ALLOCATOR_ENVIRONMENTS.items():
        environ = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")} | variables
        out = subprocess.run([sys.executable, __file__, "--allocator-child", str(rows)], env=environ, check=True,
                             capture_output=True, text=True).stdout
        cost = json.loads(out.strip().splitlines()[-1])
        cpu = cost["user"] + cost["system"]
        baseline = baseline or cpu
        print(f"{name:<48} {cost['user']:>7.2f} {cost['system']:>8.2f} {cost['faults']:>12,} {cpu / baseline:>11.2f}",
              flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sections", nargs="+", default=["moves"],
                        choices=("moves", "scale", "sizes", "sparse", "kaggle", "q3profile", "dataset", "allocator"))
    parser.add_argument("--allocator-child", type=int, metavar="ROWS", help=argparse.SUPPRESS)
    parser.add_argument("--kaggle-parts", type=int, metavar="SAMPLE", help=argparse.SUPPRESS)
    parser.add_argument("--baseline", metavar="REV", help="kaggle: set this tree beside commit REV, or beside the "
                        "checkout in folder REV (child processes, "
                        "--sides-passes child processes a side, --repeat passes in each)")
    parser.add_argument("--sides-passes", type=int, default=2, help="kaggle --baseline: child processes a side")
    parser.add_argument("--kaggle-sets", nargs="+", choices=tuple(KAGGLE_SETS), default=list(KAGGLE_SETS),
                        help="kaggle --baseline: the sets (default all)")
    parser.add_argument("--boards", type=int, default=40, help="moves: boards per workload (default 40)")
    parser.add_argument("--repeat", type=int, default=3, help="moves: runs per measurement, best kept (default 3)")
    parser.add_argument("--backends", nargs="+", default=["auto", "python"], help="moves: solver backends")
    parser.add_argument("--scale", type=int, default=1_000_000, help="scale: boards (default 1,000,000)")
    parser.add_argument("--jobs", type=int, default=1, help="scale: classify --jobs (default 1)")
    parser.add_argument("--formats", nargs="+", choices=("csv", "jsonl"), default=["csv"], help="scale: outputs")
    parser.add_argument("--per-file", type=int, default=10, help="sizes, sparse: boards per file or size (default 10)")
    parser.add_argument("--sparse-sizes", type=int, nargs="+", default=[25, 36], help="sparse: sides (default 25 36)")
    parser.add_argument("--sample", type=int, default=200, help="kaggle: random rows per set (default 200)")
    parser.add_argument("--top", type=int, default=15, help="q3profile: techniques listed (default 15)")
    parser.add_argument("--q3-set", choices=tuple(KAGGLE_SETS), default="top1465",
                        help="q3profile: the set profiled (default top1465)")
    parser.add_argument("--runs", nargs="+", choices=tuple(DATASET_RUNS), default=list(DATASET_RUNS),
                        help="dataset: which runs (default: all)")
    parser.add_argument("--dataset-rows", type=int, metavar="N",
                        help="dataset: only the file's first N rows (a quick check of the section; default: all); "
                        "allocator: rows (default 1,000)")
    args = parser.parse_args(argv)
    if args.allocator_child:
        allocator_child(args.allocator_child)
        return 0
    if args.kaggle_parts:
        import ltn_sudoku

        print(f"answering with {Path(ltn_sudoku.__file__).parent}", file=sys.stderr)
        print(json.dumps(kaggle_parts(args.kaggle_parts, args.kaggle_sets, args.repeat)))
        return 0
    sections = {"moves": moves_section, "scale": scale_section, "sizes": sizes_section, "sparse": sparse_section,
                "kaggle": kaggle_section, "q3profile": q3_profile_section, "dataset": dataset_section,
                "allocator": allocator_section}
    for name in args.sections:
        sections[name](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
