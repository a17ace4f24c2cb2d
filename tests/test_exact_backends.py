"""Plain backtracking and Dancing Links with their counters (the generalized-Sudoku study's measures), and the public
exact-cover API on problems that are not Sudoku."""

from __future__ import annotations

import csv
import itertools
import time

import numpy as np
import pytest

from ltn_sudoku.board import Board
from ltn_sudoku.exact import backtracking, count_solutions, dlx, exact_cover, random_solutions, solutions
from ltn_sudoku.io import read_boards
from ltn_sudoku.paths import DATA_DIR

PAPER_TIMES = DATA_DIR / "generalized" / "paper_times"


def study_counts(name: str) -> list[int]:
    """The study's recorded `num_updates` column (data/generalized/paper_times/, see data/README.md)."""
    with open(PAPER_TIMES / name, newline="", encoding="utf-8") as f:
        return [int(row["num_updates"]) for row in csv.DictReader(f)]


def first_puzzles(rank: int, count: int) -> list[Board]:
    return read_boards(DATA_DIR / "generalized" / f"sudoku_rank_{rank}.csv")[:count]


# ---- backtracking -----------------------------------------------------------------------------------------------------
def test_backtracking_reproduces_the_studys_backtrack_counts_on_the_first_ten_9x9_puzzles() -> None:
    recorded = study_counts("sudoku_rank_3_SudokuBackTrackingSolver.csv")
    assert len(recorded) == 10
    for board, expected in zip(first_puzzles(3, 10), recorded):
        got = backtracking.run(board)
        assert got.complete and got.solution is not None and got.solution.is_valid_solution
        assert got.backtracks == expected


def test_backtracking_budgets_stop_it_and_say_so() -> None:
    board = first_puzzles(3, 1)[0]  # 170,126 backtracks to its solution
    capped = backtracking.run(board, max_backtracks=1000)
    assert (capped.complete, capped.stopped, capped.solution) == (False, "backtracks", None)
    assert capped.backtracks == 1001
    sixteen = first_puzzles(4, 1)[0]  # far beyond a fraction of a second for plain backtracking
    start = time.process_time()
    timed = backtracking.run(sixteen, deadline=start + 0.2)
    assert (timed.complete, timed.stopped, timed.solution) == (False, "time", None)
    assert time.process_time() - start < 2.0


def test_backtracking_is_a_backend_that_agrees_with_the_kernel() -> None:
    rng = np.random.default_rng(4)
    seen = set()
    for n, count, holes in ((4, 300, (0.3, 0.9)), (9, 60, (0.3, 0.55))):
        for grid in random_solutions(n, count, seed=n + 40):
            puzzle = grid.copy()
            puzzle[rng.random(n * n) < rng.uniform(*holes)] = 0
            if rng.random() < 0.2:
                puzzle[rng.integers(n * n)] = rng.integers(1, n + 1)
            board = Board(puzzle.tolist(), n)
            expected = count_solutions(board, 3, "kernel")
            assert count_solutions(board, 3, "backtracking") == expected, board.to_line()
            found = solutions(board, 3, "backtracking")
            assert len({s.values for s in found}) == expected
            assert all(s.is_valid_solution for s in found)
            seen.add(expected)
    assert {0, 1, 3} <= seen


def test_backtracking_rejects_a_bad_limit_and_clashing_givens() -> None:
    with pytest.raises(ValueError, match="limit"):
        backtracking.run(Board.empty(4), 0)
    clash = Board.empty(9).with_values([(0, 5), (8, 5)])
    assert backtracking.run(clash).solutions == () and backtracking.run(clash).complete


# ---- Dancing Links ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("rank", "name", "indices"), [
    (3, "sudoku_rank_3_SudokuExactCoverSolver_first10.csv", list(range(10))),
    (4, "sudoku_rank_4_SudokuExactCoverSolver.csv", list(range(10))),
    # left out: the fifth and seventh 25x25 puzzles (182 and 7.9 million updates, a minute and seconds here)
    (5, "sudoku_rank_5_SudokuExactCoverSolver.csv", [0, 1, 2, 3, 5, 7, 8, 9]),
])
def test_faithful_dancing_links_reproduces_the_studys_link_updates(rank: int, name: str, indices: list[int]) -> None:
    recorded = study_counts(name)
    boards = first_puzzles(rank, 10)
    for i in indices:
        got = dlx.run(boards[i], 2, faithful=True)
        assert got.complete and len(got.solutions) == 1 and got.solutions[0].is_valid_solution
        assert got.updates == recorded[i], (rank, i)


