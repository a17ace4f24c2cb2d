"""Benchmark: rows per CPU second of the Kaggle reader (ltn_sudoku.io.kaggle, every row verified) on the data home's real
rows, against a plain per-row check (csv module + Board.is_valid_solution + the givens compared cell by cell) on the
same rows in the same process; and the peak Python memory of a streamed read of each file (flat in the file's length
once it is longer than one chunk of CHUNK_ROWS rows).

    .venv/bin/python scripts/bench_kaggle.py [--folder DIR]   # default: the data home's kaggle/ ($LTN_SUDOKU_DATA)
"""

from __future__ import annotations

import argparse
import csv
import gzip
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Callable, Sequence

from ltn_sudoku.board import Board
from ltn_sudoku.io.kaggle import QUIZ_COLUMNS, SOLUTION_COLUMNS, KaggleReader, kaggle_files
from ltn_sudoku.logic.board import data
from ltn_sudoku.paths import data_file

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # scripts/ as a package, wherever this runs from
from scripts._machine import machine_line  # noqa: E402


def plain_check(path: Path) -> int:
    """The baseline: each row parsed with the csv module and checked with Board, one row at a time."""
    count = 0
    with gzip.open(path, "rt", newline="") as f:
        reader = csv.reader(f)
        header = [h.strip().lower() for h in next(reader)]
        quiz = next(header.index(h) for h in QUIZ_COLUMNS if h in header)
        solution = next(header.index(h) for h in SOLUTION_COLUMNS if h in header)
        for fields in reader:
            if not fields:
                continue
            q = Board([0 if ch in ".0" else int(ch) for ch in fields[quiz]], 9)
            s = Board([int(ch) for ch in fields[solution]], 9)
            if not s.is_valid_solution or any(v not in (0, d) for v, d in zip(q.values, s.values)):
                raise ValueError(f"{path}:{reader.line_num}: bad row")
            count += 1
    return count


def timed(work: Callable[[], int]) -> tuple[int, float]:
    start = time.process_time()
    rows = work()
    return rows, time.process_time() - start


def peak_mib(work: Callable[[], object]) -> float:
    tracemalloc.start()
    work()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folder", type=Path, default=None, help="folder of Kaggle CSVs")
    args = parser.parse_args(argv)
    args.folder = args.folder or data_file("kaggle")
    files = kaggle_files(args.folder)
    chunks = lambda: sum(len(c) for c in KaggleReader(args.folder).chunks())  # noqa: E731
    rows = lambda: sum(1 for _ in KaggleReader(args.folder))  # noqa: E731
    boardset = lambda: len(data.kaggle(args.folder, 9))  # noqa: E731
    baseline = lambda: sum(plain_check(f) for f in files)  # noqa: E731
    print(machine_line())
    print(f"{args.folder}: {len(files)} files; CPU seconds, best of 3")
    results = {}
    for name, work in (("KaggleReader.chunks() (numpy arrays)", chunks),
                       ("KaggleReader rows (KaggleRow objects)", rows),
                       ("data.kaggle -> BoardSet (repeats read once)", boardset),
                       ("baseline: csv + Board per row", baseline)):
        count, seconds = min((timed(work) for _ in range(1 if work is baseline else 3)), key=lambda r: r[1])
        results[name] = seconds
        print(f"  {name:<46} {count:>7,} rows {seconds:>7.2f} s {count / seconds:>10,.0f} rows/s")
    ratio = results["baseline: csv + Board per row"] / results["KaggleReader.chunks() (numpy arrays)"]
    print(f"  reader (chunks) against the baseline: {ratio:.0f}x less CPU")
    for f in sorted(files, key=lambda f: f.stat().st_size):  # flat once a file is longer than one chunk
        rows_in = sum(len(c) for c in KaggleReader(f).chunks())
        mib = peak_mib(lambda f=f: sum(len(c) for c in KaggleReader(f).chunks()))
        print(f"  peak Python memory streaming {f.name} ({rows_in:,} rows): {mib:.1f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
