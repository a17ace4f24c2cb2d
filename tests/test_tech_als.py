"""ALS family: HoDoKu's regression library, hand-checked positions, soundness against the exact solver."""

from __future__ import annotations

import random

import pytest

from ltn_sudoku.exact import solve
from ltn_sudoku.techniques import als
from ltn_sudoku.techniques.base import Finder
from ltn_sudoku.techniques.hodoku import hodoku_exemplars, load_cases
from ltn_sudoku.techniques.soundness import (
    SINGLES,
    assert_sound,
    run_pure,
    sample_puzzles,
    states_from_puzzle,
    walk_sound,
)
from tests.techniques_helpers import marked_grid, mixed_corpus

FINDERS: dict[str, Finder] = {t.hodoku_codes[0]: t.finder for t in als.TECHNIQUES}

# code -> minimum share of its cases that must pass (every case passes today)
FLOORS: dict[str, float] = {"0901": 1.0, "0902": 1.0, "0903": 1.0, "0904": 1.0}


@pytest.mark.parametrize("code", sorted(FLOORS))
def test_reglib_pass_rate(code: str) -> None:
    cases = load_cases(codes=[code])
    assert cases, f"no cases for {code}"
    failed = [case.line for case in cases if not case.check(FINDERS[code])]
    rate = 1 - len(failed) / len(cases)
    assert rate >= FLOORS[code], f"{code}: {rate:.1%} < {FLOORS[code]:.1%}; failing lines {failed}"


# ---- hand-checked positions (other cells keep all nine candidates; max_cells keeps their big ALS out) -----------
def _texts(finder: Finder, cells: dict[str, str], **options: int) -> list[str]:
    return [s.text for s in run_pure(marked_grid(candidates=cells), lambda g: finder(g, **options))]


def test_als_xz_bivalue_cell_and_box_pair() -> None:
    # A = r1c1 {1,2}, B = r1c7,r3c8 {1,2,3}: 1 is restricted (row 1), so 2 is in A or B: cells seeing r1c1 and r3c8
    texts = _texts(als.find_als_xz, {"r1c1": "12", "r1c7": "13", "r3c8": "23"}, max_cells=2)
    assert texts == ["ALS-XZ: A=r1c1 {1,2}, B=r1c7,r3c8 {1,2,3}, X=1, Z=2 => r1c8,r1c9,r3c1,r3c2,r3c3<>2"]


def test_als_xz_needs_a_restricted_common() -> None:
    # r2c7 no longer sees r1c1: 1 is not restricted, nothing follows
    assert _texts(als.find_als_xz, {"r1c1": "12", "r2c7": "13", "r3c8": "23"}, max_cells=2) == []
    assert _texts(als.find_als_xy_wings, {"r1c1": "12", "r2c7": "13", "r3c8": "23"}, max_cells=2) == []


def test_doubly_linked_als_xz_locks_both_digits() -> None:
    # two bivalue cells {1,2} in row 1 and box 1: both RCs, a naked pair seen as a doubly linked ALS-XZ
    texts = _texts(als.find_als_xz, {"r1c1": "12", "r1c2": "12"}, max_cells=1)
    assert texts == ["ALS-XZ: A=r1c1 {1,2}, B=r1c2 {1,2}, X=1,2 (doubly linked) => "
                     "r1c3,r1c4,r1c5,r1c6,r1c7,r1c8,r1c9,r2c1,r2c2,r2c3,r3c1,r3c2,r3c3<>1, "
                     "r1c3,r1c4,r1c5,r1c6,r1c7,r1c8,r1c9,r2c1,r2c2,r2c3,r3c1,r3c2,r3c3<>2"]


def test_als_xy_wing_of_three_bivalue_cells() -> None:
    # A = r1c1 {1,2} -1- C = r1c7 {1,3} -3- B = r3c8 {2,3}: the XY-Wing as an ALS-XY-Wing
    texts = _texts(als.find_als_xy_wings, {"r1c1": "12", "r1c7": "13", "r3c8": "23"}, max_cells=1)
    assert texts == ["ALS-XY-Wing: A=r1c1 {1,2}, B=r3c8 {2,3}, C=r1c7 {1,3}, X=1, Y=3, Z=2 => "
                     "r1c8,r1c9,r3c1,r3c2,r3c3<>2"]


