"""Wings: XY-Wing, XYZ-Wing, W-Wing and WXYZ-Wing.

Each wing is a few cells that cannot all avoid one digit z, so z is false wherever it sees every z of the pattern.
Cells and digits are bit sets (CandidateGrid.masks, geo.peer_bits) so a finder is a handful of integer operations per
candidate pattern.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from itertools import combinations

from ltn_sudoku.board import iter_bits
from ltn_sudoku.candidates import CandidateGrid, Step, mask_digits
from ltn_sudoku.techniques.base import Technique, make_step
from ltn_sudoku.techniques.coloring import conjugate_pairs

WXYZ_DIGITS = 4  # digits of a WXYZ-Wing, and the most candidates one of its cells may hold


def _cells_with_count(grid: CandidateGrid, count: int) -> list[int]:
    return [cell for cell, mask in enumerate(grid.masks) if mask.bit_count() == count]


def _digit(bit_mask: int) -> int:
    """The digit of a one-bit candidate mask."""
    return bit_mask.bit_length()


def _three_cell_wing(grid: CandidateGrid, technique: str, x: int, y: int, z: int, cells: tuple[int, int, int],
                     targets: int) -> Step:
    """'<technique>: x/y/z in pivot,pincer,pincer => ...<>z'."""
    return make_step(grid, technique, f"{x}/{y}/{z} in {grid.geo.cells_name(cells)}",
                     eliminations=[(c, z) for c in iter_bits(targets)], cells=cells, digits=[x, y, z])


def find_xy_wings(grid: CandidateGrid) -> list[Step]:
    """Pivot xy sees pincers xz and yz: whichever the pivot takes, one pincer is z, so z goes from cells seeing both."""
    masks, peer_bits = grid.masks, grid.geo.peer_bits
    bivalue = _cells_with_count(grid, 2)
    bivalue_bits = sum(1 << c for c in bivalue)
    steps: list[Step] = []
    for pivot in bivalue:
        xy = masks[pivot]
        pincers = [c for c in iter_bits(peer_bits[pivot] & bivalue_bits) if (masks[c] & xy).bit_count() == 1]
        for first, second in combinations(pincers, 2):
            m1, m2 = masks[first], masks[second]
            z = m1 & ~xy
            if m2 & ~xy != z or m1 & xy == m2 & xy:
                continue
            digit = _digit(z)
            targets = peer_bits[first] & peer_bits[second] & grid.digit_cells[digit]
            if targets:
                steps.append(_three_cell_wing(grid, "XY-Wing", _digit(m1 & xy), _digit(m2 & xy), digit,
                                              (pivot, first, second), targets))
    return steps


def find_xyz_wings(grid: CandidateGrid, one_unit: bool = True) -> list[Step]:
    """Pivot xyz sees pincers xz and yz: one of the three is z, so z goes from cells that see all three.

    `one_unit=False` is the XYZ-Wing write-up's rule: the three cells must not share one unit (there they are a naked
    triple, which removes z, x and y from the unit). Either way every step is sound; the registered technique keeps
    them (HoDoKu's XYZ-Wing does too), XYZ_WING_WRITE_UP drops them."""
    masks, peer_bits, units_of = grid.masks, grid.geo.peer_bits, grid.geo.units_of_cell
    bivalue_bits = sum(1 << c for c in _cells_with_count(grid, 2))
    steps: list[Step] = []
    for pivot in _cells_with_count(grid, 3):
        xyz = masks[pivot]
        pincers = [c for c in iter_bits(peer_bits[pivot] & bivalue_bits) if masks[c] & xyz == masks[c]]
        for first, second in combinations(pincers, 2):
            m1, m2 = masks[first], masks[second]
            if m1 == m2 or m1 | m2 != xyz:
                continue
            if not one_unit and set(units_of[pivot]) & set(units_of[first]) & set(units_of[second]):
                continue
            digit = _digit(m1 & m2)
            targets = peer_bits[pivot] & peer_bits[first] & peer_bits[second] & grid.digit_cells[digit]
            if targets:
                steps.append(_three_cell_wing(grid, "XYZ-Wing", _digit(m1 & ~m2), _digit(m2 & ~m1), digit,
                                              (pivot, first, second), targets))
    return steps


def find_w_wings(grid: CandidateGrid) -> list[Step]:
    """Two xy cells that do not see each other, joined by a strong link on x (each end sees one of them):
    one of the two cells is y, so y goes from their common peers."""
    masks, peer_bits = grid.masks, grid.geo.peer_bits
    by_mask: dict[int, list[int]] = {}
    for cell in _cells_with_count(grid, 2):
        by_mask.setdefault(masks[cell], []).append(cell)
    steps: list[Step] = []
    for xy, cells in by_mask.items():
        for first, second in combinations(cells, 2):
            if peer_bits[first] >> second & 1:
                continue
            common = peer_bits[first] & peer_bits[second]
            for x_bit in iter_bits(xy):
                x, y = x_bit + 1, _digit(xy & ~(1 << x_bit))
                targets = common & grid.digit_cells[y]
                if not targets:
                    continue
                for _, a, b in conjugate_pairs(grid, x):
                    if a in (first, second) or b in (first, second):
                        continue
                    joined = (peer_bits[a] >> first & 1 and peer_bits[b] >> second & 1) or (
                        peer_bits[a] >> second & 1 and peer_bits[b] >> first & 1)
                    if joined:
                        pattern = f"{x}/{y} in {grid.geo.cells_name((first, second))} connected by {x} in " \
                                  f"{grid.geo.cells_name((a, b))}"
                        steps.append(make_step(grid, "W-Wing", pattern,
                                               eliminations=[(c, y) for c in iter_bits(targets)],
                                               cells=[first, second, a, b], digits=[x, y]))
                        break
    return steps


def _wxyz_target(grid: CandidateGrid, hinge: int, wings: tuple[int, int, int]) -> tuple[int, int] | None:
    """(z, target cells) when exactly one digit z of the pattern is not restricted, i.e. held by two wings that do not
    see each other (the hinge sees every wing): the other three digits fill at most three of the four cells, so some
    cell is z."""
    masks, peer_bits = grid.masks, grid.geo.peer_bits
    free = 0
    for a, b in combinations(wings, 2):
        if not peer_bits[a] >> b & 1:
            free |= masks[a] & masks[b]
    if free.bit_count() != 1:
        return None
    digit = free.bit_length()
    targets = grid.digit_cells[digit]
    for cell in (hinge, *wings):
        if masks[cell] & free:
            targets &= peer_bits[cell]
    return (digit, targets) if targets else None


def find_wxyz_wings(grid: CandidateGrid) -> list[Step]:
    """A hinge cell and three cells it sees hold four digits between them, all but one (z) restricted: z must be in
    one of them, so z goes from cells that see every z of the pattern."""
    masks, peer_bits = grid.masks, grid.geo.peer_bits
    small = [c for c, m in enumerate(masks) if 2 <= m.bit_count() <= WXYZ_DIGITS]
    small_bits = sum(1 << c for c in small)
    steps: list[Step] = []
    tried: set[int] = set()
    for hinge in small:
        hinge_mask = masks[hinge]
        wings = [c for c in iter_bits(peer_bits[hinge] & small_bits)
                 if (masks[c] | hinge_mask).bit_count() <= WXYZ_DIGITS]
        for i, first in enumerate(wings):
            union_1 = hinge_mask | masks[first]
            for j in range(i + 1, len(wings)):
                union_2 = union_1 | masks[wings[j]]
                if union_2.bit_count() > WXYZ_DIGITS:
                    continue
                for third in wings[j + 1:]:
                    union = union_2 | masks[third]
                    if union.bit_count() != WXYZ_DIGITS:
                        continue
                    key = 1 << hinge | 1 << first | 1 << wings[j] | 1 << third
                    if key in tried:
                        continue
                    tried.add(key)
                    result = _wxyz_target(grid, hinge, (first, wings[j], third))
                    if result is None:
                        continue
                    digit, targets = result
                    digits = mask_digits(union)
                    cells = tuple(iter_bits(key))
                    steps.append(make_step(grid, "WXYZ-Wing",
                                           f"{'/'.join(map(str, digits))} in {grid.geo.cells_name(cells)}",
                                           eliminations=[(c, digit) for c in iter_bits(targets)],
                                           cells=cells, digits=digits))
    return steps


TECHNIQUES: list[Technique] = [
    Technique("W-Wing", "Wings", find_w_wings, score=150, level="Hard", hodoku_codes=("0803",)),
    Technique("XY-Wing", "Wings", find_xy_wings, score=160, level="Hard", aliases=("Y-Wing",), hodoku_codes=("0800",)),
    Technique("XYZ-Wing", "Wings", find_xyz_wings, score=180, level="Hard", hodoku_codes=("0801",)),
    Technique("WXYZ-Wing", "Wings", find_wxyz_wings, score=240, level="Unfair", hodoku_codes=("0802",)),
]
# The XYZ-Wing of the write-up, whose three cells never share a unit: not registered (the registry keeps one technique
# per name); Engine([..., XYZ_WING_WRITE_UP, ...]) uses it in place of the registered XYZ-Wing (same name and score).
XYZ_WING_WRITE_UP = replace(TECHNIQUES[2], finder=partial(find_xyz_wings, one_unit=False))
