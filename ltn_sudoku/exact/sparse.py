"""Random sparse large boards: the worst case of a backtracking solver, for the benchmark and the tests.

A board keeps a random 30-50 % of the cells of a random complete grid (random_solutions); at that density a 16x16
to 49x49 board mostly has many solutions. Every third board also has one given changed to another digit that clashes
with no other given: the givens stay consistent, but there is (almost always) no solution any more, and proving that
takes an exhaustive search. Boards are reproducible from the seed.
"""

from __future__ import annotations

import numpy as np

from ltn_sudoku.board import geometry
from ltn_sudoku.exact import random_solutions

SPARSE_SIZES: tuple[int, ...] = (16, 25, 36, 49)
KEEP_RANGE: tuple[float, float] = (0.30, 0.50)


def _change_one_given(grid: np.ndarray, n: int, rng: np.random.Generator) -> bool:
    """Replace one given by a digit none of its peers' givens holds; False when no given allows it."""
    peers = geometry(n).peer_matrix
    for cell in rng.permutation(np.flatnonzero(grid)):
        seen = set(grid[peers[cell]].tolist()) | {int(grid[cell]), 0}
        free = [d for d in range(1, n + 1) if d not in seen]
        if free:
            grid[cell] = free[int(rng.integers(len(free)))]
            return True
    return False


def sparse_boards(n: int, count: int, seed: int, changed_every: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """(boards (count, n*n) int32, changed (count,) bool): random grids keeping 30-50 % of their cells; boards
    i with i % changed_every == changed_every - 1 have one given changed (consistent givens, mostly no solution)."""
    rng = np.random.default_rng([seed, n])
    boards = random_solutions(n, count, seed)
    changed = np.zeros(count, bool)
    for i in range(count):
        keep = rng.uniform(*KEEP_RANGE)
        boards[i, rng.random(n * n) >= keep] = 0
        if changed_every and i % changed_every == changed_every - 1:
            changed[i] = _change_one_given(boards[i], n, rng)
    return boards, changed