def test_als_xy_chain_of_four_bivalue_cells() -> None:
    cells = {"r1c1": "12", "r1c5": "13", "r5c5": "34", "r5c9": "24"}
    texts = _texts(als.find_als_xy_chains, cells, max_cells=1)
    assert texts == ["ALS-XY-Chain: r1c1 {1,2} -1- r1c5 {1,3} -3- r5c5 {3,4} -4- r5c9 {2,4}, Z=2 => r1c9,r5c1<>2"]
    # the ends share no digit: no chain
    assert _texts(als.find_als_xy_chains, {**cells, "r5c9": "45"}, max_cells=1) == []
    # three ALS are a wing, not a chain
    assert _texts(als.find_als_xy_chains, {"r1c1": "12", "r1c7": "13", "r3c8": "23"}, max_cells=1) == []


def test_death_blossom_with_two_petals() -> None:
    # stem r5c5 {1,2}: if 1, petal r1c5 {1,3} holds 3; if 2, petal r5c1 {2,3} holds 3; r1c1 sees both 3s
    texts = _texts(als.find_death_blossoms, {"r5c5": "12", "r1c5": "13", "r5c1": "23"}, max_cells=1)
    assert "Death Blossom: stem r5c5 {1,2}: 1 => r1c5 {1,3}, 2 => r5c1 {2,3}, Z=3 => r1c1<>3" in texts
    # a stem digit without petal: no blossom from that stem
    texts = _texts(als.find_death_blossoms, {"r5c5": "124", "r1c5": "13", "r5c1": "23"}, max_cells=1)
    assert not any("stem r5c5" in t for t in texts)


def test_exemplars_after_singles_need_an_als_xz() -> None:
    checked = 0
    for exemplar in hodoku_exemplars("axz"):
        if exemplar.before == "s":
            grid, _ = walk_sound(exemplar.puzzle, SINGLES)
            assert not grid.is_solved
            assert run_pure(grid, als.find_als_xz), exemplar.puzzle.to_line()
            checked += 1
    assert checked >= 1, checked  # HoDoKu has one such exemplar; the loop must not pass on none


def test_limit_keeps_the_simplest_steps() -> None:
    case = load_cases(codes=["0903"])[0]
    everything = als.find_als_xy_chains(case.grid())
    assert als.find_als_xy_chains(case.grid(), limit=2) == everything[:2]


# ---- soundness -----------------------------------------------------------------------------------------------------
def _check_states(pairs: list, seed: int, states: int) -> dict[str, int]:
    rng = random.Random(seed)
    checked: dict[str, int] = {}
    for puzzle, solution in pairs:
        for grid in states_from_puzzle(puzzle, solution, rng, states):
            for finder in FINDERS.values():
                steps = run_pure(grid, finder)
                checked[finder.__name__] = checked.get(finder.__name__, 0) + assert_sound(grid, steps, solution)
    return checked


def test_sound_on_hard_and_generated_puzzles() -> None:
    checked = _check_states(mixed_corpus(6, {4: 10, 16: 1}, seed=3), seed=3, states=2)
    assert all(checked.get(f.__name__, 0) > 0 for f in FINDERS.values()), checked


def test_walk_with_singles_stays_sound() -> None:
    names = {t.name for t in als.TECHNIQUES}
    fired = 0
    for puzzle in sample_puzzles("9x9/top1465.txt", 4, seed=11):
        _, counts = walk_sound(puzzle, SINGLES + list(FINDERS.values()), solve(puzzle))
        fired += sum(n for name, n in counts.items() if name in names)
    assert fired >= 300, fired  # 360 when written: ALS steps were checked, not only singles


@pytest.mark.slow
def test_sound_on_many_puzzles() -> None:
    checked = _check_states(mixed_corpus(40, {4: 100, 16: 2}, seed=7), seed=7, states=2)
    assert sum(checked.values()) > 10_000, checked
