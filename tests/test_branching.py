"""The complete LTN-side solver (ltn_sudoku/branching): crisp propagation against logic/kb/axioms.py, answers against
the exact solver on every board class, and the orders' bookkeeping."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from ltn_sudoku.board import Board
from ltn_sudoku.branching.orders import Ascending, FewestPlaces, LeastConstraining, Oracle, Random, hand_made_orders
from ltn_sudoku.branching.propagate import CONTRADICTION, SOLVED, evaluate, propagate, tables
from ltn_sudoku.branching.solver import branch_cell, digit_order, solve
from ltn_sudoku.exact import count_solutions, solutions
from ltn_sudoku.generate import generate
from ltn_sudoku.io import read_boards
from ltn_sudoku.logic.groundings.grounding import Grounding, one_hot_givens
from ltn_sudoku.logic.kb.axioms import (
    CONSTRAINT_AXIOMS,
    CRISP,
    board_satisfaction,
    hidden_single_definition,
    is_possible,
    naked_single_definition,
    no_solution,
    rule_axioms,
)
from ltn_sudoku.paths import DATA_DIR

OPEN_KINDS = [("open_solvable", "unique"), ("open_solvable", "multiple"), ("open_impossible", "obvious"),
              ("open_impossible", "subtle")]


def boards_of_every_class(n: int, count: int, seed: int = 7) -> list[Board]:
    boards = [r.board for label, kind in OPEN_KINDS for r in generate(n, label, count, seed, kind=kind, unique=False)]
    return boards + [r.board for label in ("closed_valid", "closed_invalid") for r in generate(n, label, 2, seed)]


@pytest.mark.parametrize("n", [4, 9])
def test_crisp_truths_agree_with_the_knowledge_base(n: int) -> None:
    """isPossible, the rule axioms, NoSolution and the seed's singles read the same on every state as axioms.py's
    Gödel evaluation (also on states with a clash: a digit placed twice in a unit)."""
    boards = boards_of_every_class(n, 3)
    rng = np.random.default_rng(0)
    clashing = []
    for b in boards[:4]:
        values = list(b.values)
        empty = [c for c in range(b.cell_count) if values[c] == 0]
        values[empty[0]] = values[next(c for c in b.geometry.peers[empty[0]] if values[c])] if empty else values[0]
        clashing.append(Board(values, n))
    boards += clashing + [Board(rng.integers(0, n + 1, n * n).tolist(), n) for _ in range(4)]
    grounding = Grounding(n)
    one_hot = one_hot_givens(torch.tensor([b.values for b in boards]), n)
    possible = is_possible(grounding, one_hot)
    possible = possible.value.permute([possible.free_vars.index(v) for v in ("b", "c", "v")]) > 0.5
    clash = board_satisfaction(CRISP, rule_axioms(grounding, CRISP, one_hot, one_hot), CONSTRAINT_AXIOMS[1:]) < 0.5
    dead = no_solution(grounding, one_hot) > 0.5
    naked = naked_single_definition(grounding, one_hot) > 0.5
    hidden = hidden_single_definition(grounding, one_hot) > 0.5
    t = tables(n)
    for i, b in enumerate(boards):
        state = evaluate(np.array(b.values, dtype=np.int16), t)
        assert np.array_equal(state.possible, possible[i].numpy())
        assert state.clash == bool(clash[i])
        assert state.no_solution == bool(dead[i])
        open_cells = state.values == 0
        assert bool((open_cells & (state.possible.sum(1) == 1)).any()) == bool(naked[i])
        assert bool(((state.held == 0) & (state.places == 1)).any()) == bool(hidden[i])


@pytest.mark.parametrize("n", [4, 9])
def test_answers_match_the_exact_solver_on_every_class(n: int) -> None:
    """Solution counts (up to 3) and the solutions themselves equal the exact solver's, for every order."""
    boards = boards_of_every_class(n, 4)
    for order in [*hand_made_orders((0,)), Oracle()]:
        for board in boards:
            truth = count_solutions(board, 3)
            result = solve(board, order, limit=3)
            assert result.complete
            assert len(result.solutions) == truth, (order.name, board.to_line())
            assert len({s.to_line() for s in result.solutions}) == truth
            if truth < 3:  # all of them: the same set
                assert {s.to_line() for s in result.solutions} == {s.to_line() for s in solutions(board, 3)}
            assert all(s.is_valid_solution and all(g in (0, v) for g, v in zip(board.values, s.values))
                       for s in result.solutions)
            assert result.verdict == {0: "none", 1: "solved"}.get(truth, "multiple")


def test_hard_public_puzzles_are_solved() -> None:
    """The hardest public puzzles: the unique solution, found and proved unique, by the weakest order too."""
    boards = read_boards(DATA_DIR / "9x9/hardest11.txt")[:4] + read_boards(
        DATA_DIR / "9x9/forum_hardest_1905_se11_first200.txt")[:3]
    for board in boards:
        result = solve(board, Ascending(), limit=2)
        assert result.verdict == "solved" and result.complete
        assert result.solutions[0].values == solutions(board, 1)[0].values


