"""The pre-processing study's pipeline: the six techniques as a facade, then the genetic algorithm on what is left."""

from __future__ import annotations

import numpy as np
import pytest

from ltn_sudoku.board import Board
from ltn_sudoku.exact import random_solutions, solve
from ltn_sudoku.genetic import GeneticConfig
from ltn_sudoku.genetic import solve as genetic_solve
from ltn_sudoku.io import FormatError, read_boards
from ltn_sudoku.paths import DATA_DIR
from ltn_sudoku.questions.preprocess import PREPROCESSING_TECHNIQUES, load_board, preprocess

SEED_9 = DATA_DIR / "examples" / "seed_9x9.csv"


def expert(index: int) -> Board:
    return read_boards(DATA_DIR / "9x9" / "qqwing_expert.txt")[index]


def easy_puzzle(holes: int, seed: int) -> tuple[Board, Board]:
    """A random grid with `holes` cells emptied, and the grid."""
    grid = random_solutions(9, 1, seed)[0]
    puzzle = grid.copy()
    puzzle[np.random.default_rng(seed).choice(81, size=holes, replace=False)] = 0
    return Board(puzzle.tolist()), Board(grid.tolist())


# ---- the facade -------------------------------------------------------------------------------------------------------
def test_the_facade_loads_a_file_and_returns_the_processed_board_and_the_cells_filled() -> None:
    got = preprocess(SEED_9)
    board = read_boards(SEED_9)[0]
    solution = solve(board)
    assert solution is not None and got.original == board
    assert got.solved and got.board == solution  # the seed's example falls to singles
    assert sorted(got.filled) == board.empty_cells and got.cells_filled == 47
    assert {s.technique for s in got.steps} <= set(PREPROCESSING_TECHNIQUES)


def test_the_facade_stops_where_the_six_stop_and_keeps_only_true_placements() -> None:
    board = expert(1)  # the six fill 13 of its cells
    got = preprocess(board.to_line())  # board text works as well as a path
    solution = solve(board)
    assert solution is not None and not got.solved and got.reason is None
    assert got.cells_filled == len(board.empty_cells) - len(got.board.empty_cells) > 0
    assert all(got.board.values[c] == solution.values[c] for c in got.filled)
    assert all(g == 0 or g == p for g, p in zip(board.values, got.board.values))
    assert {s.technique for s in got.steps} <= set(PREPROCESSING_TECHNIQUES)
    # the fixpoint: the six find nothing more on the processed board
    again = preprocess(got.board)
    assert again.filled == () and again.board == got.board


def test_the_facade_reports_bad_input() -> None:
    with pytest.raises(FormatError):
        load_board("12345")
    clash = Board.empty(9).with_values([(0, 5), (1, 5)])
    got = preprocess(clash)
    assert got.filled == () and got.reason and "conflict" in got.reason


# ---- the genetic algorithm --------------------------------------------------------------------------------------------
def test_the_ga_solves_easy_puzzles_and_is_reproducible() -> None:
    for seed in range(3):
        puzzle, grid = easy_puzzle(25, seed)
        got = genetic_solve(puzzle, GeneticConfig(seed=seed))
        assert got.solved and got.conflicts == 0 and got.stopped is None
        assert got.board.is_valid_solution and all(g == 0 or g == v for g, v in zip(puzzle.values, got.board.values))
        again = genetic_solve(puzzle, GeneticConfig(seed=seed))
        assert (again.board, again.generations, again.restarts) == (got.board, got.generations, got.restarts)


def test_the_ga_finishes_what_the_six_leave() -> None:
    processed = preprocess(expert(1)).board
    got = genetic_solve(processed, GeneticConfig(seed=0, max_generations=3000))
    assert got.solved and got.board == solve(expert(1))


def test_the_ga_reports_failure_honestly() -> None:
    hard = read_boards(DATA_DIR / "9x9" / "top95.txt")[0]
    got = genetic_solve(hard, GeneticConfig(seed=0, max_generations=5))
    assert not got.solved and got.stopped == "generations" and got.generations == 5
    assert got.conflicts > 0 and not got.board.is_valid_solution
    assert all(g == 0 or g == v for g, v in zip(hard.values, got.board.values))  # the givens are kept
    timed = genetic_solve(hard, GeneticConfig(seed=0), deadline=0.0)
    assert (timed.solved, timed.stopped, timed.generations) == (False, "time", 0)


def test_the_ga_rejects_what_it_cannot_search() -> None:
    with pytest.raises(ValueError, match="givens clash"):
        genetic_solve(Board.empty(9).with_values([(0, 5), (1, 5)]))
    for bad in ({"population": 1}, {"elite": 400}, {"climb": -1}, {"mutation_rate": 2.0}, {"restart_after": 0}):
        with pytest.raises(ValueError):
            GeneticConfig(**bad)
