"""Make data/literature/rrn_recipe_sample216.csv: puzzles made by the RRN hard set's published recipe, in its layout.

The RRN hard set (Palm et al. 2018) itself could not be read here (a Dropbox zip, no public copy found, no licence
stated), so this file is not its test split. It follows the recipe of rasmusbergpalm/recurrent-relational-networks
tasks/sudoku/generate_hard.py, re-implemented: draw a 17-clue puzzle of G. Royle's list, relabel its digits by a
random permutation, add k givens of its solution at random empty cells, for k = 0..17 (so 17 to 34 givens), the same
number of puzzles per k; written as the set's rows, ``puzzle,solution``, 81 digits each, 0 empty, no header. The
17-clue puzzles are the shipped sample data/9x9/17clue_sample1000.txt (RRN drew its 10,000 test puzzles from the
49,151 of the same list); their solutions come from the exact solver. Seeded: rerun, it writes the same bytes;
``--check`` compares them with the committed file.

    .venv/bin/python scripts/make_rrn_recipe_sample.py [--check]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ltn_sudoku.exact import solve_batch  # noqa: E402
from ltn_sudoku.io import atomic_write_text, read_boards  # noqa: E402
from ltn_sudoku.paths import DATA_DIR  # noqa: E402

SOURCE = "9x9/17clue_sample1000.txt"
TARGET = "literature/rrn_recipe_sample216.csv"
EXTRA_GIVENS = 17  # k = 0..17 added givens: 17 to 34 givens, as generate_hard.py's n_extra_givens_max
PER_K = 12  # puzzles per k (RRN's test split: 1,000 per k)
SEED = 2026


def recipe_rows(pool: np.ndarray, per_k: int, seed: int) -> list[str]:
    """`per_k` rows for each k of 0..EXTRA_GIVENS, shuffled as generate_hard.py shuffles its list."""
    rng = np.random.default_rng(seed)
    counts, solutions = solve_batch(pool)
    if not (counts == 1).all():
        raise SystemExit(f"{SOURCE}: {int((counts != 1).sum())} puzzles without a unique solution")
    rows = []
    for k in range(EXTRA_GIVENS + 1):
        for _ in range(per_k):
            pick = int(rng.integers(len(pool)))
            relabel = np.concatenate([[0], rng.permutation(9) + 1])
            puzzle, solution = relabel[pool[pick]], relabel[solutions[pick]]
            empty = np.flatnonzero(puzzle == 0)
            added = rng.choice(empty, size=k, replace=False)
            puzzle[added] = solution[added]
            rows.append("".join(map(str, puzzle)) + "," + "".join(map(str, solution)))
    return [rows[i] for i in rng.permutation(len(rows))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when the committed file differs")
    args = parser.parse_args()
    pool = np.array([b.values for b in read_boards(DATA_DIR / SOURCE)], dtype=np.int64)
    text = "\n".join(recipe_rows(pool, PER_K, SEED)) + "\n"
    target = DATA_DIR / TARGET
    if args.check:
        same = target.is_file() and target.read_text(encoding="ascii") == text
        print(f"{TARGET}: {'the same' if same else 'DIFFERS'}")
        return 0 if same else 1
    target.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(target, text)
    print(f"{TARGET}: {text.count(chr(10))} rows")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
