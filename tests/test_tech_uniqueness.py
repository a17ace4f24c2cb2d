"""Uniqueness techniques: hand-checked positions, HoDoKu's regression library and exemplars, and soundness against
the exact solver on puzzles with exactly one solution (the only ones where these techniques are sound)."""

from __future__ import annotations

import pytest

from ltn_sudoku.board import Board
from ltn_sudoku.candidates import CandidateGrid
from ltn_sudoku.exact import count_solutions
from ltn_sudoku.techniques import coloring, wings
from ltn_sudoku.techniques.hodoku import SSTS_NAMES, hodoku_exemplars, load_cases, ssts_finders
from ltn_sudoku.techniques.soundness import SINGLES, run_pure, sweep_sound, walk_sound
from ltn_sudoku.techniques.uniqueness import (
    TECHNIQUES,
    find_avoidable_rectangles_1,
    find_avoidable_rectangles_2,
    find_bug_plus_1,
    find_hidden_rectangles,
    find_unique_rectangles_1,
    find_unique_rectangles_2,
    find_unique_rectangles_3,
    find_unique_rectangles_4,
    find_unique_rectangles_5,
    find_unique_rectangles_6,
)
from tests.techniques_helpers import marked_grid, mixed_corpus

FINDERS = [t.finder for t in TECHNIQUES]
OTHERS = [t.finder for t in wings.TECHNIQUES + coloring.TECHNIQUES]
REGLIB_FLOORS: dict[str, float] = {code: 1.0 for t in TECHNIQUES for code in t.hodoku_codes}
FULL = "123456789"
RECT = "1/2 in r1c1,r1c2,r4c1,r4c2"  # the rectangle of the hand positions: boxes 1 and 4


def texts(grid: CandidateGrid, finder) -> list[str]:
    return [s.text for s in run_pure(grid, finder)]


def all_texts(grid: CandidateGrid) -> list[str]:
    return [text for finder in FINDERS for text in texts(grid, finder)]


def test_uniqueness_test_1() -> None:
    grid = marked_grid(candidates={"r1c1": "12", "r1c2": "12", "r4c1": "12", "r4c2": "123"})
    assert all_texts(grid) == [f"Uniqueness Test 1: {RECT} => r4c2<>1, r4c2<>2"]
    small = marked_grid(4, candidates={"r1c1": "12", "r1c2": "12", "r3c1": "12", "r3c2": "123"})
    assert texts(small, find_unique_rectangles_1) == [
        "Uniqueness Test 1: 1/2 in r1c1,r1c2,r3c1,r3c2 => r3c2<>1, r3c2<>2"]


def test_no_rectangle_across_four_boxes_or_inside_one() -> None:
    for cells in (("r1c1", "r1c4", "r4c1", "r4c4"), ("r1c1", "r1c2", "r2c1", "r2c2")):
        grid = marked_grid(candidates=dict(zip(cells, ("12", "12", "12", "123"))))
        assert all_texts(grid) == []


def test_uniqueness_test_2() -> None:
    grid = marked_grid(candidates={"r1c1": "12", "r1c2": "12", "r4c1": "123", "r4c2": "123"})
    steps = run_pure(grid, find_unique_rectangles_2)
    assert [s.text.split(" => ")[0] for s in steps] == [f"Uniqueness Test 2: {RECT}"]
    row_4_and_box_4 = {27 + c for c in range(2, 9)} | {36, 37, 38, 45, 46, 47}
    assert set(steps[0].eliminations) == {(c, 3) for c in row_4_and_box_4}
    # the extras differ: no Type 2
    assert texts(marked_grid(candidates={"r1c1": "12", "r1c2": "12", "r4c1": "123", "r4c2": "124"}),
                 find_unique_rectangles_2) == []


def test_uniqueness_test_3() -> None:
    # the extras 3/4 of r4c1, r4c2 act as one cell and form a naked pair with r4c5
    grid = marked_grid(candidates={"r1c1": "12", "r1c2": "12", "r4c1": "123", "r4c2": "124", "r4c5": "34"})
    assert texts(grid, find_unique_rectangles_3) == [
        f"Uniqueness Test 3: {RECT} => r4c3,r4c4,r4c6,r4c7,r4c8,r4c9<>3, r4c3,r4c4,r4c6,r4c7,r4c8,r4c9<>4"]
    loose = marked_grid(candidates={"r1c1": "12", "r1c2": "12", "r4c1": "123", "r4c2": "124", "r4c5": "35"})
    assert texts(loose, find_unique_rectangles_3) == []


