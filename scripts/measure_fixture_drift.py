"""How far the float fixtures move across CPU kernels: the measurement behind the tolerances of
tests/test_training_trajectory.py and tests/test_objective_pinned.py (tests/fixtures/drift.md holds its table).

    PYTHONPATH=$PWD .venv/bin/python scripts/measure_fixture_drift.py                   # every variant (~9 min)
    PYTHONPATH=$PWD .venv/bin/python scripts/measure_fixture_drift.py --variants plain,aten-default --save /tmp/d

Each variant computes the recorders' figures (scripts/record_training_trajectories.py: three 2-epoch tiny runs;
scripts/record_objective_pins.py: the objective and the shipped checkpoints' answers) in a fresh process whose
environment forces what can be forced on one machine: ATEN_CPU_CAPABILITY (ATen's vectorised kernels: default, avx2,
avx512), MKL_CBWR (MKL's code path, the matrix products), MKL_ENABLE_INSTRUCTIONS (the same on Intel CPUs; AMD ones
ignore it), ONEDNN_MAX_CPU_ISA (oneDNN's, the visual reader's convolutions) and torch's thread count (1, 2). It prints,
per quantity the comparisons use, the largest drift of each variant against the fixture and against this machine's
plain run, the largest between any two variants, and the tolerance; then the pinned digits' smallest decision margin
(a margin far above the drift makes the exact comparison of digits hold on every CPU). Exit status 1 when a drift
exceeds its tolerance.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# name -> (environment, torch threads)
VARIANTS: dict[str, tuple[dict[str, str], int]] = {
    "plain": ({}, 1),
    "threads-2": ({}, 2),
    "aten-default": ({"ATEN_CPU_CAPABILITY": "default"}, 1),
    "aten-default-t2": ({"ATEN_CPU_CAPABILITY": "default"}, 2),
    "aten-avx2": ({"ATEN_CPU_CAPABILITY": "avx2"}, 1),
    "aten-avx2-t2": ({"ATEN_CPU_CAPABILITY": "avx2"}, 2),
    "aten-avx512": ({"ATEN_CPU_CAPABILITY": "avx512"}, 1),
    "mkl-cbwr-compatible": ({"MKL_CBWR": "COMPATIBLE"}, 1),
    "mkl-cbwr-sse4_2": ({"MKL_CBWR": "SSE4_2"}, 1),
    "mkl-cbwr-avx2": ({"MKL_CBWR": "AVX2"}, 1),
    "mkl-cbwr-avx512": ({"MKL_CBWR": "AVX512"}, 1),
    "mkl-isa-sse4_2": ({"MKL_ENABLE_INSTRUCTIONS": "SSE4_2"}, 1),
    "mkl-isa-avx2": ({"MKL_ENABLE_INSTRUCTIONS": "AVX2"}, 1),
    "onednn-sse41": ({"ONEDNN_MAX_CPU_ISA": "SSE41"}, 1),
    "onednn-avx2": ({"ONEDNN_MAX_CPU_ISA": "AVX2"}, 1),
    "all-default-t2": ({"ATEN_CPU_CAPABILITY": "default", "MKL_CBWR": "COMPATIBLE", "ONEDNN_MAX_CPU_ISA": "SSE41"}, 2),
    "all-avx2": ({"ATEN_CPU_CAPABILITY": "avx2", "MKL_CBWR": "AVX2", "ONEDNN_MAX_CPU_ISA": "AVX2"}, 1),
}
RUN_SHORT = {"4x4_evidence": "ev", "4x4_message_passing": "mp", "4x4_visual": "vis"}


def child(out: Path, threads: int) -> None:
    """This process's figures, as the recorders compute them, into `out`."""
    import torch

    from scripts import record_objective_pins as pins
    from scripts import record_training_trajectories as runs

    start = time.perf_counter()
    trajectories = {name: runs.trajectory(name, threads=threads) for name in runs.RUNS}
    middle = time.perf_counter()
    pinned = {name: pins.compute(pin, threads) for name, pin in pins.pinned_figures().items()}
    torch.set_num_threads(threads)
    margins = {name: pins.digit_margins(name) for name in (*pins.BOARD_CHECKPOINTS, *pins.VISUAL_CHECKPOINTS)}
    out.write_text(json.dumps({"capability": torch.backends.cpu.get_cpu_capability(), "threads": threads,
                               "trajectory": trajectories, "pins": json.loads(json.dumps(pinned)),
                               "margins": margins,
                               "seconds": [middle - start, time.perf_counter() - middle]}))


