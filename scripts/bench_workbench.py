#!/usr/bin/env python
"""The researcher's workbench, measured: what the model API costs per call, and how short the sweep folders got.

    python scripts/bench_workbench.py [--boards 50] [--model 9x9]

- api: load_model once, then per board (the first N of QQWing's "expert" puzzles) the CPU milliseconds of has_value,
  has_solution, recommends, answer (the whole LTN section), classify(board, model=m) and the complete solver (limit 2);
  beside them classify(board) without a model, the symbolic report alone, on the same boards: the baseline. Medians.
- sweep names: the job folder names of the t-norm tutorial's sweep command, as Hydra's override_dirname made them
  (the old hydra.sweep.subdir) and as `${sweep_job:}` makes them now, with their lengths.
Prints the CPU model and the peak memory.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from reproduce import machine, peak_mib  # noqa: E402  (the scripts' one CPU name and peak memory)

import ltn_sudoku  # noqa: E402
from ltn_sudoku.io import read_boards  # noqa: E402
from ltn_sudoku.logic.training.sweep_names import job_name, swept_keys  # noqa: E402
from ltn_sudoku.paths import DATA_DIR  # noqa: E402

TUTORIAL_SWEEP = ["model=9x9", "logic=lukasiewicz,product,goedel", "train.epochs=3", "train.patience=100",
                  "data.train.solvable=1500", "data.train.impossible=500", "train.progress=false",
                  "hydra.sweep.dir=multirun/tnorm_9x9"]


def median_ms(call: Callable[[Any], object], boards: list[Any]) -> float:
    times = []
    for board in boards:
        start = time.process_time()
        call(board)
        times.append(1000 * (time.process_time() - start))
    return statistics.median(times)


def api(model_name: str, count: int) -> None:
    start = time.process_time()
    model = ltn_sudoku.load_model(model_name)
    load_s = time.process_time() - start
    boards = read_boards(DATA_DIR / "9x9" / "qqwing_expert.txt")[:count]
    model.has_value(boards[0])  # first call: lazy set-up
    print(f"api: load_model({model_name!r}) {load_s:.2f} CPU s; medians over {len(boards)} QQWing expert boards "
          "(CPU ms per board):")
    rows = [("classify(board) (symbolic only: the baseline)", lambda b: ltn_sudoku.classify(b)),
            ("has_value", model.has_value), ("has_solution", model.has_solution), ("recommends", model.recommends),
            ("answer (the LTN section)", model.answer),
            ("classify(board, model=m)", lambda b: ltn_sudoku.classify(b, model=model)),
            ("solve (complete solver, limit 2)", lambda b: model.solve(b, limit=2))]
    for name, call in rows:
        print(f"  {name:<48} {median_ms(call, boards):8.1f}")


def sweep_names() -> None:
    swept = swept_keys(TUTORIAL_SWEEP)
    overrides = [o for o in TUTORIAL_SWEEP if not o.startswith("hydra.")]
    print("sweep names: python -m ltn_sudoku.train -m " + " ".join(TUTORIAL_SWEEP))
    for num, logic in enumerate(("lukasiewicz", "product", "goedel")):
        job = [o if not o.startswith("logic=") else f"logic={logic}" for o in overrides]
        before = f"{num}_" + ",".join(sorted(job))  # Hydra's override_dirname: every override, sorted
        after = f"{num}_{job_name(job, swept)}"
        print(f"  before ({len(before)} chars): {before}\n  after  ({len(after)} chars): {after}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=50)
    parser.add_argument("--model", default="9x9")
    args = parser.parse_args()
    print(f"CPU: {machine()}")
    sweep_names()
    api(args.model, args.boards)
    print(f"peak memory {peak_mib():.0f} MiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
