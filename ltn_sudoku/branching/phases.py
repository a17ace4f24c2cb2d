"""The same preference as CaDiCaL's phases: the board's CNF (cnf.py) with default phases or a preferred digit per cell.

    effort = cadical_effort(board)                      # CaDiCaL's own phases
    effort = cadical_effort(board, preference)          # (N, n) scores: the best digit of each open cell preferred

With a preference, every open cell's variables get a phase: true for its highest-scored digit (the model's most
probable one, hasValue on the givens), false for the others; CaDiCaL still decides which variable to branch on and
learns clauses, so only the polarity of its decisions changes. Counted: conflicts, decisions, propagations and CPU
seconds of the solve call (building the clauses excluded).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ltn_sudoku.board import Board
from ltn_sudoku.cnf import decode_variable, rule_clauses, variable

SOLVER = "cadical195"


@dataclass(frozen=True)
class CadicalEffort:
    """CaDiCaL's answer on one board and its counters."""

    solution: Board | None
    conflicts: int
    decisions: int
    propagations: int
    cpu_seconds: float


def preferred_phases(board: Board, preference: np.ndarray) -> list[int]:
    """Phase literals: for each open cell, +x(cell, best digit) and -x(cell, d) for its other digits."""
    n = board.n
    literals: list[int] = []
    for cell in board.empty_cells:
        best = int(np.argmax(preference[cell])) + 1
        literals.extend(variable(n, cell, d) * (1 if d == best else -1) for d in range(1, n + 1))
    return literals


def cadical_effort(board: Board, preference: np.ndarray | None = None) -> CadicalEffort:
    """Solve the board's CNF with CaDiCaL, with its default phases or with `preference`'s best digits as phases."""
    from pysat.solvers import Solver

    with Solver(name=SOLVER, bootstrap_with=rule_clauses(board)) as solver:
        if preference is not None:
            solver.set_phases(preferred_phases(board, preference))
        started = time.process_time()
        satisfiable = bool(solver.solve())
        cpu = time.process_time() - started
        stats = solver.accum_stats() or {}
        solution = None
        if satisfiable:
            values = [0] * board.cell_count
            for literal in solver.get_model() or []:
                if literal > 0:
                    cell, digit = decode_variable(board.n, literal)
                    values[cell] = digit
            solution = Board(values, board.n)
    return CadicalEffort(solution, int(stats.get("conflicts", 0)), int(stats.get("decisions", 0)),
                         int(stats.get("propagations", 0)), cpu)
