"""CNF export: the SAT solver agrees with the exact solver, and heuristic clauses never change the answer."""

import random

import pytest

from ltn_sudoku.candidates import Step
from ltn_sudoku.cnf import decode_variable, rule_clauses, solve_cnf, step_clauses, to_dimacs, variable
from ltn_sudoku.exact import count_solutions, solve
from ltn_sudoku.io import parse_board_text

SEED_9 = "2.14.....4...7358..5....6....9.2.8.1.23.1..5...8354..97..28.....15..93.6.6....74."


def test_variable_numbering_round_trips() -> None:
    for n in (4, 9, 16):
        for cell in (0, 5, n * n - 1):
            for d in (1, n):
                assert decode_variable(n, variable(n, cell, d)) == (cell, d)


def test_sat_solution_matches_exact_solution() -> None:
    b = parse_board_text(SEED_9)
    effort = solve_cnf(b)
    assert effort.satisfiable and effort.solution == solve(b)


def test_unsatisfiable_board_is_reported() -> None:
    clash = parse_board_text("1..." ".1.." "...." "....")  # 1 twice in box 1
    assert count_solutions(clash) == 0
    assert not solve_cnf(clash).satisfiable
    # consistent givens, still no solution: r1c4 must be 4 (row) but column 4 already has a 4
    subtle = parse_board_text("123." "...." "...." "...4")
    assert count_solutions(subtle) == 0 and subtle.is_consistent
    assert not solve_cnf(subtle).satisfiable


def test_step_clauses_encode_placements_and_eliminations() -> None:
    step = Step("Test", placements=((0, 3),), eliminations=((1, 2), (2, 4)))
    assert step_clauses(9, [step]) == [[3], [-(9 + 2)], [-(18 + 4)]]


def test_dimacs_header_counts_clauses() -> None:
    b = parse_board_text(SEED_9)
    text = to_dimacs(b)
    header = next(line for line in text.splitlines() if line.startswith("p cnf"))
    assert header == f"p cnf 729 {len(rule_clauses(b))}"
    assert text.count(" 0\n") == len(rule_clauses(b))


@pytest.mark.parametrize("seed", range(5))
def test_sound_extra_clauses_keep_the_solution(seed: int) -> None:
    """Units taken from the true solution (a perfect 'heuristic') must leave the answer unchanged."""
    b = parse_board_text(SEED_9)
    sol = solve(b)
    assert sol is not None
    rng = random.Random(seed)
    cells = rng.sample(b.empty_cells, 10)
    step = Step("Oracle", placements=tuple((c, sol.values[c]) for c in cells))
    effort = solve_cnf(b, [step])
    assert effort.solution == sol
