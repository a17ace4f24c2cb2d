"""A board as CNF (DIMACS), with heuristic steps as extra clauses, solved by a real SAT solver (python-sat).

Variable x(cell, d) = cell * n + d (1-based) means "cell holds digit d". Clauses: every cell holds a digit, no cell
holds two, every unit holds every digit, no unit holds a digit twice; givens are unit clauses. Only basic-rule
candidates get variables' clauses (the others are fixed false by unit clauses), which keeps large boards small.
Heuristic steps add unit clauses: a placement (x) and each elimination (-x). Comparing the solver's effort with and
without them is the original assignment's Q3 steps 2-3: how much search the human techniques save a SAT solver.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Iterable, Sequence

from ltn_sudoku.board import Board, geometry
from ltn_sudoku.candidates import Step


def variable(n: int, cell: int, digit: int) -> int:
    """DIMACS variable of 'cell holds digit' (cell 0-based, digit 1-based)."""
    return cell * n + digit


def decode_variable(n: int, var: int) -> tuple[int, int]:
    """(cell, digit) of a DIMACS variable."""
    return (var - 1) // n, (var - 1) % n + 1


def rule_clauses(board: Board) -> list[list[int]]:
    """The Sudoku rules and the givens as clauses, restricted to basic-rule candidates."""
    n = board.n
    g = geometry(n)
    masks = board.candidate_masks()
    allowed = [
        {board.values[c]} if board.values[c] else {d for d in range(1, n + 1) if masks[c] >> (d - 1) & 1}
        for c in range(n * n)
    ]
    clauses: list[list[int]] = []
    for c in range(n * n):
        vars_c = [variable(n, c, d) for d in sorted(allowed[c])]
        clauses.append(vars_c)  # at least one digit (empty clause if none: unsatisfiable, as it should be)
        clauses.extend([-a, -b] for a, b in combinations(vars_c, 2))
        clauses.extend([-variable(n, c, d)] for d in range(1, n + 1) if d not in allowed[c])
    for unit in g.units:
        for d in range(1, n + 1):
            places = [variable(n, c, d) for c in unit if d in allowed[c]]
            clauses.append(places)  # the digit goes somewhere in the unit
            clauses.extend([-a, -b] for a, b in combinations(places, 2))
    return clauses


def step_clauses(n: int, steps: Iterable[Step]) -> list[list[int]]:
    """Unit clauses for what the steps established: placements true, eliminations false."""
    clauses: list[list[int]] = []
    for step in steps:
        clauses.extend([variable(n, c, d)] for c, d in step.placements)
        clauses.extend([-variable(n, c, d)] for c, d in step.eliminations)
    return clauses


def to_dimacs(board: Board, steps: Sequence[Step] = ()) -> str:
    """The board (and optionally the heuristic steps) as a DIMACS CNF file's text."""
    clauses = rule_clauses(board) + step_clauses(board.n, steps)
    header = [
        f"c ltn-sudoku {board.n}x{board.n}: x(cell, d) = cell*{board.n} + d, cell = row*{board.n} + col (0-based)",
        f"c puzzle {board.to_line()}",
    ]
    if steps:
        header.append(f"c with {len(steps)} heuristic steps as unit clauses")
    lines = header + [f"p cnf {board.n ** 3} {len(clauses)}"]
    lines.extend(" ".join(map(str, c)) + " 0" for c in clauses)
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class SatEffort:
    """What a SAT solver needed: its answer and counters."""

    satisfiable: bool
    solution: Board | None
    clauses: int
    conflicts: int
    decisions: int
    propagations: int


def solve_cnf(board: Board, steps: Sequence[Step] = (), solver: str = "minisat22") -> SatEffort:
    """Solve the board's CNF with python-sat and report the effort (the `sat` extra must be installed)."""
    try:
        from pysat.solvers import Solver
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise RuntimeError("python-sat is needed for SAT solving: pip install 'ltn-sudoku[sat]'") from e
    clauses = rule_clauses(board) + step_clauses(board.n, steps)
    with Solver(name=solver, bootstrap_with=clauses) as s:
        sat = bool(s.solve())
        stats = s.accum_stats() or {}
        solution = None
        if sat:
            values = [0] * (board.n * board.n)
            for lit in s.get_model() or []:
                if lit > 0:
                    cell, digit = decode_variable(board.n, lit)
                    values[cell] = digit
            solution = Board(values, board.n)
    return SatEffort(sat, solution, len(clauses), int(stats.get("conflicts", 0)), int(stats.get("decisions", 0)),
                     int(stats.get("propagations", 0)))
