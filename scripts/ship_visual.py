#!/usr/bin/env python
"""Ship a visual model: copy a run's best.pt to checkpoints/visual_<n>x<n>.pt and write its metrics.json beside it
(the run's validation and held-out test figures, and the command that trained it). The symbolic models' shipping
(scripts/ship_checkpoint.py) re-evaluates with ltn_sudoku.evaluate, which has no visual boards; a visual run already
scored its held-out test boards (MNIST t10k images) when it finished.

    python -m ltn_sudoku.train +experiment=visual_4x4 run_dir=outputs/visual/ship_4x4
    python scripts/ship_visual.py outputs/visual/ship_4x4 \
        --train-command "python -m ltn_sudoku.train +experiment=visual_4x4"
    python scripts/ship_visual.py --rescore checkpoints/visual_4x4.pt    # recompute a shipped model's test figures

--rescore rebuilds the checkpoint's validation and test boards from its config (deterministic), recomputes every
test figure (ltn_sudoku.logic.visual.train.test_metrics: the old ones reproduce, new ones such as MAP decoding are added)
and the calibrated τ (`map_tau`, read by classify-board), and updates the metrics file beside it (and the
checkpoint's own `map_tau`, where it has one).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ltn_sudoku.io import atomic_write_text
from ltn_sudoku.logic.checkpoints import load_checkpoint, save_checkpoint
from ltn_sudoku.logic.commands.experiments import experiment_record
from ltn_sudoku.paths import CHECKPOINTS_DIR


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path, help="a finished visual training run (best.pt and metrics.json)")
    parser.add_argument("--train-command", help="the command that trained the run (recorded; required to ship)")
    parser.add_argument("--rescore", action="store_true", help="RUN is a shipped checkpoint: recompute its figures")
    args = parser.parse_args()
    if args.rescore:
        return rescore(args.run)
    if args.train_command is None:
        parser.error("--train-command is required to ship a run")
    payload = load_checkpoint(args.run / "best.pt")
    model = payload["config"]["model"]
    if model.get("kind") != "visual":
        raise SystemExit(f"{args.run}/best.pt is not a visual model: ship it with scripts/ship_checkpoint.py")
    target = CHECKPOINTS_DIR / f"visual_{model['size']}x{model['size']}.pt"
    # written again, not copied: the shipped file gets this version's checksum (the weights as loaded, unchanged)
    save_checkpoint(target, payload["size"], payload["config"], payload["state_dict"], payload["extra"])
    metrics = json.loads((args.run / "metrics.json").read_text())
    report = {"checkpoint": str(target.relative_to(CHECKPOINTS_DIR.parent)), "train_command": args.train_command,
              "best_epoch": int(payload["extra"]["epoch"]) + 1, "digit_names": payload["extra"].get("digit_names"),
              "training": {k: v for k, v in metrics.items() if not k.startswith("test/")},
              "evaluation": {k: v for k, v in metrics.items() if k.startswith("test/")},
              "map_tau": metrics.get("test/map_decoding/tau"), **experiment_record(payload["config"])}
    metrics_file = target.with_suffix(".metrics.json")
    atomic_write_text(metrics_file, json.dumps(report, indent=2, sort_keys=True) + "\n")
    print(f"{target} ({target.stat().st_size / 1e3:.0f} kB) and {metrics_file} written")
    for key, value in sorted(report["evaluation"].items()):
        print(f"  {key:<45} {value:.4f}")
    return 0


def rescore(checkpoint: Path) -> int:
    """Recompute a shipped checkpoint's test figures on the boards its config names; update its metrics file."""
    import torch

    from ltn_sudoku.logic.kinds import load_model
    from ltn_sudoku.logic.visual.data import build_data
    from ltn_sudoku.logic.visual.train import test_metrics

    torch.set_num_threads(1)
    model, ops, payload = load_model(checkpoint, kind="visual")
    config = payload["config"]
    data = build_data(model.n, config["data"], int(config["seed"]))
    metrics = test_metrics(model, ops, data)
    metrics_file = checkpoint.with_suffix(".metrics.json")
    report = json.loads(metrics_file.read_text())
    for key, value in sorted(metrics.items()):
        old = report["evaluation"].get(key)
        print(f"  {key:<45} {value:.4f}" + ("" if old is None else f"   (was {old:.4f})"))
    report["evaluation"].update(metrics)
    report["map_tau"] = metrics["test/map_decoding/tau"]
    atomic_write_text(metrics_file, json.dumps(report, indent=2, sort_keys=True) + "\n")
    print(f"{metrics_file} updated")
    if "map_tau" in payload["extra"]:  # classify-board reads the checkpoint's own τ first: keep the two equal
        save_checkpoint(checkpoint, model.n, config, payload["state_dict"],
                        {**payload["extra"], "map_tau": report["map_tau"]})
        print(f"{checkpoint}: map_tau {payload['extra']['map_tau']:.4f} -> {report['map_tau']:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
