"""Write branch states for training: the complete solver's branch states on generated puzzles, or on the train split
of a real set (the per-set value orders of conf/experiment/order_*.yaml and scripts/learning_curve.py --experiment).

    python scripts/make_branch_states.py --puzzles 3000 --out outputs/branch_states/generated_branch_states.csv
    python scripts/make_branch_states.py --set seventeen_clue --puzzles 11000 --states 12000
        # the 17-clue list's train split -> DATA_HOME/branch_states/seventeen_clue_train.csv (order_seventeen_clue)

Puzzles are searched with the ascending order (the weakest hand-made one: most branch nodes per puzzle); every
branch node on the solution path becomes one `puzzle,solution` row (the state, the puzzle's solution). Generated
puzzles are seeded unique ones (`--givens` range): no public or Kaggle puzzle is used, so every benchmark set stays
held out. `--set NAME` (scripts/bench_guidance.py's sets) takes a seeded sample of the set's `--split` (train by
default; ltn_sudoku/io/split.py), solved by the exact solver: its test split stays held out for the order trained on
these states (and the other sets' splits for the transfer table).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_guidance import SETS, puzzles  # noqa: E402

from ltn_sudoku.board import Board  # noqa: E402
from ltn_sudoku.branching.orders import Ascending  # noqa: E402
from ltn_sudoku.branching.states import branch_states, write_states_csv  # noqa: E402
from ltn_sudoku.exact import solve_batch  # noqa: E402
from ltn_sudoku.generate import generate  # noqa: E402
from ltn_sudoku.io.progress import progress  # noqa: E402
from ltn_sudoku.paths import data_home  # noqa: E402

STEMS: dict[str, str] = {name.removesuffix("_test"): name for name in SETS}  # file stem -> set (kaggle_3m: 3M rows)


def states_file(name: str, split: str = "train") -> Path:
    """Where `--set NAME` writes a split's branch states in the data home (conf/experiment/order_*.yaml and
    scripts/distill_order.py read the train split's): named by the set's stem (kaggle_3m_test -> kaggle_3m)."""
    return data_home() / "branch_states" / f"{name.removesuffix('_test')}_{split}.csv"


def real_puzzles(name: str, count: int, seed: int, split: str) -> tuple[list[Board], list[Board]]:
    """A seeded sample of a set's split, with each puzzle's solution (the exact solver's; one solution each)."""
    boards = puzzles(name, count, seed, split=split)
    counts, solutions = solve_batch(np.array([b.values for b in boards]).reshape(len(boards), -1), 2)
    if (counts != 1).any():
        raise ValueError(f"{name}: {int((counts != 1).sum())} puzzles without a unique solution")
    return boards, [Board(s.tolist(), 9) for s in solutions]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--puzzles", type=int, default=3000, help="puzzles to search")
    parser.add_argument("--states", type=int, default=0, help="stop once this many states are found (0: no cap)")
    parser.add_argument("--set", choices=list(SETS), default=None, help="a real set of the data home instead of "
                        "generated puzzles")
    parser.add_argument("--split", choices=("train", "val", "test"), default="train", help="with --set: its split")
    parser.add_argument("--givens", default="22,30", help="LOW,HIGH givens of the generated puzzles")
    parser.add_argument("--seed", type=int, default=30)
    parser.add_argument("--out", type=Path, default=None, help="the CSV (default: outputs/branch_states/"
                        "generated_branch_states.csv; with --set, DATA_HOME/branch_states/SET_SPLIT.csv, where "
                        "conf/experiment/order_*.yaml read it)")
    args = parser.parse_args()
    if args.out is None:
        args.out = (states_file(args.set, args.split) if args.set
                    else Path("outputs/branch_states/generated_branch_states.csv"))
    try:
        if args.set:
            boards, solutions = real_puzzles(args.set, args.puzzles, args.seed, args.split)
            what = f"{args.set} puzzles ({args.split} split)"
        else:
            low, high = (int(x) for x in args.givens.split(","))
            records = generate(9, "open_solvable", args.puzzles, args.seed, givens=(low, high), progress=True)
            boards = [r.board for r in records]
            solutions = [r.solution for r in records]
            what = f"generated puzzles ({low}-{high} givens)"
    except (ValueError, OSError) as e:
        print(f"make_branch_states: {e}", file=sys.stderr)
        raise SystemExit(2) from None
    states, truths, searched, found_total = [], [], 0, 0
    with progress(total=len(boards), unit="puzzle") as bar:
        for board, solution in zip(boards, solutions):
            found = branch_states(board, Ascending(), solution)
            states.append(found)
            truths.append(np.repeat(np.array([solution.values]), len(found), axis=0))
            searched, found_total = searched + 1, found_total + len(found)
            bar.update(1)
            if args.states and found_total >= args.states:
                break
    rows = np.concatenate(states)[: args.states or None]
    write_states_csv(args.out, rows, np.concatenate(truths)[: len(rows)])
    print(f"{len(rows)} branch states of {searched} {what}; {(rows > 0).sum(1).mean():.1f} digits per state on "
          f"average -> {args.out}")


if __name__ == "__main__":
    main()
