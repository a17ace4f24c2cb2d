"""Uniqueness techniques: Unique Rectangles 1-6, Hidden Rectangle, Avoidable Rectangles 1-2 and BUG+1.

All of them assume the puzzle has exactly one solution (Technique.uniqueness=True) and rule out a *deadly pattern*:
four non-given cells in two rows, two columns and two boxes holding x/y/y/x, which could be swapped to y/x/x/y to give
a second solution. Which corner holds what is irrelevant to that argument, so, as in HoDoKu's default ("allow missing
candidates"), a rectangle corner only needs x and y not ruled out by a placed peer; candidates removed by earlier
logic do not break it. BUG+1 rules out the other classic pattern: a grid of bivalue cells with every digit twice per
unit, whose two candidate choices are both solutions.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Iterator, NamedTuple

from ltn_sudoku.board import geometry, iter_bits
from ltn_sudoku.candidates import CandidateGrid, Step
from ltn_sudoku.techniques.base import Technique, make_step

UR3_MAX_EXTRA_CELLS = 4  # largest naked subset (besides the rectangle's pair) searched by Uniqueness Test 3


class Rectangle(NamedTuple):
    """Four unsolved cells (ascending) that could form a deadly pattern on digits x and y."""

    xy: int  # candidate mask of x and y
    cells: tuple[int, ...]
    pure: tuple[int, ...]  # corners with no candidate besides x and y
    extra: tuple[int, ...]  # corners with more candidates

    @property
    def bits(self) -> int:
        return sum(1 << c for c in self.cells)


def unique_rectangles(grid: CandidateGrid) -> tuple[Rectangle, ...]:
    """Every possible deadly pattern with at least one corner holding exactly the two digits.

    Cached on the grid's content: the engine asks the seven rectangle finders in turn about the same grid.
    """
    return _unique_rectangles(grid.n, tuple(grid.values), tuple(grid.masks))


@lru_cache(maxsize=16)
def _unique_rectangles(n: int, values: tuple[int, ...], masks: tuple[int, ...]) -> tuple[Rectangle, ...]:
    geo = geometry(n)
    unsolved = 0
    blocked = [0] * (n + 1)  # per digit: cells that see a placed copy of it
    for cell, value in enumerate(values):
        if value:
            blocked[value] |= geo.peer_bits[cell]
        else:
            unsolved |= 1 << cell
    found: dict[tuple[int, tuple[int, ...]], Rectangle] = {}
    for anchor, mask in enumerate(masks):
        if mask.bit_count() != 2:
            continue
        low = mask & -mask
        fits = unsolved & ~blocked[low.bit_length()] & ~blocked[(mask ^ low).bit_length()]  # x and y both allowed
        row, col, box = geo.units_of_cell[anchor]
        box_bits = geo.unit_bits[box]
        for line, cross in ((row, col), (col, row)):
            # mate: the anchor's box-mate along `line`; beside: a corner along `cross` in another box; opposite: the
            # corner that completes the rectangle, as far from `beside` as the mate is from the anchor
            for mate in iter_bits(fits & geo.unit_bits[line] & box_bits & ~(1 << anchor)):
                shift = mate - anchor
                for beside in iter_bits(fits & geo.unit_bits[cross] & ~box_bits):
                    opposite = beside + shift
                    if fits >> opposite & 1:
                        cells = tuple(sorted((anchor, mate, beside, opposite)))
                        if (mask, cells) not in found:
                            pure = tuple(c for c in cells if not masks[c] & ~mask)
                            extra = tuple(c for c in cells if masks[c] & ~mask)
                            found[(mask, cells)] = Rectangle(mask, cells, pure, extra)
    return tuple(found.values())


def _same_line(grid: CandidateGrid, a: int, b: int) -> bool:
    geo = grid.geo
    return geo.row[a] == geo.row[b] or geo.col[a] == geo.col[b]


def _shared_units(grid: CandidateGrid, a: int, b: int) -> list[int]:
    return sorted(set(grid.geo.units_of_cell[a]) & set(grid.geo.units_of_cell[b]))


def _digits_text(mask: int) -> str:
    return "/".join(str(b + 1) for b in iter_bits(mask))


def _ur_step(grid: CandidateGrid, technique: str, rect: Rectangle, eliminations: list[tuple[int, int]]) -> Step:
    return make_step(grid, technique, f"{_digits_text(rect.xy)} in {grid.geo.cells_name(rect.cells)}",
                     eliminations=eliminations, cells=rect.cells, digits=[b + 1 for b in iter_bits(rect.xy)])


def _present(grid: CandidateGrid, cells: tuple[int, ...], digit_mask: int) -> list[tuple[int, int]]:
    """(cell, digit) for each digit of `digit_mask` still a candidate of each cell."""
    return [(c, b + 1) for c in cells for b in iter_bits(grid.masks[c] & digit_mask)]


def find_unique_rectangles_1(grid: CandidateGrid) -> list[Step]:
    """Three corners hold only x and y: the fourth must not, or the rectangle would be deadly."""
    steps = []
    for rect in unique_rectangles(grid):
        if len(rect.pure) == 3:
            eliminations = _present(grid, rect.extra, rect.xy)
            if eliminations:
                steps.append(_ur_step(grid, "Uniqueness Test 1", rect, eliminations))
    return steps


def _common_extra_digit(grid: CandidateGrid, rect: Rectangle) -> int:
    """The one extra digit shared by every extra corner (mask), or 0 when the extras are not one and the same digit."""
    extras = 0
    for c in rect.extra:
        extras |= grid.masks[c] & ~rect.xy
    return extras if extras.bit_count() == 1 else 0


def _type_2_or_5(grid: CandidateGrid, rect: Rectangle) -> tuple[str, list[tuple[int, int]]] | None:
    """Extra corners all hold the same single extra digit z: one of them is z, so z goes from cells seeing them all."""
    if len(rect.extra) not in (2, 3):
        return None
    z = _common_extra_digit(grid, rect)
    if not z:
        return None
    digit = z.bit_length()
    targets = grid.digit_cells[digit]
    for c in rect.extra:
        targets &= grid.geo.peer_bits[c]
    if not targets:
        return None
    aligned = len(rect.extra) == 2 and _same_line(grid, *rect.extra)
    return ("Uniqueness Test 2" if aligned else "Uniqueness Test 5"), [(c, digit) for c in iter_bits(targets)]


def _find_type_2_or_5(grid: CandidateGrid, technique: str) -> list[Step]:
    steps = []
    for rect in unique_rectangles(grid):
        result = _type_2_or_5(grid, rect)
        if result is not None and result[0] == technique:
            steps.append(_ur_step(grid, technique, rect, result[1]))
    return steps


def find_unique_rectangles_2(grid: CandidateGrid) -> list[Step]:
    """Two corners in one line hold x, y and the same extra z: one of them is z."""
    return _find_type_2_or_5(grid, "Uniqueness Test 2")


def find_unique_rectangles_5(grid: CandidateGrid) -> list[Step]:
    """Two diagonal, or three, corners hold x, y and the same extra z: one of them is z."""
    return _find_type_2_or_5(grid, "Uniqueness Test 5")


def _naked_subsets_with(grid: CandidateGrid, unit: int, excluded: int, extras: int) -> Iterator[tuple[int, int]]:
    """(cells, digits) of every naked subset of `unit` made of a virtual cell holding `extras` and 1 to
    UR3_MAX_EXTRA_CELLS unsolved cells of the unit outside `excluded` (the rectangle's pair and every cell holding x or
    y), as cell-set int and candidate mask."""
    masks = grid.masks
    pool = [c for c in grid.geo.units[unit] if masks[c] and not excluded >> c & 1]

    def grow(start: int, cells: int, digits: int, size: int) -> Iterator[tuple[int, int]]:
        for i in range(start, len(pool)):
            cell = pool[i]
            union = digits | masks[cell]
            if union.bit_count() > UR3_MAX_EXTRA_CELLS + 1:
                continue
            chosen = cells | 1 << cell
            if union.bit_count() == size + 1:
                yield chosen, union
            if size < UR3_MAX_EXTRA_CELLS:
                yield from grow(i + 1, chosen, union, size + 1)

    yield from grow(0, 0, extras, 1)


def find_unique_rectangles_3(grid: CandidateGrid) -> list[Step]:
    """Two corners sharing a unit carry the extras: one of them holds an extra digit, so together they act as one
    cell holding the extras; with other cells of the unit it can form a naked subset that clears the rest of it."""
    geo, masks = grid.geo, grid.masks
    steps: list[Step] = []
    seen: set[frozenset[tuple[int, int]]] = set()
    for rect in unique_rectangles(grid):
        if len(rect.extra) != 2:
            continue
        first, second = rect.extra
        extras = (masks[first] | masks[second]) & ~rect.xy
        with_xy = 0
        for digit_bit in iter_bits(rect.xy):
            with_xy |= grid.digit_cells[digit_bit + 1]
        pair_bits = 1 << first | 1 << second
        for unit in _shared_units(grid, first, second):
            for subset, digits in _naked_subsets_with(grid, unit, with_xy | pair_bits, extras):
                locked = subset | pair_bits
                if geo.unit_kind(unit) == "box" and _all_in_one_line(grid, locked):
                    continue  # the line through them finds the same subset
                clear_units = [unit]
                box = _common_box(grid, locked)
                if geo.unit_kind(unit) != "box" and box is not None:
                    clear_units.append(box)
                eliminations: list[tuple[int, int]] = []
                for u in clear_units:
                    for c in iter_bits(geo.unit_bits[u] & ~locked):
                        eliminations.extend((c, b + 1) for b in iter_bits(masks[c] & digits))
                key = frozenset(eliminations)
                if eliminations and key not in seen:
                    seen.add(key)
                    steps.append(_ur_step(grid, "Uniqueness Test 3", rect, eliminations))
    return steps


def _all_in_one_line(grid: CandidateGrid, cells: int) -> bool:
    listed = list(iter_bits(cells))
    geo = grid.geo
    return len({geo.row[c] for c in listed}) == 1 or len({geo.col[c] for c in listed}) == 1


def _common_box(grid: CandidateGrid, cells: int) -> int | None:
    boxes = {grid.geo.units_of_cell[c][2] for c in iter_bits(cells)}
    return boxes.pop() if len(boxes) == 1 else None


def find_unique_rectangles_4(grid: CandidateGrid) -> list[Step]:
    """Two corners in one line carry the extras and x has no other place in a unit they share: one of them is x,
    so neither may be y (the other would complete the deadly pattern)."""
    steps = []
    for rect in unique_rectangles(grid):
        if len(rect.extra) != 2 or not _same_line(grid, *rect.extra):
            continue
        pair_bits = 1 << rect.extra[0] | 1 << rect.extra[1]
        units = _shared_units(grid, *rect.extra)
        for x_bit in iter_bits(rect.xy):
            if any(not grid.places(u, x_bit + 1) & ~pair_bits for u in units):
                eliminations = _present(grid, rect.extra, rect.xy & ~(1 << x_bit))
                if eliminations:
                    steps.append(_ur_step(grid, "Uniqueness Test 4", rect, eliminations))
    return steps


def find_unique_rectangles_6(grid: CandidateGrid) -> list[Step]:
    """Two diagonal corners carry the extras and x lies only on the rectangle in both its rows (or both columns):
    x sits on one diagonal, and on the extras' diagonal it would leave y on the other: deadly. So the extras lose x."""
    geo = grid.geo
    steps = []
    for rect in unique_rectangles(grid):
        if len(rect.extra) != 2 or _same_line(grid, *rect.extra):
            continue
        rows = {geo.row[c] for c in rect.cells}
        cols = {geo.n + geo.col[c] for c in rect.cells}
        outside = ~rect.bits
        for x_bit in iter_bits(rect.xy):
            digit = x_bit + 1
            if all(not grid.places(u, digit) & outside for u in rows) or all(
                    not grid.places(u, digit) & outside for u in cols):
                eliminations = _present(grid, rect.extra, 1 << x_bit)
                if eliminations:
                    steps.append(_ur_step(grid, "Uniqueness Test 6", rect, eliminations))
    return steps


