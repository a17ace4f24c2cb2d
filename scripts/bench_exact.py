"""Benchmark the exact solvers: kernel, pure-Python search and DLX against python-sat's CaDiCaL in the same run.

    .venv/bin/python scripts/bench_exact.py            # everything (about 10 minutes on 2 shared cores)
    .venv/bin/python scripts/bench_exact.py --quick    # trimmed, about a minute
    .venv/bin/python scripts/bench_exact.py --sections single --limit 20000   # one section
    .venv/bin/python scripts/build_peers.py && .venv/bin/python scripts/bench_exact.py --sections nine  # + peers
    .venv/bin/python scripts/bench_exact.py --sections nine --baseline HEAD~1   # an older kernel beside this one

Prints markdown tables: compile and first-call times, 9x9 rates against tdoku, fastdoku (built by
scripts/build_peers.py, found in its cache) and CaDiCaL, the single-board path against the
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
import math
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
from pathlib import Path
from types import FrameType
from typing import Callable, Iterator, Sequence, TextIO

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # scripts/ as a package: its helpers below

from ltn_sudoku.board import Board, geometry  # noqa: E402
from ltn_sudoku.exact import count_solutions, count_solutions_batch  # noqa: E402
from ltn_sudoku.io import parse_board_text, read_boards  # noqa: E402
from ltn_sudoku.paths import data_file  # noqa: E402
from scripts._machine import cpu_name, peak_rss_mb  # noqa: E402
from scripts.build_peers import LIBRARIES, MANIFEST, default_cache, read_manifest  # noqa: E402

NINE_FILES: tuple[str, ...] = ("9x9/17clue_49158.txt", "9x9/top1465.txt", "9x9/forum_hardest_1106.txt")
TDOKU_RATES: dict[str, float] = {  # tdoku's rates in the run of docs/exact.md (Intel Xeon, 2026-11-29): used only
    "9x9/17clue_49158.txt": 417_000, "9x9/top1465.txt": 141_000, "9x9/forum_hardest_1106.txt": 16_300,  # unbuilt
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


def run_kernel(puzzles: np.ndarray, passes: int = 1, batch: Callable[[np.ndarray, int], np.ndarray] | None = None,
               label: str = "kernel") -> Run:
    """`passes` times over the puzzles in one timing (small sets are timed over enough CPU time to be steady);
    batch: another count_solutions_batch (a baseline kernel's), this tree's by default."""
    count = batch if batch is not None else count_solutions_batch
    start = time.process_time()
    for _ in range(passes):
        counts = count(puzzles, 2)
    return Run(label, passes * len(puzzles), time.process_time() - start, counts.tolist())


def baseline_kernel(rev: str) -> Callable[[np.ndarray, int], np.ndarray]:
    """count_solutions_batch of ltn_sudoku/exact/kernel.py as it was at git revision `rev`, loaded as a module of its
    own from a temporary folder (numba compiles it there, a few CPU s, outside the timing), so that the kernel of
    this tree and an older one run side by side in one process."""
    import importlib.util

    text = subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:ltn_sudoku/exact/kernel.py"], check=True,
                          capture_output=True, text=True).stdout
    path = Path(tempfile.mkdtemp(prefix="ltn_kernel_baseline_")) / "kernel_baseline.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location("kernel_baseline", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    batch: Callable[[np.ndarray, int], np.ndarray] = module.count_solutions_batch
    batch(np.zeros((1, 81), np.int32), 1)
    return batch


def run_sat(puzzles: np.ndarray) -> Run:
    start = time.process_time()
    sat = SatSudoku(int(round(puzzles.shape[1] ** 0.5)))
    counts = [sat.count(row) for row in puzzles.tolist()]
    sat.close()
    return Run("CaDiCaL", len(puzzles), time.process_time() - start, counts)


class Tdoku:
    """tdoku (t-dillon/tdoku: C++ with SIMD, the fastest published 9x9 solver) from a shared library built outside
    this repository (scripts/build_peers.py, or by hand: `cmake .. && make tdoku_shared` gives libtdoku_shared.so).

    Its TdokuSolverDpllTriadSimd counts to 2 like our batch, called from a numba loop through ctypes, so no Python
    runs per puzzle and both sides are timed the same way (CPU time of the whole batch). The loop is compiled in
    memory (not cached: it holds the library's address).
    """

    name = "tdoku"

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

        def first_rows(text: np.ndarray, out: np.ndarray) -> None:  # tdoku writes a solution only with limit 1
            guesses = np.zeros(1, np.uintp)
            for i in range(text.shape[0]):
                if solve(text[i].ctypes.data, 1, 0, out[i].ctypes.data, guesses.ctypes.data) == 0:
                    out[i, :] = 0

        self._count_rows = njit(count_rows)
        self._first_rows = njit(first_rows)
        self.count(np.zeros((1, 81), np.int32))  # compiled outside the timing
        self.first_solutions(np.zeros((1, 81), np.int32))

    @staticmethod
    def text(puzzles: np.ndarray) -> np.ndarray:
        """(m, 82) uint8: tdoku's input, '.' or '1'..'9' per cell and a NUL (a standard, not pencilmark, puzzle)."""
        out = np.zeros((puzzles.shape[0], 82), np.uint8)
        out[:, :81] = np.where(puzzles > 0, puzzles + ord("0"), ord("."))
        return out

    prepare = text  # the input built outside the timing, as our batch's int32 array is

    def count(self, puzzles: np.ndarray) -> np.ndarray:
        """min(#solutions, 2) per row of (m, 81) puzzles."""
        counts = np.zeros(puzzles.shape[0], np.int64)
        self._count_rows(self.text(puzzles), counts)
        return counts

    def first_solutions(self, puzzles: np.ndarray) -> np.ndarray:
        """(m, 81) int32: the first solution tdoku finds per puzzle (digits 1..9), a zero row where there is none."""
        out = np.zeros((puzzles.shape[0], 81), np.uint8)
        self._first_rows(self.text(puzzles), out)
        return np.where(out > 0, out.astype(np.int32) - ord("0"), 0)


class Fastdoku:
    """fastdoku (rocketbombs/fastdoku: Rust, a port of tdoku's design) through the C ABI of the wrapper crate that
    scripts/build_peers.py writes (fastdoku itself has none): fastdoku_count_solutions(81 digits, limit) over the
    crate's public count_solutions, and fastdoku_solve over solve_grid; called from a numba loop, as tdoku is."""

    name = "fastdoku"

    def __init__(self, path: str) -> None:
        import ctypes

        from numba import njit

        library = ctypes.CDLL(path)
        count = library.fastdoku_count_solutions
        count.restype = ctypes.c_uint64
        count.argtypes = [ctypes.c_void_p, ctypes.c_uint64]
        solve = library.fastdoku_solve
        solve.restype = ctypes.c_uint64
        solve.argtypes = [ctypes.c_void_p, ctypes.c_void_p]

        def count_rows(digits: np.ndarray, counts: np.ndarray) -> None:
            for i in range(digits.shape[0]):
                counts[i] = count(digits[i].ctypes.data, 2)

        def first_rows(digits: np.ndarray, out: np.ndarray) -> None:
            for i in range(digits.shape[0]):
                if solve(digits[i].ctypes.data, out[i].ctypes.data) == 0:
                    out[i, :] = 0

        self._count_rows = njit(count_rows)
        self._first_rows = njit(first_rows)
        self.count(np.zeros((1, 81), np.int32))
        self.first_solutions(np.zeros((1, 81), np.int32))

    @staticmethod
    def prepare(puzzles: np.ndarray) -> np.ndarray:
        """(m, 81) uint8 digits, 0 = blank: fastdoku's grid."""
        return np.ascontiguousarray(puzzles, dtype=np.uint8)

    def count(self, puzzles: np.ndarray) -> np.ndarray:
        counts = np.zeros(puzzles.shape[0], np.int64)
        self._count_rows(self.prepare(puzzles), counts)
        return counts

    def first_solutions(self, puzzles: np.ndarray) -> np.ndarray:
        out = np.zeros((puzzles.shape[0], 81), np.uint8)
        self._first_rows(self.prepare(puzzles), out)
        return out.astype(np.int32)


PEER_CLASSES: dict[str, type[Tdoku] | type[Fastdoku]] = {"tdoku": Tdoku, "fastdoku": Fastdoku}


@dataclass
class PeerBuild:
    """A peer library found in the peers folder, with what peers.json says of it."""

    name: str
    library: Path
    commit: str = "unknown"
    toolchain: str = "unknown"


def find_peers(folder: Path) -> tuple[list[PeerBuild], list[str]]:
    """The peers scripts/build_peers.py built in `folder` (per its peers.json, else the libraries at their usual
    places), and one note per known peer that is not there: never built, skipped, failed, or its library missing."""
    manifest = read_manifest(folder)
    found: list[PeerBuild] = []
    notes: list[str] = []
    for name, library_name in LIBRARIES.items():
        entry = manifest.get(name, {})
        library = folder / entry.get("library", f"{name}/{library_name}")
        if library.is_file():
            found.append(PeerBuild(name, library, entry.get("commit", "unknown"), entry.get("toolchain", "unknown")))
        elif "skipped" in entry:
            notes.append(f"{name}: skipped when built ({entry['skipped']})")
        elif "failed" in entry:
            notes.append(f"{name}: its build failed ({entry['failed']})")
        elif entry:
            notes.append(f"{name}: {MANIFEST} names {library}, which is not there (run scripts/build_peers.py)")
        else:
            notes.append(f"{name}: not built in {folder} (scripts/build_peers.py --cache {folder})")
    return found, notes


def run_peer(peer: Tdoku | Fastdoku, puzzles: np.ndarray, passes: int = 1) -> Run:
    given = peer.prepare(puzzles)  # its input format, built outside the timing as our batch's int32 array is
    counts = np.zeros(len(puzzles), np.int64)
    start = time.process_time()
    for _ in range(passes):
        peer._count_rows(given, counts)
    return Run(peer.name, passes * len(puzzles), time.process_time() - start, counts.tolist())


def run_tdoku(tdoku: Tdoku, puzzles: np.ndarray) -> Run:
    return run_peer(tdoku, puzzles)


def _valid_solutions(puzzles: np.ndarray, grids: np.ndarray) -> np.ndarray:
    """Per row: the grid is a complete 9x9 solution that keeps the puzzle's givens."""
    g = geometry(9)
    units = np.array(g.units)
    digits = np.sort(grids[:, units], axis=2)  # (m, 27, 9)
    complete = (digits == np.arange(1, 10)).all(axis=(1, 2))
    return complete & ((puzzles == 0) | (puzzles == grids)).all(axis=1)


def cross_check(puzzles: np.ndarray, counts: Sequence[int], peers: Sequence[Tdoku | Fastdoku]) -> str:
    """Untimed: every solver's first solution of each puzzle the kernel counts unique must be a valid solution that
    keeps the givens, and all must be the same grid (a misread or wrong peer shows here even where counts agree)."""
    from ltn_sudoku.exact.kernel import solve_batch

    unique = np.flatnonzero(np.asarray(counts) == 1)
    subset = puzzles[unique]
    grids = {"kernel": solve_batch(subset, 2)[1]}
    for peer in peers:
        grids[peer.name] = peer.first_solutions(subset)
    bad = []
    for name, grid in grids.items():
        invalid = int((~_valid_solutions(subset, grid)).sum())
        differ = int((grid != grids["kernel"]).any(axis=1).sum())
        if invalid or differ:
            bad.append(f"{name}: {invalid} invalid, {differ} differ from the kernel's")
    names = ", ".join(grids)
    if bad:
        return f"SOLUTIONS DISAGREE on the {len(unique)} unique puzzles: " + "; ".join(bad)
    return f"solutions of the {len(unique)} unique puzzles: identical and valid ({names})"


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


def _median_run(runs: Sequence[Run]) -> Run:
    """The run of median rate (the lower middle one for an even count)."""
    return sorted(runs, key=lambda r: r.rate)[(len(runs) - 1) // 2]


def load_peers(tdoku_path: str | None, peers_dir: Path | None) -> tuple[list[Tdoku | Fastdoku], list[str]]:
    """The peers to run: those found in peers_dir (build_peers.py's cache), with --tdoku's library in place of the
    cache's tdoku; and a line per peer that is not run."""
    found, notes = find_peers(peers_dir) if peers_dir is not None else ([], [])
    if tdoku_path:
        found = [PeerBuild("tdoku", Path(tdoku_path))] + [b for b in found if b.name != "tdoku"]
        notes = [n for n in notes if not n.startswith("tdoku:")]
    peers: list[Tdoku | Fastdoku] = []
    lines = []
    for build in found:
        try:
            peers.append(PEER_CLASSES[build.name](str(build.library)))
        except (OSError, AttributeError) as error:  # not a library, or not the functions we call
            notes.append(f"{build.name}: cannot be loaded from {build.library}: {error}")
            continue
        lines.append(f"{build.name}: {build.library} (commit {build.commit}; {build.toolchain})")
    return peers, lines + [f"not run: {note}" for note in notes]


def bench_nine(limit: int | None, pure_count: int, dlx_count: int, repeats: int, tdoku_path: str | None = None,
               peers_dir: Path | None = None, min_cpu: float = 0.2, baseline: str | None = None) -> None:
    """Puzzles/s of every backend on the 9x9 benchmark files beside the peers (tdoku, fastdoku: built by
    scripts/build_peers.py into peers_dir) and CaDiCaL, all in this run: `repeats` interleaved rounds, the median
    run's rate, and the median of the per-round ratios to tdoku (without tdoku: its rates in the run of
    docs/exact.md, a rough guide only).
    Kernel and peers go over a small file several times per run, so that the kernel takes at least `min_cpu` s.
    Every solver's counts are compared with the kernel's, and (untimed) every solver's solutions of the unique
    puzzles with each other. baseline: a git revision whose kernel runs beside this tree's (`kernel@REV`)."""
    from ltn_sudoku.exact import kernel

    kernel.warm_up()  # loading the compiled code is measured in its own section
    sat = sat_available()
    peers, peer_lines = load_peers(tdoku_path, peers_dir)
    old = baseline_kernel(baseline) if baseline else None
    if baseline:
        peer_lines.append(f"kernel@{baseline}: ltn_sudoku/exact/kernel.py of {baseline}, beside this tree's kernel")
    has_tdoku = any(peer.name == "tdoku" for peer in peers)
    where = "measured in this run" if has_tdoku else "its rates in the run of docs/exact.md (another machine: no ratio)"
    _print(f"## 9x9 uniqueness checks (limit 2), CPU time, median of {repeats} interleaved runs; vs tdoku: {where}")
    _print()
    for line in peer_lines:
        _print(f"- {line}")
    _print()
    _print("| file | solver | puzzles | CPU s | puzzles/s | vs tdoku | vs CaDiCaL |")
    _print("|---|---|---:|---:|---:|---:|---:|")
    checks: list[str] = []
    for name, boards, puzzles in nine_sets(limit):
        passes = max(1, math.ceil(min_cpu / max(run_kernel(puzzles).cpu, 1e-6)))  # the kernel's time sets it
        runs: dict[str, list[Run]] = {"kernel": []}
        for _ in range(repeats):  # interleaved, so all see the same machine load
            runs["kernel"].append(run_kernel(puzzles, passes))
            if old is not None:
                runs.setdefault(f"kernel@{baseline}", []).append(run_kernel(puzzles, passes, old, f"kernel@{baseline}"))
            for peer in peers:
                runs.setdefault(peer.name, []).append(run_peer(peer, puzzles, passes))
            if sat:
                runs.setdefault("CaDiCaL", []).append(run_sat(puzzles))
        medians = {solver: _median_run(rs) for solver, rs in runs.items()}
        reference = medians["kernel"].counts

        def versus(solver: str, base: str) -> str:
            ratios = [a.rate / b.rate for a, b in zip(runs[solver], runs[base])]
            return f"{statistics.median(ratios):.3f}x" if solver != base else "1.000x"

        rows = list(medians.values())
        if old is not None:
            checks.append(f"{name.split('/')[-1]}: kernel / kernel@{baseline} = "
                          f"{versus('kernel', f'kernel@{baseline}')} (median of {repeats} paired ratios of puzzles/s)")
        if passes > 1:
            checks.append(f"{name.split('/')[-1]}: kernel and peers timed over {passes} passes of the "
                          f"{len(puzzles)} puzzles per run (at least {min_cpu:g} CPU s of the kernel)")
        rows.append(run_pure("python", boards[:pure_count]))
        rows.append(run_pure("dlx", boards[:dlx_count]))
        for run in rows:
            timed = run.solver in runs
            agree = "" if all(r.counts == reference[: len(r.counts)] for r in runs.get(run.solver, [run])) \
                else " DISAGREES"
            if has_tdoku:
                vs_tdoku = versus(run.solver, "tdoku") if timed else f"{run.rate / medians['tdoku'].rate:.3f}x"
            else:
                vs_tdoku = f"{run.rate / TDOKU_RATES[name]:.3f}x"
            if "CaDiCaL" in runs:
                vs_sat = versus(run.solver, "CaDiCaL") if timed else f"{run.rate / medians['CaDiCaL'].rate:.2f}x"
            else:
                vs_sat = "n/a"
            _print(f"| {name.split('/')[-1]} | {run.solver}{agree} | {len(run.counts)} | {run.cpu:.3f} "
                   f"| {run.rate:,.0f} | {vs_tdoku} | {vs_sat} |")
        checks.append(f"{name.split('/')[-1]}: counts of all {len(runs)} timed solvers "
                      f"{'agree' if all(r.counts == reference for rs in runs.values() for r in rs) else 'DISAGREE'}; "
                      + cross_check(puzzles, reference, peers))
    _print()
    for line in checks:
        _print(f"- {line}")


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
              tdoku_path: str | None = None, peers_dir: Path | None = None, baseline: str | None = None) -> None:
    """The chosen sections (default all), in order; `quick` trims the data to about a minute in all."""
    import numba

    from ltn_sudoku.exact.sparse import SPARSE_SIZES

    _print("# Exact solver benchmark")
    _print()
    _print(f"python {sys.version.split()[0]}, numba {numba.__version__}, numpy {np.__version__}, "
           f"{os.cpu_count()} CPUs; CPU time (time.process_time)")
    _print(f"CPU: {cpu_name()}; load average at the start {os.getloadavg()[0]:.1f} (absolute puzzles/s hold on this "
           "machine only; the ratios measured in the same run are the portable figures)")
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
        bench_nine(limit, pure_count, dlx_count, repeats, tdoku_path, peers_dir, baseline=baseline)
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
    _print(f"peak memory (max RSS of this process): {peak_rss_mb():.0f} MB; load average at the end "
           f"{os.getloadavg()[0]:.1f}")
    _print()
    _print(json.dumps({"quick": quick, "repeats": repeats, "limit": limit, "pure_count": pure_count,
                       "dlx_count": dlx_count, "ranks": list(ranks), "generalized_limit": generalized_limit,
                       "pure_cap": pure_cap, "generalized_pure_count": generalized_pure_count,
                       "sparse_per_size": per_size, "sections": list(sections), "tdoku": tdoku_path,
                       "peers": str(peers_dir) if peers_dir is not None else None, "baseline": baseline}))


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="small subsets: a minute instead of ten")
    p.add_argument("--repeats", type=int, help="interleaved runs of the kernel, the peers and CaDiCaL per 9x9 file; "
                                               "the median is reported (default 5, quick 1)")
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
    p.add_argument("--peers", metavar="DIR", type=Path, default=None,
                   help="where scripts/build_peers.py built tdoku and fastdoku (default its cache: $LTN_SUDOKU_PEERS, "
                        "else ~/.cache/ltn_sudoku/peers); each peer found there runs beside the kernel in the 9x9 "
                        "table, and the table says which were not found")
    p.add_argument("--no-peers", action="store_true", help="run no peer (the 9x9 table divides by tdoku's reference "
                                                           "rates instead)")
    p.add_argument("--baseline", metavar="REV", help="also run the kernel of this git revision (its "
                   "ltn_sudoku/exact/kernel.py) beside this tree's in the 9x9 table, interleaved: old against new")
    p.add_argument("--tdoku", metavar="PATH", help="a tdoku shared library built elsewhere (libtdoku_shared.so), "
                   "in place of the peers folder's")
    args = p.parse_args(argv)
    q = args.quick
    pick = lambda given, full, quick: given if given is not None else (quick if q else full)  # noqa: E731
    pure = pick(args.pure_count, 5000, 200)
    bench_all(
        quick=q,
        repeats=pick(args.repeats, 5, 1),
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
        peers_dir=None if args.no_peers else (args.peers if args.peers is not None else default_cache()),
        baseline=args.baseline,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
