"""CaDiCaL (python-sat) on what the kernel's propagation leaves of a board: the portfolio's second engine.

The CNF has one variable per remaining candidate (cell, digit), so the kernel's root propagation (singles and box-line
reduction) shrinks it before CaDiCaL sees it: each cell and each (unit, digit) that is not yet settled gets an
at-least-one clause over its candidates and pairwise at-most-one clauses, all built with numpy. Counting to a limit
adds one blocking clause per solution found. CDCL learns nogoods, which is what a board without solutions and few
givens needs: the kernel's depth-first search has to exhaust it.
"""

from __future__ import annotations

import gc
from typing import TYPE_CHECKING

import numpy as np

from ltn_sudoku.board import geometry

if TYPE_CHECKING:
    from pysat.solvers import Solver

SAT_SOLVER = "cadical195"
# CaDiCaL in stable mode only (its `--sat` preset's main switch): on the sparse boards the portfolio hands over, mostly
# satisfiable, the solve took about half the time of the default mode's alternation with focused mode, and the
# default's second solve after the blocking clause sometimes cost as long as the first (docs/exact.md, sparse boards).
SAT_OPTIONS: dict[str, int] = {"stabilizeonly": 1}


def available() -> bool:
    """Whether python-sat (with CaDiCaL) can be imported."""
    try:
        import pysat.solvers  # noqa: F401
    except ImportError:
        return False
    return True


def _solver(clauses: list[list[int]]) -> Solver:
    """CaDiCaL with SAT_OPTIONS, then the clauses (it takes options only before the first clause)."""
    from pysat.solvers import Solver

    solver = Solver(name=SAT_SOLVER)
    solver.configure(SAT_OPTIONS)
    solver.append_formula(clauses)
    return solver


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


class SatCount:
    """A count to a limit that can run in slices of CaDiCaL conflicts, keeping what the solver learned between them
    (the portfolio alternates it with the kernel). Each solution found adds a clause that blocks it."""

    def __init__(self, candidates: np.ndarray, n: int, limit: int, store: int) -> None:
        collecting = gc.isenabled()
        gc.disable()  # a CNF is 10^5-10^6 small lists (36x36: 375,000): the collector rescans them (5x the build)
        try:
            clauses, _ = cnf(candidates, n)
            self.done = clauses == [[]]
            self.solver: Solver | None = None if self.done else _solver(clauses)
        finally:
            if collecting:
                gc.enable()
        self.n, self.limit, self.store = n, limit, store
        self.found: list[np.ndarray] = []
        self.total = 0
        self.open_cells = candidates.sum(axis=1) > 1
        self.cell_of, digit = np.nonzero(candidates)  # the cell and digit of each variable, in id order
        self.digit = digit.astype(np.int32) + 1

    def run(self, conflicts: int = 0) -> bool:
        """Search on for at most `conflicts` conflicts per solve (0 = no limit); True once the count is final."""
        while not self.done:
            solver = self.solver
            assert solver is not None  # not done: the solver is open (close() comes after the last run)
            if conflicts:
                solver.conf_budget(conflicts)
                sat = solver.solve_limited()
                if sat is None:
                    return False
            else:
                sat = solver.solve()
            if not sat:
                self.done = True
                break
            model = np.asarray(solver.get_model()[: self.digit.shape[0]])
            true = model > 0
            self.total += 1
            if len(self.found) < self.store:
                solution = np.zeros(self.n * self.n, np.int32)
                solution[self.cell_of[true]] = self.digit[true]
                self.found.append(solution)
            chosen = model[true & self.open_cells[self.cell_of]]
            self.done = self.total >= self.limit or chosen.size == 0  # nothing open: the only solution
            if not self.done:
                solver.add_clause((-chosen).tolist())
        self.close()
        return True

    def solutions(self) -> np.ndarray:
        """The solutions kept, (k, n*n) int32."""
        return np.stack(self.found) if self.found else np.zeros((0, self.n * self.n), np.int32)

    def close(self) -> None:
        if self.solver is not None:
            self.solver.delete()
            self.solver = None


def count(candidates: np.ndarray, n: int, limit: int, store: int) -> tuple[int, np.ndarray]:
    """(min(#solutions, limit), up to `store` solutions (k, n*n) int32) of the board the candidates describe."""
    counter = SatCount(candidates, n, limit, store)
    counter.run()
    return counter.total, counter.solutions()
