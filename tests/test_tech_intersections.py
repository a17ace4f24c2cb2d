"""Intersections (locked candidates, locked pair / triple): hand-checked positions and soundness."""

from __future__ import annotations

import pytest

from ltn_sudoku.techniques import intersections, singles
from ltn_sudoku.techniques.intersections import (
    find_locked_candidates_claiming,
    find_locked_candidates_pointing,
    find_locked_pairs,
    find_locked_triples,
)
from ltn_sudoku.techniques.soundness import run_pure, sweep_sound
from ltn_sudoku.techniques.subsets import find_naked_pairs, find_naked_triples
from tests.techniques_helpers import cell_index, marked_grid, mixed_corpus

FINDERS = [t.finder for t in intersections.TECHNIQUES]
FULL = "xxxxxxxxx"


def _cells(*names: str, n: int = 9) -> set[int]:
    return {cell_index(name, n) for name in names}


def test_pointing_clears_the_line_outside_the_box() -> None:
    grid = marked_grid(places={1: ["xx.xxxxxx", "...xxxxxx", "...xxxxxx"] + [FULL] * 6})
    steps = run_pure(grid, find_locked_candidates_pointing)
    assert [s.text for s in steps] == [
        "Locked Candidates Type 1 (Pointing): 1 in b1 => r1c4,r1c5,r1c6,r1c7,r1c8,r1c9<>1"]
    assert run_pure(grid, find_locked_candidates_claiming) == []


def test_pointing_needs_one_line_and_something_to_remove() -> None:
    diagonal = marked_grid(places={1: ["x..xxxxxx", ".x.xxxxxx", "...xxxxxx"] + [FULL] * 6})
    assert find_locked_candidates_pointing(diagonal) == []
    nothing_left = marked_grid(places={1: ["xx.......", "...xxxxxx", "...xxxxxx"] + [FULL] * 6})
    assert find_locked_candidates_pointing(nothing_left) == []


def test_claiming_clears_the_box_outside_the_line() -> None:
    grid = marked_grid(places={1: ["xx......."] + [FULL] * 8})
    steps = run_pure(grid, find_locked_candidates_claiming)
    assert [s.text for s in steps] == [
        "Locked Candidates Type 2 (Claiming): 1 in r1 => r2c1,r2c2,r2c3,r3c1,r3c2,r3c3<>1"]
    assert run_pure(grid, find_locked_candidates_pointing) == []


def test_claiming_in_a_column_of_a_4x4() -> None:
    grid = marked_grid(4, places={3: ["xxxx", "xxxx", "..x.", "...x"]})
    texts = [s.text for s in find_locked_candidates_claiming(grid)]
    assert texts == ["Locked Candidates Type 2 (Claiming): 3 in c1 => r1c2,r2c2<>3",
                     "Locked Candidates Type 2 (Claiming): 3 in c2 => r1c1,r2c1<>3"]


def test_locked_pair_clears_box_and_line_and_is_no_naked_pair() -> None:
    grid = marked_grid(candidates={"r1c1": "12", "r1c2": "12"})
    steps = run_pure(grid, find_locked_pairs)
    assert len(steps) == 1 and steps[0].text.startswith("Locked Pair: 1,2 in r1c1,r1c2 => ")
    victims = _cells("r1c3", "r2c1", "r2c2", "r2c3", "r3c1", "r3c2", "r3c3") | {cell_index(f"r1c{c}") for c in
                                                                               range(4, 10)}
    assert set(steps[0].eliminations) == {(c, d) for c in victims for d in (1, 2)}
    assert find_naked_pairs(grid) == []


def test_pair_in_an_intersection_that_only_clears_the_line_is_a_naked_pair() -> None:
    others = {name: "3456789" for name in ("r1c3", "r2c1", "r2c2", "r2c3", "r3c1", "r3c2", "r3c3")}
    grid = marked_grid(candidates={"r1c1": "12", "r1c2": "12", **others})
    assert find_locked_pairs(grid) == []
    steps = find_naked_pairs(grid)
    assert len(steps) == 1 and steps[0].eliminations == tuple(
        (cell_index(f"r1c{c}"), d) for d in (1, 2) for c in range(4, 10))


def test_pair_that_only_clears_its_intersection_is_locked_as_in_hodoku() -> None:
    others = {name: "3456789" for name in ("r2c1", "r2c2", "r2c3", "r3c1", "r3c2", "r3c3")}
    others.update({f"r1c{c}": "3456789" for c in range(4, 10)})
    grid = marked_grid(candidates={"r1c1": "12", "r1c2": "12", "r1c3": "123", **others})
    assert [s.text for s in find_locked_pairs(grid)] == ["Locked Pair: 1,2 in r1c1,r1c2 => r1c3<>1, r1c3<>2"]
    assert find_naked_pairs(grid) == []


def test_locked_triple() -> None:
    grid = marked_grid(candidates={"r2c4": "12", "r2c5": "23", "r2c6": "13"})
    steps = run_pure(grid, find_locked_triples)
    assert len(steps) == 1 and steps[0].text.startswith("Locked Triple: 1,2,3 in r2c4,r2c5,r2c6 => ")
    assert len(steps[0].eliminations) == 3 * (6 + 6)
    assert find_naked_triples(grid) == [] and find_locked_pairs(grid) == []


def test_no_locked_subset_outside_an_intersection() -> None:
    grid = marked_grid(candidates={"r1c1": "12", "r1c5": "12"})
    assert find_locked_pairs(grid) == []
    assert len(find_naked_pairs(grid)) == 1


def test_nothing_on_an_empty_grid() -> None:
    for n in (4, 9, 16):
        grid = marked_grid(n)
        assert all(run_pure(grid, f) == [] for f in FINDERS)


def test_intersections_sound_while_solving() -> None:
    finders = [t.finder for t in singles.TECHNIQUES + intersections.TECHNIQUES]
    fired = sweep_sound(mixed_corpus(40, {4: 10, 16: 3}, seed=1), [], seed=0, states=0, walk=finders)
    assert {t.name for t in intersections.TECHNIQUES} - {"Locked Triple"} <= set(fired)


def test_intersections_sound_on_diverse_states() -> None:
    checked = sweep_sound(mixed_corpus(60, {4: 20, 16: 3}, seed=4), FINDERS, seed=2, states=3)
    assert sum(checked.values()) > 200


@pytest.mark.slow
def test_intersections_sound_on_thousands_of_puzzles() -> None:
    finders = [t.finder for t in singles.TECHNIQUES + intersections.TECHNIQUES]
    corpus = mixed_corpus(1500, {4: 200, 16: 20}, seed=6,
                          files=("9x9/top1465.txt", "9x9/qqwing_expert.txt", "9x9/17clue_sample1000.txt"))
    assert sweep_sound(corpus, FINDERS, seed=12, states=2, walk=finders)
