"""Closed boards (every cell filled): valid grids and the four kinds of invalid ones.

Each maker turns `attempts` random candidates into the accepted ones, as (puzzles, solutions) arrays; a row of
`solutions` is zero where the board has no solution. Every accepted label is checked by the exact solver: a closed
board has one solution (itself) when valid and none otherwise.
"""

from __future__ import annotations

import numpy as np

from ltn_sudoku.board import geometry
from ltn_sudoku.generate.grids import GRID_DTYPE, random_ranks, random_symmetry
from ltn_sudoku.generate.solver import Made, random_grids, with_count

GRID_FANOUT = 4  # boards drawn from each solver grid, each under its own random symmetry


def fresh_grids(n: int, count: int, rng: np.random.Generator, backend: str) -> np.ndarray:
    """(count, n*n) random valid grids: each of the solver's random grids serves GRID_FANOUT boards, every one under
    its own random symmetry (relabelling, line permutations, transposition), which costs far less than a search."""
    grids = random_grids(n, -(-count // GRID_FANOUT), int(rng.integers(2**63)), backend)
    return random_symmetry([np.repeat(grids, GRID_FANOUT, axis=0)[:count]], n, rng)[0]


def _invalid(boards: np.ndarray, n: int, backend: str) -> Made:
    """The boards that have no solution, i.e. break a rule."""
    return with_count(boards, np.zeros_like(boards), n, 0, backend)


def _other_digits(digits: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random digit different from each given one (1-based digits)."""
    return (digits.astype(np.int64) - 1 + rng.integers(1, n, size=digits.shape)) % n + 1


def make_valid(n: int, attempts: int, rng: np.random.Generator, backend: str) -> Made:
    grids = fresh_grids(n, attempts, rng, backend)
    return with_count(grids, grids, n, 1, backend)


def make_change(n: int, attempts: int, rng: np.random.Generator, backend: str) -> Made:
    """One cell changed to another digit."""
    boards = fresh_grids(n, attempts, rng, backend)
    rows = np.arange(attempts)
    cells = rng.integers(0, n * n, size=attempts)
    boards[rows, cells] = _other_digits(boards[rows, cells], n, rng)
    return _invalid(boards, n, backend)


def make_random(n: int, attempts: int, rng: np.random.Generator, backend: str) -> Made:
    """Between 2 and n random cells changed, each to another digit (boards that happen to stay valid are dropped)."""
    boards = fresh_grids(n, attempts, rng, backend)
    changes = rng.integers(2, n + 1, size=attempts)
    chosen = random_ranks(attempts, n * n, rng) < changes[:, None]
    boards = np.where(chosen, _other_digits(boards, n, rng), boards).astype(GRID_DTYPE)
    return _invalid(boards, n, backend)


def make_swap(n: int, attempts: int, rng: np.random.Generator, backend: str) -> Made:
    """Two cells holding different digits swapped."""
    boards = fresh_grids(n, attempts, rng, backend)
    rows = np.arange(attempts)
    first = rng.integers(0, n * n, size=attempts)
    first_digit = boards[rows, first]
    keys = np.where(boards != first_digit[:, None], rng.random(boards.shape), -1.0)
    second = keys.argmax(axis=1)
    boards[rows, first], boards[rows, second] = boards[rows, second], first_digit
    return _invalid(boards, n, backend)


def make_latin_blocks(n: int, attempts: int, rng: np.random.Generator, backend: str) -> Made:
    """Latin squares valid in every row and column that break at least one box.

    Any permutation of whole rows or whole columns keeps rows and columns valid; crossing bands breaks boxes. Half the
    boards get a single swap of two rows (or columns) from different bands (stacks), which breaks few boxes; the other
    half get fully random row and column orders.
    """
    grids = fresh_grids(n, attempts, rng, backend).reshape(attempts, n, n)
    k = geometry(n).k
    row_order = np.argsort(rng.random((attempts, n)), axis=1)
    col_order = np.argsort(rng.random((attempts, n)), axis=1)
    single = rng.random(attempts) < 0.5
    identity = np.tile(np.arange(n), (attempts, 1))
    a = rng.integers(0, n, size=attempts)
    other_band = (a // k + rng.integers(1, k, size=attempts)) % k
    b = other_band * k + rng.integers(0, k, size=attempts)
    swapped = identity.copy()
    swapped[np.arange(attempts), a], swapped[np.arange(attempts), b] = b, a
    on_rows = rng.random(attempts) < 0.5
    row_order = np.where(single[:, None], np.where(on_rows[:, None], swapped, identity), row_order)
    col_order = np.where(single[:, None], np.where(on_rows[:, None], identity, swapped), col_order)
    boards = grids[np.arange(attempts)[:, None, None], row_order[:, :, None], col_order[:, None, :]]
    return _invalid(boards.reshape(attempts, n * n).astype(GRID_DTYPE), n, backend)
