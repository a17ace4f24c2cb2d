"""Benchmark the exact solvers: kernel, pure-Python search and DLX against python-sat's CaDiCaL in the same run.

    .venv/bin/python scripts/bench_exact.py            # everything (about 10 minutes on 2 shared cores)
    .venv/bin/python scripts/bench_exact.py --quick    # trimmed, about a minute
    .venv/bin/python scripts/bench_exact.py --sections single --limit 20000   # one section
    .venv/bin/python scripts/bench_exact.py --sections nine --tdoku ../tdoku/build/libtdoku_shared.so

Prints markdown tables: compile and first-call times, 9x9 rates against CaDiCaL, the single-board path against the
batch call, the generalized puzzles, and the portfolio on sparse 16x16..49x49 boards against CaDiCaL (CPU time,
ratios against baselines run in the same process, peak memory); the figures in docs/exact.md come from these runs.
`ltn-sudoku bench` runs this script's --quick profile.

Every figure is CPU time (time.process_time: the machine is shared and noisy) and every backend is compared with the
CaDiCaL baseline measured in the same run. A uniqueness check means counting solutions up to 2. The other scripts
and the tests import its baselines (sat_count_fresh, Tdoku) from here.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from itertools import combinations
from types import FrameType
from typing import Callable, Iterator, Sequence, TextIO

import numpy as np

from ltn_sudoku.board import Board, geometry
from ltn_sudoku.exact import count_solutions, count_solutions_batch
from ltn_sudoku.io import parse_board_text, read_boards
from ltn_sudoku.paths import data_file

NINE_FILES: tuple[str, ...] = ("9x9/17clue_49158.txt", "9x9/top1465.txt", "9x9/forum_hardest_1106.txt")
TDOKU_RATES: dict[str, float] = {  # tdoku (C++, SIMD), same kind of machine: docs/data.md (reference figures)
    "9x9/17clue_49158.txt": 200_000, "9x9/top1465.txt": 74_000, "9x9/forum_hardest_1106.txt": 8_300,
}
CADICAL_MEDIANS: dict[int, float] = {16: 0.010, 25: 0.028, 36: 0.074, 49: 0.18, 64: 0.27, 81: 0.58}  # SOURCES.md
SAT_SOLVER = "cadical195"


# ---- the baseline ----------------------------------------------------------------------------------------------------
def _at_most_one(literals: Sequence[int]) -> Iterator[list[int]]:
    return ([-a, -b] for a, b in combinations(literals, 2))


class SatSudoku:
    """CaDiCaL with one side's whole CNF, built once; each puzzle's givens are assumptions.

    A second solution is looked for under a blocking clause guarded by a fresh selector literal, retired afterwards
    with a unit clause. Every selector is a new variable and get_model() returns them all, so the solver is renewed
    from the same clause list every `renew` puzzles, before that bookkeeping outweighs the solving.
    """

    def __init__(self, n: int, renew: int = 500) -> None:
        self.n = n
        self.renew = renew
        g = geometry(n)
        self.clauses: list[list[int]] = []
        for cell in range(n * n):
            lits = [self.var(cell, d) for d in range(n)]
            self.clauses.append(lits)
            self.clauses.extend(_at_most_one(lits))
        for unit in g.units:
            for d in range(n):
                lits = [self.var(cell, d) for cell in unit]
                self.clauses.append(lits)
                self.clauses.extend(_at_most_one(lits))
        self.solver = self._fresh()

    def _fresh(self):  # type: ignore[no-untyped-def]
        from pysat.solvers import Solver

        self.next_selector = self.n ** 3 + 1
        return Solver(name=SAT_SOLVER, bootstrap_with=self.clauses)

    def var(self, cell: int, digit: int) -> int:
        """The literal 'cell holds digit' (digit 0-based)."""
        return cell * self.n + digit + 1

    def count(self, values: Sequence[int]) -> int:
        """min(#solutions, 2)."""
        if self.next_selector > self.n ** 3 + self.renew:
            self.solver.delete()
            self.solver = self._fresh()
        givens = [self.var(c, v - 1) for c, v in enumerate(values) if v]
        if not self.solver.solve(assumptions=givens):
            return 0
        model = self.solver.get_model()[: self.n ** 3]
        chosen = [lit for lit in model if lit > 0 and values[(lit - 1) // self.n] == 0]
        selector = self.next_selector
        self.next_selector += 1
        self.solver.add_clause([-selector] + [-lit for lit in chosen])
        second = self.solver.solve(assumptions=givens + [selector])
        self.solver.add_clause([-selector])
        return 2 if second else 1

    def close(self) -> None:
        self.solver.delete()


def sat_count_fresh(board: Board) -> int:
    """min(#solutions, 2) with a CNF built for this puzzle alone: only the placements its givens allow."""
    from pysat.solvers import Solver

    n = board.n
    g = geometry(n)
    masks = board.candidate_masks()
    if not board.is_consistent:
        return 0
    var: dict[tuple[int, int], int] = {}
    for cell, mask in enumerate(masks):
        for d in range(n):
            if mask >> d & 1:
                var[(cell, d)] = len(var) + 1
    clauses: list[list[int]] = []
    for cell, mask in enumerate(masks):
        if not board.values[cell]:
            lits = [var[(cell, d)] for d in range(n) if mask >> d & 1]
            clauses.append(lits)
            clauses.extend(_at_most_one(lits))
    for unit in g.units:
        placed = {board.values[c] - 1 for c in unit if board.values[c]}
        for d in range(n):
            if d not in placed:
                lits = [var[(c, d)] for c in unit if (c, d) in var]
                clauses.append(lits)
                clauses.extend(_at_most_one(lits))
    with Solver(name=SAT_SOLVER, bootstrap_with=clauses) as solver:
        if not solver.solve():
            return 0
        solver.add_clause([-lit for lit in solver.get_model() if lit > 0])
        return 2 if solver.solve() else 1


def sat_available() -> bool:
    try:
        import pysat.solvers  # noqa: F401
    except ImportError:
        return False
    return True


# ---- timing helpers --------------------------------------------------------------------------------------------------
class CpuCapExceeded(Exception):
    """A pure-Python solve ran past its CPU cap."""


def _on_cap(signum: int, frame: FrameType | None) -> None:
    raise CpuCapExceeded


def capped_cpu(fn: Callable[[], int], cap: float) -> tuple[int | None, float]:
    """(result or None past `cap` CPU seconds, CPU seconds): a profiling timer interrupts pure-Python code.

    Timed with thread_time: on this sandbox process_time stalls while an interval timer is armed.
    """
    previous = signal.signal(signal.SIGPROF, _on_cap)
    signal.setitimer(signal.ITIMER_PROF, cap)
    start = time.thread_time()
    try:
        result: int | None = fn()
    except CpuCapExceeded:
        result = None
    finally:
        elapsed = time.thread_time() - start
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)
    return result, elapsed


@dataclass
class Run:
    """One solver on one data set: counts (0/1/2 per puzzle) and CPU seconds."""

    solver: str
    puzzles: int
    cpu: float
    counts: list[int]

    @property
    def rate(self) -> float:
        return self.puzzles / self.cpu if self.cpu > 0 else float("inf")


def run_kernel(puzzles: np.ndarray) -> Run:
    start = time.process_time()
    counts = count_solutions_batch(puzzles, 2)
    return Run("kernel", len(puzzles), time.process_time() - start, counts.tolist())


def run_sat(puzzles: np.ndarray) -> Run:
    start = time.process_time()
    sat = SatSudoku(int(round(puzzles.shape[1] ** 0.5)))
    counts = [sat.count(row) for row in puzzles.tolist()]
    sat.close()
    return Run("CaDiCaL", len(puzzles), time.process_time() - start, counts)


class Tdoku:
    """tdoku (t-dillon/tdoku: C++ with SIMD, the fastest published 9x9 solver) from a shared library the user built
    (`cmake .. && make tdoku_shared` gives build/libtdoku_shared.so); nothing of it is shipped here.

    Its TdokuSolverDpllTriadSimd counts to 2 like our batch, called from a numba loop through ctypes, so no Python
    runs per puzzle and both sides are timed the same way (CPU time of the whole batch). The loop is compiled in
    memory (not cached: it holds the library's address).
    """

    def __init__(self, path: str) -> None:
        import ctypes

        from numba import njit

        solve = ctypes.CDLL(path).TdokuSolverDpllTriadSimd
        solve.restype = ctypes.c_size_t
        solve.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_uint32, ctypes.c_void_p, ctypes.c_void_p]

        def count_rows(text: np.ndarray, counts: np.ndarray) -> None:
            solution = np.zeros(81, np.uint8)
            guesses = np.zeros(1, np.uintp)
            for i in range(text.shape[0]):
                counts[i] = solve(text[i].ctypes.data, 2, 0, solution.ctypes.data, guesses.ctypes.data)

        self._count_rows = njit(count_rows)
        self.count(np.zeros((1, 81), np.int32))  # compiled outside the timing

    @staticmethod
    def text(puzzles: np.ndarray) -> np.ndarray:
        """(m, 82) uint8: tdoku's input, '.' or '1'..'9' per cell and a NUL (a standard, not pencilmark, puzzle)."""
        out = np.zeros((puzzles.shape[0], 82), np.uint8)
        out[:, :81] = np.where(puzzles > 0, puzzles + ord("0"), ord("."))
        return out

    def count(self, puzzles: np.ndarray) -> np.ndarray:
        """min(#solutions, 2) per row of (m, 81) puzzles."""
        counts = np.zeros(puzzles.shape[0], np.int64)
        self._count_rows(self.text(puzzles), counts)
        return counts


def run_tdoku(tdoku: Tdoku, puzzles: np.ndarray) -> Run:
    text = tdoku.text(puzzles)  # its input format, built outside the timing as our batch's int32 array is
    counts = np.zeros(len(puzzles), np.int64)
    start = time.process_time()
    tdoku._count_rows(text, counts)
    return Run("tdoku", len(puzzles), time.process_time() - start, counts.tolist())


def run_pure(backend: str, boards: Sequence[Board]) -> Run:
    start = time.process_time()
    counts = [count_solutions(b, 2, backend) for b in boards]
    return Run(backend, len(boards), time.process_time() - start, counts)


# ---- sections --------------------------------------------------------------------------------------------------------
def compile_times() -> dict[str, float]:
    """CPU seconds of the first kernel calls in a fresh process with an empty cache, then again with that cache."""
    probe = ("import time, numpy as np; t0 = time.process_time(); from ltn_sudoku.exact import kernel; "
             "t1 = time.process_time(); kernel.count_solutions_batch(np.zeros((1, 81), np.int32)); "
             "t2 = time.process_time(); kernel.count_solutions_nb(np.zeros(81, np.int32), 9, 2); "
             "t3 = time.process_time(); print(t1 - t0, t2 - t1, t3 - t2)")
    labels = ("import ltn_sudoku.exact.kernel", "first batch call (band + general solvers)",
              "first count_solutions_nb call")
    out: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        for run in ("compile", "cached load"):
            text = subprocess.run([sys.executable, "-c", probe], env=env, check=True, capture_output=True,
                                  text=True).stdout
            for label, seconds in zip(labels, text.split()):
                out[f"{run}: {label}"] = float(seconds)
    return out


def _print(line: str = "") -> None:
    print(line, flush=True)


def nine_sets(limit: int | None) -> Iterator[tuple[str, list[Board], np.ndarray]]:
    """(file name, its first `limit` boards, the same as an int32 (m, 81) array) for every 9x9 benchmark file."""
    for name in NINE_FILES:
        boards = read_boards(data_file(name))[:limit]
        yield name, boards, np.array([b.values for b in boards], dtype=np.int32)


def bench_nine(limit: int | None, pure_count: int, dlx_count: int, repeats: int, tdoku_path: str | None = None
               ) -> None:
    """Puzzles/s of every backend on the 9x9 benchmark files, with ratios against CaDiCaL (and tdoku, given the path
    of its built library) in the same run; without tdoku the last column divides by its reference rates."""
    from ltn_sudoku.exact import kernel

    kernel.warm_up()  # loading the compiled code is measured in its own section
    sat = sat_available()
    tdoku = Tdoku(tdoku_path) if tdoku_path else None
    where = "measured in this run" if tdoku else "reference rates of docs/data.md, not this run"
    _print(f"## 9x9 uniqueness checks (limit 2), CPU time; vs tdoku: {where}")
    _print()
    _print("| file | solver | puzzles | CPU s | puzzles/s | vs CaDiCaL | vs tdoku |")
    _print("|---|---|---:|---:|---:|---:|---:|")
    for name, boards, puzzles in nine_sets(limit):
        kernel_runs, sat_runs, tdoku_runs = [], [], []
        for _ in range(repeats):  # interleaved, so all see the same machine load
            kernel_runs.append(run_kernel(puzzles))
            if sat:
                sat_runs.append(run_sat(puzzles))
            if tdoku:
                tdoku_runs.append(run_tdoku(tdoku, puzzles))
        kernel_best = max(kernel_runs, key=lambda r: r.rate)
        sat_best = max(sat_runs, key=lambda r: r.rate) if sat else None
        tdoku_best = max(tdoku_runs, key=lambda r: r.rate) if tdoku else None
        ratios = [k.rate / s.rate for k, s in zip(kernel_runs, sat_runs)]
        tdoku_ratios = [k.rate / t.rate for k, t in zip(kernel_runs, tdoku_runs)]
        runs = [kernel_best] + ([sat_best] if sat_best else []) + ([tdoku_best] if tdoku_best else [])
        runs.append(run_pure("python", boards[:pure_count]))
        runs.append(run_pure("dlx", boards[:dlx_count]))
        tdoku_rate = tdoku_best.rate if tdoku_best else TDOKU_RATES[name]
        for run in runs:
            reference = kernel_best.counts[: run.puzzles]
            agree = "" if run.counts == reference else " DISAGREES"
            if run is kernel_best and sat_runs:
                versus = f"{statistics.median(ratios):.1f}x (median of {len(ratios)})"
            else:
                versus = f"{run.rate / sat_best.rate:.2f}x" if sat_best else "n/a"
            if run is kernel_best and tdoku_ratios:
                versus_tdoku = f"{statistics.median(tdoku_ratios):.3f}x (median of {len(tdoku_ratios)})"
            else:
                versus_tdoku = f"{run.rate / tdoku_rate:.3f}x"
            _print(f"| {name.split('/')[-1]} | {run.solver}{agree} | {run.puzzles} | {run.cpu:.2f} | {run.rate:,.0f} "
                   f"| {versus} | {versus_tdoku} |")


def bench_single(limit: int | None, repeats: int) -> None:
    """The single-board path, count_solutions(parse_board_text(s), 2), against the batch call on the same puzzles
    (parsed once, outside the timing) and against count_solutions on prebuilt boards; best of `repeats`, interleaved."""
    from ltn_sudoku.exact import kernel

    kernel.warm_up()
    count_solutions(parse_board_text("." * 81), 2)
    _print("## 9x9 single-board path against the batch call (limit 2, CPU time, best of runs)")
    _print()
    _print("| file | puzzles | batch puzzles/s | prebuilt boards | parse_board_text + count | single / batch |")
    _print("|---|---:|---:|---:|---:|---:|")
    for name, boards, puzzles in nine_sets(limit):
        lines = [b.to_line() for b in boards]
        best = {"batch": 0.0, "prebuilt": 0.0, "string": 0.0}
        for _ in range(repeats):
            for label, work in (("batch", lambda p=puzzles: count_solutions_batch(p, 2)),
                                ("prebuilt", lambda bs=boards: [count_solutions(b, 2) for b in bs]),
                                ("string", lambda ts=lines: [count_solutions(parse_board_text(t), 2) for t in ts])):
                start = time.process_time()
                work()
                best[label] = max(best[label], len(lines) / max(time.process_time() - start, 1e-9))
        _print(f"| {name.split('/')[-1]} | {len(lines)} | {best['batch']:,.0f} | {best['prebuilt']:,.0f} "
               f"| {best['string']:,.0f} | {best['string'] / best['batch']:.2f} |")


def _child_cpu(command: Sequence[str], env: dict[str, str]) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one child process run to its end."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, env=env, check=True, capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, wall


def first_call_times() -> dict[str, tuple[float, float]]:
    """(CPU s, wall s) of a fresh `classify-board` process on a 9x9 board (--no-ltn, then with the LTN answers):
    with an empty numba cache (cold: it compiles) and with the cache the first process left (what every run after
    `make demo` or `make test` finds in ltn_sudoku/*/__pycache__)."""
    board = "2.14.....4...7358..5....6....9.2.8.1.23.1..5...8354..97..28.....15..93.6.6....74."
    classify = [sys.executable, "-m", "ltn_sudoku", "classify", "--board", board]
    out: dict[str, tuple[float, float]] = {}
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        out["classify-board --no-ltn, cold (empty cache)"] = _child_cpu(classify + ["--no-ltn"], env)
        out["classify-board --no-ltn, warm (cached)"] = _child_cpu(classify + ["--no-ltn"], env)
        out["classify-board with the LTN answers, warm"] = _child_cpu(classify, env)
    return out


def _paper_times(rank: int) -> dict[str, list[float]]:
    found: dict[str, list[float]] = {}
    for solver in ("ExactCover", "BackTracking"):
        try:
            path = data_file(f"generalized/paper_times/sudoku_rank_{rank}_Sudoku{solver}Solver.csv")
        except FileNotFoundError:
            continue
        lines = path.read_text().splitlines()[1:]
        found[solver] = [float(line.split(",")[1]) for line in lines if line.strip()]
    return found


def _summary(times: Sequence[float]) -> str:
    return f"{statistics.median(times):.4f} / {max(times):.4f}" if times else "-"


def bench_generalized(ranks: Sequence[int], limit: int | None, pure_cap: float, pure_count: int) -> None:
    """Per size: the kernel on every puzzle, CaDiCaL (model built per puzzle), the pure-Python backends under a CPU
    cap, and the paper's recorded times; medians and maxima in seconds."""
    from ltn_sudoku.exact import kernel

    kernel.warm_up()
    sat = sat_available()
    _print("## Generalized puzzles (uniqueness check, CPU seconds per puzzle: median / max)")
    _print()
    _print("| n | puzzles | kernel | CaDiCaL (incl. model) | kernel / CaDiCaL median time | python (capped) "
           "| dlx (capped) | paper DLX | paper backtracking |")
    _print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for rank in ranks:
        boards = read_boards(data_file(f"generalized/sudoku_rank_{rank}.csv"))[:limit]
        kernel_times, sat_times, counts = [], [], []
        for board in boards:
            row = np.array([board.values], dtype=np.int32)
            start = time.process_time()
            counts.append(int(count_solutions_batch(row, 2)[0]))
            kernel_times.append(time.process_time() - start)
            if sat:
                start = time.process_time()
                sat_count = sat_count_fresh(board)
                sat_times.append(time.process_time() - start)
                if sat_count != counts[-1]:
                    _print(f"DISAGREEMENT rank {rank}: kernel {counts[-1]} CaDiCaL {sat_count}")
        pure: dict[str, str] = {}
        for backend in ("python", "dlx"):
            times, over = [], 0
            for board, expected in zip(boards[:pure_count], counts):
                result, cpu = capped_cpu(lambda b=board, be=backend: count_solutions(b, 2, be), pure_cap)
                if result is None:
                    over += 1
                else:
                    times.append(cpu)
                    if result != expected:
                        _print(f"DISAGREEMENT rank {rank}: kernel {expected} {backend} {result}")
            done = min(pure_count, len(boards))
            pure[backend] = f"{_summary(times)} ({done - over}/{done} under {pure_cap:g} s)"
        paper = _paper_times(rank)
        ratio = (f"{statistics.median(kernel_times) / statistics.median(sat_times):.3f}" if sat_times else "n/a")
        n = rank * rank
        _print(f"| {n} | {len(boards)} | {_summary(kernel_times)} | {_summary(sat_times)} | {ratio} "
               f"| {pure['python']} | {pure['dlx']} | {_summary(paper.get('ExactCover', []))} "
               f"| {_summary(paper.get('BackTracking', []))} |")
        if set(counts) != {1}:
            _print(f"note: rank {rank} counts {sorted(set(counts))} (expected every puzzle unique)")


def _sparse_rows(n: int, per_size: int, seed: int, csv: TextIO) -> None:
    """One table row of bench_sparse_portfolio (side n), and a CSV row per board."""
    from ltn_sudoku.exact.portfolio import CADICAL, answer
    from ltn_sudoku.exact.sparse import sparse_boards

    boards, changed = sparse_boards(n, per_size, seed)
    times, sat_times, counts, handed = [], [], [], 0
    for index, row in enumerate(boards):
        board = Board(row.tolist(), n)
        start = time.process_time()
        got = answer(board, 2)
        times.append(time.process_time() - start)
        counts.append(got.count)
        handed += got.engine == CADICAL
        start = time.process_time()
        expected = sat_count_fresh(board)
        sat_times.append(time.process_time() - start)
        if expected != got.count:
            _print(f"DISAGREEMENT on a sparse {n}x{n} board: portfolio {got.count}, CaDiCaL {expected}")
        csv.write(f"{n},{index},{int(changed[index])},{got.count},{got.engine},{times[-1]:.4f},{sat_times[-1]:.4f}\n")
    ratios = [t / s for t, s in zip(times, sat_times)]
    tally = "/".join(str(counts.count(c)) for c in (0, 1, 2))
    _print(f"| {n} | {per_size} | {tally} | {handed} | {_summary(times)} | {_summary(sat_times)} "
           f"| {max(ratios):.2f} | {sum(t > 1.0 for t in times)} | {sum(r > 2.0 for r in ratios)} "
           f"| {sum(t > 1.0 for t in sat_times)} |")


def bench_sparse_portfolio(sizes: Sequence[int], per_size: int, seed: int, per_board: str | None = None) -> None:
    """The portfolio (count_solutions' default backend) against CaDiCaL on the random sparse boards of
    ltn_sudoku.exact.sparse, per board in the same process: the worst cases per size, and the engine that answered.
    per_board: a CSV path that gets one row per board as it is timed (nothing is lost if the run is stopped)."""
    from ltn_sudoku.exact import kernel
    from ltn_sudoku.exact.portfolio import answer

    kernel.warm_up()
    answer(Board.empty(16), 2)  # the portfolio's own entry points, compiled or loaded outside the timing
    _print(f"## Sparse boards: {per_size} per size, 30-50 % givens, every third with one given changed (seed {seed}); "
           "uniqueness check, CPU s per board")
    _print()
    _print("| n | boards | counts 0/1/2 | answered by CaDiCaL | portfolio median / max | CaDiCaL (incl. model) "
           "median / max | worst portfolio / CaDiCaL | over 1 s | over 2x CaDiCaL | CaDiCaL alone over 1 s |")
    _print("|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    with open(per_board or os.devnull, "w", buffering=1) as csv:  # line-buffered: rows survive a stopped run
        csv.write("n,board,changed_given,count,engine,portfolio_cpu_s,cadical_cpu_s\n")
        for n in sizes:
            _sparse_rows(n, per_size, seed, csv)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    _print()
    _print(f"peak memory (max RSS of the process): {peak:.0f} MB")


SECTIONS: tuple[str, ...] = ("compile", "nine", "single", "generalized", "sparse")


def bench_all(quick: bool, repeats: int, limit: int | None, pure_count: int, dlx_count: int, ranks: Sequence[int],
              generalized_limit: int | None, pure_cap: float, generalized_pure_count: int,
              sparse_per_size: int | None = None, sections: Sequence[str] = SECTIONS,
              tdoku_path: str | None = None) -> None:
    """The chosen sections (default all), in order; `quick` trims the data to about a minute in all."""
    import numba

    from ltn_sudoku.exact.sparse import SPARSE_SIZES

    _print("# Exact solver benchmark")
    _print()
    _print(f"python {sys.version.split()[0]}, numba {numba.__version__}, numpy {np.__version__}, "
           f"{os.cpu_count()} CPUs; CPU time (time.process_time)")
    if not sat_available():
        _print("python-sat is not installed: no CaDiCaL baseline (pip install python-sat)")
    _print()
    if "compile" in sections:
        _print("## Kernel compile and cached load (CPU s, fresh processes, empty NUMBA_CACHE_DIR)")
        _print()
        for label, seconds in compile_times().items():
            _print(f"- {label}: {seconds:.2f}")
        for label, (cpu, wall) in ({} if quick else first_call_times()).items():  # another compile: not when quick
            _print(f"- first {label}: {cpu:.2f} CPU s, {wall:.2f} s wall")
        _print()
    if "nine" in sections:
        bench_nine(limit, pure_count, dlx_count, repeats, tdoku_path)
        _print()
    if "single" in sections:
        bench_single(limit, repeats)
        _print()
    if "generalized" in sections:
        bench_generalized(ranks, generalized_limit, pure_cap, generalized_pure_count)
        _print()
    per_size = sparse_per_size if sparse_per_size is not None else (2 if quick else 50)
    if "sparse" in sections:
        bench_sparse_portfolio(SPARSE_SIZES[:2] if quick else SPARSE_SIZES, per_size, seed=1)
        _print()
    _print(json.dumps({"quick": quick, "repeats": repeats, "limit": limit, "pure_count": pure_count,
                       "dlx_count": dlx_count, "ranks": list(ranks), "generalized_limit": generalized_limit,
                       "pure_cap": pure_cap, "generalized_pure_count": generalized_pure_count,
                       "sparse_per_size": per_size, "sections": list(sections), "tdoku": tdoku_path}))


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
