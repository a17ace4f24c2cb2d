"""Sparse large boards: the generator of the benchmark, and the portfolio (kernel under a budget, then CaDiCaL)
checked against CaDiCaL on its own CNF and against the pure-Python search."""

from __future__ import annotations

import gc
import time
from pathlib import Path

import numpy as np
import pytest

from ltn_sudoku.board import Board
from ltn_sudoku.exact import answer, count_solutions, random_solutions, sat, solutions
from ltn_sudoku.exact.portfolio import CADICAL, KERNEL, dead_end_budget
from ltn_sudoku.exact.sparse import KEEP_RANGE, sparse_boards
from ltn_sudoku.io import parse_board_text
from scripts.bench_exact import sat_count_fresh
from tests.script_loader import load_script


def assert_solutions_of(found: tuple[Board, ...] | list[Board], puzzle: Board) -> None:
    """Distinct valid complete grids, each keeping every given."""
    assert len({s.values for s in found}) == len(found)
    for s in found:
        assert s.is_valid_solution
        assert all(g in (0, v) for g, v in zip(puzzle.values, s.values))


# ---- the generator ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [16, 25])
def test_sparse_boards_keep_30_to_50_percent_of_a_solution(n: int) -> None:
    boards, changed = sparse_boards(n, 12, seed=4)
    again, _ = sparse_boards(n, 12, seed=4)
    assert np.array_equal(boards, again) and not np.array_equal(boards, sparse_boards(n, 12, seed=5)[0])
    grids = random_solutions(n, 12, 4)  # the grids the boards were cut from
    assert changed.tolist() == [i % 3 == 2 for i in range(12)]
    for board, grid, was_changed in zip(boards, grids, changed):
        kept = np.count_nonzero(board) / (n * n)
        assert KEEP_RANGE[0] - 0.05 < kept < KEEP_RANGE[1] + 0.05
        differs = np.count_nonzero((board != 0) & (board != grid))
        assert differs == (1 if was_changed else 0)
        assert Board(board.tolist(), n).is_consistent  # a changed given clashes with no other given


# ---- the portfolio against CaDiCaL and the pure-Python search --------------------------------------------------------
def _check_against_baselines(n: int, count: int, seed: int, max_dead_ends: int | None, python: bool) -> set[str]:
    boards, _ = sparse_boards(n, count, seed)
    engines, counts = set(), set()
    for row in boards:
        board = Board(row.tolist(), n)
        got = answer(board, 2, store=2, max_dead_ends=max_dead_ends)
        expected = sat_count_fresh(board)
        assert got.count == expected
        assert len(got.solutions) == got.count
        assert_solutions_of(got.solutions, board)
        if python:
            assert count_solutions(board, 2, "python") == expected
        engines.add(got.engine)
        counts.add(got.count)
    assert 2 in counts and counts <= {0, 1, 2}  # sparse boards: several solutions (or none after a change)
    if count >= 12:  # a changed given leaves a 36x36 board solvable more often than not: few boards may show no 0
        assert 0 in counts
    return engines


def test_portfolio_kernel_path_agrees_on_sparse_16x16() -> None:
    assert _check_against_baselines(16, 12, seed=1, max_dead_ends=None, python=True) == {KERNEL}


def test_portfolio_cadical_path_agrees_on_sparse_16x16() -> None:
    """One dead end allowed: boards that need a search go to CaDiCaL, whose answers must agree as well."""
    assert CADICAL in _check_against_baselines(16, 12, seed=1, max_dead_ends=1, python=False)


def test_portfolio_hands_a_large_board_to_one_uninterrupted_cadical_run() -> None:
    """Above 25x25 CaDiCaL takes the board in one run (no turns): still exact, solutions included, against the
    baseline's own CNF, on 36x36 boards dense enough to be quick (70 % of a grid, then one given changed)."""
    grids = random_solutions(36, 2, 11)
    rng = np.random.default_rng(11)
    for grid in grids:
        grid[rng.random(36 * 36) >= 0.7] = 0
        board = Board(grid.tolist(), 36)
        got = answer(board, 2, store=2, max_dead_ends=1)
        assert got.engine == CADICAL and got.count == sat_count_fresh(board) >= 1
        assert_solutions_of(got.solutions, board)


