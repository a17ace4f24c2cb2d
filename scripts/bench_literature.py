"""Our shipped 9x9 models on the literature's sets, beside the singles loop on the same puzzles: the figures of
docs/results/literature.md (scripts/render_docs.py renders the page from docs/results/literature/).

For each set of evaluate.public's literature (rrn_hard, satnet, sudoku_extreme): the data home's full test split when
fetched (`ltn-sudoku data fetch literature`), else its shipped stand-in (the RRN-recipe sample, reported as
rrn_recipe), else the set is listed as not measured. On a seeded sample of its puzzles (--puzzles, default 200):

- solved: the model's most probable digits from the puzzle as given (givens kept, no search) are the solution
  (ModelOrder.solves, the package's one meaning of solved);
- the singles loop (naked and hidden singles to their fixpoint) on the same puzzles, and the paired difference
  model - loop with its 95 % bootstrap interval (scripts/render_docs.py's paired_bootstrap, seed 0);
- each model's supervision, inputs and training compute, read from its checkpoint and the metrics.json beside it.

--extra NAME=PATH adds a checkpoint of one's own (e.g. a run of conf/experiment/original_9x9.yaml).
--original NAME=RUN_DIR records a finished run of the original system's recipe (conf/experiment/original_*.yaml) in
original.csv: its last validation (solved, the singles loop on the same puzzles, hasSolution, isCorrect) and its
compute, read from RUN_DIR/metrics.json; a 9x9 run also goes in as --extra NAME=RUN_DIR/best.pt.

Writes ours.csv (one row per set and model), models.csv (one row per model) and literature.json (command, date, CPU,
peak memory, seconds) to --out (default docs/results/literature/). The published figures beside them are
docs/results/literature/published.csv, entered by hand from the papers and repositories named in its rows.

    .venv/bin/python scripts/bench_literature.py [--puzzles 200] [--out DIR] [--extra NAME=PATH ...]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import resource
import shlex
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from _machine import cpu_name  # noqa: E402
from render_docs import paired_bootstrap  # noqa: E402

from ltn_sudoku.board import Board  # noqa: E402
from ltn_sudoku.io import atomic_write_text  # noqa: E402
from ltn_sudoku.logic.board import literature  # noqa: E402
from ltn_sudoku.logic.board.evaluate import sample_public  # noqa: E402
from ltn_sudoku.logic.board.model_order import ModelOrder  # noqa: E402
from ltn_sudoku.logic.checkpoints import load_checkpoint  # noqa: E402
from ltn_sudoku.paths import CHECKPOINTS_DIR, DataNotFound  # noqa: E402
from ltn_sudoku.questions.tiers import singles_loop_completes  # noqa: E402

OUT = ROOT / "docs" / "results" / "literature"
SEED = 46
SHIPPED = ("9x9_message_passing", "9x9")  # the shipped 9x9 models measured by default (docs/ltn.md)
EVIDENCE_INPUTS = ("the givens and hand-made symbolic features (candidates, singles reached): a soft singles "
                   "propagator")




def describe(name: str, path: Path) -> dict[str, Any]:
    """What a model is and what its training cost, from its checkpoint's config and the metrics.json beside it (a
    shipped NAME.metrics.json, or a run folder's metrics.json; the last stage of a warm-start chain)."""
    config = load_checkpoint(path)["config"]
    message_passing = config["model"].get("hasvalue") == "message_passing"  # absent in early checkpoints: evidence
    supervised = bool(config["train"].get("supervised", False))
    kind = "message passing" if message_passing else "evidence grounding"
    shipped = path.with_name(f"{path.stem}.metrics.json")
    metrics = json.loads((shipped if shipped.is_file() else path.with_name("metrics.json")).read_text())
    training = metrics.get("training", metrics)  # a shipped file nests the run's metrics under "training"
    return {"model": name,
            "label": f"LTN, {kind}" + (", supervised reference" if supervised else
                                       ", rules-only" if message_passing else ""),
            "supervision": ("the solutions' digits (the supervised axiom) and the Sudoku axioms" if supervised else
                            "none: the Sudoku axioms only, no solutions"),
            "inputs": "the givens only (no crisp derived input)" if message_passing else EVIDENCE_INPUTS,
            "experiment": config.get("experiment", {}).get("name") or metrics.get("experiment", ""),
            "train_data": "generated boards" + (" and real Kaggle rows" if config["data"].get("kaggle_path") else ""),
            "train_boards_seen": training.get("train/boards_seen"),
            "train_cpu_hours": round(float(training.get("train/cpu_seconds", float("nan"))) / 3600, 3)}


ORIGINAL_FIGURES = {"val/solve/board_accuracy": "solved", "val/solve/singles_loop": "singles_loop",
                    "val/states/board_accuracy": "states_completed", "val/has_solution/accuracy": "has_solution_accuracy",
                    "val/is_correct/accuracy": "is_correct_accuracy", "train/epoch": "epochs",
                    "train/boards_seen": "train_boards_seen", "train/cpu_seconds": "train_cpu_seconds"}


def original_row(name: str, run: Path) -> dict[str, Any]:
    """A finished run of the original recipe: its last validation and compute (metrics.json), its size (best.pt)."""
    metrics = json.loads((run / "metrics.json").read_text())
    missing = [key for key in ORIGINAL_FIGURES if key not in metrics]
    if missing:
        raise ValueError(f"{run / 'metrics.json'}: no {', '.join(missing)} (a finished training run's file?)")
    size = int(load_checkpoint(run / "best.pt")["config"]["model"]["size"])
    return {"model": name, "size": f"{size}x{size}", **{col: metrics[key] for key, col in ORIGINAL_FIGURES.items()}}


