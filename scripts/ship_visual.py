#!/usr/bin/env python
"""Ship a visual model: copy a run's best.pt to checkpoints/visual_<n>x<n>.pt and write its metrics.json beside it
(the run's validation and held-out test figures, and the command that trained it). The symbolic models' shipping
(scripts/ship_checkpoint.py) re-evaluates with ltn_sudoku.evaluate, which has no visual boards; a visual run already
scored its held-out test boards (MNIST t10k images) when it finished.

    python -m ltn_sudoku.train model=visual_4x4 run_dir=outputs/visual/ship_4x4
    python scripts/ship_visual.py outputs/visual/ship_4x4 --train-command "python -m ltn_sudoku.train model=visual_4x4"
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

from ltn_sudoku.io import atomic_write_text
from ltn_sudoku.logic.checkpoint import load_checkpoint
from ltn_sudoku.paths import CHECKPOINTS_DIR


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path, help="a finished visual training run (best.pt and metrics.json)")
    parser.add_argument("--train-command", required=True, help="the command that trained the run (recorded)")
    args = parser.parse_args()
    payload = load_checkpoint(args.run / "best.pt")
    model = payload["config"]["model"]
    if model.get("kind") != "visual":
        raise SystemExit(f"{args.run}/best.pt is not a visual model: ship it with scripts/ship_checkpoint.py")
    target = CHECKPOINTS_DIR / f"visual_{model['size']}x{model['size']}.pt"
    shutil.copyfile(args.run / "best.pt", target.with_suffix(".pt.tmp"))
    target.with_suffix(".pt.tmp").replace(target)
    metrics = json.loads((args.run / "metrics.json").read_text())
    report = {"checkpoint": str(target.relative_to(CHECKPOINTS_DIR.parent)), "train_command": args.train_command,
              "best_epoch": int(payload["extra"]["epoch"]) + 1, "digit_names": payload["extra"].get("digit_names"),
              "training": {k: v for k, v in metrics.items() if not k.startswith("test/")},
              "evaluation": {k: v for k, v in metrics.items() if k.startswith("test/")}}
    metrics_file = target.with_suffix(".metrics.json")
    atomic_write_text(metrics_file, json.dumps(report, indent=2, sort_keys=True) + "\n")
    print(f"{target} ({target.stat().st_size / 1e3:.0f} kB) and {metrics_file} written")
    for key, value in sorted(report["evaluation"].items()):
        print(f"  {key:<45} {value:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
