"""Value orders: which digit the solver tries first in the cell it branches on (and which cell wins a tie).

An order gives every (cell, digit) of a state a preference score, higher first; the solver reads only the scores of
possible digits. `begin(board)` is called once per puzzle (seeding, the oracle's solution); `scores` once per branch
node, so `calls` counts the order's work. The hand-made orders see only the crisp truths of the state (possible
digits), the oracle the puzzle's solution (the floor of wrong guesses for this propagation), the learned orders
(logic/board/model_order.py) hasValue.
"""

from __future__ import annotations

import zlib
from typing import Protocol

import numpy as np

from ltn_sudoku.board import Board
from ltn_sudoku.branching.propagate import Crisp, tables


class ValueOrder(Protocol):
    """What the solver asks of an order."""

    name: str

    def begin(self, board: Board) -> None:
        """A new puzzle starts."""

    def scores(self, state: Crisp) -> np.ndarray:
        """(N, n) preference of every digit in every cell of an open, propagated state: higher is tried first."""


class Ascending:
    """Digits 1, 2, ... n: the textbook backtracking order."""

    name = "ascending"

    def begin(self, board: Board) -> None:
        pass

    def scores(self, state: Crisp) -> np.ndarray:
        n = state.possible.shape[1]
        return np.broadcast_to(-np.arange(n, dtype=np.float32), state.possible.shape)


class Random:
    """A random preference, drawn per node from a generator seeded by (seed, puzzle): reproducible per puzzle."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.name = f"random (seed {seed})"
        self.rng = np.random.default_rng(seed)

    def begin(self, board: Board) -> None:
        self.rng = np.random.default_rng([self.seed, zlib.crc32(board.cell_bytes())])

    def scores(self, state: Crisp) -> np.ndarray:
        return self.rng.random(state.possible.shape, dtype=np.float32)


class LeastConstraining:
    """Least-constraining value: the digit that the fewest open peers could still take first."""

    name = "least constraining"

    def begin(self, board: Board) -> None:
        pass

    def scores(self, state: Crisp) -> np.ndarray:
        t = tables(state.possible.shape[1])
        return -(t.peers @ state.possible.astype(np.float32))


class FewestPlaces:
    """The digit with the fewest possible places in one of the cell's units first (closest to a hidden single)."""

    name = "fewest places in units"

    def begin(self, board: Board) -> None:
        pass

    def scores(self, state: Crisp) -> np.ndarray:
        t = tables(state.possible.shape[1])
        return -state.places[t.cell_units].min(1).astype(np.float32)


class Oracle:
    """The solution's digit first (the first solution the exact solver finds; ascending where there is none)."""

    name = "oracle (solution's digit first)"

    def __init__(self) -> None:
        self.solution: np.ndarray | None = None

    def begin(self, board: Board) -> None:
        from ltn_sudoku.exact import solve

        found = solve(board)
        self.solution = None if found is None else np.array(found.values)

    def scores(self, state: Crisp) -> np.ndarray:
        n = state.possible.shape[1]
        ascending = -np.arange(n, dtype=np.float32)[None, :] / n
        if self.solution is None:
            return np.broadcast_to(ascending, state.possible.shape)
        return ascending + (self.solution[:, None] == np.arange(1, n + 1)[None, :]) * 2.0


def hand_made_orders(random_seeds: tuple[int, ...] = (0, 1, 2)) -> list[ValueOrder]:
    """Every hand-made order of the benchmark, random once per seed."""
    return [Ascending(), *(Random(s) for s in random_seeds), LeastConstraining(), FewestPlaces()]