@pytest.mark.slow
@pytest.mark.parametrize("n", [16, 25, 36])
@pytest.mark.parametrize("max_dead_ends", [None, 1])
def test_portfolio_agrees_with_cadical_on_sparse_boards(n: int, max_dead_ends: int | None) -> None:
    _check_against_baselines(n, 30 if n < 36 else 6, seed=7, max_dead_ends=max_dead_ends, python=False)


def test_portfolio_counts_up_to_the_limit_and_unique_boards() -> None:
    grid = random_solutions(16, 1, 3)[0]
    puzzle = grid.copy()
    puzzle[np.random.default_rng(3).random(256) < 0.3] = 0  # 70 % givens: unique more often than not
    board = Board(puzzle.tolist(), 16)
    expected = sat_count_fresh(board)
    for cap in (None, 1):
        got = answer(board, 2, store=2, max_dead_ends=cap)
        assert got.count == expected
        assert_solutions_of(got.solutions, board)
        if expected == 1:
            assert got.solutions[0].values == tuple(grid.tolist())
    empty = Board.empty(16)
    for cap in (None, 1):
        got = answer(empty, 3, store=3, max_dead_ends=cap)
        assert got.count == 3
        assert_solutions_of(got.solutions, empty)
    assert len(solutions(empty, 3)) == 3


def test_portfolio_deadline_raises_between_slices() -> None:
    """A board that needs a search past the first kernel run, with a deadline already passed: TimeoutError."""
    boards, _ = sparse_boards(25, 6, seed=3)
    hard = [Board(row.tolist(), 25) for row in boards if answer(Board(row.tolist(), 25), 2).engine == CADICAL]
    assert hard
    with pytest.raises(TimeoutError):
        answer(hard[0], 2, deadline=0.0)
    assert answer(hard[0], 2, deadline=time.perf_counter() + 3600).count == sat_count_fresh(hard[0])


def test_portfolio_slices_end_near_the_deadline() -> None:
    """A sparse 36x36 board CaDiCaL needs about 20 s for, with a placement that keeps it hard: a 1 s deadline
    ends the count within a few tenths of it (slices growing 4x ran to about 4 s)."""
    boards, _ = sparse_boards(36, 12, 1)
    board = Board(boards[9].tolist(), 36)
    start = time.perf_counter()
    with pytest.raises(TimeoutError):
        answer(board.with_value(4, 5), 1, store=1, deadline=start + 1.0)
    assert time.perf_counter() - start < 2.5  # a loaded machine stretches the last slice; without sizing: 4 s


def test_sat_cnf_of_a_dead_candidate_set_is_unsatisfiable() -> None:
    candidates = np.ones((16 * 16, 16), bool)
    candidates[0] = False  # a cell without candidates
    assert sat.cnf(candidates, 16)[0] == [[]]
    assert sat.count(candidates, 16, 2, 2)[0] == 0
    candidates = np.ones((16 * 16, 16), bool)
    candidates[:16, 5] = False  # digit 6 has no place in row 1
    assert sat.count(candidates, 16, 2, 0)[0] == 0


def test_sat_count_restores_the_garbage_collector() -> None:
    """SatCount builds its CNF with the collector off; it must leave it as it found it, on or off, even on error."""
    candidates = np.ones((16 * 16, 16), bool)
    assert gc.isenabled()
    sat.SatCount(candidates, 16, 2, 0).close()
    assert gc.isenabled()
    gc.disable()
    try:
        sat.SatCount(candidates, 16, 2, 0).close()
        assert not gc.isenabled()
    finally:
        gc.enable()
    with pytest.raises(IndexError):
        sat.SatCount(candidates[:5], 16, 2, 0)  # too few cells: the CNF cannot be built
    assert gc.isenabled()


