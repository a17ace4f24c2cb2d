"""Naked and hidden subsets: hand-checked positions and soundness."""

from __future__ import annotations

import pytest

from ltn_sudoku.candidates import CandidateGrid
from ltn_sudoku.techniques import intersections, singles, subsets
from ltn_sudoku.techniques.soundness import run_pure, sweep_sound
from ltn_sudoku.techniques.subsets import (
    find_hidden_pairs,
    find_hidden_quadruples,
    find_hidden_triples,
    find_naked_pairs,
    find_naked_quadruples,
    find_naked_triples,
    small_unions,
)
from tests.techniques_helpers import cell_index, marked_grid, mixed_corpus

FINDERS = [t.finder for t in subsets.TECHNIQUES]
FULL = "xxxxxxxxx"


def _row1(*cols: int) -> list[str]:
    """A picture: the digit only in the given columns of row 1, anywhere in the other rows."""
    return ["".join("x" if c in cols else "." for c in range(1, 10))] + [FULL] * 8


def test_small_unions_prunes_wide_choices() -> None:
    assert list(small_unions([0b011, 0b110, 0b001, 0b100], 2)) == [((0, 2), 0b011), ((1, 3), 0b110), ((2, 3), 0b101)]


def test_naked_pair_in_a_column() -> None:
    grid = marked_grid(candidates={"r1c1": "47", "r5c1": "47"})
    steps = run_pure(grid, find_naked_pairs)
    assert len(steps) == 1
    assert steps[0].text == ("Naked Pair: 4,7 in r1c1,r5c1 => r2c1,r3c1,r4c1,r6c1,r7c1,r8c1,r9c1<>4, "
                             "r2c1,r3c1,r4c1,r6c1,r7c1,r8c1,r9c1<>7")


def test_naked_triple_and_quadruple_in_a_row() -> None:
    triple = marked_grid(candidates={"r1c1": "12", "r1c5": "23", "r1c9": "13"})
    steps = run_pure(triple, find_naked_triples)
    assert len(steps) == 1 and set(steps[0].eliminations) == {
        (cell_index(f"r1c{c}"), d) for c in (2, 3, 4, 6, 7, 8) for d in (1, 2, 3)}
    quad = marked_grid(candidates={"r1c1": "12", "r1c4": "23", "r1c7": "34", "r1c9": "14"})
    steps = run_pure(quad, find_naked_quadruples)
    assert [s.text.split(" => ")[0] for s in steps] == ["Naked Quadruple: 1,2,3,4 in r1c1,r1c4,r1c7,r1c9"]
    assert find_naked_triples(quad) == [] and find_naked_pairs(quad) == []


def test_no_naked_pair_without_a_shared_unit_or_without_effect() -> None:
    assert find_naked_pairs(marked_grid(candidates={"r1c1": "12", "r2c4": "12"})) == []
    rest_of_column = {f"r{r}c1": "3456789" for r in range(2, 10)}
    assert find_naked_pairs(marked_grid(candidates={"r1c1": "12", "r5c1": "12", **rest_of_column})) == []


def test_hidden_pair_in_a_row() -> None:
    grid = marked_grid(places={6: _row1(3, 8), 7: _row1(3, 8)})
    steps = run_pure(grid, find_hidden_pairs)
    assert len(steps) == 1 and steps[0].text.startswith("Hidden Pair: 6,7 in r1c3,r1c8 => ")
    assert set(steps[0].eliminations) == {(cell_index(f"r1c{c}"), d) for c in (3, 8) for d in (1, 2, 3, 4, 5, 8, 9)}


