"""The complete LTN-side solver: crisp KB propagation (propagate.py) plus depth-first branching in a value order.

    result = solve(board, Ascending(), limit=1)   # result.solutions, result.complete, result.wrong_guesses, ...

At every open state (propagation stopped without a contradiction or a full board) it branches on the open cell with
the fewest possible digits; a tie goes to the cell whose best possible digit the order prefers most (for a model: the
cell it is surest of), then to the lowest cell index. The cell's possible digits are tried in the order's order
(ties: the smaller digit first). The search ends with `limit` solutions or with every branch refuted, so the answer
is exact: no budget. Counted per puzzle: nodes (states propagated, the root included), wrong guesses (guessed digits
whose whole subtree held no solution: the backtracks; 0 for the oracle order on a unique puzzle), order calls (one
per branch node) and CPU seconds of this process (the order's own work included). With a limit of 2 or more the
search goes on after the first solution, and every branch it then refutes counts too (on a unique puzzle the whole
tree is searched, whatever the order): the counts at the first solution, what the order buys, are kept apart.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field

import numpy as np

from ltn_sudoku.board import Board
from ltn_sudoku.branching.orders import ValueOrder
from ltn_sudoku.branching.propagate import CONTRADICTION, SOLVED, Crisp, propagate


@dataclass
class SolveResult:
    """What the search found and what it cost; `as_dict` is its one JSON form (every command prints it)."""

    limit: int = 1  # the solutions asked for: "solved" means unique only when it is 2 or more
    solutions: list[Board] = field(default_factory=list)
    complete: bool = True  # False only when `max_nodes` cut the search (never by default)
    nodes: int = 0
    wrong_guesses: int = 0
    order_calls: int = 0
    cpu_seconds: float = 0.0
    first_solution_nodes: int | None = None  # nodes and wrong guesses when the first solution was found: the same
    first_solution_wrong_guesses: int | None = None  # as with limit 1

    @property
    def verdict(self) -> str:
        """"solved" (unique when the limit was 2 or more and one was found), "multiple", "none", or "cut"."""
        if len(self.solutions) > 1:
            return "multiple"
        if self.solutions:
            return "solved"
        return "none" if self.complete else "cut"

    def as_dict(self) -> dict[str, object]:
        """JSON-ready: classify-board's `ltn.complete_solver` and `ltn-sudoku solve --ltn --complete --json` alike;
        "cut" in the verdict says a node cap stopped it."""
        return {"limit": self.limit, "verdict": self.verdict, "solutions": [b.to_line() for b in self.solutions],
                "nodes": self.nodes,
                "wrong_guesses": self.wrong_guesses, "order_calls": self.order_calls,
                "first_solution_nodes": self.first_solution_nodes,
                "first_solution_wrong_guesses": self.first_solution_wrong_guesses,
                "cpu_seconds": round(self.cpu_seconds, 6)}


def branch_cell(state: Crisp, scores: np.ndarray) -> int:
    """The open cell with the fewest possible digits, ties to the order's highest score among its digits."""
    counts = np.where(state.values == 0, state.possible.sum(1), np.iinfo(np.int64).max)
    best = np.where(state.possible, scores, -np.inf).max(1)
    tied = np.flatnonzero(counts == counts.min())
    return int(tied[np.argmax(best[tied])])


def digit_order(state: Crisp, scores: np.ndarray, cell: int) -> list[int]:
    """The cell's possible digits (1-based), the order's preferred first, ties to the smaller digit."""
    digits = np.flatnonzero(state.possible[cell])
    return [int(d) + 1 for d in digits[np.argsort(-scores[cell, digits], kind="stable")]]


class _Search:
    def __init__(self, order: ValueOrder, limit: int, max_nodes: int | None) -> None:
        self.order = order
        self.limit = limit
        self.max_nodes = max_nodes
        self.result = SolveResult(limit=limit)

    def run(self, values: np.ndarray) -> int:
        """Solutions found under this state (stops at the limit)."""
        r = self.result
        if self.max_nodes is not None and r.nodes >= self.max_nodes:
            r.complete = False
            return 0
        r.nodes += 1
        state = propagate(values)
        if state.status == CONTRADICTION:
            return 0
        if state.status == SOLVED:
            if not r.solutions:
                r.first_solution_nodes, r.first_solution_wrong_guesses = r.nodes, r.wrong_guesses
            r.solutions.append(Board(state.values.tolist()))
            return 1
        scores = np.asarray(self.order.scores(state.crisp))
        r.order_calls += 1
        cell = branch_cell(state.crisp, scores)
        found = 0
        for digit in digit_order(state.crisp, scores, cell):
            child = state.values.copy()
            child[cell] = digit
            below = self.run(child)
            found += below
            if below == 0 and r.complete:
                r.wrong_guesses += 1
            if len(r.solutions) >= self.limit or not r.complete:
                break
        return found


def solve(board: Board, order: ValueOrder, limit: int = 1, max_nodes: int | None = None) -> SolveResult:
    """Solutions of `board` up to `limit` (or a proof of none) by propagation and branching in `order`'s order.
    `max_nodes` (off by default) cuts the search: then `complete` is False and the verdict "cut"."""
    if limit < 1:
        raise ValueError(f"limit={limit}: at least 1 solution must be asked for")
    order.begin(board)  # before the clock: the oracle's exact solve is not the search's cost
    started = time.process_time()
    search = _Search(order, limit, max_nodes)
    depth = sys.getrecursionlimit()
    sys.setrecursionlimit(max(depth, board.cell_count + 100))
    try:
        search.run(np.array(board.values, dtype=np.int16))
    finally:
        sys.setrecursionlimit(depth)
    search.result.cpu_seconds = time.process_time() - started
    return search.result