def test_uniqueness_test_4() -> None:
    # 1 has no place in row 4 but the two extra corners: one of them is 1, neither may be 2
    places = {1: [FULL] * 3 + ["11......."] + [FULL] * 5}
    grid = marked_grid(places=places, candidates={"r1c1": "12", "r1c2": "12", "r4c1": "123", "r4c2": "124"})
    assert texts(grid, find_unique_rectangles_4) == [f"Uniqueness Test 4: {RECT} => r4c1,r4c2<>2"]
    loose = marked_grid(candidates={"r1c1": "12", "r1c2": "12", "r4c1": "123", "r4c2": "124"})
    assert texts(loose, find_unique_rectangles_4) == []


def test_uniqueness_test_5() -> None:
    grid = marked_grid(candidates={"r1c1": "12", "r1c2": "123", "r4c1": "123", "r4c2": "12"})
    assert texts(grid, find_unique_rectangles_5) == [f"Uniqueness Test 5: {RECT} => r2c1,r3c1,r5c2,r6c2<>3"]
    assert texts(grid, find_unique_rectangles_2) == []  # diagonal extras are Type 5, not Type 2


def test_uniqueness_test_6() -> None:
    # 1 lies only on the rectangle in rows 1 and 4: it sits on one diagonal, and not on the extras' one
    places = {1: ["11......."] + [FULL] * 2 + ["11......."] + [FULL] * 5}
    grid = marked_grid(places=places, candidates={"r1c1": "12", "r1c2": "123", "r4c1": "124", "r4c2": "12"})
    assert texts(grid, find_unique_rectangles_6) == [f"Uniqueness Test 6: {RECT} => r1c2,r4c1<>1"]
    loose = marked_grid(candidates={"r1c1": "12", "r1c2": "123", "r4c1": "124", "r4c2": "12"})
    assert texts(loose, find_unique_rectangles_6) == []


def test_hidden_rectangle() -> None:
    # r1c1 holds only 1/2; 1 lies only on the rectangle in row 4 and column 2, so r4c2 cannot be 2
    places = {1: [FULL] + ["1.1111111"] * 2 + ["11......."] + ["1.1111111"] * 5}
    grid = marked_grid(places=places, candidates={"r1c1": "12", "r1c2": "123", "r4c1": "124", "r4c2": "125"})
    assert texts(grid, find_hidden_rectangles) == [f"Hidden Rectangle: {RECT} => r4c2<>2"]
    loose = marked_grid(candidates={"r1c1": "12", "r1c2": "123", "r4c1": "124", "r4c2": "125"})
    assert texts(loose, find_hidden_rectangles) == []


def test_avoidable_rectangle_type_1_needs_placed_cells_that_are_not_givens() -> None:
    grid = marked_grid()
    for cell, digit in ((0, 1), (1, 2), (27, 2)):  # r1c1=1, r1c2=2, r4c1=2 placed while solving
        grid.place(cell, digit)
    assert texts(grid, find_avoidable_rectangles_1) == [f"Avoidable Rectangle Type 1: {RECT} => r4c2<>1"]
    grid.givens |= 1  # r1c1 a given: the pattern cannot be swapped
    assert texts(grid, find_avoidable_rectangles_1) == []


def test_avoidable_rectangle_type_2() -> None:
    grid = marked_grid(candidates={"r4c1": "23", "r4c2": "13"})
    grid.place(0, 1)
    grid.place(1, 2)
    steps = run_pure(grid, find_avoidable_rectangles_2)
    assert [s.text.split(" => ")[0] for s in steps] == [f"Avoidable Rectangle Type 2: {RECT}"]
    assert {c for c, d in steps[0].eliminations} == {27 + c for c in range(2, 9)} | {36, 37, 38, 45, 46, 47}
    grid.givens |= 2
    assert texts(grid, find_avoidable_rectangles_2) == []


