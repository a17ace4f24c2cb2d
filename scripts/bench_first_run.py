#!/usr/bin/env python
"""The first `classify-board --board` on a machine, as a fresh install meets it (issue 50): CPU seconds of the whole
process with an empty numba cache (NUMBA_CACHE_DIR: a new empty folder, so everything numba runs compiles), then of a
second process that finds the cache the first left; today's tree beside the package of a baseline commit (`git
archive` into a temporary folder), the cold runs alternating between the two. Prints what each cold run said on
stderr (today: a line while numba compiles, with its time) and the child's peak memory.

    .venv/bin/python scripts/bench_first_run.py [--board PUZZLE] [--repeats 2] [--baseline REV] [--no-ltn]
        [--repo PATH]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scripts._machine import cpu_name  # noqa: E402

BASELINE = "1b4e7c4"  # the last commit before issue 50: the whole kernel compiled at its first import
BOARD = "2.14.....4...7358..5....6....9.2.8.1.23.1..5...8354..97..28.....15..93.6.6....74."
COMMAND = "import sys; from ltn_sudoku.cli import classify_board_main; sys.exit(classify_board_main())"


def run(tree: Path, cache: Path, args: list[str]) -> tuple[float, float, float, str]:
    """(CPU s of the child, wall s, its peak RSS in MB, its stderr) of one classify-board process from `tree`."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), PYTHONPATH=str(tree))
    with tempfile.TemporaryFile("w+") as err:
        started = time.perf_counter()
        child = subprocess.Popen([sys.executable, "-c", COMMAND, *args], env=env, cwd=tree,
                                 stdout=subprocess.DEVNULL, stderr=err, text=True)
        _, status, usage = os.wait4(child.pid, 0)  # this child's own resource usage
        wall = time.perf_counter() - started
        err.seek(0)
        said = err.read()
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"bench_first_run: classify-board failed in {tree} (exit "
                         f"{os.waitstatus_to_exitcode(status)}): {said.strip().splitlines()[-1:]}")
    return usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss / 1024, said


def baseline_tree(rev: str, into: Path, repo: Path = ROOT) -> Path:
    """The repository `repo` at commit `rev` (package, checkpoints, data) in a folder under `into`."""
    try:
        archive = subprocess.run(["git", "-C", str(repo), "archive", rev], check=True, capture_output=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        raise SystemExit(f"bench_first_run: cannot read commit {rev} with git archive (a clone with its history is "
                         f"needed): {e}") from None
    tree = into / "baseline"
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(tree, filter="data")
    return tree


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], epilog=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--board", default=BOARD, help="the 9x9 board (81 characters; default the README's)")
    parser.add_argument("--repeats", type=int, default=2, help="cold runs per side (default 2)")
    parser.add_argument("--baseline", default=BASELINE, help=f"the commit to compare with (default {BASELINE})")
    parser.add_argument("--no-ltn", action="store_true", help="classify-board --no-ltn (the symbolic answers only)")
    parser.add_argument("--repo", type=Path, default=ROOT, help="the git repository holding --baseline (default: "
                        "this tree's)")
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    command = ["--board", args.board, *(["--no-ltn"] if args.no_ltn else [])]
    print(f"CPU: {cpu_name()}; python {sys.version.split()[0]}; classify-board {' '.join(command)}; "
          f"{args.repeats} cold run(s) a side, alternating; CPU s = user + sys of the child process", flush=True)
    with tempfile.TemporaryDirectory(prefix="bench_first_run_") as tmp:
        sides = {"today": ROOT, f"baseline {args.baseline}": baseline_tree(args.baseline, Path(tmp), args.repo)}
        cold: dict[str, list[tuple[float, float, float, str]]] = {name: [] for name in sides}
        warm: dict[str, tuple[float, float, float, str]] = {}
        for repeat in range(args.repeats):
            for name in list(sides) if repeat % 2 == 0 else list(sides)[::-1]:
                cache = Path(tempfile.mkdtemp(dir=tmp, prefix="numba_cache_"))  # empty: everything compiles
                cold[name].append(run(sides[name], cache, command))
                warm[name] = run(sides[name], cache, command)  # the cache the cold run left
        print("\n| side | first run, empty cache: CPU s (each run) | wall s | second run (cached): CPU s | "
              "peak RSS MB |")
        print("|---|---:|---:|---:|---:|")
        for name in sides:
            cpus = [c[0] for c in cold[name]]
            print(f"| {name} | **{statistics.median(cpus):.1f}** ({', '.join(f'{c:.1f}' for c in cpus)}) | "
                  f"{statistics.median(c[1] for c in cold[name]):.1f} | {warm[name][0]:.1f} | "
                  f"{max(c[2] for c in cold[name]):.0f} |")
        for name in sides:
            said = [line for line in cold[name][-1][3].splitlines() if line.startswith("ltn-sudoku:")]
            print(f"\n{name}, what the first run said on stderr:" + "".join(f"\n    {line}" for line in said)
                  if said else f"\n{name}: the first run said nothing on stderr")
    return 0


if __name__ == "__main__":
    sys.exit(main())
