"""The knowledge base's rules evaluated crisply on one branch state: what the LTN side's semantics force, nothing more.

A state is the board's digits (givens plus digits placed by propagation or guessed), 0 = open. With the KB's
predicates read crisply (logic/kb/axioms.py, Gödel semantics):
- isPossible(c, v): c is open and no peer of c holds v (the only candidates there are: no elimination technique);
- forced placements: a cell with exactly one possible digit (the seed's Naked Single) and a digit missing from a unit
  with exactly one possible place there (Hidden Single), all applied at once, repeated until nothing changes;
- contradictions: two equal digits in a unit (the row / col / block axioms) or the seed's NoSolution axiom (an open
  cell with no possible digit, or a digit missing from a unit with no possible place in it).
Placing every forced digit of a round at once is sound: each holds in every solution of the state, so if two of them
clash the state has none. This is not the numba exact kernel (ltn_sudoku/exact/kernel.py) nor the technique engine
(ltn_sudoku/techniques/): it is numpy on (cells, digits) boolean tables, fast enough for thousands of puzzles, and
tests/test_branching.py checks it against axioms.py's crisp evaluation.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ltn_sudoku.board import geometry

OPEN, SOLVED, CONTRADICTION = "open", "solved", "contradiction"


@dataclass(frozen=True)
class Tables:
    """Index tables of one board side: each unit's cells (3n, n) and each cell's units (N, 3)."""

    n: int
    unit_cells: np.ndarray
    cell_units: np.ndarray
    peers: np.ndarray  # (N, N) float32 peer relation, for counts over peers
    digits: np.ndarray  # (n,) 1..n


@lru_cache(maxsize=None)
def tables(n: int) -> Tables:
    """The index tables of side n (built once per side)."""
    g = geometry(n)
    return Tables(n, np.array(g.units, dtype=np.intp), np.array(g.units_of_cell, dtype=np.intp),
                  g.peer_matrix.astype(np.float32), np.arange(1, n + 1, dtype=np.int16))


@dataclass(frozen=True)
class Crisp:
    """The crisp truths of one state: per cell and digit isPossible, per unit and digit how often it is held, and
    the contradiction flags."""

    values: np.ndarray  # (N,) digits, 0 = open
    possible: np.ndarray  # (N, n) bool: isPossible(c, v)
    held: np.ndarray  # (3n, n) count of cells of the unit holding the digit
    places: np.ndarray  # (3n, n) count of possible places of the digit in the unit

    @property
    def clash(self) -> bool:
        """A unit holds a digit twice (the row / col / block axioms are false)."""
        return bool((self.held > 1).any())

    @property
    def dead_cell(self) -> np.ndarray:
        """(N,) bool: open cells with no possible digit."""
        return (self.values == 0) & ~self.possible.any(1)

    @property
    def dead_digit(self) -> np.ndarray:
        """(3n, n) bool: digits missing from a unit with no possible place in it."""
        return (self.held == 0) & (self.places == 0)

    @property
    def no_solution(self) -> bool:
        """The seed's NoSolution axiom on this state."""
        return bool(self.dead_cell.any() or self.dead_digit.any())


def evaluate(values: np.ndarray, t: Tables) -> Crisp:
    """The crisp truths of a state (values (N,), 0 = open)."""
    one_hot = values[:, None] == t.digits[None, :]  # (N, n)
    held = one_hot[t.unit_cells].sum(1)  # (3n, n)
    held_near = (held > 0)[t.cell_units].any(1)  # (N, n): a peer (or the cell itself) holds v
    possible = ~held_near & (values == 0)[:, None]
    return Crisp(values, possible, held, possible[t.unit_cells].sum(1))


@dataclass(frozen=True)
class Propagated:
    """A state after propagation: its status (OPEN, SOLVED or CONTRADICTION), its digits and crisp truths."""

    status: str
    values: np.ndarray
    crisp: Crisp
    placed: int  # digits propagation placed


def propagate(values: np.ndarray) -> Propagated:
    """Apply the forced placements until none is left or a contradiction shows (values: (N,) digits, 0 = open)."""
    n = int(round(len(values) ** 0.5))
    t = tables(n)
    values = np.asarray(values, dtype=np.int16).copy()
    placed = 0
    while True:
        state = evaluate(values, t)
        if state.clash or state.no_solution:
            return Propagated(CONTRADICTION, values, state, placed)
        open_cells = values == 0
        if not open_cells.any():
            return Propagated(SOLVED, values, state, placed)
        counts = state.possible.sum(1)
        naked = np.flatnonzero(open_cells & (counts == 1))
        unit, digit = np.nonzero((state.held == 0) & (state.places == 1))
        if not len(naked) and not len(unit):
            return Propagated(OPEN, values, state, placed)
        values[naked] = state.possible[naked].argmax(1) + 1
        cells = t.unit_cells[unit, state.possible[t.unit_cells[unit], digit[:, None]].argmax(1)]
        values[cells] = digit + 1  # a cell named twice gets one digit: the next round's check catches the other
        placed += int(open_cells.sum() - (values == 0).sum())
