"""Single-digit patterns: two strong links of one digit joined by a weak link (and the Empty Rectangle, a box that
acts as a grouped strong link).

A strong link is a unit where the digit has exactly two places: one of them holds it. Two strong links A=B and C=D
whose inner ends B and C see each other form the chain A=B-C=D: if A is not the digit then B is, so C is not, so D
is. One of the outer ends A, D therefore holds the digit, and every cell that sees both loses it.

- Skyscraper: both strong links in parallel lines (two rows or two columns), inner ends in one cross line.
- 2-String Kite: a row link and a column link whose inner ends share a box.
- Turbot Fish: every other such chain (a box link, or parallel links joined through a box).
- Empty Rectangle: a box whose places for the digit all lie on one row and one column of the box, plus a strong
  link that starts on that row (column) outside the box; the far end's column (row) meets the box's column (row)
  in a cell that loses the digit.
"""

from __future__ import annotations

from typing import Callable, Iterator

from ltn_sudoku.board import iter_bits
from ltn_sudoku.candidates import CandidateGrid, Step
from ltn_sudoku.techniques.base import Technique, make_step
from ltn_sudoku.techniques.cache import StateCache

StrongLink = tuple[int, int, int]  # (cell, cell, unit)


# The steps of one pattern for one digit, keyed by (side, pattern, digit, the digit's places): everything a pattern
# of one digit reads, so along a solving path (a few digits change per step) the other digits cost no search (issue 29).
_DIGIT_STEPS: StateCache[tuple[int, str, int, int], list[Step]] = StateCache(size=4096)


def _each_digit(grid: CandidateGrid, pattern: str, of_digit: Callable[[CandidateGrid, int], list[Step]]) -> list[Step]:
    """The steps of a single-digit pattern, digit by digit (`of_digit` reads only grid.digit_cells[digit])."""
    steps: list[Step] = []
    for digit in range(1, grid.n + 1):
        places = grid.digit_cells[digit]
        steps += _DIGIT_STEPS.get((grid.n, pattern, digit, places), lambda: of_digit(grid, digit))
    return steps


def strong_links(grid: CandidateGrid, digit: int, units: range) -> list[StrongLink]:
    """(cell, cell, unit) for every unit of `units` where `digit` has exactly two places."""
    cells = grid.digit_cells[digit]
    links = []
    for unit in units:
        places = cells & grid.geo.unit_bits[unit]
        if places and places.bit_count() == 2:
            low = places & -places
            links.append((low.bit_length() - 1, (places ^ low).bit_length() - 1, unit))
    return links


def _chain_step(grid: CandidateGrid, technique: str, digit: int, chain: tuple[int, int, int, int]) -> Step | None:
    """The step of the chain A=B-C=D: `digit` leaves every cell that sees both A and D."""
    geo = grid.geo
    start, near, far, end = chain
    victims = grid.digit_cells[digit] & geo.peer_bits[start] & geo.peer_bits[end]
    if not victims:
        return None
    names = [geo.cell_name(c) for c in chain]
    if technique == "Turbot Fish":
        pattern = f"{digit} {names[0]} ={digit}= {names[1]} -{digit}- {names[2]} ={digit}= {names[3]}"
    else:
        pattern = f"{digit} in {names[0]},{names[3]} (connected by {names[1]},{names[2]})"
    return make_step(grid, technique, pattern, eliminations=[(c, digit) for c in iter_bits(victims)],
                     cells=chain, digits=[digit])


def _oriented(first: StrongLink, second: StrongLink) -> list[tuple[int, int, int, int]]:
    """The chains A=B-C=D from two strong links, each with four distinct cells (inner ends not yet checked)."""
    chains = []
    for near in first[:2]:
        start = first[1] if near == first[0] else first[0]
        for far in second[:2]:
            end = second[1] if far == second[0] else second[0]
            if len({start, near, far, end}) == 4:
                chains.append((start, near, far, end))
    return chains


def find_skyscrapers(grid: CandidateGrid) -> list[Step]:
    """Strong links in two parallel lines whose inner ends share a cross line (but the outer ends do not)."""
    return _each_digit(grid, "Skyscraper", _skyscrapers)


def _skyscrapers(grid: CandidateGrid, digit: int) -> list[Step]:
    geo, n = grid.geo, grid.n
    steps: list[Step] = []
    for units, cross in ((range(n), geo.col), (range(n, 2 * n), geo.row)):
        links = strong_links(grid, digit, units)
        for i, first in enumerate(links):
            for second in links[i + 1:]:
                for chain in _oriented(first, second):
                    start, near, far, end = chain
                    if cross[near] == cross[far] and cross[start] != cross[end]:
                        step = _chain_step(grid, "Skyscraper", digit, chain)
                        if step is not None:
                            steps.append(step)
    return steps


def find_two_string_kites(grid: CandidateGrid) -> list[Step]:
    """A row strong link and a column strong link whose inner ends share a box."""
    return _each_digit(grid, "2-String Kite", _two_string_kites)


def _two_string_kites(grid: CandidateGrid, digit: int) -> list[Step]:
    geo, n = grid.geo, grid.n
    steps: list[Step] = []
    col_links = strong_links(grid, digit, range(n, 2 * n))
    if not col_links:
        return steps
    for row_link in strong_links(grid, digit, range(n)):
        for col_link in col_links:
            for chain in _oriented(row_link, col_link):
                if geo.box[chain[1]] == geo.box[chain[2]]:
                    step = _chain_step(grid, "2-String Kite", digit, chain)
                    if step is not None:
                        steps.append(step)
    return steps


