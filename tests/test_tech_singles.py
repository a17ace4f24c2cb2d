"""Singles: hand-checked positions, soundness against the exact solver, any board size."""

from __future__ import annotations

import pytest

from ltn_sudoku.board import Board
from ltn_sudoku.candidates import CandidateGrid
from ltn_sudoku.io import parse_board_text
from ltn_sudoku.techniques.singles import TECHNIQUES, find_full_houses, find_hidden_singles, find_naked_singles
from ltn_sudoku.techniques.soundness import run_pure, sweep_sound, walk_sound
from tests.techniques_helpers import mixed_corpus

FINDERS = [t.finder for t in TECHNIQUES]


def _grid(rows: list[str]) -> CandidateGrid:
    return CandidateGrid.from_board(parse_board_text("\n".join(rows)))


EMPTY_ROWS = ["........."] * 9


def test_full_house_fills_the_last_cell_of_a_unit() -> None:
    grid = _grid(["12345678."] + EMPTY_ROWS[1:])
    steps = run_pure(grid, find_full_houses)
    assert [s.text for s in steps] == ["Full House: r1c9=9"]
    assert steps[0].placements == ((8, 9),) and steps[0].units == (0,)


def test_full_house_needs_exactly_one_empty_cell() -> None:
    assert run_pure(_grid(["1234567.."] + EMPTY_ROWS[1:]), find_full_houses) == []
    assert run_pure(CandidateGrid.from_board(Board.empty(9)), find_full_houses) == []


def test_full_house_reports_a_cell_once_even_when_it_ends_two_units() -> None:
    rows = ["12345678.", "........1", "........2", "........3", "........4", "........5", "........6",
            "........7", "........8"]
    steps = find_full_houses(_grid(rows))
    assert [s.text for s in steps] == ["Full House: r1c9=9"]


def test_naked_single_is_the_only_candidate_left() -> None:
    # r1c1 sees 2..9 through its row and column but no unit is full
    grid = _grid([".2345....", "6........", "7........", "8........", "9........"] + EMPTY_ROWS[5:])
    texts = [s.text for s in run_pure(grid, find_naked_singles)]
    assert texts == ["Naked Single: r1c1=1"]
    assert find_full_houses(grid) == []


def test_hidden_single_in_a_box() -> None:
    # 1s in r2, r3, c2, c3 leave r1c1 as the only place for 1 in box 1
    rows = [".........", "...1.....", "......1..", ".1.......", ".........", ".........", "..1......",
            ".........", "........."]
    grid = _grid(rows)
    steps = run_pure(grid, find_hidden_singles)
    assert "Hidden Single: r1c1=1" in [s.text for s in steps]
    box_step = next(s for s in steps if s.placements == ((0, 1),))
    assert box_step.units == (18,)  # box 1 (units: rows 0-8, cols 9-17, boxes 18-26)
    assert grid.count(0) > 1  # not a naked single
    assert find_naked_singles(grid) == []


def test_no_single_on_an_empty_board() -> None:
    for n in (4, 9, 16):
        grid = CandidateGrid.from_board(Board.empty(n))
        assert all(run_pure(grid, f) == [] for f in FINDERS)


def test_singles_on_4x4_and_16x16() -> None:
    small = CandidateGrid.from_board(parse_board_text("1...\n..1.\n...1\n...."))
    assert [s.text for s in find_hidden_singles(small)] == ["Hidden Single: r4c2=1"]
    assert small.count(13) == 4
    assert [s.text for s in find_naked_singles(CandidateGrid.from_board(parse_board_text("123.\n....\n....\n....")))] \
        == ["Naked Single: r1c4=4"]
    values = [0] * 256
    values[:15] = range(1, 16)
    steps = find_full_houses(CandidateGrid.from_board(Board(values, 16)))
    assert [s.text for s in steps] == ["Full House: r1c16=16"]