def test_bug_plus_1() -> None:
    case = load_cases(codes=["0610"])[0]
    grid = case.grid()
    assert texts(grid, find_bug_plus_1) == ["Bivalue Universal Grave + 1: 4 in r7c3 => r7c3<>3, r7c3<>6"]
    grid.eliminate(9, 6)  # r2c1 down to one candidate: no longer a bivalue grave
    assert texts(grid, find_bug_plus_1) == []


def test_uniqueness_finds_nothing_on_an_empty_board() -> None:
    for n in (4, 9, 16):
        grid = CandidateGrid.from_board(Board.empty(n))
        assert all(run_pure(grid, finder) == [] for finder in FINDERS)


def test_every_technique_is_marked_as_assuming_uniqueness() -> None:
    assert all(t.uniqueness for t in TECHNIQUES)


@pytest.mark.parametrize("code", sorted(REGLIB_FLOORS))
def test_reglib_pass_rate(code: str) -> None:
    technique = next(t for t in TECHNIQUES if code in t.hodoku_codes)
    cases = load_cases(codes=[code])
    failed = [case.line for case in cases if not case.check(technique.finder)]
    assert cases and 1 - len(failed) / len(cases) >= REGLIB_FLOORS[code], f"{code}: failing lines {failed}"


# HoDoKu's exemplar tags; the Avoidable Rectangle ones ('x' before) need HoDoKu's own path of harder steps
EXEMPLAR_TAGS = {"u1": "Uniqueness Test 1", "u2": "Uniqueness Test 2", "u3": "Uniqueness Test 3",
                 "u4": "Uniqueness Test 4", "u5": "Uniqueness Test 5", "u6": "Uniqueness Test 6",
                 "hr": "Hidden Rectangle", "bug1": "Bivalue Universal Grave + 1"}


@pytest.mark.parametrize("tag", sorted(EXEMPLAR_TAGS))
def test_hodoku_exemplars_need_the_technique(tag: str) -> None:
    technique = next(t for t in TECHNIQUES if t.name == EXEMPLAR_TAGS[tag])
    exemplars = hodoku_exemplars(tag)
    assert len(exemplars) >= 4
    for exemplar in exemplars:
        if exemplar.before == exemplar.after == "s":
            finders = SINGLES + [technique.finder]
        else:  # in HoDoKu's order: after the XY-Wing, before the colouring steps of the set
            ssts, cut = ssts_finders(), SSTS_NAMES.index("Simple Colors Trap")
            finders = ssts[:cut] + [technique.finder] + ssts[cut:]
        grid, fired = walk_sound(exemplar.puzzle, finders)
        assert fired.get(technique.name), exemplar.puzzle.to_line()
        assert grid.is_solved or exemplar.after == "x", exemplar.puzzle.to_line()


def test_sound_on_walks_and_diverse_states() -> None:
    corpus = mixed_corpus(50, {4: 30, 16: 2}, seed=4)
    assert all(count_solutions(puzzle, 2) == 1 for puzzle, _ in corpus)
    # uniqueness first in the walk: placed cells abound
    fired = sweep_sound(corpus, FINDERS, seed=9, states=3, walk=SINGLES + FINDERS + OTHERS)
    common = ("Uniqueness Test 1", "Uniqueness Test 3", "Uniqueness Test 4", "Hidden Rectangle")
    assert all(fired[name] >= 10 for name in common), fired


# patterns that these walks (almost) never meet; the regression library covers them
RARE_IN_WALKS = {"Uniqueness Test 5", "Avoidable Rectangle Type 2"}


@pytest.mark.slow
def test_sound_on_thousands_of_unique_puzzles() -> None:
    files = ("9x9/top1465.txt", "9x9/qqwing_expert.txt", "9x9/forum_hardest_1106.txt", "9x9/17clue_sample1000.txt")
    corpus = mixed_corpus(1000, {4: 300, 16: 10}, seed=29, files=files)
    assert all(count_solutions(puzzle, 2) == 1 for puzzle, _ in corpus)
    fired = sweep_sound(corpus, FINDERS, seed=19, states=2, walk=SINGLES + FINDERS + OTHERS)
    silent = {t.name for t in TECHNIQUES if not fired.get(t.name)}
    assert silent <= RARE_IN_WALKS, silent
