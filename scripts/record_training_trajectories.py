"""Record the training trajectories of tests/test_training_trajectory.py: a 2-epoch tiny run (fixed seed, CPU) of a
4x4 evidence, a 4x4 message-passing and a 4x4 visual model, and what each left behind: every batch's loss as
TensorBoard holds it, metrics.json (timings left out) and a checksum of last.pt's and best.pt's weights. The trainer
may be rewritten (issue 28: one loop for every model kind); these figures may not move. Rerun only when a change of
behaviour is intended:

    PYTHONPATH=$PWD python scripts/record_training_trajectories.py          # writes tests/fixtures/...json
    PYTHONPATH=$PWD python scripts/record_training_trajectories.py --check  # compare with the file, write nothing

The figures come from `trajectory_figures()`, which the test imports, so the recorder and the test cannot drift.
"""

from __future__ import annotations

import json
import math
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "fixtures" / "training_trajectories.json"
MNIST = ROOT.parent / "shared" / "data" / "mnist"
TOLERANCE = 1e-6  # relative: float32 sums may be ordered otherwise with another thread count or machine (the shared
# loop reproduced the recording exactly, `--check` at tolerance 0, on the machine that recorded it)
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
    from ltn_sudoku.logic.checkpoint import load_checkpoint

    tensors = [t.double() for t in load_checkpoint(path)["state_dict"].values() if t.is_floating_point()]
    return {"sum": float(sum(t.sum() for t in tensors)), "abs_sum": float(sum(t.abs().sum() for t in tensors))}


def trajectory(name: str, epochs: int = 2) -> dict[str, Any]:
    """One tiny run's figures: batch losses, metrics.json without timings, weight checksums."""
    from ltn_sudoku.logic.schema import compose_config
    from ltn_sudoku.logic.train import train
    from scripts.gpu_check import tensorboard_losses

    with tempfile.TemporaryDirectory() as folder:
        run = Path(folder)
        train(compose_config([*RUNS[name], f"run_dir={run}", f"train.epochs={epochs}", "train.progress=false",
                              "device=cpu", "seed=0"]))
        recorded = json.loads((run / "metrics.json").read_text())
        return {"losses": [[step, value] for step, value in tensorboard_losses(run)],
                "metrics": {k: v for k, v in recorded.items() if not any(k.endswith(t) for t in TIMINGS)},
                "last": _weights_checksum(run / "last.pt"), "best": _weights_checksum(run / "best.pt")}


def trajectory_figures() -> dict[str, dict[str, Any]]:
    return {name: trajectory(name) for name in RUNS}


def differences(expected: Any, found: Any, tolerance: float, where: str = "") -> list[str]:
    """Where two recordings differ (numbers beyond a relative `tolerance`, anything else at all)."""
    if isinstance(expected, dict) and isinstance(found, dict):
        if expected.keys() != found.keys():
            return [f"{where}: keys {sorted(set(expected) ^ set(found))} differ"]
        return [d for k in expected for d in differences(expected[k], found[k], tolerance, f"{where}.{k}")]
    if isinstance(expected, list) and isinstance(found, list):
        if len(expected) != len(found):
            return [f"{where}: {len(expected)} entries recorded, {len(found)} found"]
        return [d for i, (a, b) in enumerate(zip(expected, found))
                for d in differences(a, b, tolerance, f"{where}[{i}]")]
    if isinstance(expected, (int, float)) and isinstance(found, (int, float)) and not isinstance(expected, bool):
        same = (math.isnan(expected) and math.isnan(found)) or math.isclose(expected, found, rel_tol=tolerance,
                                                                               abs_tol=tolerance)
        return [] if same else [f"{where}: recorded {expected!r}, found {found!r}"]
    return [] if expected == found else [f"{where}: recorded {expected!r}, found {found!r}"]


# metrics.json entries a kind gained once every kind shared one loop: a visual run says how many processes trained it
GAINED: dict[str, set[str]] = {"4x4_visual": {"train/processes"}}


def compare(name: str, recorded: dict[str, Any], found: dict[str, Any], tolerance: float) -> list[str]:
    """How a run's figures differ from the recording, entries in GAINED aside."""
    gained = set(found["metrics"]) - set(recorded["metrics"])
    if gained != GAINED.get(name, set()):
        return [f"{name}.metrics: gained {sorted(gained)}, expected {sorted(GAINED.get(name, set()))}"]
    kept = {**found, "metrics": {k: v for k, v in found["metrics"].items() if k not in gained}}
    return differences(recorded, kept, tolerance, name)


def main(argv: list[str] | None = None) -> int:
    from scripts._fixtures import record_or_check  # needs PYTHONPATH=$PWD, as the usage above says

    return record_or_check(__doc__.splitlines()[0], FIXTURE, trajectory_figures,
                           lambda recorded, found: [d for name in RUNS
                                                    for d in compare(name, recorded[name], found[name], 0.0)], argv)


if __name__ == "__main__":
    sys.exit(main())
