"""Colouring: hand-checked positions, HoDoKu's regression library and exemplars, soundness against the exact solver."""

from __future__ import annotations

import pytest

from ltn_sudoku.board import Board
from ltn_sudoku.candidates import CandidateGrid, Step
from ltn_sudoku.techniques.coloring import (
    TECHNIQUES,
    color_clusters,
    conjugate_pairs,
    find_3d_medusa,
    find_multi_colors_1,
    find_multi_colors_2,
    find_simple_colors_trap,
    find_simple_colors_wrap,
)
from ltn_sudoku.techniques.hodoku import hodoku_exemplars, load_cases, ssts_finders
from ltn_sudoku.techniques.soundness import SINGLES, run_pure, sweep_sound, walk_sound
from tests.techniques_helpers import marked_grid, mixed_corpus

FINDERS = [t.finder for t in TECHNIQUES]
REGLIB_FLOORS: dict[str, float] = {"0500": 1.0, "0501": 1.0, "0502": 1.0, "0503": 1.0}
FULL = "123456789"

# digit 1 has two places in row 1 (c1, c5), column 5 (r1, r4) and row 4 (c2, c5): one cluster of four cells
CHAIN = ["1...1....", "1111.1111", "1111.1111", ".1..1....", *["1111.1111"] * 5]
# as CHAIN, and column 2 keeps 1 only in r2 and r4: r2c2 takes r1c1's colour though both lie in box 1
WRAPPED = ["1...1....", "1111.1111", "1.11.1111", ".1..1....", *["1.11.1111"] * 5]
# digit 1: cluster r1c1 = r1c9 = r9c9 (row 1, column 9) and cluster r8c1 = r9c2 (box 7);
# r1c1 sees r8c1 (column 1) and r9c9 sees r9c2 (row 9)
TWO_CLUSTERS = ["1.......1", *["11111111."] * 5, "...11111.", "1..11111.", ".1.111111"]


def texts(grid: CandidateGrid, finder) -> list[str]:
    return [s.text for s in run_pure(grid, finder)]


def test_conjugate_pairs_and_clusters() -> None:
    grid = marked_grid(places={1: CHAIN})
    assert conjugate_pairs(grid, 1) == [(0, 0, 4), (3, 28, 31), (13, 4, 31)]
    assert color_clusters(grid, 1) == ((1 << 0 | 1 << 31, 1 << 4 | 1 << 28),)
    assert conjugate_pairs(grid, 2) == [] and color_clusters(grid, 2) == ()


def test_simple_colors_trap() -> None:
    grid = marked_grid(places={1: CHAIN})
    assert texts(grid, find_simple_colors_trap) == [
        "Simple Colors Trap: 1 in r1c1,r4c5 / r1c5,r4c2 => r2c2,r3c2,r5c1,r6c1<>1"]
    assert texts(grid, find_simple_colors_wrap) == []


def test_simple_colors_wrap_removes_the_colour_that_sees_itself() -> None:
    grid = marked_grid(places={1: WRAPPED})
    assert texts(grid, find_simple_colors_wrap) == [
        "Simple Colors Wrap: 1 in r1c1,r2c2,r4c5 / r1c5,r4c2 => r1c1,r2c2,r4c5<>1"]


def test_multi_colors_on_two_clusters_that_see_each_other() -> None:
    grid = marked_grid(places={1: TWO_CLUSTERS})
    assert texts(grid, find_multi_colors_1) == ["Multi-Colors 1: 1 in r1c1,r9c9 / r1c9 / r8c1 / r9c2 => r1c1,r9c9<>1"]
    assert texts(grid, find_multi_colors_2) == ["Multi-Colors 2: 1 in r1c1,r9c9 / r1c9 / r8c1 / r9c2 => r1c1,r9c9<>1"]
    assert texts(grid, find_simple_colors_trap) == texts(grid, find_simple_colors_wrap) == []


def test_multi_colors_must_not_fire_on_one_cluster() -> None:
    for places in (CHAIN, WRAPPED):
        grid = marked_grid(places={1: places})
        assert texts(grid, find_multi_colors_1) == texts(grid, find_multi_colors_2) == []


def test_3d_medusa_colours_across_digits() -> None:
    # 1 twice in row 1, 3 twice in column 9, bivalue r1c1 1/2, r1c9 1/3, r9c9 2/3: the 2s of r1c1 and r9c9 get
    # opposite colours, so r9c1 (seeing both) cannot be 2
    grid = marked_grid(places={1: ["1.......1", *[FULL] * 8], 3: [FULL, *["11111111."] * 7, FULL]},
                       candidates={"r1c1": "12", "r1c9": "13", "r9c9": "23"})
    assert texts(grid, find_3d_medusa) == ["3D Medusa: colour trap in r1c1,r1c9,r9c9 => r9c1<>2"]


def test_3d_medusa_leaves_one_digit_clusters_to_simple_colors() -> None:
    for places in (CHAIN, WRAPPED, TWO_CLUSTERS):
        assert texts(marked_grid(places={1: places}), find_3d_medusa) == []


def test_colouring_finds_nothing_on_an_empty_board() -> None:
    for n in (4, 9, 16):
        grid = CandidateGrid.from_board(Board.empty(n))
        assert all(run_pure(grid, finder) == [] for finder in FINDERS)


@pytest.mark.parametrize("code", sorted(REGLIB_FLOORS))
def test_reglib_pass_rate(code: str) -> None:
    technique = next(t for t in TECHNIQUES if code in t.hodoku_codes)
    cases = load_cases(codes=[code])
    failed = [case.line for case in cases if not case.check(technique.finder)]
    assert cases and 1 - len(failed) / len(cases) >= REGLIB_FLOORS[code], f"{code}: failing lines {failed}"


def test_hodoku_simple_colors_exemplars_solve_with_ssts() -> None:
    exemplars = hodoku_exemplars("sc")
    assert len(exemplars) == 7
    for exemplar in exemplars:
        grid, fired = walk_sound(exemplar.puzzle, ssts_finders())
        assert grid.is_solved and fired.get("Simple Colors Trap", 0) + fired.get("Simple Colors Wrap", 0), \
            exemplar.puzzle.to_line()


def test_sound_on_walks_and_diverse_states() -> None:
    medusa_kinds: set[str] = set()

    def medusa(grid: CandidateGrid) -> list[Step]:
        """3D Medusa, noting which of its two kinds each step is."""
        steps = find_3d_medusa(grid)
        medusa_kinds.update(s.text.split(" in ")[0] for s in steps)
        return steps

    finders = [t.finder for t in TECHNIQUES if t.finder is not find_3d_medusa] + [medusa]
    fired = sweep_sound(mixed_corpus(60, {4: 30, 16: 2}, seed=2), finders, seed=8, states=3, walk=SINGLES + FINDERS)
    assert all(fired[t.name] >= 20 for t in TECHNIQUES), fired
    assert medusa_kinds == {"3D Medusa: colour wrap", "3D Medusa: colour trap"}


@pytest.mark.slow
def test_sound_on_thousands_of_puzzles() -> None:
    files = ("9x9/top1465.txt", "9x9/qqwing_expert.txt", "9x9/forum_hardest_1106.txt",
             "9x9/serg_benchmark_sample2000.txt")
    corpus = mixed_corpus(1500, {4: 300, 16: 10}, seed=23, files=files)
    assert sweep_sound(corpus, FINDERS, seed=17, states=2, walk=SINGLES + FINDERS)
