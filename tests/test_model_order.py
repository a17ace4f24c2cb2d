"""The learned value orders (ltn_sudoku/logic/board/model_order.py) in the complete solver: the cheap variants (one
call per puzzle, calls refreshed down the tree, batched root calls, fewer refinement steps) keep the solver exact and
make the model calls they say."""

from __future__ import annotations

import numpy as np
import pytest

from ltn_sudoku.board import Board
from ltn_sudoku.branching.orders import FewestPlaces
from ltn_sudoku.branching.propagate import OPEN, propagate
from ltn_sudoku.branching.solver import solve
from ltn_sudoku.exact import count_solutions, solutions
from ltn_sudoku.generate import generate
from ltn_sudoku.io import read_boards
from ltn_sudoku.logic.board.model_order import CachedModelOrder, ModelOrder
from ltn_sudoku.paths import CHECKPOINTS_DIR, DATA_DIR
from tests.test_branching import OPEN_KINDS


@pytest.fixture(scope="module")
def model() -> ModelOrder:
    return ModelOrder.load(CHECKPOINTS_DIR / "9x9.pt")


def boards_with_0_1_2_solutions() -> list[Board]:
    """Generated 9x9 boards without, with one and with several solutions, and two hard public puzzles."""
    boards = [r.board for label, kind in OPEN_KINDS for r in generate(9, label, 2, 13, kind=kind, unique=False)]
    return boards + read_boards(DATA_DIR / "9x9/hardest11.txt")[:2]


def test_cheap_orders_find_the_exact_solvers_solutions(model: ModelOrder) -> None:
    """Root call, refreshed calls and fewer steps: the same solutions (up to 3) as the exact solver, on boards with
    0, 1 and several solutions."""
    boards = boards_with_0_1_2_solutions()
    truths = [count_solutions(b, 3) for b in boards]
    assert {0, 1}.issubset(truths) and max(truths) >= 2
    for order in (CachedModelOrder(model), CachedModelOrder(model.with_steps(8), refresh=6),
                  CachedModelOrder(model.with_steps(8), after=1, fallback=FewestPlaces())):
        for board, truth in zip(boards, truths):
            result = solve(board, order, limit=3)
            assert result.complete and len(result.solutions) == truth, (order.name, board.to_line())
            if truth < 3:
                assert {s.to_line() for s in result.solutions} == {s.to_line() for s in solutions(board, 3)}


def test_a_root_call_is_one_model_call_per_puzzle(model: ModelOrder) -> None:
    """One call per puzzle that propagation leaves open (none for one it closes), however many nodes follow."""
    order = CachedModelOrder(model)
    for board in read_boards(DATA_DIR / "9x9/hardest11.txt")[:3]:
        before = model.calls
        result = solve(board, order)
        assert result.order_calls > 1 and model.calls - before == 1
    solved = generate(9, "closed_valid", 1, 3)[0].board
    before = model.calls
    assert solve(solved.with_value(0, 0), order).verdict == "solved" and model.calls == before


def test_refreshing_after_every_digit_is_the_per_node_order(model: ModelOrder) -> None:
    """refresh=1 asks the model at every branch node, so its search is the per-node order's, node for node; a wider
    refresh asks less often."""
    cheap = model.with_steps(8)
    every, wider = CachedModelOrder(cheap, refresh=1), CachedModelOrder(cheap, refresh=12)
    for board in read_boards(DATA_DIR / "9x9/hardest11.txt")[:3]:
        calls = cheap.calls
        per_node = solve(board, cheap)
        assert cheap.calls - calls == per_node.order_calls
        calls = cheap.calls
        same = solve(board, every)
        assert cheap.calls - calls == per_node.order_calls
        assert (same.nodes, same.wrong_guesses, same.solutions) == (per_node.nodes, per_node.wrong_guesses,
                                                                     per_node.solutions)
        calls = cheap.calls
        fewer = solve(board, wider)
        assert 1 <= cheap.calls - calls <= fewer.order_calls and fewer.solutions == per_node.solutions


def test_prefetched_root_calls_are_the_root_calls(model: ModelOrder) -> None:
    """One batched pass answers every open root (the same probabilities as one call per root); the searches then
    make no call and find the unbatched order's solution."""
    boards = read_boards(DATA_DIR / "9x9/17clue_sample1000.txt")[:8]
    batched, single = CachedModelOrder(model, name="batched"), CachedModelOrder(model)
    roots = [p.values for p in (propagate(np.array(b.values, dtype=np.int16)) for b in boards) if p.status == OPEN]
    calls = model.calls
    assert batched.prefetch(boards, batch=5) == len(roots) >= 5 and model.calls - calls == -(-len(roots) // 5)
    for root in roots:
        assert np.allclose(batched._ahead[root.tobytes()], model.probabilities(root[None])[0], atol=1e-4)
    for board in boards:
        calls = model.calls
        first = solve(board, batched)
        assert model.calls == calls and first.solutions == solve(board, single).solutions
    assert not batched._ahead  # each answer was used once


def test_a_lazy_order_calls_the_model_only_once_the_puzzle_proves_hard(model: ModelOrder) -> None:
    """Until `after` refuted branches the search is the fallback order's, with no model call: a puzzle the fallback
    solves with fewer refutations costs none; a harder one calls the model once (on the root state)."""
    cheap = model.with_steps(8)
    lazy = CachedModelOrder(cheap, after=3, fallback=FewestPlaces())
    assert lazy.name == "hasValue 9x9 8 steps after 3 refuted (fewest places in units before)"
    easy = hard = 0
    for board in read_boards(DATA_DIR / "9x9/hardest11.txt") + read_boards(DATA_DIR / "9x9/top95.txt")[:10]:
        plain, calls = solve(board, FewestPlaces()), cheap.calls
        result = solve(board, lazy)
        assert result.solutions == plain.solutions
        if plain.wrong_guesses < 3:
            easy += 1
            assert cheap.calls == calls and (result.nodes, result.wrong_guesses) == (plain.nodes, plain.wrong_guesses)
        else:  # one call at most: the root state's ranking, asked once the third refuted branch is left
            assert cheap.calls - calls <= 1
            hard += cheap.calls - calls
    assert easy and hard


def test_fewer_steps_and_bad_settings(model: ModelOrder) -> None:
    fast = model.with_steps(4)
    assert fast.name == "hasValue 9x9 4 steps" and fast.inputs()["eval_steps"] == 4 and fast.model is model.model
    states = np.array([read_boards(DATA_DIR / "9x9/hardest11.txt")[0].values])
    assert not np.allclose(fast.probabilities(states), model.probabilities(states), atol=1e-3)
    assert CachedModelOrder(fast).name == "hasValue 9x9 4 steps root call"
    assert CachedModelOrder(fast, refresh=5).name == "hasValue 9x9 4 steps refresh 5"
    with pytest.raises(ValueError, match="at least 1 refinement step"):
        model.with_steps(0)
    with pytest.raises(ValueError, match="refresh=0"):
        CachedModelOrder(model, refresh=0)
    with pytest.raises(ValueError, match="after=2"):
        CachedModelOrder(model, after=2)
