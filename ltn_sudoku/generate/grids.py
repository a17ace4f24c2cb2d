"""Vectorised grid helpers for the generators: random validity-preserving transforms and the basic rule on batches.

Boards are rows of an (m, n*n) int8 array, 0 = empty. Everything here works on whole batches at once (numpy), so the
generators never loop over boards in Python.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Sequence

import numpy as np

from ltn_sudoku.board import geometry

GRID_DTYPE = np.int8  # digits up to 81 fit


def _line_orders(m: int, k: int, rng: np.random.Generator) -> np.ndarray:
    """(m, k*k) random line orders that keep bands together: bands permuted, lines permuted within each band."""
    bands = np.argsort(rng.random((m, k)), axis=1)
    within = np.argsort(rng.random((m, k, k)), axis=2)
    return (bands[:, :, None] * k + within).reshape(m, k * k)


def random_symmetry(arrays: Sequence[np.ndarray], n: int, rng: np.random.Generator) -> list[np.ndarray]:
    """Apply one random Sudoku symmetry per board to every array (same transform for the same row index).

    Digit relabelling, row permutations within bands, band permutations, the same for columns, and transposition all
    map valid grids to valid grids and puzzles to puzzles with the same number of solutions; applying one transform to
    a puzzle and its solution keeps them matched. Empty cells (0) stay empty.
    """
    m = len(arrays[0])
    k = geometry(n).k
    rows = _line_orders(m, k, rng)[:, :, None]
    cols = _line_orders(m, k, rng)[:, None, :]
    transpose = rng.random(m) < 0.5
    relabel = np.concatenate([np.zeros((m, 1), dtype=np.int64), np.argsort(rng.random((m, n)), axis=1) + 1], axis=1)
    boards = np.arange(m)[:, None]
    out = []
    for a in arrays:
        square = a.reshape(m, n, n)[np.arange(m)[:, None, None], rows, cols]
        square = np.where(transpose[:, None, None], square.transpose(0, 2, 1), square)
        out.append(relabel[boards, square.reshape(m, n * n)].astype(GRID_DTYPE))
    return out


@lru_cache(maxsize=None)
def unit_tables(n: int) -> tuple[np.ndarray, np.ndarray]:
    """(units (3n, n): the cells of each unit, units_of_cell (n*n, 3): the row, column and box of each cell)."""
    g = geometry(n)
    return np.array(g.units), np.array(g.units_of_cell)


def _any_per_unit(cell_flags: np.ndarray, n: int) -> np.ndarray:
    """(m, n*n, d) bool -> (m, 3n, d): OR over the cells of each unit (rows, then columns, then boxes row-major)."""
    m, d = len(cell_flags), cell_flags.shape[2]
    k = geometry(n).k
    square = cell_flags.reshape(m, n, n, d)
    boxes = square.reshape(m, k, k, k, k, d).any(axis=(2, 4)).reshape(m, n, d)
    return np.concatenate([square.any(axis=2), square.any(axis=1), boxes], axis=1)


def _any_over_units(unit_flags: np.ndarray, n: int) -> np.ndarray:
    """(m, 3n, d) bool -> (m, n*n, d): per cell, OR of the flags of its row, column and box."""
    m, d = len(unit_flags), unit_flags.shape[2]
    k = geometry(n).k
    rows, cols, boxes = unit_flags[:, :n, None, :], unit_flags[:, None, n : 2 * n, :], unit_flags[:, 2 * n :]
    box_of_cell = boxes.reshape(m, k, 1, k, 1, d)
    cells = (rows | cols).reshape(m, k, k, k, k, d) | box_of_cell
    return cells.reshape(m, n * n, d)


def _unit_digits(puzzles: np.ndarray, n: int) -> np.ndarray:
    """(m, 3n, n) bool: unit u holds digit d+1."""
    onehot = puzzles[:, :, None] == np.arange(1, n + 1, dtype=puzzles.dtype)
    return _any_per_unit(onehot, n)


def _candidates(puzzles: np.ndarray, present: np.ndarray, n: int) -> np.ndarray:
    return ~_any_over_units(present, n) & (puzzles == 0)[:, :, None]


def candidates(puzzles: np.ndarray, n: int) -> np.ndarray:
    """(m, n*n, n) bool: digit d+1 is a basic-rule candidate of an empty cell (no peer holds it); False when filled."""
    return _candidates(puzzles, _unit_digits(puzzles, n), n)


def dead_ends(puzzles: np.ndarray, n: int) -> np.ndarray:
    """(m,) bool: the basic rule already shows there is no solution (CandidateGrid.dead_end() is not None).

    An empty cell with no candidate, or a digit missing from a unit with no candidate place left in it. The boards
    must be consistent (no digit twice in a unit), as for CandidateGrid. A batch twin of CandidateGrid.dead_end()
    (which the tests use as its oracle), needed because the generators classify tens of thousands of boards.
    """
    present = _unit_digits(puzzles, n)
    cand = _candidates(puzzles, present, n)
    stuck_cell = ((puzzles == 0) & ~cand.any(axis=2)).any(axis=1)
    stuck_digit = (~present & ~_any_per_unit(cand, n)).any(axis=(1, 2))
    return stuck_cell | stuck_digit


@lru_cache(maxsize=None)
def peer_table(n: int) -> np.ndarray:
    """(n*n, 3n-2k-1): the peers of each cell."""
    return np.array(geometry(n).peers)


def forced_cells(puzzles: np.ndarray, cells: np.ndarray, digits: np.ndarray, n: int) -> np.ndarray:
    """(m,) bool: on each board the empty `cells[i]` can only hold `digits[i]` by the basic rule alone: its peers hold
    every other digit, or in one of its units every other cell is filled or sees the digit. Clearing a given that the
    rest of the puzzle forces this way keeps the set of solutions, so the diggers need no solver call for it. The
    boards must be consistent with the digits (no peer holds digits[i])."""
    boards = np.arange(len(puzzles))
    peers = peer_table(n)
    units, units_of_cell = unit_tables(n)
    seen = np.zeros((len(puzzles), n + 1), dtype=bool)
    seen[boards[:, None], puzzles[boards[:, None], peers[cells]]] = True
    naked = seen[:, 1:].sum(axis=1) == n - 1
    others = units[units_of_cell[cells]]  # (m, 3, n): the cells of each unit of the cell
    sees_digit = (puzzles[boards[:, None, None, None], peers[others]] == digits[:, None, None, None]).any(axis=3)
    blocked = (puzzles[boards[:, None, None], others] != 0) | sees_digit | (others == cells[:, None, None])
    return naked | blocked.all(axis=2).any(axis=1)


def random_ranks(m: int, cells: int, rng: np.random.Generator) -> np.ndarray:
    """(m, cells): per board, each cell's rank in a random order (a random permutation of 0..cells-1)."""
    return np.argsort(rng.random((m, cells)), axis=1).argsort(axis=1)
