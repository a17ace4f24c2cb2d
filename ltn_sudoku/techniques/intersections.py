"""Intersections: what a box and a line (row or column) that cross can tell each other.

- Locked Candidates Type 1 (Pointing): a digit's places in a box all lie in one line, so the rest of that line
  loses the digit.
- Locked Candidates Type 2 (Claiming): a digit's places in a line all lie in one box, so the rest of that box loses
  the digit.
- Locked Pair / Locked Triple: a naked pair / triple inside one box-line intersection, eliminating in both the box
  and the line (found by the naked-subset search of subsets.py, classified as HoDoKu does).
"""

from __future__ import annotations

from functools import lru_cache

from ltn_sudoku.board import geometry, iter_bits
from ltn_sudoku.candidates import CandidateGrid, Step
from ltn_sudoku.techniques.base import Technique, make_step
from ltn_sudoku.techniques.subsets import naked_subset_step, naked_subsets

POINTING = "Locked Candidates Type 1 (Pointing)"
CLAIMING = "Locked Candidates Type 2 (Claiming)"


def _locked_step(grid: CandidateGrid, technique: str, digit: int, home: int, target: int, places: int) -> Step | None:
    """The step 'digit's places in unit `home` all lie in unit `target`', or None when target has no other place."""
    geo = grid.geo
    victims = grid.digit_cells[digit] & geo.unit_bits[target] & ~geo.unit_bits[home]
    if not victims:
        return None
    return make_step(grid, technique, f"{digit} in {geo.unit_name(home)}",
                     eliminations=[(c, digit) for c in iter_bits(victims)], cells=list(iter_bits(places)),
                     digits=[digit], units=[home, target])


def _find_locked_candidates(grid: CandidateGrid, pointing: bool) -> list[Step]:
    geo, n = grid.geo, grid.n
    unit_bits = geo.unit_bits
    homes = range(2 * n, 3 * n) if pointing else range(2 * n)
    technique = POINTING if pointing else CLAIMING
    steps: list[Step] = []
    for digit in range(1, n + 1):
        cells = grid.digit_cells[digit]
        if not cells:
            continue
        for home in homes:
            places = cells & unit_bits[home]
            if not places or not places & (places - 1):
                continue  # no place, or one place (a hidden single, not a locked candidate)
            row, col, box = geo.units_of_cell[places.bit_length() - 1]
            for target in ((row, col) if pointing else (box,)):
                if places & unit_bits[target] == places:
                    step = _locked_step(grid, technique, digit, home, target, places)
                    if step is not None:
                        steps.append(step)
    return steps


def find_locked_candidates_pointing(grid: CandidateGrid) -> list[Step]:
    """Type 1: a box's places for a digit in one line clear that line outside the box."""
    return _find_locked_candidates(grid, pointing=True)


def find_locked_candidates_claiming(grid: CandidateGrid) -> list[Step]:
    """Type 2: a line's places for a digit in one box clear that box outside the line."""
    return _find_locked_candidates(grid, pointing=False)


@lru_cache(maxsize=None)
def box_line_segments(n: int) -> tuple[tuple[int, ...], ...]:
    """The cells where a box meets a row or a column (k cells each), for every box and line that cross."""
    geo = geometry(n)
    segments = []
    for box in range(2 * n, 3 * n):
        for line in range(2 * n):
            cells = tuple(c for c in geo.units[box] if line in geo.units_of_cell[c])
            if cells:
                segments.append(cells)
    return tuple(segments)


def _find_locked_subsets(grid: CandidateGrid, size: int) -> list[Step]:
    technique = "Locked Pair" if size == 2 else "Locked Triple"
    found = naked_subsets(grid, size, box_line_segments(grid.n))
    return [naked_subset_step(grid, technique, s) for s in found if s.locked]


def find_locked_pairs(grid: CandidateGrid) -> list[Step]:
    """A naked pair in a box-line intersection clears both the box and the line."""
    return _find_locked_subsets(grid, 2)


def find_locked_triples(grid: CandidateGrid) -> list[Step]:
    """A naked triple in a box-line intersection clears both the box and the line."""
    return _find_locked_subsets(grid, 3)


TECHNIQUES: list[Technique] = [
    Technique("Locked Pair", "Intersections", find_locked_pairs, score=40, level="Medium", hodoku_codes=("0110",)),
    Technique("Locked Triple", "Intersections", find_locked_triples, score=60, level="Medium", min_n=9,
              hodoku_codes=("0111",)),
    Technique(POINTING, "Intersections", find_locked_candidates_pointing, score=50, level="Medium",
              aliases=("Pointing", "Pointing Pair", "Pointing Triple", "Locked Candidates Type 1",
                       "Locked Candidates 1"),
              hodoku_codes=("0100",)),
    Technique(CLAIMING, "Intersections", find_locked_candidates_claiming, score=50, level="Medium",
              aliases=("Claiming", "Claiming Pair", "Claiming Triple", "Box/Line Reduction", "Line/Box Reduction",
                       "Locked Candidates Type 2", "Locked Candidates 2"),
              hodoku_codes=("0101",)),
]
