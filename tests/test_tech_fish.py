"""Basic, finned and sashimi fish: hand-checked positions and soundness."""

from __future__ import annotations

import random

import pytest

from ltn_sudoku.candidates import CandidateGrid
from ltn_sudoku.techniques import fish, intersections, singles, subsets
from ltn_sudoku.techniques.base import Finder
from ltn_sudoku.techniques.fish import (
    find_finned_jellyfish,
    find_finned_swordfish,
    find_finned_x_wings,
    find_jellyfish,
    find_sashimi_swordfish,
    find_sashimi_x_wings,
    find_swordfish,
    find_x_wings,
    line_patterns,
)
from ltn_sudoku.techniques.soundness import run_pure, states_from_puzzle, sweep_sound
from tests.techniques_helpers import cell_index, marked_grid, mixed_corpus

FINDERS = [t.finder for t in fish.TECHNIQUES]
FULL = "xxxxxxxxx"


def _picture(rows: dict[int, str], n: int = 9) -> list[str]:
    """Digit everywhere except in the given (1-based) rows, which get their own pattern."""
    return [rows.get(r, "x" * n) for r in range(1, n + 1)]


def _cells(*names: str) -> list[int]:
    return [cell_index(name) for name in names]


def test_line_patterns_transpose() -> None:
    grid = marked_grid(4, places={2: ["x...", "..x.", "x..x", "...."]})
    assert line_patterns(grid, 2) == ([0b0001, 0b0100, 0b1001, 0], [0b0101, 0, 0b0010, 0b0100])


def test_x_wing_in_rows() -> None:
    grid = marked_grid(places={5: _picture({2: "..x....x.", 7: "..x....x."})})
    steps = run_pure(grid, find_x_wings)
    assert len(steps) == 1 and steps[0].text.startswith("X-Wing: 5 r2,r7 c3,c8 => ")
    assert {c for c, _ in steps[0].eliminations} == {cell_index(f"r{r}c{c}") for r in (1, 3, 4, 5, 6, 8, 9)
                                                     for c in (3, 8)}
    assert find_finned_x_wings(grid) == [] and find_sashimi_x_wings(grid) == []


def test_no_x_wing_when_the_columns_differ() -> None:
    assert find_x_wings(marked_grid(places={5: _picture({2: "..x....x.", 7: "..x.....x"})})) == []


def test_swordfish_and_jellyfish() -> None:
    sword = marked_grid(places={3: _picture({1: ".x.x.....", 5: "...x...x.", 9: ".x.....x."})})
    steps = run_pure(sword, find_swordfish)
    assert [s.text.split(" => ")[0] for s in steps] == ["Swordfish: 3 r1,r5,r9 c2,c4,c8"]
    assert len(steps[0].eliminations) == 6 * 3
    assert find_x_wings(sword) == []
    jelly = marked_grid(places={4: _picture({1: "xx.......", 3: ".xx......", 5: "..xx.....", 7: "x..x....."})})
    steps = run_pure(jelly, find_jellyfish)
    assert [s.text.split(" => ")[0] for s in steps] == ["Jellyfish: 4 r1,r3,r5,r7 c1,c2,c3,c4"]
    assert find_swordfish(jelly) == []


def test_finned_x_wing_eliminates_only_in_the_fin_box() -> None:
    grid = marked_grid(places={3: _picture({1: "..x.x....", 5: "..xxx...."})})
    steps = run_pure(grid, find_finned_x_wings)
    assert [s.text for s in steps] == ["Finned X-Wing: 3 r1,r5 c3,c5 fr5c4 => r4c5,r6c5<>3"]
    assert find_x_wings(grid) == [] and find_sashimi_x_wings(grid) == []


def test_sashimi_x_wing_misses_a_body_cell() -> None:
    grid = marked_grid(places={3: _picture({1: "..x.x....", 5: "..xx....."})})
    texts = sorted(s.text for s in run_pure(grid, find_sashimi_x_wings))
    assert texts == ["Sashimi X-Wing: 3 r1,r5 c3,c4 fr1c5 => r2c4,r3c4<>3",
                     "Sashimi X-Wing: 3 r1,r5 c3,c5 fr5c4 => r4c5,r6c5<>3"]
    assert find_finned_x_wings(grid) == []


def test_no_finned_fish_with_fins_in_two_boxes() -> None:
    grid = marked_grid(places={3: _picture({1: "..x.x....", 5: "..x.x.x.x"})})
    assert find_finned_x_wings(grid) == [] and find_sashimi_x_wings(grid) == []


