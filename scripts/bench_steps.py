"""Solved share against refinement steps, for one or more checkpoints on the same held-out puzzles, beside the singles
loop and the engine limited to T2 / T3 on those puzzles (they do not depend on steps).

    python scripts/bench_steps.py checkpoints/9x9.pt checkpoints/9x9_evidence.pt --plot docs/figures/steps.png

Puzzles: generated 9x9 puzzles (seed 4242, never a training seed) spread over the givens bins 17-23, 24-29, 30-35;
a puzzle counts as solved when hasValue's decoded board equals the exact solver's solution.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

import pandas as pd
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ltn_sudoku.logic.board import data  # noqa: E402
from ltn_sudoku.logic.board.reasoning import model_boards  # noqa: E402
from ltn_sudoku.logic.kinds import load_model  # noqa: E402
from ltn_sudoku.questions.tiers import run_tiers, singles_loop_batch  # noqa: E402
from scripts._machine import machine_line  # noqa: E402

STEPS = (1, 2, 4, 8, 16, 24, 32, 48, 64, 96)
BINS = ((17, 23), (24, 29), (30, 35))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkpoints", nargs="+")
    parser.add_argument("--puzzles", type=int, default=300, help="puzzles in all (an equal share per givens bin)")
    parser.add_argument("--steps", default=",".join(map(str, STEPS)))
    parser.add_argument("--plot", type=Path, default=None)
    args = parser.parse_args()
    torch.set_num_threads(1)
    print(machine_line())
    steps = [int(s) for s in args.steps.split(",")]
    puzzles = data.generated(9, "open_solvable", args.puzzles, 4242, givens=[list(b) for b in BINS])
    boards = puzzles.boards()
    run = run_tiers(boards)
    solution = run.solutions
    rows = {"singles loop": float((singles_loop_batch(run.puzzles, 9) == solution).all(1).mean()),
            "engine ≤T2": float(run.solved(2).mean()), "engine ≤T3": float(run.solved(3).mean())}
    print(f"{len(boards)} generated puzzles, givens {BINS}: " + ", ".join(f"{k} {v:.3f}" for k, v in rows.items()))
    table = pd.DataFrame(index=steps)
    for path in args.checkpoints:
        model = load_model(path, 9)[0]
        started = time.process_time()
        label = f"{model.config.has_value.grounding}: {path}"
        table[label] = [float((model_boards(model, run.puzzles, s) == solution).all(1).mean()) for s in steps]
        print(f"{label}: {time.process_time() - started:.0f} CPU s")
    table.index.name = "steps"
    print(table.to_string(float_format=lambda x: f"{x:.3f}"))
    print(f"peak memory {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    if args.plot:
        from _plotting import new_axes, save

        fig, ax = new_axes((6.5, 4))
        for column in table:
            ax.plot(table.index, table[column], marker="o", label=column)
        for (name, value), style in zip(rows.items(), (":", "--", "-.")):
            ax.axhline(value, color="grey", linestyle=style, label=name)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("refinement steps when answering")
        ax.set_ylabel("share of puzzles solved (hasValue alone)")
        ax.set_title(f"{len(boards)} held-out generated 9x9 puzzles, 17-35 givens")
        ax.legend(fontsize=8)
        save(fig, args.plot)
        print(f"plot: {args.plot}")


if __name__ == "__main__":
    main()