def run_variant(name: str, folder: Path) -> dict[str, Any]:
    env, threads = VARIANTS[name]
    out = folder / f"{name}.json"
    started = time.perf_counter()
    subprocess.run([sys.executable, __file__, "--child", str(out), "--threads", str(threads)], check=True, cwd=ROOT,
                   env={**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": str(threads),
                        "MKL_NUM_THREADS": str(threads), **env})
    print(f"  {name}: {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return json.loads(out.read_text())


def drift_row(recorded: dict[str, Any], found: dict[str, Any]) -> dict[str, float]:
    """The largest drift per column: each run's quantities, the pins' quantities, and the exact figures that differ."""
    from scripts import record_objective_pins as pins
    from scripts import record_training_trajectories as runs
    from scripts._fixtures import largest

    row: dict[str, float] = {}
    for name, short in RUN_SHORT.items():
        found_run = {**found["trajectory"][name], "metrics": {k: v for k, v in found["trajectory"][name]["metrics"].items()
                                                              if k in recorded["trajectory"][name]["metrics"]}}
        for quantity, value in largest(runs.drifts(recorded["trajectory"][name], found_run)).items():
            row[f"{short} {quantity}"] = value
    moved = [d for name in recorded["pins"] for d in pins.drifts(recorded["pins"][name], found["pins"][name], name)]
    for quantity, value in largest(moved).items():
        row[f"pins {quantity}"] = value
    return row


def tolerances() -> dict[str, float]:
    from scripts import record_objective_pins as pins
    from scripts import record_training_trajectories as runs

    out = {f"{short} {q}": tol for short in RUN_SHORT.values() for q, tol in runs.TOLERANCES.items()}
    out.update({f"pins {q}": pins.TOLERANCE for q in pins.QUANTITIES})
    return out


def table(rows: dict[str, dict[str, float]], columns: list[str]) -> str:
    def cell(value: float) -> str:
        return "0" if value == 0 else f"{value:.0f}" if value >= 1 or math.isnan(value) else f"{value:.1e}"

    lines = ["| variant | " + " | ".join(columns) + " |", "|---" * (len(columns) + 1) + "|"]
    lines += [f"| {name} | " + " | ".join(cell(row.get(c, 0.0)) for c in columns) + " |" for name, row in rows.items()]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", default=",".join(VARIANTS), help="comma-separated names (default: all)")
    parser.add_argument("--save", type=Path, help="keep each variant's figures in this folder")
    parser.add_argument("--load", type=Path, help="read the figures saved by --save instead of computing them")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--threads", type=int, default=1, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child, args.threads)
        return 0
    from scripts import record_objective_pins as pins
    from scripts import record_training_trajectories as runs

    names = [n for n in args.variants.split(",") if n]
    unknown = set(names) - set(VARIANTS)
    if unknown:
        parser.error(f"unknown variants {sorted(unknown)}; known: {', '.join(VARIANTS)}")
    started = time.perf_counter()
    figures: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.load or args.save or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        for name in names:
            figures[name] = json.loads((folder / f"{name}.json").read_text()) if args.load else run_variant(name,
                                                                                                          folder)
    fixture = {"trajectory": json.loads(runs.FIXTURE.read_text()), "pins": json.loads(pins.FIXTURE.read_text())}
    limits = tolerances()
    versus_fixture = {name: drift_row(fixture, f) for name, f in figures.items()}
    columns = [c for c in limits if any(c in row for row in versus_fixture.values())]
    columns += [c for c in next(iter(versus_fixture.values())) if c.endswith("exact")]
    print(f"CPU capability {', '.join(sorted({f['capability'] for f in figures.values()}))}; torch threads as named\n")
    print("Drift against the fixture (losses / pins: |Δ| / max(1, |x|); weights: |Δ| / Σ|w|; figures: |Δ|; exact: "
          "figures compared exactly that differ)\n")
    print(table({**versus_fixture, "tolerance": limits}, columns))
    base = names[0]
    print(f"\nDrift against this machine's {base} run, and the largest between any two variants\n")
    versus_base = {name: drift_row(figures[base], f) for name, f in figures.items() if name != base}
    pairs = [drift_row(figures[a], figures[b]) for a, b in itertools.permutations(names, 2)]
    largest_pair = {c: max((row.get(c, 0.0) for row in pairs), default=0.0) for c in columns}
    print(table({**versus_base, "any two": largest_pair, "tolerance": limits}, columns))
    margins = {checkpoint: min(f["margins"][checkpoint] for f in figures.values())
               for checkpoint in next(iter(figures.values()))["margins"]}
    print("\nSmallest decision margin of the pinned digits (truth of the digit read − the runner-up's), over "
          "every variant: " + ", ".join(f"{k} {v:.2g}" for k, v in margins.items()))
    moved = {f["trajectory"][n]["metrics"].get("val/solve/cell_accuracy") for f in figures.values()
             for n in ("4x4_message_passing",)}
    print(f"4x4 message passing val/solve/cell_accuracy across variants: {sorted(moved)} "
          f"(fixture {fixture['trajectory']['4x4_message_passing']['metrics']['val/solve/cell_accuracy']})")
    print(f"\n{len(names)} variants in {time.perf_counter() - started:.0f} s")
    over = [f"{name}: {c}" for name, row in versus_fixture.items() for c in columns
            if not c.endswith("exact") and row.get(c, 0.0) > limits[c]]
    over += [f"{name}: {c} ({row[c]:.0f})" for name, row in versus_fixture.items() for c in columns
             if c.endswith("exact") and row.get(c, 0.0)]
    if over:
        print("beyond tolerance: " + "; ".join(over))
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
