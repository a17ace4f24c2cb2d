"""An oracle that shares no code with the package (issue 41, item 7).

The package's exact counters (the numba kernel, the pure-Python search, DLX, the portfolio with python-sat's CaDiCaL on
ltn_sudoku.cnf's encoding) are otherwise checked only against each other. Here the solution count (0, 1, or 2 meaning
"2 or more") comes from a plain CNF written in this file and solved by python-sat's CaDiCaL directly:

- variable x(r, c, d) = r*n*n + c*n + d + 1 (d = 0..n-1): cell (r, c) holds digit d+1;
- each cell holds a digit (one clause per cell) and at most one (pairwise clauses);
- each digit occurs in each row, column and box: at least once (one clause) and at most once (pairwise clauses);
- each given is a unit clause;
- models are counted by solving, adding a clause that blocks the model's cell-digit assignment, and solving again
  (stopping at 2).

Nothing of ltn_sudoku builds this encoding. The package is used only for what is under test (count_solutions with
each backend, count_solutions_batch, solve, classify's Q1/Q2, Board.is_valid_solution) and, for part of the boards,
to produce them (ltn_sudoku.generate, every class and kind). The other boards are made here from a randomly permuted
pattern solution: closed as is, closed with a digit changed or two digits swapped, open with random cells blanked
(unique or several solutions), open with a conflicting given (obvious impossible) or with a wrong digit that no peer
holds (usually subtle impossible).
"""

from __future__ import annotations

import functools
import math
import random
from itertools import combinations

import numpy as np
import pytest
from pysat.solvers import Cadical153

import ltn_sudoku.exact
from ltn_sudoku import Board, classify, count_solutions, solve
from ltn_sudoku.generate import generate

SEED = 4107
BACKENDS = ("auto", "kernel", "python", "dlx")


# ---- the oracle: a CNF written here, solved by python-sat --------------------------------------------------------------
def _units(n: int) -> list[list[tuple[int, int]]]:
    k = math.isqrt(n)
    rows = [[(r, c) for c in range(n)] for r in range(n)]
    cols = [[(r, c) for r in range(n)] for c in range(n)]
    boxes = [[(br * k + i, bc * k + j) for i in range(k) for j in range(k)] for br in range(k) for bc in range(k)]
    return rows + cols + boxes


@functools.cache
def _rules(n: int) -> tuple[tuple[int, ...], ...]:
    """The clauses of an empty n x n board (cached per size; the givens are added per board)."""

    def x(r: int, c: int, d: int) -> int:
        return r * n * n + c * n + d + 1

    clauses: list[tuple[int, ...]] = []
    for r in range(n):
        for c in range(n):
            clauses.append(tuple(x(r, c, d) for d in range(n)))
            clauses.extend((-x(r, c, a), -x(r, c, b)) for a, b in combinations(range(n), 2))
    for unit in _units(n):
        for d in range(n):
            clauses.append(tuple(x(r, c, d) for r, c in unit))
            clauses.extend((-x(*p, d), -x(*q, d)) for p, q in combinations(unit, 2))
    return tuple(clauses)


