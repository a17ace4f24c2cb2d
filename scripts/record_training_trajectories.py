"""Record the training trajectories of tests/test_training_trajectory.py: a 2-epoch tiny run (fixed seed, CPU) of a
4x4 evidence, a 4x4 message-passing and a 4x4 visual model, and what each left behind: every batch's loss as
TensorBoard holds it, metrics.json (timings left out) and a checksum of last.pt's and best.pt's weights. The trainer
may be rewritten (issue 28: one loop for every model kind); these figures may not move. Rerun only when a change of
behaviour is intended:

    PYTHONPATH=$PWD python scripts/record_training_trajectories.py          # writes tests/fixtures/...json
    PYTHONPATH=$PWD python scripts/record_training_trajectories.py --check  # compare with the file, write nothing

The figures come from `trajectory_figures()`, which the test imports, so the recorder and the test cannot drift.

The file is compared on other CPUs than the one that recorded it, so by `compare()`'s rules, per quantity: the batch
steps and the bookkeeping (epochs, counts, boards seen) exactly; the losses and the weight checksums within TOLERANCES,
measured across CPU kernels (tests/fixtures/drift.md, `scripts/measure_fixture_drift.py`); the validation figures
counted from decisions (accuracies, F1, AUROC, ECE, score) by behaviour: a 2-epoch tiny model sits next to its decision
thresholds, so one rounding flips a cell (4x4 message passing: cell accuracy 0.815 where recorded, 0.785 to 0.831 under
other kernels), and such a figure need only stay within one board's worth of the recorded one.
`--check --exact` lists every figure that moved at all (bit for bit holds on the CPU that recorded the file).
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scripts._fixtures import Drift

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "fixtures" / "training_trajectories.json"
MNIST = ROOT / "data" / "mnist_sample"  # the shipped MNIST subset (data/README.md): no test reads a data home
# How far a figure may move on another CPU, per quantity: the largest drift measured across CPU kernels and thread
# counts, against the fixture and between any two of 17 variants (tests/fixtures/drift.md, made by
# scripts/measure_fixture_drift.py: ATEN_CPU_CAPABILITY, MKL_CBWR, MKL_ENABLE_INSTRUCTIONS, ONEDNN_MAX_CPU_ISA, 1-2
# threads), with a margin. What a changed trainer does, for scale: train.lr x1.01 moves the weights by 1.1e-5 (message
# passing) to 3e-3 (visual) and the losses by up to 9e-4; train.batch_size=7 moves the weights by 2e-3 to 3e-2.
TOLERANCES: dict[str, float] = {
    "losses": 1e-6,    # every batch's loss and val/loss, |Δ| / max(1, |x|): measured <= 6.0e-8 (one float32 ulp)
    "weights": 2e-5,   # last.pt's and best.pt's sum and Σ|w|, |Δ| / recorded Σ|w|: measured <= 3.3e-6
    "figures": 0.2,    # validation figures counted from decisions, |Δ|: measured <= 0.046 (3 of 65 cells); one
                       # board of the 8 is 0.125, so 0.2 lets a board and a few cells flip, not a different model
}
# metrics.json entries that count rather than measure: equal everywhere
BOOKKEEPING = ("/count", "/boards", "/epoch", "/stopped_epoch", "/boards_seen", "/processes", "/train_origins")
BOARD_TINY = ["model.hidden=8", "model.steps=2", "model.eval_steps=3", "model.kb_every=2", "model.solution_hidden=4",
              "model.heuristic_hidden=4", "model.techniques=[Naked Single,Hidden Single,Naked Pair]",
              "data.train.solvable=24", "data.train.impossible=8", "data.val.solvable=8", "data.val.impossible=8",
              "data.val.closed_valid=4", "data.val.closed_invalid=4", "train.batch_size=8"]
RUNS: dict[str, list[str]] = {
    "4x4_evidence": ["model=4x4", *BOARD_TINY],
    "4x4_message_passing": ["model=4x4_mp", "logic=product_mp", *BOARD_TINY],
    "4x4_visual": ["model=visual_4x4", "data.train_boards=8", "data.val_boards=8", "data.test_boards=8",
                   f"data.mnist_path={MNIST}"],
}
# metrics.json keys that measure the clock, not the training
TIMINGS = ("seconds", "per_second", "per_cpu_second", "ms_per_board")


def _weights_checksum(path: Path) -> dict[str, float]:
    """Sum and sum of |w| over every floating tensor of a checkpoint's weights (one figure each: any moved weight
    moves them)."""
    from ltn_sudoku.logic.checkpoints import load_checkpoint

    tensors = [t.double() for t in load_checkpoint(path)["state_dict"].values() if t.is_floating_point()]
    return {"sum": float(sum(t.sum() for t in tensors)), "abs_sum": float(sum(t.abs().sum() for t in tensors))}


def trajectory(name: str, epochs: int = 2, threads: int | None = None) -> dict[str, Any]:
    """One tiny run's figures: batch losses, metrics.json without timings, weight checksums. `threads`: torch's CPU
    thread count (default: the config's, 1)."""
    from ltn_sudoku.logic.config.schema import compose_config
    from ltn_sudoku.logic.kinds import train
    from scripts.gpu_check import tensorboard_losses

    with tempfile.TemporaryDirectory() as folder:
        run = Path(folder)
        train(compose_config([*RUNS[name], f"run_dir={run}", f"train.epochs={epochs}", "train.progress=false",
                              "device=cpu", "seed=0", *([f"threads={threads}"] if threads else [])]))
        recorded = json.loads((run / "metrics.json").read_text())
        return {"losses": [[step, value] for step, value in tensorboard_losses(run)],
                "metrics": {k: v for k, v in recorded.items() if not any(k.endswith(t) for t in TIMINGS)},
                "last": _weights_checksum(run / "last.pt"), "best": _weights_checksum(run / "best.pt")}


def trajectory_figures() -> dict[str, dict[str, Any]]:
    return {name: trajectory(name) for name in RUNS}


def drifts(recorded: dict[str, Any], found: dict[str, Any]) -> list[Drift]:
    """Every figure of a run with its quantity (None: compared exactly) and how far it moved from the recording: the
    weight checksums relative to the recorded Σ|w| (a sum of signed weights may be near 0), the losses relative to
    max(1, |x|), the validation figures absolutely."""
    from scripts._fixtures import drift, exactly, is_float, measure

    def classify(where: str, expected: Any, got: Any) -> tuple[str | None, float]:
        key = where.removeprefix("/metrics")
        if not is_float(expected, got) or key.endswith(BOOKKEEPING):
            return exactly(expected, got)
        if where.startswith(("/last/", "/best/")):
            return "weights", drift(expected, got, scale=recorded[where.split("/")[1]]["abs_sum"])
        if where.startswith("/losses") or key.endswith("loss"):
            return "losses", drift(expected, got)
        return "figures", drift(expected, got, scale=1.0)

    return measure(recorded, found, classify)


# metrics.json entries a kind gained since the file was recorded (none: the file was recorded again on 2026-11-29,
# after the visual run gained train/processes when every kind came to share one loop)
GAINED: dict[str, set[str]] = {}


def compare(name: str, recorded: dict[str, Any], found: dict[str, Any],
            tolerances: dict[str, float] = TOLERANCES) -> list[str]:
    """Where a run's figures differ from the recording beyond `tolerances` (all 0: every figure that moved at all),
    the entries in GAINED aside.

    best.pt is compared when the run's own metrics say its best epoch is the one recorded. Where the recording's best
    epoch was the last (best.pt = last.pt) and a flipped validation decision made an earlier epoch score higher, the
    run's train/best_val_score says so (it then differs from val/score): best.pt must then differ from last.pt, and
    is not compared with the recording."""
    from scripts._fixtures import beyond

    gained = set(found["metrics"]) - set(recorded["metrics"])
    if gained != GAINED.get(name, set()):
        return [f"{name}.metrics: gained {sorted(gained)}, expected {sorted(GAINED.get(name, set()))}"]
    kept = {**found, "metrics": {k: v for k, v in found["metrics"].items() if k not in gained}}
    metrics = found["metrics"]
    if (recorded["best"] == recorded["last"] and "train/best_val_score" in metrics
            and metrics["train/best_val_score"] != metrics.get("val/score")):
        if found["best"] == found["last"]:
            said = f"train/best_val_score {metrics['train/best_val_score']!r}, val/score {metrics.get('val/score')!r}"
            return [f"{name}: best.pt is last.pt, but an earlier epoch validated best ({said})"]
        kept["best"] = recorded["best"]  # an earlier epoch's weights: nothing recorded to compare them with
    return [f"{name}{line}" for line in beyond(drifts(recorded, kept), tolerances)]


def main(argv: list[str] | None = None) -> int:
    from scripts._fixtures import record_or_check  # needs PYTHONPATH=$PWD, as the usage above says

    return record_or_check(__doc__.splitlines()[0], FIXTURE, trajectory_figures,
                           lambda recorded, found, exact: [
                               d for name in RUNS for d in compare(name, recorded[name], found[name],
                                                                   dict.fromkeys(TOLERANCES, 0.0) if exact
                                                                   else TOLERANCES)], argv)


if __name__ == "__main__":
    sys.exit(main())
