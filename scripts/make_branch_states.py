"""Write "generated (branch states)": the complete solver's branch states on generated puzzles, for training.

    python scripts/make_branch_states.py --puzzles 3000 --out outputs/branch_states/generated_branch_states.csv

Generated unique puzzles (seeded, `--givens` range) are searched with the ascending order (the weakest hand-made
one: most branch nodes per puzzle); every branch node on the solution path becomes one `puzzle,solution` row (the
state, the puzzle's solution). No public or Kaggle puzzle is used, so every benchmark set stays held out.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ltn_sudoku.branching.orders import Ascending  # noqa: E402
from ltn_sudoku.branching.states import branch_states, write_states_csv  # noqa: E402
from ltn_sudoku.generate import generate  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--puzzles", type=int, default=3000, help="generated puzzles to search")
    parser.add_argument("--givens", default="22,30", help="LOW,HIGH givens of the generated puzzles")
    parser.add_argument("--seed", type=int, default=30)
    parser.add_argument("--out", type=Path, default=Path("outputs/branch_states/generated_branch_states.csv"))
    args = parser.parse_args()
    try:
        low, high = (int(x) for x in args.givens.split(","))
        records = generate(9, "open_solvable", args.puzzles, args.seed, givens=(low, high), progress=True)
    except ValueError as e:
        print(f"make_branch_states: {e}", file=sys.stderr)
        raise SystemExit(2) from None
    states, solutions = [], []
    for record in tqdm(records, unit="puzzle", file=sys.stderr):
        found = branch_states(record.board, Ascending(), record.solution)
        states.append(found)
        solutions.append(np.repeat(np.array([record.solution.values]), len(found), axis=0))
    rows = np.concatenate(states)
    write_states_csv(args.out, rows, np.concatenate(solutions))
    print(f"{len(rows)} branch states of {len(records)} generated puzzles ({low}-{high} givens; "
          f"{(rows > 0).sum(1).mean():.1f} digits per state on average) -> {args.out}")


if __name__ == "__main__":
    main()
