#!/usr/bin/env python
"""Ship a trained model: copy a run's best.pt to checkpoints/<n>x<n>.pt, evaluate it on held-out boards, and write
checkpoints/<n>x<n>.metrics.json (training figures, evaluation figures, and the commands that reproduce both).

    python -m ltn_sudoku.train +experiment=4x4_evidence run_dir=outputs/ship_4x4     # train (conf/experiment/)
    python scripts/ship_checkpoint.py outputs/ship_4x4 --name 4x4_evidence \
        --train-command "python -m ltn_sudoku.train +experiment=4x4_evidence"

A run trained with +experiment=NAME has metrics.json name its experiment (`experiment`, `experiment_command`).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ltn_sudoku.io import atomic_write_text
from ltn_sudoku.logic.board.evaluate import evaluate
from ltn_sudoku.logic.checkpoints import load_checkpoint, save_checkpoint
from ltn_sudoku.logic.commands.experiments import experiment_record
from ltn_sudoku.logic.config.schema import compose_config
from ltn_sudoku.paths import CHECKPOINTS_DIR


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path, help="a training run folder holding best.pt and metrics.json")
    parser.add_argument("--train-command", required=True, help="the command that trained the run (recorded)")
    parser.add_argument("--evaluate", nargs="*", default=[], metavar="OVERRIDE",
                        help="extra Hydra overrides of the evaluation, e.g. 'evaluate.kaggle_path=${data_home:kaggle}'")
    parser.add_argument("--evaluated", type=Path, metavar="DIR",
                        help="reuse the metrics.json of an evaluation of this run's best.pt made with the same "
                             "overrides (python -m ltn_sudoku.evaluate checkpoint=RUN/best.pt run_dir=DIR ...)")
    parser.add_argument("--name", metavar="STEM", help="ship as checkpoints/STEM.pt (default: <n>x<n>, the model "
                        "that classify-board and evaluate use; another name keeps a variant beside it)")
    args = parser.parse_args()
    payload = load_checkpoint(args.run / "best.pt")
    size = int(payload["config"]["model"]["size"])
    target = CHECKPOINTS_DIR / f"{args.name or f'{size}x{size}'}.pt"
    # written again, not copied: the shipped file gets this version's checksum (the weights as loaded, unchanged)
    save_checkpoint(target, payload["size"], payload["config"], payload["state_dict"], payload["extra"])
    overrides = [f"model={size}x{size}", f"checkpoint={target}", f"run_dir={args.run / 'evaluate'}", *args.evaluate]
    cfg = compose_config(overrides)
    if args.evaluated is not None:
        evaluated = json.loads((args.evaluated / "metrics.json").read_text())
        if Path(evaluated["checkpoint"]).resolve() != (args.run / "best.pt").resolve():
            raise SystemExit(f"{args.evaluated}/metrics.json evaluates {evaluated['checkpoint']}, not this run")
        evaluation = evaluated["metrics"]
    else:
        evaluation = evaluate(cfg)
    finished = args.run / "metrics.json"  # a run still going (or stopped) has only its best epoch's figures
    training = json.loads(finished.read_text()) if finished.is_file() else payload["extra"].get("metrics", {})
    report = {
        "checkpoint": str(target.relative_to(CHECKPOINTS_DIR.parent)),
        "train_command": args.train_command,
        "evaluate_command": "python -m ltn_sudoku.evaluate " + " ".join(
            o if not o.startswith("checkpoint=") else f"checkpoint={target.relative_to(CHECKPOINTS_DIR.parent)}"
            for o in overrides if not o.startswith("run_dir=") and (args.name or not o.startswith("checkpoint="))),
        "best_epoch": int(payload["extra"]["epoch"]) + 1,
        "training": training,
        "evaluation": evaluation,
        **experiment_record(payload["config"]),
    }
    metrics_file = target.with_suffix(".metrics.json")
    atomic_write_text(metrics_file, json.dumps(report, indent=2, sort_keys=True) + "\n")
    print(f"{target} ({target.stat().st_size / 1e3:.0f} kB) and {metrics_file} written")
    for key in sorted(evaluation):
        if key.endswith(("accuracy", "macro_f1")) and "/" in key and key.count("/") <= 2:
            print(f"  {key:<55} {evaluation[key]:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
