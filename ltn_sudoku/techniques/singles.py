"""Singles: the placements every solver tries first (Full House, Naked Single, Hidden Single).

Each finder returns one step per cell it can fill; a cell that qualifies in several units is reported once, in the
first unit found (boxes first, then rows, then columns, as HoDoKu names them). Each is written as a generator, so
that a solving path, which takes a single finder's first step (every single places one digit), builds that step
alone (`Technique.first`) instead of tens of them.
"""

from __future__ import annotations

import functools
import itertools
from typing import Callable, Iterator

from ltn_sudoku.candidates import CandidateGrid, Step
from ltn_sudoku.techniques.base import Finder, Technique, single_step


@functools.cache
def _unit_order(n: int) -> tuple[int, ...]:
    """Boxes, then rows, then columns: a single found in a box reads most naturally there."""
    return (*range(2 * n, 3 * n), *range(n), *range(n, 2 * n))


def _all(steps: Callable[[CandidateGrid], Iterator[Step]]) -> Finder:
    def finder(grid: CandidateGrid) -> list[Step]:
        return list(steps(grid))

    finder.__name__ = finder.__qualname__ = f"find{steps.__name__}"
    finder.__doc__ = steps.__doc__
    return finder


def _first(steps: Callable[[CandidateGrid], Iterator[Step]]) -> Finder:
    def first(grid: CandidateGrid) -> list[Step]:
        return list(itertools.islice(steps(grid), 1))

    first.__name__ = first.__qualname__ = f"first{steps.__name__}"
    return first


def _full_houses(grid: CandidateGrid) -> Iterator[Step]:
    """The last empty cell of a unit takes the unit's one missing digit."""
    geo = grid.geo
    values, masks = grid.values, grid.masks
    empty = grid.cells_with_candidates()  # the empty cells, unless some empty cell has none (then cell by cell)
    if empty.bit_count() != values.count(0):
        empty = sum(1 << cell for cell, value in enumerate(values) if not value)
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
        yield single_step(grid, "Full House", cell, digit, unit)


def _naked_singles(grid: CandidateGrid) -> Iterator[Step]:
    """A cell with one candidate left holds it."""
    for cell, mask in enumerate(grid.masks):
        if mask and not mask & (mask - 1):
            yield single_step(grid, "Naked Single", cell, mask.bit_length())


def _hidden_singles(grid: CandidateGrid) -> Iterator[Step]:
    """A digit with one place left in a unit goes there."""
    unit_bits = grid.geo.unit_bits
    order = _unit_order(grid.n)
    seen: set[tuple[int, int]] = set()  # (cell, digit) already placed in an earlier unit
    for digit in range(1, grid.n + 1):
        cells = grid.digit_cells[digit]
        if not cells:
            continue
        for unit in order:
            place = cells & unit_bits[unit]
            if place and not place & (place - 1):
                cell = place.bit_length() - 1
                if (cell, digit) not in seen:
                    seen.add((cell, digit))
                    yield single_step(grid, "Hidden Single", cell, digit, unit)


find_full_houses = _all(_full_houses)
find_naked_singles = _all(_naked_singles)
find_hidden_singles = _all(_hidden_singles)


TECHNIQUES: list[Technique] = [
    Technique("Full House", "Singles", find_full_houses, score=4, level="Easy",
              aliases=("Last Digit", "Last Empty Cell"), hodoku_codes=("0000",), first=_first(_full_houses)),
    Technique("Naked Single", "Singles", find_naked_singles, score=4, level="Easy",
              aliases=("Sole Candidate", "Single Candidate"), hodoku_codes=("0003",), first=_first(_naked_singles)),
    Technique("Hidden Single", "Singles", find_hidden_singles, score=14, level="Easy",
              aliases=("Unique Candidate",), hodoku_codes=("0002",), first=_first(_hidden_singles)),
]