def _is_skyscraper_or_kite(grid: CandidateGrid, first: StrongLink, second: StrongLink, near: int, far: int) -> bool:
    geo, n = grid.geo, grid.n
    kinds = {first[2] // n, second[2] // n}
    if kinds == {0}:
        return geo.col[near] == geo.col[far]
    if kinds == {1}:
        return geo.row[near] == geo.row[far]
    return kinds == {0, 1}  # a row and a column link can only be joined through a box: a 2-String Kite


def find_turbot_fish(grid: CandidateGrid) -> list[Step]:
    """Any other two strong links joined by a weak link: a box link, or two parallel links joined in a box."""
    return _each_digit(grid, "Turbot Fish", _turbot_fish)


def _turbot_fish(grid: CandidateGrid, digit: int) -> list[Step]:
    geo, n = grid.geo, grid.n
    steps: list[Step] = []
    links: dict[tuple[int, int], StrongLink] = {}
    for link in strong_links(grid, digit, range(3 * n)):
        links.setdefault(link[:2], link)  # a pair strong in a line and its box is one link (named by the line)
    ordered = list(links.values())
    for i, first in enumerate(ordered):
        for second in ordered[i + 1:]:
            for chain in _oriented(first, second):
                start, near, far, end = chain
                if not geo.peer_bits[near] >> far & 1:
                    continue
                if _is_skyscraper_or_kite(grid, first, second, near, far):
                    continue
                step = _chain_step(grid, "Turbot Fish", digit, chain)
                if step is not None:
                    steps.append(step)
    return steps


def _empty_rectangle_boxes(grid: CandidateGrid, digit: int, two_candidates: bool) -> list[tuple[int, int, int, int]]:
    """(box, row, col, box places) for every box whose places for `digit` lie on one row and one column of it,
    with places off the crossing on both arms (else it is a locked candidate) and, unless `two_candidates`, at
    least two places on one arm (a box with just two places is a strong link: a Turbot Fish, as HoDoKu counts)."""
    geo, n, k = grid.geo, grid.n, grid.geo.k
    unit_bits = geo.unit_bits
    cells = grid.digit_cells[digit]
    found = []
    for box in range(n):
        places = cells & unit_bits[2 * n + box]
        if places.bit_count() < 2:
            continue
        top, left = box // k * k, box % k * k
        for row in range(top, top + k):
            row_bits = unit_bits[row]
            for col in range(left, left + k):
                col_bits = unit_bits[n + col]
                if places & ~(row_bits | col_bits):
                    continue
                if not (places & row_bits & ~col_bits and places & col_bits & ~row_bits):
                    continue
                if two_candidates or (places & row_bits).bit_count() > 1 or (places & col_bits).bit_count() > 1:
                    found.append((box, row, col, places))
    return found


def _link_partners(grid: CandidateGrid, digit: int, starts: int, in_rows: bool) -> Iterator[tuple[int, int]]:
    """(near, far) for each start cell whose row (in_rows) or column holds `digit` in exactly one other cell, far."""
    geo, n = grid.geo, grid.n
    cells = grid.digit_cells[digit]
    for near in iter_bits(starts):
        link = cells & geo.unit_bits[geo.row[near] if in_rows else n + geo.col[near]]
        if link.bit_count() == 2:
            yield near, (link & ~(1 << near)).bit_length() - 1


def find_empty_rectangles(grid: CandidateGrid, two_candidates: bool = False) -> list[Step]:
    """A box's places on one row and one column of it, and a strong link leaving that row (column).

    `two_candidates=True` also accepts boxes with only two places (HoDoKu's option, off by default there too).
    """
    return _each_digit(grid, f"Empty Rectangle {two_candidates}",
                       lambda g, digit: _empty_rectangles(g, digit, two_candidates))


def _empty_rectangles(grid: CandidateGrid, digit: int, two_candidates: bool) -> list[Step]:
    geo, n = grid.geo, grid.n
    unit_bits = geo.unit_bits
    steps: list[Step] = []
    cells = grid.digit_cells[digit]
    for box, row, col, places in _empty_rectangle_boxes(grid, digit, two_candidates):
        outside = cells & ~unit_bits[2 * n + box]
        # a column link leaving the box row hits the box column in the far end's row, and vice versa
        chains = [(near, far, geo.row[far] * n + col)
                  for near, far in _link_partners(grid, digit, outside & unit_bits[row], in_rows=False)]
        chains += [(near, far, row * n + geo.col[far])
                   for near, far in _link_partners(grid, digit, outside & unit_bits[n + col], in_rows=True)]
        for near, far, target in chains:
            if outside >> target & 1:
                pattern = f"{digit} in {geo.unit_name(2 * n + box)} ({geo.cell_name(near)},{geo.cell_name(far)})"
                steps.append(make_step(grid, "Empty Rectangle", pattern, eliminations=[(target, digit)],
                                       cells=[*iter_bits(places), near, far], digits=[digit],
                                       units=[2 * n + box, row, n + col]))
    return steps


TECHNIQUES: list[Technique] = [
    Technique("Skyscraper", "Single Digit Patterns", find_skyscrapers, score=130, level="Hard",
              hodoku_codes=("0400",)),
    Technique("2-String Kite", "Single Digit Patterns", find_two_string_kites, score=150, level="Hard",
              aliases=("Two-String Kite", "Kite"), hodoku_codes=("0401", "0404")),
    Technique("Turbot Fish", "Single Digit Patterns", find_turbot_fish, score=120, level="Hard",
              aliases=("Turbot",), hodoku_codes=("0403",)),
    Technique("Empty Rectangle", "Single Digit Patterns", find_empty_rectangles, score=120, level="Hard",
              aliases=("ER",), hodoku_codes=("0402", "0405")),
]
