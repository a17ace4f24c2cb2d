"""Wings: hand-checked positions, HoDoKu's regression library and exemplars, soundness against the exact solver."""

from __future__ import annotations

import pytest

from ltn_sudoku.board import Board
from ltn_sudoku.candidates import CandidateGrid
from ltn_sudoku.questions.engine import Engine
from ltn_sudoku.techniques.hodoku import hodoku_exemplars, load_cases
from ltn_sudoku.techniques.soundness import SINGLES, run_pure, sweep_sound, walk_sound
from ltn_sudoku.techniques.wings import (
    TECHNIQUES,
    XYZ_WING_WRITE_UP,
    find_w_wings,
    find_wxyz_wings,
    find_xy_wings,
    find_xyz_wings,
)
from tests.techniques_helpers import marked_grid, mixed_corpus

FINDERS = [t.finder for t in TECHNIQUES]
REGLIB_FLOORS: dict[str, float] = {"0800": 1.0, "0801": 1.0, "0803": 1.0}  # share of cases that must pass


def texts(grid: CandidateGrid, finder) -> list[str]:
    return [s.text for s in run_pure(grid, finder)]


def test_xy_wing_removes_z_where_both_pincers_see() -> None:
    grid = marked_grid(candidates={"r1c1": "12", "r1c5": "13", "r4c1": "23"})
    assert texts(grid, find_xy_wings) == ["XY-Wing: 1/2/3 in r1c1,r1c5,r4c1 => r4c5<>3"]


def test_xy_wing_needs_pincers_on_different_pivot_digits() -> None:
    assert texts(marked_grid(candidates={"r1c1": "12", "r1c5": "13", "r4c1": "13"}), find_xy_wings) == []
    # a pincer that does not see the pivot
    assert texts(marked_grid(candidates={"r1c1": "12", "r1c5": "13", "r5c2": "23"}), find_xy_wings) == []


def test_xy_wing_on_4x4() -> None:
    grid = marked_grid(4, candidates={"r1c1": "12", "r1c3": "13", "r3c1": "23"})
    assert texts(grid, find_xy_wings) == ["XY-Wing: 1/2/3 in r1c1,r1c3,r3c1 => r3c3<>3"]


def test_xyz_wing_removes_z_where_all_three_see() -> None:
    grid = marked_grid(candidates={"r1c1": "123", "r1c2": "13", "r4c1": "23"})
    assert texts(grid, find_xyz_wings) == ["XYZ-Wing: 1/2/3 in r1c1,r1c2,r4c1 => r2c1,r3c1<>3"]


def test_xyz_wing_must_not_fire_without_a_common_peer_holding_z() -> None:
    # the cells seeing all three have lost 3
    grid = marked_grid(candidates={"r1c1": "123", "r1c2": "13", "r4c1": "23", "r2c1": "45", "r3c1": "46"})
    assert texts(grid, find_xyz_wings) == []
    # a bivalue pivot makes an XY-Wing, not an XYZ-Wing
    assert texts(marked_grid(candidates={"r1c1": "12", "r1c2": "13", "r4c1": "23"}), find_xyz_wings) == []


def test_xyz_wing_in_one_unit_fires_here_and_not_under_the_write_up_rule() -> None:
    """The write-up forbids three cells in one unit (a naked triple there); the registered finder keeps the step (sound:
    z is in one of the three cells either way), XYZ_WING_WRITE_UP drops it and keeps the two-unit pattern."""
    one_box = marked_grid(candidates={"r1c1": "123", "r1c2": "13", "r2c1": "23"})
    assert texts(one_box, find_xyz_wings) == ["XYZ-Wing: 1/2/3 in r1c1,r1c2,r2c1 => r1c3,r2c2,r2c3,r3c1,r3c2,r3c3<>3"]
    assert texts(one_box, XYZ_WING_WRITE_UP.finder) == []
    two_units = marked_grid(candidates={"r1c1": "123", "r1c2": "13", "r4c1": "23"})
    assert texts(two_units, XYZ_WING_WRITE_UP.finder) == texts(two_units, find_xyz_wings)
    engine = Engine([XYZ_WING_WRITE_UP])
    assert [t.name for t in engine.techniques(9)] == ["XYZ-Wing"] and engine.next_step(one_box,
                                                                                    engine.techniques(9)) is None


