"""Regenerate the small shipped samples: data/samples/ (every class) and data/generated_9x9_quizzes_solutions.csv.

    .venv/bin/python scripts/make_samples.py [--data-dir data]

data/samples/<n>x<n>_<class>.csv: labelled boards (ltn_sudoku.generate.write_csv columns), kinds mixed in equal shares,
unique=False (open_solvable mixes unique and multiple-solution puzzles). data/generated_9x9_quizzes_solutions.csv:
generated unique-solution 9x9 puzzles with 30-36 givens in the Kaggle layout (quizzes,solutions; 0 = empty), like
the Kaggle 1M set; not Kaggle rows (the real sample, data/kaggle/, is written by scripts/make_kaggle_sample.py).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ltn_sudoku.generate import CLASSES, generate, write_csv
from ltn_sudoku.io import write_boards
from ltn_sudoku.paths import DATA_DIR

SEED = 20240  # not 0: evaluation sets made with the default seed stay apart from these samples
SAMPLE_SIZES = (4, 9)
BOARDS_PER_CLASS = 200
KAGGLE_LAYOUT_COUNT = 1000
KAGGLE_LAYOUT_GIVENS = (30, 36)


def sample_path(data_dir: Path, size: int, label: str) -> Path:
    return data_dir / "samples" / f"{size}x{size}_{label}.csv"


def generated_kaggle_layout_path(data_dir: Path) -> Path:
    return data_dir / "generated_9x9_quizzes_solutions.csv"


def make_samples(data_dir: Path) -> list[Path]:
    """Write every sample file; returns their paths."""
    written = []
    for size in SAMPLE_SIZES:
        for label in CLASSES:
            path = sample_path(data_dir, size, label)
            write_csv(path, generate(size, label, BOARDS_PER_CLASS, SEED, unique=False))
            written.append(path)
    puzzles = generate(9, "open_solvable", KAGGLE_LAYOUT_COUNT, SEED, givens=KAGGLE_LAYOUT_GIVENS)
    path = generated_kaggle_layout_path(data_dir)
    write_boards(path, [r.board for r in puzzles], fmt="kaggle", solutions=[r.solution for r in puzzles])
    written.append(path)
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=DATA_DIR, help=f"where to write (default {DATA_DIR})")
    args = parser.parse_args()
    for path in make_samples(args.data_dir):
        print(f"{path}: {path.stat().st_size:,} bytes")


if __name__ == "__main__":
    main()
