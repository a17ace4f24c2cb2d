"""The compiled kernel as other code sees it: callable from @njit functions, cached on disk, safe without a cache."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
from numba import njit

from ltn_sudoku.exact import count_solutions_batch, count_solutions_nb, kernel, random_solutions


@njit(cache=False)
def _count_rows(puzzles: np.ndarray, n: int, limit: int) -> np.ndarray:
    """What a generator's own @njit loop does with the kernel."""
    out = np.empty(puzzles.shape[0], np.int64)
    for i in range(puzzles.shape[0]):
        out[i] = count_solutions_nb(puzzles[i], n, limit)
    return out


def _holed(n: int, count: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    puzzles = random_solutions(n, count, seed)
    puzzles[rng.random(puzzles.shape) < 0.6] = 0
    puzzles[::5, 0] = puzzles[::5, 1]  # some clash: no solution
    return puzzles


def test_count_solutions_nb_inside_njit_matches_the_batch_api() -> None:
    outcomes: set[int] = set()
    for n in (4, 9, 16):
        puzzles = _holed(n, 60, seed=n)
        for limit in (1, 2, 3):
            expected = count_solutions_batch(puzzles, limit)
            assert _count_rows(puzzles, n, limit).tolist() == expected.tolist()
            outcomes |= set(expected.tolist())
    assert outcomes == {0, 1, 2, 3}


def test_count_solutions_nb_leaves_the_grid_alone() -> None:
    grid = _holed(9, 1, seed=1)[0]
    before = grid.copy()
    count_solutions_nb(grid, 9, 2)
    assert np.array_equal(grid, before)


def test_kernel_functions_are_cached_on_disk() -> None:
    """A second process loads the machine code instead of compiling (the first one may have to compile); a 9x9 board
    goes to the band solver's own entry point."""
    probe = ("import numpy as np; from ltn_sudoku.exact import kernel; "
             "kernel.count_solutions_batch(np.zeros((1, 81), np.int32)); "
             "s = kernel._solve_rows_band.stats; print(sum(s.cache_hits.values()), sum(s.cache_misses.values()))")
    runs = [subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.split()
            for _ in range(2)]
    hits, misses = (int(x) for x in runs[1])
    assert hits >= 1 and misses == 0


def test_no_writable_cache_falls_back_to_compiling_in_memory(tmp_path: Path) -> None:
    """Read-only install: __pycache__ cannot be made and the user cache dir cannot be created either."""
    (tmp_path / "__pycache__").write_text("a file where numba wants its cache directory")
    (tmp_path / "userjit.py").write_text("def plus_one(x):\n    return x + 1\n")
    (tmp_path / "blocker").write_text("")
    script = textwrap.dedent("""
        import warnings
        import userjit
        from ltn_sudoku.exact.kernel import cached_njit
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            jitted = cached_njit(userjit.plus_one)
        assert jitted(41) == 42
        assert any("numba cache unavailable" in str(w.message) for w in caught), [str(w.message) for w in caught]
        print("ok")
    """)
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = str(tmp_path / "blocker" / "cache")  # under a file: cannot be created
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), env.get("PYTHONPATH", "")])
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def test_band_solver_and_general_solver_agree_on_9x9() -> None:
    """9x9 puzzles go to the band solver; the general solver must give the same counts and solutions."""
    puzzles = _holed(9, 300, seed=5).astype(np.int32)
    counts, found = kernel._solve(puzzles, 9, 3, 1)
    units, peers, cell_units, full = kernel._tables(9)
    work = kernel._workspace(9)
    out = np.zeros((1, 81), np.int16)
    for row, count, first in zip(puzzles, counts, found):
        general = kernel._count(row, 3, out, units, peers, cell_units, full, *work, 0)
        assert general == count
        if count == 1:  # with several solutions each solver may meet a different one first
            assert np.array_equal(out[0], first[0])
    assert {0, 1, 3} <= set(counts.tolist())


def test_many_solutions_are_all_returned() -> None:
    """More solutions than the kernel first makes room for: it searches again with room for all."""
    from ltn_sudoku.board import Board

    found = kernel.solutions(Board.empty(9), 1500)
    assert len(found) == 1500 and len({s.values for s in found}) == 1500
    assert all(s.is_valid_solution for s in found[::50])
    assert kernel.count_solutions(Board.empty(9), 1500) == 1500


def test_sparse_large_boards_agree_with_cadical() -> None:
    """Random 25x25 boards at half givens: where one depth-first run gets lost and the kernel restarts (the pure
    backends need minutes on some of these, so CaDiCaL is the oracle). Solutions must be distinct and valid."""
    from ltn_sudoku.board import Board
    from scripts.bench_exact import sat_count_fresh

    puzzles = random_solutions(25, 16, seed=1)
    rng = np.random.default_rng(1)
    puzzles[rng.random(puzzles.shape) < 0.5] = 0
    puzzles[::4, 0] = 0  # make sure the overwritten cell below is open
    puzzles[::4, 1] = 0
    outcomes = set()
    for i, row in enumerate(puzzles):
        board = Board(row.tolist(), 25)
        if i % 4 == 0:  # a digit its peers allow but the grid does not: often impossible
            board = board.with_value(0, next(d for d in range(1, 26) if d not in {board.values[p] for p in
                                                                                  board.geometry.peers[0]}))
        found = kernel.solutions(board, 2)
        assert len(found) == sat_count_fresh(board), i
        assert len({s.values for s in found}) == len(found)
        for s in found:
            assert s.is_valid_solution and all(g in (0, v) for g, v in zip(board.values, s.values))
        outcomes.add(len(found))
    assert outcomes == {0, 2}
