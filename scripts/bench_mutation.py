"""Mutation testing as a benchmark (not in CI): how many mutants of the LTN logic and the symbolic answers the fast
tests kill, with mutmut 3.

    python scripts/bench_mutation.py                       # ltn_sudoku/logic/ and ltn_sudoku/questions/report.py
    python scripts/bench_mutation.py --only 'ltn_sudoku/logic/board/metrics.py' --workdir /tmp/mut_metrics

The committed tree (git archive HEAD) is unpacked into --workdir and mutated there, never the working tree that
other engineers edit; mutmut's configuration is appended to that copy's pyproject.toml. One worker process
(--max-children 1) under nice, as the machine is shared. Prints the killed share per module and overall, the wall
and CPU time, and the surviving mutants' names (`mutmut show NAME` in --workdir shows each diff).
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # scripts/ as a package, wherever this runs from
from scripts._machine import machine_line  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
ONLY = ["ltn_sudoku/logic/*", "ltn_sudoku/questions/report.py"]
TESTS = ["tests/test_metrics.py", "tests/test_objective.py", "tests/test_crisp_kb.py", "tests/test_logic.py",
         "tests/test_questions.py", "tests/test_heldout.py"]
DO_NOT_MUTATE: list[str] = []  # patterns inside ONLY left alone


def toml_list(items: list[str]) -> str:
    return "[" + ", ".join(json.dumps(i) for i in items) + "]"


def prepare(workdir: Path, only: list[str], tests: list[str]) -> None:
    """The committed tree in workdir, with mutmut's section in its pyproject.toml."""
    if workdir.exists():
        shutil.rmtree(workdir)
    workdir.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", "HEAD"], cwd=REPO, check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(workdir)], input=archive, check=True)
    tests = [t for t in tests if t.startswith("-") or (workdir / t.split("::")[0]).exists()]
    section = "\n".join([
        "", "[tool.mutmut]",
        'source_paths = ["ltn_sudoku"]',
        f"only_mutate = {toml_list(only)}",
        f"do_not_mutate = {toml_list(DO_NOT_MUTATE)}",
        'also_copy = ["conf", "checkpoints", "data", "scripts"]',
        f"pytest_add_cli_args_test_selection = {toml_list(tests)}",
        'pytest_add_cli_args = ["-p", "no:xdist", "-p", "no:cacheprovider", "-q"]',
        'process_isolation = "forkserver"',
        "",
    ])
    with open(workdir / "pyproject.toml", "a") as f:
        f.write(section)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/ltn_mutation/repo"))
    parser.add_argument("--only", nargs="+", default=ONLY, help="glob patterns of the files to mutate")
    parser.add_argument("--tests", nargs="+", default=TESTS, help="the test selection that must kill them")
    parser.add_argument("--report-only", action="store_true", help="summarise an earlier run in --workdir")
    args, pytest_options = parser.parse_known_args()  # e.g. --deselect=tests/x.py::slow_case goes to pytest
    args.tests += pytest_options
    print(machine_line())
    mutmut = Path(sys.executable).with_name("mutmut")
    started, cpu = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
    if not args.report_only:
        prepare(args.workdir, args.only, args.tests)
        with open(args.workdir / "mutmut-run.log", "w") as log:  # its progress bar, kept out of the summary
            subprocess.run(["nice", "-n", "10", str(mutmut), "run", "--max-children", "1"], cwd=args.workdir,
                           check=False, stdout=log, stderr=subprocess.STDOUT)
    subprocess.run([str(mutmut), "export-cicd-stats"], cwd=args.workdir, check=True, capture_output=True)
    listing = subprocess.run([str(mutmut), "results", "--all", "true"], cwd=args.workdir, check=True,
                             capture_output=True, text=True).stdout
    per_module: dict[str, Counter[str]] = {}
    survivors = []
    for line in listing.splitlines():
        if ":" not in line:
            continue
        name, status = (part.strip() for part in line.rsplit(":", 1))
        module = re.split(r"\.x[_\u01c1]", name)[0]  # ltn_sudoku.logic.board.metrics.x_auroc__mutmut_3, .xǁClassǁ...
        per_module.setdefault(module, Counter())[status] += 1
        if status == "survived":
            survivors.append(name)
    total: Counter[str] = Counter()
    print(f"{'module':45} {'mutants':>8} {'killed':>7} {'survived':>9} {'other':>6} {'killed %':>9}")
    for module, counts in sorted(per_module.items()):
        total.update(counts)
        _row(module, counts)
    _row("all", total)
    end = resource.getrusage(resource.RUSAGE_CHILDREN)
    used = end.ru_utime + end.ru_stime - cpu.ru_utime - cpu.ru_stime
    print(f"wall {time.perf_counter() - started:.0f} s, CPU {used:.0f} s, "
          f"peak RSS of a child {end.ru_maxrss / 1024:.0f} MiB")
    print("survivors:", *survivors, sep="\n  ")


def _row(module: str, counts: Counter[str]) -> None:
    decided = counts["killed"] + counts["survived"] + counts["timeout"]
    other = sum(counts.values()) - counts["killed"] - counts["survived"]
    share = 100 * (counts["killed"] + counts["timeout"]) / decided if decided else float("nan")
    print(f"{module:45} {sum(counts.values()):8d} {counts['killed']:7d} {counts['survived']:9d} {other:6d} "
          f"{share:8.1f}%")


if __name__ == "__main__":
    main()