def oracle(values: list[int], n: int) -> tuple[int, list[int] | None]:
    """(min(#solutions, 2), the first solution as a flat list of digits or None), from the CNF above alone."""
    with Cadical153(bootstrap_with=_rules(n)) as solver:
        for i, v in enumerate(values):
            if v:
                solver.add_clause([i * n + v])  # x(r, c, v-1) with i = r*n + c
        count, first = 0, None
        while count < 2 and solver.solve():
            true = [lit for lit in solver.get_model() if 0 < lit <= n ** 3]
            if first is None:
                first = [0] * (n * n)
                for lit in true:
                    first[(lit - 1) // n] = (lit - 1) % n + 1
            count += 1
            solver.add_clause([-lit for lit in true])  # block this cell-digit assignment
        return count, first


def test_oracle_on_hand_made_boards() -> None:
    """The oracle itself, on boards whose counts are known without any solver."""
    grid = [1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1]
    assert oracle(grid, 4) == (1, grid)
    assert oracle([0] * 16, 4)[0] == 2  # 288 grids
    broken = grid.copy()
    broken[0] = 2
    assert oracle(broken, 4) == (0, None)
    two = grid.copy()  # 1 2 / 2 1 in rows 0 and 2, columns 0 and 1 (both in box 0 and box 2): a deadly pattern
    for i in (0, 1, 8, 9):
        two[i] = 0
    assert oracle(two, 4)[0] == 2


# ---- boards made here, from a permuted pattern solution -----------------------------------------------------------------
def _pattern_grid(n: int, rng: random.Random) -> list[int]:
    k = math.isqrt(n)
    bands, stacks = rng.sample(range(k), k), rng.sample(range(k), k)
    rows = [b * k + r for b in bands for r in rng.sample(range(k), k)]
    cols = [s * k + c for s in stacks for c in rng.sample(range(k), k)]
    digits = rng.sample(range(1, n + 1), n)
    grid = [digits[(k * (r % k) + r // k + c) % n] for r in rows for c in cols]
    if rng.random() < 0.5:
        grid = [grid[c * n + r] for r in range(n) for c in range(n)]
    return grid


def _peers(n: int, cell: int) -> set[int]:
    k = math.isqrt(n)
    r, c = divmod(cell, n)
    out = {r * n + j for j in range(n)} | {i * n + c for i in range(n)}
    out |= {(r // k * k + i) * n + c // k * k + j for i in range(k) for j in range(k)}
    return out - {cell}


def _blank(grid: list[int], n: int, fraction: float, rng: random.Random) -> list[int]:
    puzzle = grid.copy()
    for cell in rng.sample(range(n * n), round(fraction * n * n)):
        puzzle[cell] = 0
    return puzzle


# (name, fraction of cells blanked) per size: light blanking tends to a unique solution, heavy to several
_OPEN = {4: (0.4, 0.75), 9: (0.45, 0.7), 16: (0.3, 0.55)}


def _own_boards(n: int, seed: int) -> list[tuple[str, list[int]]]:
    rng = random.Random(seed)
    grid = _pattern_grid(n, rng)
    boards = [("own_closed_valid", grid)]
    changed = grid.copy()
    cell = rng.randrange(n * n)
    changed[cell] = rng.choice([d for d in range(1, n + 1) if d != grid[cell]])
    boards.append(("own_closed_change", changed))
    swapped = grid.copy()
    r = rng.randrange(n)
    a, b = rng.sample(range(n), 2)
    swapped[r * n + a], swapped[r * n + b] = swapped[r * n + b], swapped[r * n + a]
    boards.append(("own_closed_swap", swapped))
    light, heavy = _OPEN[n]
    boards.append(("own_open_light", _blank(grid, n, light, rng)))
    boards.append(("own_open_heavy", _blank(grid, n, heavy, rng)))
    conflict = _blank(grid, n, light, rng)  # an empty cell takes a digit a peer holds
    cell = rng.choice([i for i, v in enumerate(conflict) if not v])
    conflict[cell] = rng.choice(sorted({conflict[p] for p in _peers(n, cell)} - {0}))
    boards.append(("own_open_conflict", conflict))
    wrong = _blank(grid, n, light, rng)  # an empty cell takes a wrong digit that no peer holds
    options = [(i, d) for i, v in enumerate(wrong) if not v
               for d in range(1, n + 1) if d != grid[i] and d not in {wrong[p] for p in _peers(n, i)}]
    if options:
        cell, digit = rng.choice(options)
        wrong[cell] = digit
        boards.append(("own_open_wrong_digit", wrong))
    return boards


# ---- boards from the package's generators --------------------------------------------------------------------------------
# (label, kind, unique, count per size 4 / 9 / 16); the generator's label fixes the expected count
_GENERATED = (
    ("closed_valid", None, True, (2, 2, 1)),
    ("closed_invalid", None, True, (4, 4, 4)),  # random, swap, change, latin_blocks
    ("open_solvable", "unique", True, (2, 2, 1)),
    ("open_solvable", "multiple", False, (2, 2, 1)),
    ("open_impossible", "obvious", True, (2, 2, 1)),
    ("open_impossible", "subtle", True, (2, 2, 1)),
)
_EXPECTED = {"closed_valid": 1, "closed_invalid": 0, "open_impossible": 0, "unique": 1, "multiple": 2}
_OWN_ROUNDS = {4: 3, 9: 2, 16: 1}


@functools.cache
def boards(n: int) -> tuple[tuple[str, Board, int | None], ...]:
    """(name, board, count the way it was made implies or None) for every board of size n."""
    size_index = {4: 0, 9: 1, 16: 2}[n]
    out: list[tuple[str, Board, int | None]] = []
    for label, kind, unique, counts in _GENERATED:
        for rec in generate(n, label, counts[size_index], seed=SEED + n, kind=kind, unique=unique):
            out.append((f"gen_{label}_{rec.kind}", rec.board, _EXPECTED.get(rec.kind, _EXPECTED.get(label))))
    for round_ in range(_OWN_ROUNDS[n]):
        for name, values in _own_boards(n, SEED * 100 + n * 10 + round_):
            expected = {"own_closed_valid": 1, "own_closed_change": 0, "own_closed_swap": 0,
                        "own_open_conflict": 0}.get(name)
            out.append((name, Board(values, n), expected))
    return tuple(out)


@functools.cache
def oracle_counts(n: int) -> tuple[tuple[int, list[int] | None], ...]:
    return tuple(oracle(list(board.values), n) for _, board, _ in boards(n))


def _compare(n: int, index: int) -> None:
    name, board, made_as = boards(n)[index]
    count, first = oracle_counts(n)[index]
    where = f"{n}x{n} board #{index} ({name}) {board.to_line()}"
    if made_as is not None:
        assert count == made_as, f"{where}: the oracle counts {count}, the board was made to have {made_as}"
    backends = BACKENDS if n <= 9 else ("auto", "kernel")  # python/dlx on 16x16: slow, and checked elsewhere
    for backend in backends:
        assert min(count_solutions(board, 2, backend=backend), 2) == count, f"{where}: backend {backend}"
    assert int(ltn_sudoku.exact.count_solutions_batch(np.asarray([board.values]), 2)[0]) == count, f"{where}: batch"
    report = classify(board, heuristics=False)
    assert min(report.solution_count, 2) == count, f"{where}: classify"
    found = solve(board)
    if count == 0:
        assert found is None, f"{where}: solve found a solution of a board without one"
    else:
        assert found is not None and found.is_valid_solution, f"{where}: solve"
        assert all(g in (0, v) for g, v in zip(board.values, found.values)), f"{where}: solve dropped a given"
        if count == 1:
            assert list(found.values) == first, f"{where}: solve and the oracle disagree on the only solution"
    if board.is_closed:  # Q1: a closed board is a valid solution iff its CNF is satisfiable
        assert board.is_valid_solution == (count == 1), f"{where}: Board.is_valid_solution"
        assert report.valid == (count == 1), f"{where}: classify's Q1"
        assert report.solvable is None
    else:
        assert report.solvable == (count > 0), f"{where}: classify's Q2"


_COUNTS = {4: 14 + 3 * 7, 9: 14 + 2 * 7, 16: 9 + 7}  # boards per size (generated + own); checked below


@pytest.mark.parametrize("n", (4, 9, 16))
def test_board_counts(n: int) -> None:
    """Every class is present at each size, as the oracle sees it: closed valid/invalid, open with 0, 1, 2+."""
    assert len(boards(n)) == _COUNTS[n]
    seen = {(board.is_closed, count) for (_, board, _), (count, _) in zip(boards(n), oracle_counts(n))}
    assert seen >= {(True, 1), (True, 0), (False, 0), (False, 1), (False, 2)}, seen
    own = {(board.is_closed, count) for (name, board, _), (count, _) in zip(boards(n), oracle_counts(n))
           if name.startswith("own_")}
    assert own >= {(True, 1), (True, 0), (False, 0), (False, 1), (False, 2)}, own


@pytest.mark.parametrize("n,index", [(n, i) for n in (4, 9, 16) for i in range(_COUNTS[n])])
def test_package_agrees_with_oracle(n: int, index: int) -> None:
    _compare(n, index)