def test_sat_solver_takes_its_options() -> None:
    """CaDiCaL ignores options it cannot take without a word: the portfolio's solver must search differently from a
    default CaDiCaL on the same CNFs (stable mode only), and agree with it on satisfiability."""
    from pysat.solvers import Solver

    from ltn_sudoku.exact import kernel

    assert sat.SAT_OPTIONS
    boards, _ = sparse_boards(25, 6, seed=3)
    differs = False
    for row in boards:
        candidates = np.zeros((25 * 25, 25), np.bool_)
        kernel._root_candidates(row.astype(np.int32), 25, candidates)
        clauses, _ = sat.cnf(candidates, 25)
        if clauses == [[]]:
            continue
        configured, plain = sat._solver(clauses), Solver(name=sat.SAT_SOLVER, bootstrap_with=clauses)
        try:
            assert configured.solve() == plain.solve()
            differs |= configured.accum_stats()["conflicts"] != plain.accum_stats()["conflicts"]
        finally:
            configured.delete()
            plain.delete()
    assert differs


def test_dead_end_budget_leaves_small_sides_uncapped() -> None:
    assert dead_end_budget(4) == dead_end_budget(9) == 0
    assert 0 < dead_end_budget(16) < dead_end_budget(25) < dead_end_budget(49)


# ---- the single-board path -------------------------------------------------------------------------------------------
def test_single_board_path_agrees_with_the_batch_on_9x9() -> None:
    from ltn_sudoku.exact import count_solutions_batch
    from ltn_sudoku.io import read_boards
    from ltn_sudoku.paths import DATA_DIR

    boards = read_boards(DATA_DIR / "9x9/top1465.txt")[:300]
    puzzles = np.array([b.values for b in boards], np.int32)
    puzzles[::7, 0] = puzzles[::7, 1]  # clashes: no solution
    puzzles[::11, :20] = 0  # fewer givens: several solutions
    expected = count_solutions_batch(puzzles, 2).tolist()
    assert [count_solutions(parse_board_text(Board(p.tolist(), 9).to_line()), 2) for p in puzzles] == expected
    assert {0, 1, 2} <= set(expected)


def test_sparse_benchmark_prints_its_table_and_writes_a_row_per_board(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """scripts/bench_exact_sparse.py end to end on two 16x16 boards: the table row (its counts are the CaDiCaL
    baseline's, checked against the portfolio in the script) and the per-board CSV."""
    script = load_script("bench_exact_sparse")
    rows = tmp_path / "rows.csv"
    assert script.main(["--sizes", "16", "--per-size", "3", "--per-board", str(rows)]) == 0
    out = capsys.readouterr().out
    assert "DISAGREEMENT" not in out
    row = next(line for line in out.splitlines() if line.startswith("| 16 |"))
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    assert len(cells) == 10 and cells[1] == "3"
    lines = rows.read_text().splitlines()
    assert lines[0] == "n,board,changed_given,count,engine,portfolio_cpu_s,cadical_cpu_s"
    boards, changed = sparse_boards(16, 3, 1)
    expected = [sat_count_fresh(Board(b.tolist(), 16)) for b in boards]
    parsed = [line.split(",") for line in lines[1:]]
    assert [int(p[3]) for p in parsed] == expected
    assert [int(p[2]) for p in parsed] == changed.astype(int).tolist()
    assert cells[2] == "/".join(str(expected.count(c)) for c in (0, 1, 2))


def test_portfolio_work_cap_stops_at_the_same_point_every_time() -> None:
    """max_work counts kernel dead ends and CaDiCaL conflicts, not time: a board that needs CaDiCaL raises
    WorkExceeded under a small cap, and within a large one it is answered with the same work every time."""
    from ltn_sudoku.exact import WorkExceeded

    boards, _ = sparse_boards(25, 6, seed=3)
    hard = next(Board(row.tolist(), 25) for row in boards if answer(Board(row.tolist(), 25), 2).engine == CADICAL)
    with pytest.raises(WorkExceeded):
        answer(hard, 1, store=1, max_work=dead_end_budget(25) + 10)
    first, again = answer(hard, 1, store=1, max_work=10 ** 9), answer(hard, 1, store=1, max_work=10 ** 9)
    assert first.count == 1 and first.work == again.work > dead_end_budget(25)
    assert answer(Board.empty(9), 1, store=1, max_work=1).work == 1  # a 9x9 search counts 1