def _w_wing_grid(link_row: str) -> CandidateGrid:
    """r1c1 and r5c5 hold 1/2; row 9 holds 1 where `link_row` says."""
    full = "123456789"
    return marked_grid(places={1: [full] * 8 + [link_row]}, candidates={"r1c1": "12", "r5c5": "12"})


def test_w_wing_joins_two_cells_through_a_strong_link() -> None:
    grid = _w_wing_grid("1...1....")
    assert texts(grid, find_w_wings) == ["W-Wing: 1/2 in r1c1,r5c5 connected by 1 in r9c1,r9c5 => r1c5,r5c1<>2"]


def test_w_wing_must_not_fire_on_a_weak_link() -> None:
    assert texts(_w_wing_grid("1...1...1"), find_w_wings) == []


def test_wxyz_wing_hinge_and_three_wings() -> None:
    grid = marked_grid(candidates={"r1c1": "1234", "r1c2": "14", "r2c3": "24", "r1c7": "34"})
    assert texts(grid, find_wxyz_wings) == ["WXYZ-Wing: 1/2/3/4 in r1c1,r1c2,r1c7,r2c3 => r1c3<>4"]


def test_wxyz_wing_must_not_fire_when_every_digit_is_restricted() -> None:
    # four cells of one row with four digits: a naked quadruple, no digit is left free
    grid = marked_grid(candidates={"r1c1": "1234", "r1c2": "14", "r1c3": "24", "r1c7": "34"})
    assert texts(grid, find_wxyz_wings) == []


def test_wings_find_nothing_on_an_empty_board() -> None:
    for n in (4, 9, 16):
        grid = CandidateGrid.from_board(Board.empty(n))
        assert all(run_pure(grid, finder) == [] for finder in FINDERS)


@pytest.mark.parametrize("code", sorted(REGLIB_FLOORS))
def test_reglib_pass_rate(code: str) -> None:
    technique = next(t for t in TECHNIQUES if code in t.hodoku_codes)
    cases = load_cases(codes=[code])
    failed = [case.line for case in cases if not case.check(technique.finder)]
    assert cases and 1 - len(failed) / len(cases) >= REGLIB_FLOORS[code], f"{code}: failing lines {failed}"


@pytest.mark.parametrize("tag, name", [("xy", "XY-Wing"), ("xyz", "XYZ-Wing"), ("w", "W-Wing")])
def test_hodoku_exemplars_solve_with_singles_and_the_wing(tag: str, name: str) -> None:
    technique = next(t for t in TECHNIQUES if t.name == name)
    exemplars = [e for e in hodoku_exemplars(tag) if e.before == e.after == "s"]
    assert len(exemplars) >= 9
    for exemplar in exemplars:
        grid, fired = walk_sound(exemplar.puzzle, SINGLES + [technique.finder])
        assert grid.is_solved and fired.get(name), exemplar.puzzle.to_line()


def test_sound_on_walks_and_diverse_states() -> None:
    fired = sweep_sound(mixed_corpus(60, {4: 30, 16: 2}, seed=1), FINDERS, seed=5, states=3, walk=SINGLES + FINDERS)
    assert all(fired[t.name] >= 20 for t in TECHNIQUES), fired


@pytest.mark.slow
def test_sound_on_thousands_of_puzzles() -> None:
    files = ("9x9/top1465.txt", "9x9/qqwing_expert.txt", "9x9/forum_hardest_1106.txt",
             "9x9/serg_benchmark_sample2000.txt")
    corpus = mixed_corpus(1500, {4: 300, 16: 10}, seed=21, files=files)
    assert sweep_sound(corpus, FINDERS, seed=13, states=2, walk=SINGLES + FINDERS)
