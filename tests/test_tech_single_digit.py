"""Single-digit patterns (Skyscraper, 2-String Kite, Turbot Fish, Empty Rectangle): hand-checked positions and
soundness."""

from __future__ import annotations

import pytest

from ltn_sudoku.techniques import fish, intersections, single_digit, singles, subsets
from ltn_sudoku.techniques.base import Finder
from ltn_sudoku.techniques.single_digit import (
    find_empty_rectangles,
    find_skyscrapers,
    find_turbot_fish,
    find_two_string_kites,
    strong_links,
)
from ltn_sudoku.techniques.soundness import run_pure, sweep_sound
from tests.techniques_helpers import cell_index, marked_grid, mixed_corpus

FINDERS = [t.finder for t in single_digit.TECHNIQUES]


def _picture(rows: dict[int, str], n: int = 9, other: str | None = None) -> list[str]:
    """The digit everywhere (or as `other`) except in the given 1-based rows."""
    return [rows.get(r, other or "x" * n) for r in range(1, n + 1)]


def test_strong_links_are_units_with_two_places() -> None:
    grid = marked_grid(4, places={1: [".x.x", "xxxx", ".xxx", "xxxx"]})
    assert strong_links(grid, 1, range(4)) == [(1, 3, 0)]
    assert strong_links(grid, 1, range(4, 8)) == [(4, 12, 4)]


def test_skyscraper() -> None:
    grid = marked_grid(places={6: _picture({3: ".x....x..", 6: ".x.....x."})})
    steps = run_pure(grid, find_skyscrapers)
    assert [s.text for s in steps] == [
        "Skyscraper: 6 in r3c7,r6c8 (connected by r3c2,r6c2) => r1c8,r2c8,r4c7,r5c7<>6"]
    assert find_turbot_fish(grid) == [] and find_two_string_kites(grid) == []


def test_aligned_outer_ends_make_an_x_wing_not_a_skyscraper() -> None:
    assert find_skyscrapers(marked_grid(places={6: _picture({3: ".x....x..", 6: ".x....x.."})})) == []


def test_two_string_kite() -> None:
    rows = {1: "..x....x.", 3: "xxxxxxxxx", 7: "xxxxxxxxx"}
    grid = marked_grid(places={4: _picture(rows, other=".xxxxxxxx")})
    steps = run_pure(grid, find_two_string_kites)
    assert [s.text for s in steps] == ["2-String Kite: 4 in r1c8,r7c1 (connected by r1c3,r3c1) => r7c8<>4"]
    assert find_skyscrapers(grid) == [] and find_turbot_fish(grid) == [] and find_empty_rectangles(grid) == []


def test_no_kite_when_the_links_meet_in_no_box() -> None:
    rows = {1: "...x...x.", 3: "xxxxxxxxx", 7: "xxxxxxxxx"}
    assert find_two_string_kites(marked_grid(places={4: _picture(rows, other=".xxxxxxxx")})) == []


def test_turbot_fish_through_a_box_link() -> None:
    rows = {1: "...xxxxxx", 2: ".x.xxxxxx", 3: "..xxxxxxx", 7: ".x.....x."}
    grid = marked_grid(places={1: _picture(rows)})
    steps = run_pure(grid, find_turbot_fish)
    assert [s.text for s in steps] == ["Turbot Fish: 1 r7c8 =1= r7c2 -1- r2c2 =1= r3c3 => r3c8<>1"]
    assert find_skyscrapers(grid) == [] and find_two_string_kites(grid) == []


# Digit 9: box 5 holds it only at r4c5, r5c4, r5c6 (row 5 and column 5 of the box); column 8 only at r5c8, r7c8.
EMPTY_RECTANGLE = ["xxxxxxx.x", "xxxxxxx.x", "xxxxxxx.x",
                   "xxx.x.x.x", "xxxx.xxxx", "xxx...x.x",
                   "xxxxxxxxx", "xxxxxxx.x", "xxxxxxx.x"]


def test_empty_rectangle() -> None:
    grid = marked_grid(places={9: EMPTY_RECTANGLE})
    steps = run_pure(grid, find_empty_rectangles)
    assert [s.text for s in steps] == ["Empty Rectangle: 9 in b5 (r5c8,r7c8) => r7c5<>9"]


def test_no_empty_rectangle_when_the_box_is_not_on_one_row_and_column() -> None:
    picture = EMPTY_RECTANGLE[:3] + ["xxxxx.x.x"] + EMPTY_RECTANGLE[4:]  # r4c4 added to box 5
    assert find_empty_rectangles(marked_grid(places={9: picture})) == []


def test_empty_rectangle_with_two_box_places_only_on_request() -> None:
    picture = EMPTY_RECTANGLE[:3] + ["xxx.x.x.x", "xxx..xxxx"] + EMPTY_RECTANGLE[5:]  # box 5: r4c5, r5c4 only
    grid = marked_grid(places={9: picture})
    assert find_empty_rectangles(grid) == []
    assert "Empty Rectangle: 9 in b5 (r5c8,r7c8) => r7c5<>9" in [
        s.text for s in find_empty_rectangles(grid, two_candidates=True)]


def test_patterns_on_4x4_and_16x16() -> None:
    small = marked_grid(4, places={1: [".x.x", "xxxx", ".xxx", "xxxx"]})
    assert [s.text for s in find_two_string_kites(small)] == [
        "2-String Kite: 1 in r1c4,r4c1 (connected by r1c2,r2c1) => r4c4<>1"]
    rows = {1: "x.......x.......", 3: "x.........x....."}
    big = marked_grid(16, places={2: _picture(rows, 16)})
    steps = find_skyscrapers(big)
    assert len(steps) == 1 and {c for c, _ in steps[0].eliminations} == {
        cell_index(f"r{r}c{c}", 16) for r in (2, 4) for c in range(9, 13)}


def test_nothing_on_an_empty_grid() -> None:
    for n in (4, 9, 16):
        grid = marked_grid(n)
        assert all(run_pure(grid, f) == [] for f in FINDERS)


def _pipeline() -> list[Finder]:
    families = singles.TECHNIQUES + intersections.TECHNIQUES + subsets.TECHNIQUES + fish.TECHNIQUES[:3]
    return [t.finder for t in families + single_digit.TECHNIQUES]


def test_single_digit_patterns_sound_while_solving() -> None:
    fired = sweep_sound(mixed_corpus(40, {4: 10, 16: 2}, seed=15), [], seed=0, states=0, walk=_pipeline())
    assert {t.name for t in single_digit.TECHNIQUES} <= set(fired)


def test_single_digit_patterns_sound_on_diverse_states() -> None:
    checked = sweep_sound(mixed_corpus(60, {4: 20, 16: 3}, seed=16), FINDERS, seed=5, states=3)
    assert sum(checked.values()) > 200


@pytest.mark.slow
def test_single_digit_patterns_sound_on_thousands_of_puzzles() -> None:
    corpus = mixed_corpus(500, {4: 100, 16: 6}, seed=17,
                          files=("9x9/top1465.txt", "9x9/qqwing_expert.txt", "9x9/17clue_sample1000.txt"))
    assert sweep_sound(corpus, FINDERS, seed=15, states=2, walk=_pipeline())
