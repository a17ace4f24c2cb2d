"""The finders that remember what they found for a part of the grid (a digit's places, a unit's or a line-box
pair's cells; a unit's ALS) across a solving path's steps (issue 29) give exactly what a fresh search gives, step for
step and in order, on the grids of real top1465 solving paths."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

import pytest

from ltn_sudoku.candidates import CandidateGrid
from ltn_sudoku.io import parse_board_text
from ltn_sudoku.questions.q3 import answer_q3
from ltn_sudoku.techniques import fish, intersections, links, single_digit, subsets, sue_de_coq
from ltn_sudoku.techniques.cache import StateCache
from scripts.record_q3_answers import FIXTURE

BOARDS = 4  # top1465 boards whose whole solving paths are walked

MEMOS: list[StateCache] = [fish._BASIC_FISH, fish._FINNED_FISH, fish._FINNED_SEARCHES, sue_de_coq._PAIR_FINDS,
                           single_digit._DIGIT_STEPS, subsets._HIDDEN, subsets._NAKED, links._UNIT_ALSES]
FINDERS: list[Callable[[CandidateGrid], list[object]]] = [
    fish.find_x_wings, fish.find_swordfish, fish.find_jellyfish, fish.find_finned_x_wings, fish.find_sashimi_x_wings,
    fish.find_finned_swordfish, fish.find_sashimi_swordfish, fish.find_finned_jellyfish, fish.find_sashimi_jellyfish,
    sue_de_coq.find_sue_de_coq, single_digit.find_skyscrapers, single_digit.find_two_string_kites,
    single_digit.find_turbot_fish, single_digit.find_empty_rectangles,
    lambda g: single_digit.find_empty_rectangles(g, two_candidates=True), subsets.find_hidden_pairs,
    subsets.find_hidden_triples, subsets.find_hidden_quadruples, subsets.find_naked_pairs, subsets.find_naked_triples,
    subsets.find_naked_quadruples, intersections.find_locked_pairs, intersections.find_locked_triples,
    links.almost_locked_sets, lambda g: links.almost_locked_sets(g, min_cells=2),  # what the ALS finders build on
]


def path_grids() -> list[CandidateGrid]:
    """Every grid state along the default solving paths of a few recorded top1465 boards."""
    lines = Path(FIXTURE).read_text(encoding="utf-8").splitlines()
    boards = [parse_board_text(str(r["board"])) for r in map(json.loads, lines) if r["set"] == "top1465"][:BOARDS]
    grids = []
    for board in boards:
        grid = CandidateGrid.from_board(board)
        for step in answer_q3(board).result.steps:
            grids.append(grid.copy())
            grid.apply(step)
    return grids


@pytest.fixture(scope="module")
def grids() -> list[CandidateGrid]:
    return path_grids()


def test_memoized_finders_find_what_a_fresh_search_finds(grids: list[CandidateGrid]) -> None:
    remembered = [[finder(g) for finder in FINDERS] for g in grids]  # the memos filled along the paths
    assert any(steps for per_grid in remembered for steps in per_grid), "no finder fired: the check proves nothing"
    for g, per_grid in zip(grids, remembered):
        for memo in MEMOS:
            memo.clear()  # the first call of each search on this grid is fresh; the finned-sashimi pairs share one
        for finder, steps in zip(FINDERS, per_grid):
            assert finder(g) == steps, f"{getattr(finder, '__name__', finder)} on\n{g.pencil_marks()}"