def singles_solved(boards: list[Board]) -> np.ndarray:
    """(B,) bool: the singles loop completes the puzzle (a completed board of the loop is a solution)."""
    return singles_loop_completes(np.array([b.values for b in boards]), 9)


def measure_set(name: str, count: int, models: dict[str, ModelOrder]) -> tuple[list[dict[str, Any]], str]:
    """The rows of one literature set (none when neither the full set nor a stand-in is here) and what was read."""
    try:
        source, path = literature.public_file(name, literature.LITERATURE_FILES)
    except DataNotFound:
        return [], f"{name}: not measured (the full set is not fetched and no sample of it ships)"
    boards = sample_public(literature.read_public(path), count, SEED)
    loop = singles_solved(boards)
    rows = []
    for model_name, model in models.items():
        solved = model.solves(boards)
        mean, low, high = paired_bootstrap(solved, loop)
        relative = literature.LITERATURE_FILES[name] if source == name else literature.SHIPPED_STAND_INS[name][1]
        rows.append({"set": name, "read_as": source, "file": relative, "puzzles": len(boards), "model": model_name,
                     "solved": round(float(solved.mean()), 4), "singles_solved": round(float(loop.mean()), 4),
                     "difference": round(mean, 4), "low": round(low, 4), "high": round(high, 4)})
    return rows, f"{name}: {len(boards)} puzzles of {path.name}, read as {source}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--puzzles", type=int, default=200, help="puzzles per set, a seeded sample (default 200)")
    parser.add_argument("--out", type=Path, default=OUT, help="folder of the result files (default %(default)s)")
    parser.add_argument("--extra", action="append", default=[], metavar="NAME=PATH",
                        help="also measure this 9x9 checkpoint under NAME, e.g. original_9x9=outputs/original_9x9/"
                             "best.pt (repeatable)")
    parser.add_argument("--original", action="append", default=[], metavar="NAME=RUN_DIR",
                        help="a finished run of conf/experiment/original_*.yaml: its figures in original.csv, and a "
                             "9x9 one measured on the sets as --extra NAME=RUN_DIR/best.pt (repeatable)")
    args = parser.parse_args(argv)
    if args.puzzles < 1:
        parser.error("--puzzles must be at least 1")
    paths = {name: CHECKPOINTS_DIR / f"{name}.pt" for name in SHIPPED}
    originals = []
    for original in args.original:
        name, _, run = original.partition("=")
        if not name or not run or not (Path(run) / "best.pt").is_file():
            parser.error(f"--original {original}: expected NAME=RUN_DIR of a finished run (RUN_DIR/best.pt)")
        try:
            originals.append(original_row(name, Path(run)))
        except (ValueError, OSError) as e:
            parser.error(f"--original {original}: {str(e).splitlines()[0]}")
        if originals[-1]["size"] == "9x9":
            args.extra.append(f"{name}={Path(run) / 'best.pt'}")
    for extra in args.extra:
        name, _, path = extra.partition("=")
        if not name or not path or name in paths:
            parser.error(f"--extra {extra}: expected a new NAME=PATH")
        if not Path(path).is_file():
            parser.error(f"--extra {extra}: no such file")
        paths[name] = Path(path)
    started, cpu_started = time.time(), time.process_time()
    try:
        models = {name: ModelOrder.load(path, name) for name, path in paths.items()}
    except ValueError as e:  # a damaged or foreign checkpoint (CheckpointError)
        parser.error(str(e).splitlines()[0])
    rows: list[dict[str, Any]] = []
    for name in literature.LITERATURE_FILES:
        set_rows, said = measure_set(name, args.puzzles, models)
        print(said, file=sys.stderr)
        rows += set_rows
    args.out.mkdir(parents=True, exist_ok=True)
    atomic_write_text(args.out / "ours.csv", pd.DataFrame(rows).to_csv(index=False))
    described = pd.DataFrame([describe(name, path) for name, path in paths.items()])
    atomic_write_text(args.out / "models.csv", described.to_csv(index=False))
    if originals:  # their own provenance: the runs are not shipped, so a later run without --original keeps them
        atomic_write_text(args.out / "original.csv", pd.DataFrame(originals).to_csv(index=False))
        atomic_write_text(args.out / "original.json", json.dumps(
            {"command": "python scripts/bench_literature.py " + " ".join(f"--original {o}" for o in args.original),
             "date": datetime.date.today().isoformat(), "cpu": cpu_name()}, indent=2) + "\n")
    info = {"command": "python " + " ".join(shlex.quote(a) for a in ["scripts/bench_literature.py",
                                                                      *(argv if argv is not None else sys.argv[1:])]),
            "date": datetime.date.today().isoformat(), "cpu": cpu_name(), "cores": os.cpu_count(),
            "threads": torch.get_num_threads(),
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
            "wall_seconds": round(time.time() - started, 1), "cpu_seconds": round(time.process_time() - cpu_started, 1),
            "puzzles_per_set": args.puzzles, "seed": SEED,
            "not_measured": [n for n in literature.LITERATURE_FILES if not any(r["set"] == n for r in rows)]}
    atomic_write_text(args.out / "literature.json", json.dumps(info, indent=2) + "\n")
    print(pd.DataFrame(rows).to_string(index=False))
    print(f"peak memory {info['peak_rss_mb']} MB, {info['wall_seconds']} s on {info['cpu']}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