def test_hidden_triple_and_quadruple() -> None:
    triple = marked_grid(places={1: _row1(1, 5), 2: _row1(5, 9), 3: _row1(1, 9)})
    steps = run_pure(triple, find_hidden_triples)
    assert [s.text.split(" => ")[0] for s in steps] == ["Hidden Triple: 1,2,3 in r1c1,r1c5,r1c9"]
    assert len(steps[0].eliminations) == 3 * 6
    assert find_hidden_pairs(triple) == []
    quad = marked_grid(places={1: _row1(1, 2), 2: _row1(2, 5), 3: _row1(5, 9), 4: _row1(1, 9)})
    assert [s.text.split(" => ")[0] for s in run_pure(quad, find_hidden_quadruples)] == [
        "Hidden Quadruple: 1,2,3,4 in r1c1,r1c2,r1c5,r1c9"]


def test_no_hidden_pair_when_the_places_differ() -> None:
    assert find_hidden_pairs(marked_grid(places={6: _row1(3, 8), 7: _row1(3, 9)})) == []


def test_subsets_on_4x4_and_16x16() -> None:
    small = marked_grid(4, candidates={"r1c1": "12", "r1c3": "12"})
    assert [s.text for s in find_naked_pairs(small)] == ["Naked Pair: 1,2 in r1c1,r1c3 => r1c2,r1c4<>1, r1c2,r1c4<>2"]
    picture = ["x......x........"] + ["x" * 16] * 15
    big = marked_grid(16, places={5: picture, 6: picture})
    steps = find_hidden_pairs(big)
    assert len(steps) == 1 and len(steps[0].eliminations) == 2 * 14


def test_nothing_on_an_empty_grid() -> None:
    for n in (4, 9, 16):
        grid = marked_grid(n)
        assert all(run_pure(grid, f) == [] for f in FINDERS)


def test_subsets_sound_while_solving() -> None:
    finders = [t.finder for t in singles.TECHNIQUES + intersections.TECHNIQUES + subsets.TECHNIQUES]
    fired = sweep_sound(mixed_corpus(40, {4: 10, 16: 3}, seed=1), [], seed=0, states=0, walk=finders)
    assert {"Naked Pair", "Hidden Pair", "Naked Triple"} <= set(fired)


def test_subsets_sound_on_diverse_states() -> None:
    checked = sweep_sound(mixed_corpus(60, {4: 20, 16: 3}, seed=5), FINDERS, seed=3, states=3)
    assert sum(checked.values()) > 200


@pytest.mark.slow
def test_subsets_sound_on_thousands_of_puzzles() -> None:
    finders = [t.finder for t in singles.TECHNIQUES + intersections.TECHNIQUES + subsets.TECHNIQUES]
    corpus = mixed_corpus(600, {4: 100, 16: 10}, seed=7,
                          files=("9x9/top1465.txt", "9x9/qqwing_expert.txt", "9x9/17clue_sample1000.txt"))
    assert sweep_sound(corpus, FINDERS, seed=13, states=2, walk=finders)


def test_cached_subsets_along_a_path_equal_a_fresh_search() -> None:
    """Along a solving path the subsets' searches are kept per group, keyed by the candidates they read: at every
    state of the path each subset finder (and the locked subsets, which share the naked search) finds what a search
    with empty caches finds, so no key leaves out a cell its search reads."""
    finders = [*FINDERS, intersections.find_locked_pairs, intersections.find_locked_triples]
    walk = [t.finder for t in singles.TECHNIQUES + intersections.TECHNIQUES] + finders
    compared = 0
    for puzzle, _ in mixed_corpus(8, {16: 1}, seed=5):
        grid = CandidateGrid.from_board(puzzle)
        for _ in range(120):
            cached = [[s.text for s in finder(grid)] for finder in finders]
            subsets._NAKED.clear()
            subsets._HIDDEN.clear()
            assert [[s.text for s in finder(grid)] for finder in finders] == cached, puzzle.to_line()
            compared += sum(map(bool, cached))
            step = next((steps[0] for finder in walk if (steps := finder(grid))), None)
            if step is None:
                break
            grid.apply(step)
    assert compared >= 20  # the paths met subsets
