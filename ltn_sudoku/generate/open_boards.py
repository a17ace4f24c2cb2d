"""Open boards (some cells empty): solvable puzzles (unique or multiple solutions) and impossible ones.

- unique: a random grid dug in a random order, keeping a removal only while the solution stays unique, down to a
  target givens count drawn uniformly from the range (a dig that gets stuck above the range is dropped).
- multiple: a random subset of a grid's cells, kept when the exact solver finds at least two solutions.
- impossible: a base with one given fewer than the target plus one wrong digit (not the grid's) placed in an empty
  cell where the basic rule allows it, so the givens stay consistent; "obvious" when the basic rule then shows a dead
  end (CandidateGrid.dead_end()), "subtle" when it does not. The base is built like the solvable puzzles it must not
  be told apart from by anything but the wrong digit: a dug unique puzzle ("dug"; no solution is then certain), or a
  random subset of the grid ("subset", beside the multiple-solution puzzles; kept only when no solution remains).
Every accepted board's solution count is checked by the exact solver before it is returned.
"""

from __future__ import annotations

import numpy as np

from ltn_sudoku.generate.closed_boards import fresh_grids
from ltn_sudoku.generate.grids import GRID_DTYPE, candidates, dead_ends, forced_cells, random_ranks
from ltn_sudoku.generate.solver import Made, count_batch, with_count

MOVE_TRIES = 16  # wrong digits tried per impossible board before it is dropped


def dig_unique(grids: np.ndarray, targets: np.ndarray, n: int, rng: np.random.Generator, backend: str) -> np.ndarray:
    """Puzzles with exactly one solution (the grid), dug in a random order towards `targets` givens per board.

    Removing givens never removes solutions, so once a block of cells can go, each of them can go one at a time: the
    dig tries whole blocks (half the remaining distance first, halved on failure) and ends exactly where a one-cell-
    at-a-time dig in the same order would, with far fewer solver calls. A single cell that the basic rule forces back
    (forced_cells) is removed without asking the solver.
    """
    m, cells = grids.shape
    order = np.argsort(rng.random((m, cells)), axis=1)  # rank -> cell
    puzzles = grids.copy()
    tried = np.zeros(m, dtype=np.int64)  # cells of the order already removed or kept
    givens = np.full(m, cells, dtype=np.int64)
    block = np.maximum(1, (cells - targets) // 2)
    active = givens > targets
    span = np.arange(cells)[None, :]
    while active.any():
        idx = np.flatnonzero(active)
        size = np.minimum(block[idx], np.minimum(givens[idx] - targets[idx], cells - tried[idx]))
        in_block = (span >= tried[idx, None]) & (span < (tried[idx] + size)[:, None])
        trial = puzzles[idx]
        trial[np.nonzero(in_block)[0], order[idx][in_block]] = 0
        unique = np.zeros(len(idx), dtype=bool)
        single = np.flatnonzero(size == 1)
        cell = order[idx[single], tried[idx[single]]]
        unique[single] = forced_cells(trial[single], cell, grids[idx[single], cell], n)
        ask = ~unique
        unique[ask] = count_batch(trial[ask], n, 2, backend) == 1
        puzzles[idx[unique]] = trial[unique]
        givens[idx[unique]] -= size[unique]
        tried[idx] += np.where(unique | (size == 1), size, 0)
        block[idx[~unique]] = np.maximum(1, block[idx[~unique]] // 2)
        active = (givens > targets) & (tried < cells)
    return puzzles


def _targets(attempts: int, givens: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
    lo, hi = givens
    return rng.integers(lo, hi + 1, size=attempts)


def _givens_in(puzzles: np.ndarray, givens: tuple[int, int]) -> np.ndarray:
    count = (puzzles != 0).sum(axis=1)
    return (count >= givens[0]) & (count <= givens[1])


def make_unique(n: int, attempts: int, rng: np.random.Generator, backend: str, givens: tuple[int, int]) -> Made:
    grids = fresh_grids(n, attempts, rng, backend)
    puzzles = dig_unique(grids, _targets(attempts, givens, rng), n, rng, backend)
    in_range = _givens_in(puzzles, givens)
    return with_count(puzzles[in_range], grids[in_range], n, 1, backend)


def make_multiple(n: int, attempts: int, rng: np.random.Generator, backend: str, givens: tuple[int, int]) -> Made:
    grids = fresh_grids(n, attempts, rng, backend)
    puzzles = _random_subsets(grids, _targets(attempts, givens, rng), rng)
    return with_count(puzzles, grids, n, 2, backend)


def _with_wrong_digit(bases: np.ndarray, grids: np.ndarray, n: int, rng: np.random.Generator,
                      obvious: bool) -> tuple[np.ndarray, np.ndarray]:
    """(boards, found): each base plus one wrong digit that the basic rule allows, tried in a random order until its
    board has (obvious) or has not (subtle) a basic-rule dead end; found is False where no try fits."""
    m, cells = bases.shape
    allowed = candidates(bases, n) & (np.arange(1, n + 1) != grids[:, :, None])  # (m, cells, n)
    keys = np.where(allowed, rng.random(allowed.shape), -1.0).reshape(m, cells * n)
    moves = np.argsort(-keys, axis=1)[:, :MOVE_TRIES]  # allowed moves first, in random order
    real = np.take_along_axis(keys, moves, axis=1) >= 0
    boards = bases.copy()
    found = np.zeros(m, dtype=bool)
    for attempt in range(moves.shape[1]):
        todo = np.flatnonzero(~found & real[:, attempt])
        trial = bases[todo]
        move = moves[todo, attempt]
        trial[np.arange(len(todo)), move // n] = move % n + 1
        fits = dead_ends(trial, n) == obvious
        boards[todo[fits]] = trial[fits]
        found[todo[fits]] = True
    return boards, found


def _random_subsets(grids: np.ndarray, targets: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Each grid with `targets` of its cells kept, chosen at random."""
    keep = random_ranks(len(grids), grids.shape[1], rng) < targets[:, None]
    return np.where(keep, grids, 0).astype(GRID_DTYPE)


def make_impossible(n: int, attempts: int, rng: np.random.Generator, backend: str, givens: tuple[int, int],
                    obvious: bool, base: str) -> Made:
    grids = fresh_grids(n, attempts, rng, backend)
    targets = _targets(attempts, givens, rng) - 1
    bases = dig_unique(grids, targets, n, rng, backend) if base == "dug" else _random_subsets(grids, targets, rng)
    boards, found = _with_wrong_digit(bases, grids, n, rng, obvious)
    keep = found & _givens_in(boards, givens)
    return with_count(boards[keep], np.zeros_like(boards[keep]), n, 0, backend)