def test_dancing_links_counts_updates_and_stops_at_its_deadline() -> None:
    board = first_puzzles(3, 1)[0]
    lean = dlx.run(board, 2)
    assert lean.complete and lean.updates > 0 and len(lean.solutions) == 1
    assert lean.solutions == dlx.run(board, 2, faithful=True).solutions
    slow = first_puzzles(5, 5)[4]
    start = time.process_time()
    stopped = dlx.run(slow, 2, faithful=True, deadline=start + 0.3)
    assert (stopped.complete, stopped.stopped, stopped.solutions) == (False, "time", ())
    assert time.process_time() - start < 5.0


# ---- the exact-cover API ----------------------------------------------------------------------------------------------
def brute_force_covers(rows: list[set[int]], primary: set[int],
                       secondary: frozenset[int] = frozenset()) -> set[tuple[int, ...]]:
    """Every subset of rows covering each primary item once and each secondary item at most once."""
    found = set()
    for size in range(len(rows) + 1):
        for subset in itertools.combinations(range(len(rows)), size):
            items = [item for i in subset for item in rows[i]]
            if len(items) == len(set(items)) and primary <= set(items) and set(items) <= primary | secondary:
                found.add(subset)
    return found


def test_knuths_seven_column_example() -> None:
    rows = ["CEF", "ADG", "BCF", "AD", "BG", "DEG"]  # Knuth, "Dancing Links" (2000), the matrix of his figure
    assert list(exact_cover(rows, columns="ABCDEFG")) == [(0, 3, 4)]


def test_random_matrices_against_brute_force() -> None:
    rng = np.random.default_rng(7)
    total = 0
    for _ in range(150):
        items = int(rng.integers(3, 8))
        rows = [set(np.flatnonzero(rng.random(items) < 0.35).tolist()) for _ in range(int(rng.integers(3, 11)))]
        rows = [r for r in rows if r]
        expected = brute_force_covers(rows, set(range(items)))
        got = list(exact_cover(rows, columns=range(items)))
        assert len(got) == len(set(got)) and set(got) == expected
        total += len(expected)
    assert total > 20  # the sample holds problems with covers, not only impossible ones


def test_secondary_columns_give_the_n_queens_counts() -> None:
    """n queens: ranks and files exactly once (primary), diagonals at most once (secondary)."""
    for n, expected in ((4, 2), (5, 10), (6, 4), (8, 92)):
        rows = [(f"r{r}", f"f{c}", f"a{r + c}", f"b{r - c}") for r in range(n) for c in range(n)]
        columns = [f"r{i}" for i in range(n)] + [f"f{i}" for i in range(n)]
        diagonals = [f"a{i}" for i in range(2 * n - 1)] + [f"b{i}" for i in range(-n + 1, n)]
        covers = list(exact_cover(rows, columns, secondary=diagonals))
        assert len(covers) == expected
        brute = sum(1 for p in itertools.permutations(range(n))
                    if len({r + c for r, c in enumerate(p)}) == n and len({r - c for r, c in enumerate(p)}) == n)
        assert brute == expected


def test_exact_cover_limit_and_errors() -> None:
    rows = [{1}, {2}, {1, 2}]
    assert list(exact_cover(rows)) == [(0, 1), (2,)]
    assert list(exact_cover(rows, limit=1)) == [(0, 1)]
    assert list(exact_cover([{1}], columns=[1, 2])) == []  # column 2 cannot be covered
    with pytest.raises(ValueError, match="not a column"):
        list(exact_cover([{1, 3}], columns=[1, 2]))
    with pytest.raises(ValueError, match="limit"):
        list(exact_cover(rows, limit=0))
    with pytest.raises(ValueError, match="both primary and secondary"):
        list(exact_cover(rows, columns=[1, 2], secondary=[2]))
