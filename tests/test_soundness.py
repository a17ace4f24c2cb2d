"""The soundness oracle (ltn_sudoku.techniques.soundness) flags what it exists to flag: a step that loses the
solution, a step without effect, a finder that writes the grid. Tests and scripts/bench_techniques.py rely on it."""

from __future__ import annotations

import pytest

from ltn_sudoku.candidates import CandidateGrid, Step
from ltn_sudoku.io import parse_board_text
from ltn_sudoku.techniques.soundness import SINGLES, UnsoundStep, assert_sound, run_pure, walk_sound

SEED_4 = "1.3434.22143432."
SOLUTION_4 = parse_board_text("1234341221434321")


def test_sound_steps_pass_and_are_counted() -> None:
    grid = CandidateGrid.from_board(parse_board_text(SEED_4))
    steps = [Step("t", placements=((1, 2),)), Step("t", eliminations=((6, 3),))]
    assert assert_sound(grid, steps, SOLUTION_4) == 2


@pytest.mark.parametrize(("step", "message"), [
    (Step("wrong", placements=((1, 3),)), "unsound placement r1c2=3"),
    (Step("wrong", eliminations=((1, 2),)), "unsound elimination r1c2<>2"),
    (Step("idle"), "step without effect"),
])
def test_unsound_steps_raise_an_assertion_error(step: Step, message: str) -> None:
    grid = CandidateGrid.from_board(parse_board_text(SEED_4))
    with pytest.raises(UnsoundStep, match=message) as caught:
        assert_sound(grid, [step], SOLUTION_4)
    assert isinstance(caught.value, AssertionError)  # pytest reports it as a failed check


def test_a_finder_that_writes_the_grid_is_caught() -> None:
    def writer(grid: CandidateGrid) -> list[Step]:
        grid.eliminate(1, 2)
        return []

    grid = CandidateGrid.from_board(parse_board_text(SEED_4))
    assert run_pure(grid, SINGLES[0]) == run_pure(grid, SINGLES[0])  # a reader passes
    with pytest.raises(UnsoundStep, match="writer mutated the grid"):
        run_pure(grid, writer)


def test_a_singles_walk_solves_the_seed_and_checks_every_step() -> None:
    grid, fired = walk_sound(parse_board_text(SEED_4), SINGLES)
    assert grid.is_solved and grid.to_board() == SOLUTION_4 and sum(fired.values()) >= 4
    with pytest.raises(ValueError, match="has no solution"):
        walk_sound(parse_board_text("11.." + "." * 12), SINGLES)