def test_finned_and_sashimi_swordfish_and_finned_jellyfish() -> None:
    finned = marked_grid(places={3: _picture({1: ".x.x.....", 5: "...x...x.", 9: ".x.....xx"})})
    assert [s.text for s in run_pure(finned, find_finned_swordfish)] == [
        "Finned Swordfish: 3 r1,r5,r9 c2,c4,c8 fr9c9 => r7c8,r8c8<>3"]
    sashimi = marked_grid(places={3: _picture({1: ".x.x.....", 5: "...x...x.", 9: ".x......x"})})
    assert "Sashimi Swordfish: 3 r1,r5,r9 c2,c4,c8 fr9c9 => r7c8,r8c8<>3" in [
        s.text for s in run_pure(sashimi, find_sashimi_swordfish)]
    jelly = marked_grid(places={4: _picture({1: "xx.......", 3: ".xx......", 5: "..xx.....", 7: "x..x.x..."})})
    assert [s.text for s in run_pure(jelly, find_finned_jellyfish)] == [
        "Finned Jellyfish: 4 r1,r3,r5,r7 c1,c2,c3,c4 fr7c6 => r8c4,r9c4<>4"]


def test_fish_on_4x4_and_16x16() -> None:
    small = marked_grid(4, places={1: ["x.x.", "xxxx", "x.x.", "xxxx"]})
    assert [s.text for s in find_x_wings(small)] == ["X-Wing: 1 r1,r3 c1,c3 => r2c1,r2c3,r4c1,r4c3<>1",
                                                    "X-Wing: 1 c2,c4 r2,r4 => r2c1,r2c3,r4c1,r4c3<>1"]
    big_rows = {3: "x" + "." * 14 + "x", 9: "x" + "." * 14 + "x"}
    big = marked_grid(16, places={7: _picture(big_rows, 16)})
    steps = find_x_wings(big)
    assert len(steps) == 1 and len(steps[0].eliminations) == 2 * 14


def test_nothing_on_an_empty_grid() -> None:
    for n in (4, 9, 16):
        grid = marked_grid(n)
        assert all(run_pure(grid, f) == [] for f in FINDERS)


def _pipeline() -> list[Finder]:
    return [t.finder for t in singles.TECHNIQUES + intersections.TECHNIQUES + subsets.TECHNIQUES + fish.TECHNIQUES]


def test_fish_sound_while_solving() -> None:
    fired = sweep_sound(mixed_corpus(40, {4: 10, 16: 2}, seed=8), [], seed=0, states=0, walk=_pipeline())
    assert {"X-Wing", "Finned X-Wing", "Sashimi X-Wing"} <= set(fired)


def test_fish_sound_on_diverse_states() -> None:
    checked = sweep_sound(mixed_corpus(40, {4: 20, 16: 2}, seed=9), FINDERS, seed=4, states=3)
    assert sum(checked.values()) > 200


@pytest.mark.slow
def test_fish_sound_on_thousands_of_puzzles() -> None:
    corpus = mixed_corpus(300, {4: 200, 16: 6}, seed=10,
                          files=("9x9/top1465.txt", "9x9/qqwing_expert.txt", "9x9/17clue_sample1000.txt"))
    assert sweep_sound(corpus, FINDERS, seed=14, states=2, walk=_pipeline())


def _fresh_fish(grid: CandidateGrid) -> list[list[str]]:
    """Every fish finder's step texts on a grid, its searches made afresh (no cached step of another path)."""
    for cache in (fish._BASIC_FISH, fish._FINNED_FISH, fish._FINNED_SEARCHES):
        cache.clear()
    return [[s.text for s in run_pure(grid, finder)] for finder in FINDERS]


def test_the_line_set_tables_find_what_the_loops_find(monkeypatch: pytest.MonkeyPatch) -> None:
    """Up to 16x16 the fish read a set of lines' cells and the fins' one-stack test from tables built once; the
    loops they replace (still used beyond 16x16) find the same steps on diverse states of 9x9 and 16x16 puzzles."""
    rng = random.Random(3)
    grids = [grid for puzzle, solution in mixed_corpus(12, {16: 2}, seed=11)
             for grid in states_from_puzzle(puzzle, solution, rng, count=2)]
    with_tables = [_fresh_fish(grid) for grid in grids]
    monkeypatch.setattr(fish, "TABLE_MAX_N", 0)
    assert [_fresh_fish(grid) for grid in grids] == with_tables
    assert sum(bool(texts) for found in with_tables for texts in found) >= 10  # the states do hold fish
