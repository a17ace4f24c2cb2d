"""What `make demo` runs: the symbolic answers (Q1/Q2/Q3) and the shipped LTN models' answers for every example board
in data/examples/, the 9x9 example as an HTML page to step through, then a short default LTN training run (4x4) whose fresh checkpoint classifies the seed's 4x4 example.

Each part of the demo is one function taking no arguments and printing its own section; main() runs them in order,
so a later part (e.g. a short LTN training) is one more function in PARTS.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

from ltn_sudoku.io import parse_board_text, read_records
from ltn_sudoku.logic.board.predict import LtnAnswers
from ltn_sudoku.paths import DATA_DIR, REPO_ROOT
from ltn_sudoku.questions.report import classify
from ltn_sudoku.questions.text import render_report

EXAMPLES_DIR = DATA_DIR / "examples"
DEMO_RUN = REPO_ROOT / "outputs" / "demo_train_4x4"
DEMO_REPORT = REPO_ROOT / "outputs" / "demo_report.html"
SEED_4 = "1.34 34.2 2143 432."  # the seed's 4x4 example, by rows
SHIPPED = LtnAnswers()  # the shipped checkpoints, one per size, loaded on first use


def _heading(text: str) -> None:
    print(f"\n{'#' * 100}\n# {text}\n{'#' * 100}\n")


def classify_examples() -> None:
    """Print the full report of every example board, then a one-line summary per file."""
    paths = sorted(EXAMPLES_DIR.glob("*.csv"))
    if not paths:
        raise SystemExit(f"no example boards in {EXAMPLES_DIR}")
    _heading(f"Q1/Q2: the exact answers for the {len(paths)} example boards in {EXAMPLES_DIR}")
    summary = []
    for path in paths:
        comment = path.read_text(encoding="utf-8").splitlines()[0].lstrip("# ")
        for record in read_records(path):
            report = classify(record.board).with_section(SHIPPED.section(record.board))
            print(f"# {comment}")
            print(render_report(report, path.name) + "\n")
            if report.closed:
                answer = "valid" if report.valid else f"invalid ({len(report.conflicts)} conflicts)"
            else:
                answer = {0: "no solution", 1: "unique solution"}.get(report.solution_count, "several solutions")
                answer += f", {report.dead_ends}/{len(report.moves)} dead-end moves"
            summary.append(f"{path.name:<34} {answer}")
    _heading("Summary")
    print("\n".join(summary))


def short_training_run() -> None:
    """Train the 4x4 model for two epochs on the default generated data (the real entry point, as a user runs it),
    then classify the seed's 4x4 example with the fresh checkpoint."""
    command = [sys.executable, "-m", "ltn_sudoku.train", "model=4x4", "train.epochs=2", "train.progress=false",
               f"run_dir={DEMO_RUN}"]
    _heading(f"LTN: a short training run: {' '.join(Path(c).name if i == 0 else c for i, c in enumerate(command))}")
    if DEMO_RUN.exists():  # the demo's own folder: a training refuses a folder that holds a run, so each demo replaces it
        print(f"(replacing the previous demo run in {DEMO_RUN.relative_to(REPO_ROOT)})")
        shutil.rmtree(DEMO_RUN)
    subprocess.run(command, cwd=REPO_ROOT, check=True)
    board = parse_board_text(SEED_4)
    report = classify(board).with_section(LtnAnswers(DEMO_RUN / "best.pt").section(board))
    print()
    print(render_report(report, f"the seed's 4x4 example, answered by {DEMO_RUN / 'best.pt'}"))
    print(f"\ntensorboard --logdir {DEMO_RUN.relative_to(REPO_ROOT)}   # the run's curves")


def html_report() -> None:
    """The same answers as a page to look at: classify-board --html on the 9x9 example boards (the solving path to
    step through with the arrow keys, every step drawn, and the LTN's picture)."""
    from ltn_sudoku.cli import main as cli

    boards = EXAMPLES_DIR / "seed_9x9.csv"
    _heading(f"Pictures: classify-board {boards.relative_to(REPO_ROOT)} --html {DEMO_REPORT.relative_to(REPO_ROOT)}")
    DEMO_REPORT.parent.mkdir(parents=True, exist_ok=True)
    if cli(["classify", str(boards), "--html", str(DEMO_REPORT)]) != 0:
        raise SystemExit("classify-board --html failed")
    print(f"open {DEMO_REPORT.relative_to(REPO_ROOT)} in a browser: no network needed")


PARTS: tuple[Callable[[], None], ...] = (classify_examples, html_report, short_training_run)


def main() -> int:
    start = time.perf_counter()
    for part in PARTS:
        part()
    print(f"\ndemo finished in {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
