"""The solver's own branch states as training data: the states where crisp propagation stops and the order is asked.

    states = branch_states(board, Ascending())      # (k, N) digits of every branch node of one search
    write_states_csv(path, states, solutions)      # `puzzle,solution` rows the trainer's CSV reader takes

Only states that agree with the puzzle's solution are kept (they have that solution; a state off the solution path
has none, and the rules-only loss asks hasValue to satisfy the rules on solvable boards). The file is generated data
("generated (branch states)"), whatever reader loads it.
"""

from __future__ import annotations

import os

import numpy as np

from ltn_sudoku.board import Board
from ltn_sudoku.branching.orders import ValueOrder
from ltn_sudoku.branching.propagate import Crisp
from ltn_sudoku.branching.solver import solve
from ltn_sudoku.io import atomic_write_text


class _Recording:
    """An order that notes every state it is asked about, then answers as the order it wraps."""

    def __init__(self, order: ValueOrder) -> None:
        self.order = order
        self.name = order.name
        self.states: list[np.ndarray] = []

    def begin(self, board: Board) -> None:
        self.order.begin(board)

    def scores(self, state: Crisp) -> np.ndarray:
        self.states.append(state.values.copy())
        return self.order.scores(state)


def branch_states(board: Board, order: ValueOrder, solution: Board | None = None) -> np.ndarray:
    """(k, N) the branch nodes of a search of `board` in `order`'s order (to its first solution); with `solution`,
    only those that agree with it."""
    recorder = _Recording(order)
    solve(board, recorder)
    states = np.array(recorder.states, dtype=np.int16).reshape(-1, board.cell_count)
    if solution is not None:
        truth = np.array(solution.values)
        states = states[((states == 0) | (states == truth[None, :])).all(1)]
    return states


def write_states_csv(path: str | os.PathLike[str], states: np.ndarray, solutions: np.ndarray) -> None:
    """`puzzle,solution` rows (digits, 0 = empty), written atomically."""
    lines = ["puzzle,solution"] + [f"{''.join(map(str, s.tolist()))},{''.join(map(str, t.tolist()))}"
                                   for s, t in zip(states, solutions)]
    atomic_write_text(path, "\n".join(lines) + "\n")
