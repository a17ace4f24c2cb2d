"""Forcing chains and nets: hand-checked positions, soundness against the exact solver, solve rate on top1465.

The HoDoKu regression library has no forcing-chain cases (codes 1301-1304 are empty), so these tests stand in.
"""

from __future__ import annotations

import random

import pytest

from ltn_sudoku.board import Board
from ltn_sudoku.candidates import CandidateGrid
from ltn_sudoku.exact import solve
from ltn_sudoku.techniques import forcing
from ltn_sudoku.techniques.base import Finder
from ltn_sudoku.techniques.hodoku import load_cases
from ltn_sudoku.techniques.soundness import SINGLES, assert_sound, run_pure, sample_puzzles, states_from_puzzle
from tests.techniques_helpers import marked_grid, mixed_corpus

FINDERS: list[Finder] = [t.finder for t in forcing.TECHNIQUES]

# r1c1=1 forces r1c2=3 and r1c3=4 (bivalue cells), which leave r2c2 {3,4} without candidate
BROKEN = {"r1c1": "12", "r1c2": "13", "r1c3": "14", "r2c2": "34"}


def test_chain_contradiction_names_premise_and_reason() -> None:
    steps = run_pure(marked_grid(candidates=BROKEN), forcing.find_forcing_chain_contradictions)
    assert steps[0].text == "Forcing Chain Contradiction: r1c1=1 => no candidate left in r2c2 => r1c1<>1"
    assert steps[0].eliminations == ((0, 1),) and not steps[0].placements
    # the false premise r1c1<>2 leads to the same dead end one level later: r1c1=2 is placed
    placing = [s for s in steps if s.placements]
    assert placing[0].text == "Forcing Chain Contradiction: r1c1<>2 => no candidate left in r2c2 => r1c1=2"


def test_depth_bound_and_limit() -> None:
    grid = marked_grid(candidates=BROKEN)
    assert forcing.find_forcing_chain_contradictions(grid, max_depth=0) == []  # the singles come at level 1
    assert forcing.find_forcing_chain_contradictions(grid, max_depth=1)
    everything = forcing.find_forcing_chain_contradictions(grid)
    assert forcing.find_forcing_chain_contradictions(grid, limit=3) == everything[:3]


def test_net_uses_singles_that_rest_on_several_facts() -> None:
    # r2c2 {3,4,5} loses 3 and 4 to two chains: only a net places the 5, which breaks the pair r2c8,r2c9 {5,6}
    grid = marked_grid(candidates={**BROKEN, "r2c2": "345", "r2c8": "56", "r2c9": "56"})
    chain = {s.text for s in forcing.find_forcing_chain_contradictions(grid)}
    net = {s.text for s in forcing.find_forcing_net_contradictions(grid)}
    assert "Forcing Net Contradiction: r1c1=1 => r2c9=6 and r2c9<>6 => r1c1<>1" in net
    assert not any(t.startswith("Forcing Chain Contradiction: r1c1=1 ") for t in chain)
    # both see that r2c2=5 breaks the pair
    assert "Forcing Chain Contradiction: r2c2=5 => r2c9=6 and r2c9<>6 => r2c2<>5" in chain


def test_cell_verity() -> None:
    # r1c1=1 => r1c5=3; r1c1=2 => r2c1=3: every cell seeing both r1c5 and r2c1 loses 3
    grid = marked_grid(candidates={"r1c1": "12", "r1c5": "13", "r2c1": "23"})
    for finder, name in ((forcing.find_forcing_chain_verities, "Chain"), (forcing.find_forcing_net_verities, "Net")):
        steps = run_pure(grid, finder)
        assert steps[0].text == f"Forcing {name} Verity: r1c1=1 and r1c1=2 both => r1c2,r1c3,r2c4,r2c5,r2c6<>3"


def test_verity_placement_replaces_the_eliminations_it_implies() -> None:
    # r1c1=1 => r1c5=5; r1c1=2 => r5c1=5: either way r5c5 {4,5} loses 5 and holds 4
    grid = marked_grid(candidates={"r1c1": "12", "r1c5": "15", "r5c1": "25", "r5c5": "45"})
    step = next(s for s in run_pure(grid, forcing.find_forcing_chain_verities) if s.cells == (0,))
    assert step.text == "Forcing Chain Verity: r1c1=1 and r1c1=2 both => r5c5=4"
    assert step.placements == ((40, 4),) and step.eliminations == ()


def test_nothing_on_an_empty_board() -> None:
    grid = CandidateGrid.from_board(Board.empty(9))
    assert all(run_pure(grid, finder) == [] for finder in FINDERS)


# ---- soundness -----------------------------------------------------------------------------------------------------
def _check_states(pairs: list, seed: int, states: int) -> dict[str, int]:
    rng = random.Random(seed)
    checked: dict[str, int] = {}
    for puzzle, solution in pairs:
        for grid in states_from_puzzle(puzzle, solution, rng, states):
            for finder in FINDERS:
                steps = run_pure(grid, finder)
                checked[finder.__name__] = checked.get(finder.__name__, 0) + assert_sound(grid, steps, solution)
    return checked


def test_sound_on_hard_and_generated_puzzles() -> None:
    checked = _check_states(mixed_corpus(25, {4: 20, 16: 2}, seed=2), seed=2, states=3)
    assert all(checked.get(f.__name__, 0) > 0 for f in FINDERS), checked


def test_sound_on_regression_library_grids() -> None:
    """The library's hard grids (chains, ALS, uniqueness) are states where forcing steps are plentiful."""
    checked = 0
    for case in load_cases(codes=["0701", "0702", "0708", "0901", "0903"])[::3]:
        solution = solve(case.board)
        grid = case.grid()
        for finder in FINDERS:
            checked += assert_sound(grid, run_pure(grid, finder), solution)
    assert checked >= 5000, checked  # 5455 when written: forcing steps were found and checked


# ---- strength: singles + forcing finders alone, no search ----------------------------------------------------------
def _solved_by_forcing(puzzle: Board) -> bool:
    """Singles first, then the first forcing step, until solved or stuck; every applied step checked."""
    solution = solve(puzzle)
    grid = CandidateGrid.from_board(puzzle)
    while not grid.is_solved:
        step = next((s[0] for f in SINGLES if (s := f(grid))), None)
        step = step or next((s[0] for f in FINDERS if (s := f(grid, limit=1))), None)
        if step is None:
            return False
        assert_sound(grid, [step], solution, puzzle.to_line())
        grid.apply(step)
    return True


def test_singles_and_forcing_solve_top1465_sample() -> None:
    sample = sample_puzzles("9x9/top1465.txt", 40, seed=1)
    assert sum(_solved_by_forcing(p) for p in sample) == len(sample)


@pytest.mark.slow
def test_singles_and_forcing_solve_top1465() -> None:
    """A 200-puzzle sample solved without search, every forcing step applied on the way checked (all 1465 are solved
    in `scripts/bench_techniques.py stages`)."""
    puzzles = sample_puzzles("9x9/top1465.txt", 200, seed=3)
    assert sum(_solved_by_forcing(p) for p in puzzles) == len(puzzles)


@pytest.mark.slow
def test_sound_on_many_puzzles() -> None:
    checked = _check_states(mixed_corpus(120, {4: 150, 16: 2}, seed=8), seed=8, states=2)
    assert sum(checked.values()) > 100_000, checked
