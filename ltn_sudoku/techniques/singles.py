"""Singles: the placements every solver tries first (Full House, Naked Single, Hidden Single).

Each finder returns one step per cell it can fill; a cell that qualifies in several units is reported once, in the
first unit found (boxes first, then rows, then columns, as HoDoKu names them).
"""

from __future__ import annotations

from ltn_sudoku.candidates import CandidateGrid, Step
from ltn_sudoku.techniques.base import Technique, single_step


def _unit_order(n: int) -> list[int]:
    """Boxes, then rows, then columns: a single found in a box reads most naturally there."""
    return [*range(2 * n, 3 * n), *range(n)] + [*range(n, 2 * n)]


def find_full_houses(grid: CandidateGrid) -> list[Step]:
    """The last empty cell of a unit takes the unit's one missing digit."""
    geo = grid.geo
    values, masks = grid.values, grid.masks
    empty = 0
    for cell, value in enumerate(values):
        if not value:
            empty |= 1 << cell
    steps: list[Step] = []
    done = 0
    for unit in _unit_order(grid.n):
        last = empty & geo.unit_bits[unit]
        if not last or last & (last - 1) or last & done:
            continue
        cell = last.bit_length() - 1
        mask = masks[cell]
        if not mask or mask & (mask - 1):
            continue  # a dead-end or an inconsistent grid: nothing to place safely
        done |= last
        digit = mask.bit_length()
        steps.append(single_step(grid, "Full House", cell, digit, unit))
    return steps


def find_naked_singles(grid: CandidateGrid) -> list[Step]:
    """A cell with one candidate left holds it."""
    steps: list[Step] = []
    for cell, mask in enumerate(grid.masks):
        if mask and not mask & (mask - 1):
            digit = mask.bit_length()
            steps.append(single_step(grid, "Naked Single", cell, digit))
    return steps


def find_hidden_singles(grid: CandidateGrid) -> list[Step]:
    """A digit with one place left in a unit goes there."""
    unit_bits = grid.geo.unit_bits
    order = _unit_order(grid.n)
    found: dict[tuple[int, int], int] = {}  # (cell, digit) -> unit, in discovery order
    for digit in range(1, grid.n + 1):
        cells = grid.digit_cells[digit]
        if not cells:
            continue
        for unit in order:
            place = cells & unit_bits[unit]
            if place and not place & (place - 1):
                found.setdefault((place.bit_length() - 1, digit), unit)
    return [single_step(grid, "Hidden Single", cell, digit, unit) for (cell, digit), unit in found.items()]


TECHNIQUES: list[Technique] = [
    Technique("Full House", "Singles", find_full_houses, score=4, level="Easy",
              aliases=("Last Digit", "Last Empty Cell"), hodoku_codes=("0000",)),
    Technique("Naked Single", "Singles", find_naked_singles, score=4, level="Easy",
              aliases=("Sole Candidate", "Single Candidate"), hodoku_codes=("0003",)),
    Technique("Hidden Single", "Singles", find_hidden_singles, score=14, level="Easy",
              aliases=("Unique Candidate",), hodoku_codes=("0002",)),
]