def test_propagation_places_singles_and_finds_contradictions() -> None:
    solved = generate(9, "closed_valid", 1, 3)[0].board
    values = np.array(solved.values, dtype=np.int16)
    values[[0, 40, 80]] = 0  # three naked singles
    out = propagate(values)
    assert out.status == SOLVED and out.placed == 3 and out.values.tolist() == list(solved.values)
    values = np.array(solved.values, dtype=np.int16)
    values[1] = values[0]  # a clash in row 1
    assert propagate(values).status == CONTRADICTION


def test_oracle_never_guesses_wrong_on_unique_puzzles() -> None:
    for record in generate(9, "open_solvable", 6, 11, kind="unique", givens=(22, 26)):
        result = solve(record.board, Oracle())
        assert result.wrong_guesses == 0 and result.solutions[0] == record.solution


def test_wrong_guesses_count_refuted_subtrees() -> None:
    """On an impossible board every guessed digit is wrong; on a solvable one nodes = 1 + guesses tried."""
    boards = []
    for puzzle in read_boards(DATA_DIR / "9x9/hardest11.txt")[:4]:  # one wrong digit that no peer rules out
        cell = puzzle.empty_cells[0]
        wrong = next(d for d in puzzle.candidates(cell) if d != solutions(puzzle, 1)[0].values[cell])
        boards.append(puzzle.with_value(cell, wrong))
    assert all(count_solutions(b, 1) == 0 for b in boards)
    results = [solve(board, Ascending()) for board in boards]
    assert all(r.verdict == "none" and r.nodes == 1 + r.wrong_guesses for r in results)
    assert max(r.wrong_guesses for r in results) > 0
    puzzle = read_boards(DATA_DIR / "9x9/hardest11.txt")[0]
    result = solve(puzzle, Ascending())
    assert result.order_calls >= 1 and result.nodes >= 1 + result.wrong_guesses


def test_branch_cell_takes_fewest_digits_then_the_orders_preference() -> None:
    board = read_boards(DATA_DIR / "9x9/hardest11.txt")[1]
    state = propagate(np.array(board.values, dtype=np.int16)).crisp
    counts = np.where(state.values == 0, state.possible.sum(1), 99)
    scores = np.zeros(state.possible.shape, dtype=np.float32)
    tied = np.flatnonzero(counts == counts.min())
    assert branch_cell(state, scores) == tied[0]
    last = tied[-1]
    scores[last, np.flatnonzero(state.possible[last])[-1]] = 1.0
    assert branch_cell(state, scores) == last
    assert digit_order(state, scores, last)[0] == np.flatnonzero(state.possible[last])[-1] + 1


def test_orders_prefer_what_they_say() -> None:
    board = read_boards(DATA_DIR / "9x9/hardest11.txt")[2]
    state = propagate(np.array(board.values, dtype=np.int16)).crisp
    t = tables(9)
    cell = int(np.flatnonzero(state.values == 0)[0])
    digits = digit_order(state, LeastConstraining().scores(state), cell)
    constrained = [int(sum(state.possible[p, d - 1] for p in np.flatnonzero(t.peers[cell]))) for d in digits]
    assert constrained == sorted(constrained)
    digits = digit_order(state, FewestPlaces().scores(state), cell)
    places = [int(state.places[t.cell_units[cell], d - 1].min()) for d in digits]
    assert places == sorted(places)
    first, second = Random(3), Random(3)
    first.begin(board)
    second.begin(board)
    assert np.array_equal(first.scores(state), second.scores(state))


def test_max_nodes_cuts_the_search() -> None:
    board = read_boards(DATA_DIR / "9x9/forum_hardest_1905_se11_first200.txt")[0]
    result = solve(board, Ascending(), max_nodes=3)
    assert not result.complete and result.nodes == 3 and result.verdict in ("cut", "solved")


def test_the_first_solution_counts_are_those_of_limit_one() -> None:
    """With a higher limit the search goes on after the first solution; the counts at that solution stay those of a
    search that stops there (what the order buys), and the refutations after it are counted only in the totals."""
    boards = read_boards(DATA_DIR / "9x9/hardest11.txt")[:3] + [r.board for r in generate(
        9, "open_solvable", 2, 5, kind="multiple", unique=False)]
    for board in boards:
        first, longer = solve(board, Ascending(), limit=1), solve(board, Ascending(), limit=3)
        assert (first.first_solution_nodes, first.first_solution_wrong_guesses) == (first.nodes, first.wrong_guesses)
        assert (longer.first_solution_nodes, longer.first_solution_wrong_guesses) == (first.nodes,
                                                                                        first.wrong_guesses)
        assert longer.nodes >= first.nodes and longer.wrong_guesses >= first.wrong_guesses
    unique = solve(boards[0], Ascending(), limit=2)
    assert unique.verdict == "solved" and unique.nodes > unique.first_solution_nodes  # uniqueness had to be proved
    refuted = solve(Board([1, 1] + [0] * 14, 4), Ascending(), limit=2)
    assert refuted.verdict == "none" and refuted.first_solution_nodes is None
