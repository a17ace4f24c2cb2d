"""CaDiCaL (python-sat) on what the kernel's propagation leaves of a board: the portfolio's second engine.

The CNF has one variable per remaining candidate (cell, digit), so the kernel's root propagation (singles and box-line
reduction) shrinks it before CaDiCaL sees it: each cell and each (unit, digit) that is not yet settled gets an
at-least-one clause over its candidates and pairwise at-most-one clauses, all built with numpy. Counting to a limit
adds one blocking clause per solution found. CDCL learns nogoods, which is what a board without solutions and few
givens needs: the kernel's depth-first search has to exhaust it.
"""

from __future__ import annotations

import numpy as np

from ltn_sudoku.board import geometry

SAT_SOLVER = "cadical195"


def available() -> bool:
    """Whether python-sat (with CaDiCaL) can be imported."""
    try:
        import pysat.solvers  # noqa: F401
    except ImportError:
        return False
    return True


def cnf(candidates: np.ndarray, n: int) -> tuple[list[list[int]], np.ndarray]:
    """(clauses, var): the CNF of a board given as a (n*n, n) bool candidate matrix, and the (n*n, n) variable ids
    (0 where the candidate is gone). A cell without candidates or a (unit, digit) without a place gives an empty
    clause; a group of one candidate a unit clause."""
    cells = n * n
    var = np.zeros((cells, n), np.int32)
    var[candidates] = np.arange(1, int(candidates.sum()) + 1, dtype=np.int32)
    units = np.asarray(geometry(n).units, np.int64)
    per_unit = var[units].transpose(0, 2, 1).reshape(3 * n * n, n)
    groups = np.concatenate([var, per_unit])
    sizes = np.count_nonzero(groups, axis=1)
    if (sizes == 0).any():
        return [[]], var
    groups = -np.sort(-groups, axis=1)  # ids first, zeros last
    width = int(sizes.max(initial=1))
    groups = groups[:, :width]
    clauses: list[list[int]] = [row[:size] for row, size in zip(groups.tolist(), sizes.tolist())]
    first, second = np.triu_indices(width, 1)
    a, b = groups[:, first], groups[:, second]
    both = b != 0  # ids come first, so the pair exists when its later member does
    pairs = np.stack([-a[both], -b[both]], axis=1)
    clauses.extend(pairs.tolist())
    return clauses, var


def count(candidates: np.ndarray, n: int, limit: int, store: int) -> tuple[int, np.ndarray]:
    """(min(#solutions, limit), up to `store` solutions (k, n*n) int32) of the board the candidates describe."""
    from pysat.solvers import Solver

    clauses, var = cnf(candidates, n)
    found = np.zeros((0, n * n), np.int32)
    if clauses == [[]]:
        return 0, found
    open_cells = candidates.sum(axis=1) > 1
    digits = np.nonzero(candidates)[1].astype(np.int32) + 1  # the digit of each variable, in id order
    cell_of = np.nonzero(candidates)[0]
    total = 0
    kept = []
    with Solver(name=SAT_SOLVER, bootstrap_with=clauses) as solver:
        while total < limit and solver.solve():
            model = np.asarray(solver.get_model()[: digits.shape[0]])
            true = model > 0
            solution = np.zeros(n * n, np.int32)
            solution[cell_of[true]] = digits[true]
            total += 1
            if len(kept) < store:
                kept.append(solution)
            chosen = model[true & open_cells[cell_of]]
            if chosen.size == 0:  # nothing was open: the only solution
                break
            solver.add_clause((-chosen).tolist())
    if kept:
        found = np.stack(kept)
    return total, found