def test_singles_solve_easy_puzzles_soundly() -> None:
    for puzzle, solution in mixed_corpus(30, {4: 20, 16: 3}, files=("9x9/qqwing_simple.txt", "9x9/qqwing_easy.txt")):
        grid, fired = walk_sound(puzzle, FINDERS, solution)
        if puzzle.n <= 9:  # the generated 16x16 ones may need more than singles
            assert grid.is_solved, puzzle.to_line()
        assert fired


def test_singles_sound_on_diverse_states() -> None:
    checked = sweep_sound(mixed_corpus(60, {4: 20, 16: 3}, seed=3), FINDERS, seed=7, states=3)
    assert sum(checked.values()) > 1000


@pytest.mark.slow
def test_singles_sound_on_thousands_of_puzzles() -> None:
    corpus = mixed_corpus(1500, {4: 200, 16: 20}, seed=5,
                          files=("9x9/top1465.txt", "9x9/qqwing_expert.txt", "9x9/17clue_sample1000.txt"))
    assert sweep_sound(corpus, FINDERS, seed=11, states=2, walk=FINDERS)


@pytest.mark.parametrize("n", [4, 9, 16])
def test_single_step_is_make_step_for_one_placement(n: int) -> None:
    """The singles' fast builder gives the very Step (text included) the general one gives."""
    from ltn_sudoku.techniques.base import make_step, single_step

    grid = CandidateGrid(n)
    for cell in (0, n + 1, n * n - 1):
        for technique, unit in (("Naked Single", None), ("Hidden Single", 2 * n), ("Full House", 0)):
            units = () if unit is None else [unit]
            assert single_step(grid, technique, cell, n, unit) == make_step(
                grid, technique, "", placements=[(cell, n)], cells=[cell], digits=[n], units=units)


def test_first_is_the_finders_first_step_along_real_solving_paths() -> None:
    """Technique.first (what a solving path calls) returns exactly the finder's first step, on every grid of the
    singles-only paths of sampled public puzzles (9x9) and generated 4x4 and 16x16 ones."""
    checked = 0
    for puzzle, _ in mixed_corpus(6, {4: 6, 16: 2}, seed=3):
        grid = CandidateGrid.from_board(puzzle)
        for _ in range(puzzle.n * puzzle.n):
            steps = []
            for technique in TECHNIQUES:
                assert technique.first is not None
                first, every = technique.first(grid), technique.finder(grid)
                assert first == every[:1], technique.name
                checked += bool(every)
                steps = steps or every
            if not steps:
                break
            grid.apply(steps[0])
    assert checked > 300


def test_full_house_skips_a_unit_whose_other_empty_cell_is_dead() -> None:
    """An empty cell with no candidate left still counts as empty: its unit has two empty cells, no Full House (the
    finder's quick count of empty cells must notice the dead one)."""
    grid = _grid(["1234567.."] + EMPTY_ROWS[1:])
    for digit in (8, 9):
        grid.eliminate(7, digit)  # r1c8: empty, and dead once both are gone
    grid.eliminate(8, 8)  # r1c9 holds 9 alone
    assert grid.masks[7] == 0 and grid.values[7] == 0
    assert [s for s in find_full_houses(grid) if 8 in s.cells] == []
    assert [s.text for s in find_naked_singles(grid)][:1] == ["Naked Single: r1c9=9"]


def test_a_solving_path_is_the_same_with_and_without_the_first_step_shortcut() -> None:
    from dataclasses import replace

    from ltn_sudoku.questions.engine import Engine
    from ltn_sudoku.techniques.registry import resolve

    shortcut = resolve(None, uniqueness=True, size=9)
    plain = [replace(t, first=None) for t in shortcut]
    for puzzle, _ in mixed_corpus(8, {}, seed=4):
        fast, slow = Engine(shortcut).solve(puzzle), Engine(plain).solve(puzzle)
        assert [s.text for s in fast.steps] == [s.text for s in slow.steps]