def find_hidden_rectangles(grid: CandidateGrid) -> list[Step]:
    """One corner (or two diagonal ones) holds only x and y; if x lies only on the rectangle in the row and the column
    of the opposite corner, that corner cannot be y: both its neighbours would then be x, the pure corner y, deadly."""
    geo = grid.geo
    steps = []
    for rect in unique_rectangles(grid):
        if len(rect.pure) not in (1, 2) or (len(rect.pure) == 2 and _same_line(grid, *rect.pure)):
            continue
        outside = ~rect.bits
        for corner in rect.pure:
            opposite = next(c for c in rect.cells if geo.row[c] != geo.row[corner] and geo.col[c] != geo.col[corner])
            row, col = geo.row[opposite], geo.n + geo.col[opposite]
            for x_bit in iter_bits(rect.xy):
                digit = x_bit + 1
                if grid.places(row, digit) & outside or grid.places(col, digit) & outside:
                    continue
                eliminations = _present(grid, (opposite,), rect.xy & ~(1 << x_bit))
                if eliminations:
                    steps.append(_ur_step(grid, "Hidden Rectangle", rect, eliminations))
    return steps


class AvoidableRectangle(NamedTuple):
    """A rectangle of non-given corners, some placed as x/y on its diagonals, the rest unsolved."""

    xy: int  # candidate mask of x and y
    cells: tuple[int, ...]
    open: tuple[tuple[int, int], ...]  # (unsolved corner, the digit that would complete the deadly pattern there)


