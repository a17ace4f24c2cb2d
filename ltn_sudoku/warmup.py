"""Compile the numba code of a first `classify-board` into the on-disk cache: `python -m ltn_sudoku.warmup`.

A fresh clone's first exact call compiles the kernel and the forcing finders (tens of CPU seconds, see README);
`make install` runs this module once, so every later process (the CLI, the demo, the tests) loads machine code
instead. It runs what classify-board runs without the LTN: the batch and single-board kernel paths, the portfolio
with its CaDiCaL hand-over, and the symbolic answers (Q1-Q3, techniques and forcing chains) of the example boards.
"""

from __future__ import annotations

import time

from ltn_sudoku.board import Board
from ltn_sudoku.exact import kernel
from ltn_sudoku.exact.portfolio import answer
from ltn_sudoku.io import parse_board_text, read_records
from ltn_sudoku.paths import DATA_DIR
from ltn_sudoku.questions.report import classify

SEED_9 = "2.14.....4...7358..5....6....9.2.8.1.23.1..5...8354..97..28.....15..93.6.6....74."


def warm_up() -> float:
    """Compile (or load) everything a classify-board run touches; returns the CPU seconds it took."""
    start = time.process_time()
    kernel.warm_up()  # band and general solvers (batch), count_solutions_nb, the single-board 9x9 path
    answer(Board.empty(16), 2)  # the portfolio's capped kernel
    answer(Board.empty(16), 2, max_dead_ends=1)  # its root candidates for CaDiCaL (a no-op without python-sat)
    boards = [parse_board_text(SEED_9)]
    for path in sorted((DATA_DIR / "examples").glob("*.csv")):  # every shipped size; absent outside a clone
        boards.extend(record.board for record in read_records(path))
    for board in boards:
        classify(board)
    return time.process_time() - start


def main() -> int:
    seconds = warm_up()
    print(f"ltn_sudoku: numba code compiled or loaded in {seconds:.1f} CPU s (cached for later processes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