def _avoidable_rectangles(grid: CandidateGrid) -> tuple[AvoidableRectangle, ...]:
    """Rectangles of non-given corners with x placed on one diagonal and y on the other, whose one or two unsolved
    corners still hold the digit that would complete the pattern (else it is impossible already).

    Each starts from an unsolved corner u and a placed corner diagonal to it holding a candidate d of u; the two other
    corners must then be y: both placed, or one placed and one unsolved with y. Cached on the grid's content.
    """
    return _avoidable_rectangles_of(grid.n, tuple(grid.values), tuple(grid.masks), grid.givens)


@lru_cache(maxsize=16)
def _avoidable_rectangles_of(n: int, values: tuple[int, ...], masks: tuple[int, ...],
                             givens: int) -> tuple[AvoidableRectangle, ...]:
    geo = geometry(n)
    k = geo.k
    bands, stacks = _bands_and_stacks(n)
    placed_as = [0] * (n + 1)  # per digit: the non-given cells placed with it
    for cell, value in enumerate(values):
        if value and not givens >> cell & 1:
            placed_as[value] |= 1 << cell
    if not any(placed_as):
        return ()
    found: dict[tuple[int, ...], AvoidableRectangle] = {}
    for corner, mask in enumerate(masks):
        if not mask:
            continue
        row, col = geo.row[corner], geo.col[corner]
        row_bits, col_bits = geo.unit_bits[row], geo.unit_bits[n + col]
        # cells diagonal to the corner in a rectangle over two boxes: same band or same stack, not both
        region = (bands[row // k] ^ stacks[col // k]) & ~row_bits & ~col_bits
        for bit in iter_bits(mask):
            for opposite in iter_bits(placed_as[bit + 1] & region):
                beside_row = row * n + geo.col[opposite]  # in the corner's row
                beside_col = geo.row[opposite] * n + col  # in the corner's column
                rect = _avoidable_with(values, masks, givens, corner, bit + 1, opposite, beside_row, beside_col)
                if rect is not None:
                    found.setdefault(rect.cells, rect)
    return tuple(found.values())


@lru_cache(maxsize=None)
def _bands_and_stacks(n: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Cell sets of the k bands (rows of boxes) and the k stacks (columns of boxes)."""
    geo = geometry(n)
    k = geo.k
    bands = tuple(sum(geo.unit_bits[r] for r in range(b * k, b * k + k)) for b in range(k))
    stacks = tuple(sum(geo.unit_bits[n + c] for c in range(s * k, s * k + k)) for s in range(k))
    return bands, stacks


def _avoidable_with(values: tuple[int, ...], masks: tuple[int, ...], givens: int, corner: int, digit: int,
                    opposite: int, beside_row: int, beside_col: int) -> AvoidableRectangle | None:
    """The avoidable rectangle on an unsolved `corner` (deadly digit `digit`, placed at `opposite`) if its two other
    corners are non-given and can both be one other digit y, at least one of them placed with it."""
    if (givens >> beside_row | givens >> beside_col) & 1:
        return None
    other = values[beside_row] or values[beside_col]
    if not other or other == digit:
        return None
    unsolved = [(corner, digit)]
    for cell in (beside_row, beside_col):
        if not values[cell]:
            if not masks[cell] >> (other - 1) & 1:
                return None
            unsolved.append((cell, other))
        elif values[cell] != other:
            return None
    cells = tuple(sorted((corner, opposite, beside_row, beside_col)))
    return AvoidableRectangle((1 << (digit - 1)) | (1 << (other - 1)), cells, tuple(sorted(unsolved)))


def _ar_step(grid: CandidateGrid, technique: str, rect: AvoidableRectangle,
             eliminations: list[tuple[int, int]]) -> Step:
    return make_step(grid, technique, f"{_digits_text(rect.xy)} in {grid.geo.cells_name(rect.cells)}",
                     eliminations=eliminations, cells=rect.cells, digits=[b + 1 for b in iter_bits(rect.xy)])


def find_avoidable_rectangles_1(grid: CandidateGrid) -> list[Step]:
    """Three corners placed (not given) as x/y/x: the fourth would complete a swappable pattern, so it cannot be y."""
    return [_ar_step(grid, "Avoidable Rectangle Type 1", rect, list(rect.open))
            for rect in _avoidable_rectangles(grid) if len(rect.open) == 1]


def find_avoidable_rectangles_2(grid: CandidateGrid) -> list[Step]:
    """Two corners placed (not given); the other two hold their deadly digit and the same one extra z: one of them is
    z, so z goes from cells that see both."""
    masks, peer_bits = grid.masks, grid.geo.peer_bits
    steps = []
    for rect in _avoidable_rectangles(grid):
        if len(rect.open) != 2:
            continue
        (first, deadly_first), (second, deadly_second) = rect.open
        extras = (masks[first] & ~(1 << (deadly_first - 1))) | (masks[second] & ~(1 << (deadly_second - 1)))
        if extras.bit_count() != 1:
            continue
        digit = extras.bit_length()
        targets = peer_bits[first] & peer_bits[second] & grid.digit_cells[digit]
        if targets:
            steps.append(_ar_step(grid, "Avoidable Rectangle Type 2", rect, [(c, digit) for c in iter_bits(targets)]))
    return steps


def find_bug_plus_1(grid: CandidateGrid) -> list[Step]:
    """Every unsolved cell bivalue but one with three candidates, every digit twice in each unit but one digit d three
    times in that cell's units: without d the grid would be a BUG (its solutions come in pairs), so the cell is d."""
    masks, geo = grid.masks, grid.geo
    triple = -1
    for cell, mask in enumerate(masks):
        count = mask.bit_count()
        if count > 3 or count == 1:
            return []
        if count == 3:
            if triple >= 0:
                return []
            triple = cell
    if triple < 0:
        return []
    triple_units = geo.units_of_cell[triple]
    bug_digit = 0
    for digit in range(1, grid.n + 1):
        cells = grid.digit_cells[digit]
        for unit, unit_bits in enumerate(geo.unit_bits):
            count = (cells & unit_bits).bit_count()
            if count in (0, 2):
                continue
            if count != 3 or unit not in triple_units or bug_digit not in (0, digit):
                return []
            bug_digit = digit
    if not bug_digit or not masks[triple] >> (bug_digit - 1) & 1:
        return []
    if any((grid.places(u, bug_digit)).bit_count() != 3 for u in triple_units):
        return []
    others = [(triple, b + 1) for b in iter_bits(masks[triple] & ~(1 << (bug_digit - 1)))]
    return [make_step(grid, "Bivalue Universal Grave + 1", f"{bug_digit} in {geo.cell_name(triple)}",
                      eliminations=others, cells=[triple], digits=[bug_digit])]


TECHNIQUES: list[Technique] = [
    Technique("Bivalue Universal Grave + 1", "Uniqueness", find_bug_plus_1, score=100, level="Hard", uniqueness=True,
              aliases=("BUG+1", "BUG", "BUG Type 1", "Bivalue Universal Grave"), hodoku_codes=("0610",)),
    Technique("Uniqueness Test 1", "Uniqueness", find_unique_rectangles_1, score=100, level="Hard", uniqueness=True,

              aliases=("Unique Rectangle", "UR", "Unique Rectangle Type 1", "UR Type 1", "UR1", "Unique Rectangle 1"),
              hodoku_codes=("0600",)),
    Technique("Uniqueness Test 2", "Uniqueness", find_unique_rectangles_2, score=100, level="Hard", uniqueness=True,
              aliases=("Unique Rectangle Type 2", "UR Type 2", "UR2", "Unique Rectangle 2"), hodoku_codes=("0601",)),
    Technique("Uniqueness Test 3", "Uniqueness", find_unique_rectangles_3, score=100, level="Hard", uniqueness=True,
              aliases=("Unique Rectangle Type 3", "UR Type 3", "UR3", "Unique Rectangle 3"), hodoku_codes=("0602",)),
    Technique("Uniqueness Test 4", "Uniqueness", find_unique_rectangles_4, score=100, level="Hard", uniqueness=True,
              aliases=("Unique Rectangle Type 4", "UR Type 4", "UR4", "Unique Rectangle 4"), hodoku_codes=("0603",)),
    Technique("Uniqueness Test 5", "Uniqueness", find_unique_rectangles_5, score=100, level="Hard", uniqueness=True,
              aliases=("Unique Rectangle Type 5", "UR Type 5", "UR5", "Unique Rectangle 5"), hodoku_codes=("0604",)),
    Technique("Uniqueness Test 6", "Uniqueness", find_unique_rectangles_6, score=100, level="Hard", uniqueness=True,
              aliases=("Unique Rectangle Type 6", "UR Type 6", "UR6", "Unique Rectangle 6"), hodoku_codes=("0605",)),
    Technique("Hidden Rectangle", "Uniqueness", find_hidden_rectangles, score=100, level="Hard", uniqueness=True,
              aliases=("Hidden Unique Rectangle", "HUR"), hodoku_codes=("0606",)),
    Technique("Avoidable Rectangle Type 1", "Uniqueness", find_avoidable_rectangles_1, score=100, level="Hard",
              uniqueness=True, aliases=("Avoidable Rectangle", "AR Type 1", "AR1"), hodoku_codes=("0607",)),
    Technique("Avoidable Rectangle Type 2", "Uniqueness", find_avoidable_rectangles_2, score=100, level="Hard",
              uniqueness=True, aliases=("AR Type 2", "AR2"), hodoku_codes=("0608",)),
]
