"""Subsets: naked and hidden pairs, triples and quadruples.

A naked subset is `size` cells of a unit whose candidates together are `size` digits: those digits leave every other
cell of each unit the cells share. A hidden subset is `size` digits whose places in a unit are together `size` cells:
those cells lose every other candidate. A naked pair or triple inside one box-line intersection that eliminates in
both the box and the line is a Locked Pair / Triple (intersections.py) and is not reported again here, as in HoDoKu;
like HoDoKu, an elimination in the rest of the intersection counts for both.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from operator import itemgetter
from typing import Callable, Sequence

from ltn_sudoku.board import Geometry, iter_bits
from ltn_sudoku.candidates import Assignment, CandidateGrid, Step, mask_digits
from ltn_sudoku.techniques.base import Technique, make_step
from ltn_sudoku.techniques.cache import StateCache

SUBSET_NAMES: dict[int, str] = {2: "Pair", 3: "Triple", 4: "Quadruple"}


Choice = tuple[tuple[int, ...], int]  # (chosen indices, OR of their bits)


def pruned_choices(bits: Sequence[int], size: int, fits: Callable[[int], bool] | None = None) -> list[Choice]:
    """Every choice of `size` indices into `bits` whose OR satisfies `fits`, with that OR, in lexicographic order.

    `fits` must be monotone (once a union fails, every wider union fails too), so a partial choice that fails is
    dropped with all its extensions: the search stays small when most choices fail early. None: the OR has at most
    `size` set bits (tested inline, the finders' commonest test). A list, built by plain recursion: nested generators
    cost each choice a resume per level.
    """
    count = len(bits)
    found: list[Choice] = []

    def extend(start: int, chosen: tuple[int, ...], union: int) -> None:
        need = size - len(chosen)
        for i in range(start, count - need + 1):
            wider = union | bits[i]
            if wider.bit_count() > size if fits is None else not fits(wider):
                continue
            if need == 1:
                found.append(((*chosen, i), wider))
            else:
                extend(i + 1, (*chosen, i), wider)

    extend(0, (), 0)
    return found


def small_unions(bits: Sequence[int], size: int) -> list[Choice]:
    """Every choice of `size` indices into `bits` whose OR has at most `size` set bits, with that OR.

    The one search behind naked subsets (cells -> digits), hidden subsets (digits -> cells) and basic fish
    (lines -> cross lines).
    """
    return pruned_choices(bits, size)


def shared_units(geo: Geometry, cells: Sequence[int]) -> list[int]:
    """The units (row, column, box) that contain every one of `cells`."""
    return [u for u in geo.units_of_cell[cells[0]] if all(u in geo.units_of_cell[c] for c in cells[1:])]


@dataclass(frozen=True)
class NakedSubset:
    """`cells` hold exactly the candidates `digits`; `eliminations` are those digits in the other cells of `units`."""

    cells: tuple[int, ...]
    digits: tuple[int, ...]
    units: tuple[int, ...]
    eliminations: tuple[Assignment, ...]
    locked: bool  # HoDoKu's Locked Subset: in one box-line intersection, eliminating in its box and in its line


def naked_subsets(grid: CandidateGrid, size: int, groups: Sequence[Sequence[int]] | None = None) -> list[NakedSubset]:
    """Every naked subset of `size` cells that eliminates something, each cell set once.

    The cells are looked for inside each of `groups` (default: every unit; locked subsets pass the box-line
    intersections, where they must lie); eliminations always cover every unit the cells share.
    """
    masks = grid.masks
    small = 0  # the open cells with at most `size` candidates: a subset's only possible cells
    for c, mask in enumerate(masks):
        if mask and mask.bit_count() <= size:
            small |= 1 << c
    seen: set[int] = set()
    found: list[NakedSubset] = []
    for group, bits, read in _group_plan(grid.geo, grid.geo.units if groups is None else tuple(map(tuple, groups))):
        if (bits & small).bit_count() < size:
            continue  # no subset here: cheaper to see than to look up (most groups of an easy board)
        for key, cells, digit_mask, units in _NAKED.get((grid.n, size, group, read(masks)),
                                                        lambda: _naked_in_group(grid, size, group)):
            if key not in seen:  # a subset lying in two groups is one
                seen.add(key)
                subset = _with_eliminations(grid, key, cells, digit_mask, units)
                if subset is not None:
                    found.append(subset)
    return found


# The naked subsets of one group of cells, keyed by (side, size, the group, its cells' candidates): all the search
# reads, so along a solving path (a few cells change per step) the other groups cost no search (issue 29). What a
# subset eliminates reads the rest of its units, so it is worked out at every call, for the few subsets found.
_NAKED: StateCache[tuple[object, ...], list[tuple[int, tuple[int, ...], int, tuple[int, ...]]]] = StateCache(8192)

GroupPlan = tuple[tuple[tuple[int, ...], int, Callable[[Sequence[int]], tuple[int, ...]]], ...]


@lru_cache(maxsize=None)
def _group_plan(geo: Geometry, groups: tuple[tuple[int, ...], ...]) -> GroupPlan:
    """Per group of cells: the group, its cell-set int, and a getter of its cells' candidates as a tuple (one C call
    per group for a cache key; itemgetter returns a bare item for one cell)."""
    def reader(group: tuple[int, ...]) -> Callable[[Sequence[int]], tuple[int, ...]]:
        get = itemgetter(*group)
        return get if len(group) > 1 else lambda masks: (get(masks),)

    return tuple((group, sum(1 << c for c in group), reader(group)) for group in groups)


def _naked_in_group(grid: CandidateGrid, size: int,
                    group: Sequence[int]) -> list[tuple[int, tuple[int, ...], int, tuple[int, ...]]]:
    """(cell set, cells, digit mask, units they share) of every naked subset inside one group, in search order."""
    masks = grid.masks
    found: list[tuple[int, tuple[int, ...], int, tuple[int, ...]]] = []
    pool = [c for c in group if masks[c] and masks[c].bit_count() <= size]  # at least `size`: naked_subsets checked
    for picks, digit_mask in small_unions([masks[c] for c in pool], size):
        if digit_mask.bit_count() < size:
            continue  # fewer digits than cells: a contradiction, not a subset
        cells = tuple(pool[i] for i in picks)
        found.append((sum(1 << c for c in cells), cells, digit_mask, tuple(shared_units(grid.geo, cells))))
    return found


def _with_eliminations(grid: CandidateGrid, key: int, cells: tuple[int, ...], digit_mask: int,
                       units: tuple[int, ...]) -> NakedSubset | None:
    """The subset with what it eliminates in the other cells of its units, or None when that is nothing."""
    geo, masks, n = grid.geo, grid.masks, grid.n
    eliminations: list[Assignment] = []
    eliminated_in: set[str] = set()
    for unit in units:
        for other in geo.units[unit]:
            hit = masks[other] & digit_mask
            if hit and not key >> other & 1:
                eliminations.extend((other, d) for d in mask_digits(hit))
                eliminated_in.add("box" if unit >= 2 * n else "line")
    if not eliminations:
        return None
    locked = len(cells) <= 3 and eliminated_in == {"box", "line"}
    return NakedSubset(cells, mask_digits(digit_mask), units, tuple(eliminations), locked)


def naked_subset_step(grid: CandidateGrid, technique: str, subset: NakedSubset) -> Step:
    pattern = f"{','.join(map(str, subset.digits))} in {grid.geo.cells_name(subset.cells)}"
    return make_step(grid, technique, pattern, eliminations=subset.eliminations, cells=subset.cells,
                     digits=subset.digits, units=subset.units)


def _find_naked(grid: CandidateGrid, size: int) -> list[Step]:
    technique = f"Naked {SUBSET_NAMES[size]}"
    return [naked_subset_step(grid, technique, s) for s in naked_subsets(grid, size) if not s.locked]


def _find_hidden(grid: CandidateGrid, size: int) -> list[Step]:
    """Digits confined to `size` cells of a unit claim those cells."""
    masks = grid.masks
    open_cells = grid.cells_with_candidates()
    seen: set[tuple[int, int]] = set()
    steps: list[Step] = []
    for unit, (_, bits, read) in enumerate(_group_plan(grid.geo, grid.geo.units)):
        if (bits & open_cells).bit_count() <= size:
            continue  # no hidden subset in a unit this empty: cheaper to see than to look up
        state = (grid.n, size, unit, read(masks))
        for key, step in _HIDDEN.get(state, lambda: _hidden_in_unit(grid, size, unit)):
            if key not in seen:  # a subset lying in two units (a line and a box) is one step
                seen.add(key)
                steps.append(step)
    return steps


# The hidden subsets of one unit, keyed by (side, size, unit, its cells' candidates): all they read, so along a
# solving path (a few cells change per step) the other units cost no search (issue 29).
_HIDDEN: StateCache[tuple[int, int, int, tuple[int, ...]], list[tuple[tuple[int, int], Step]]] = StateCache(8192)


def _hidden_in_unit(grid: CandidateGrid, size: int, unit: int) -> list[tuple[tuple[int, int], Step]]:
    """((cells, digits), step) of every hidden subset of one unit that eliminates something, in search order."""
    geo, masks, digit_cells = grid.geo, grid.masks, grid.digit_cells
    technique = f"Hidden {SUBSET_NAMES[size]}"
    unit_bits = geo.unit_bits[unit]
    found: list[tuple[tuple[int, int], Step]] = []  # the unit has more than `size` open cells: _find_hidden checked
    digits: list[int] = []
    places: list[int] = []
    for d in range(1, grid.n + 1):
        where = digit_cells[d] & unit_bits
        if where and where.bit_count() <= size:
            digits.append(d)
            places.append(where)
    if len(digits) < size:
        return found
    for picks, cell_bits in small_unions(places, size):
        if cell_bits.bit_count() < size:
            continue  # more digits than places: a contradiction
        chosen = tuple(digits[i] for i in picks)
        digit_mask = sum(1 << (d - 1) for d in chosen)
        cells = tuple(iter_bits(cell_bits))
        eliminations = [(c, d) for c in cells for d in mask_digits(masks[c] & ~digit_mask)]
        if eliminations:
            pattern = f"{','.join(map(str, chosen))} in {geo.cells_name(cells)}"
            found.append(((cell_bits, digit_mask), make_step(grid, technique, pattern, eliminations=eliminations,
                                                             cells=cells, digits=chosen, units=[unit])))
    return found


def find_naked_pairs(grid: CandidateGrid) -> list[Step]:
    """Two cells of a unit with the same two candidates."""
    return _find_naked(grid, 2)


def find_naked_triples(grid: CandidateGrid) -> list[Step]:
    """Three cells of a unit whose candidates are three digits together."""
    return _find_naked(grid, 3)


def find_naked_quadruples(grid: CandidateGrid) -> list[Step]:
    """Four cells of a unit whose candidates are four digits together."""
    return _find_naked(grid, 4)


def find_hidden_pairs(grid: CandidateGrid) -> list[Step]:
    """Two digits with the same two places in a unit."""
    return _find_hidden(grid, 2)


def find_hidden_triples(grid: CandidateGrid) -> list[Step]:
    """Three digits whose places in a unit are three cells together."""
    return _find_hidden(grid, 3)


def find_hidden_quadruples(grid: CandidateGrid) -> list[Step]:
    """Four digits whose places in a unit are four cells together."""
    return _find_hidden(grid, 4)


TECHNIQUES: list[Technique] = [
    Technique("Naked Pair", "Subsets", find_naked_pairs, score=60, level="Medium", hodoku_codes=("0200",)),
    Technique("Naked Triple", "Subsets", find_naked_triples, score=80, level="Medium", hodoku_codes=("0201",)),
    Technique("Hidden Pair", "Subsets", find_hidden_pairs, score=70, level="Medium", hodoku_codes=("0210",)),
    Technique("Hidden Triple", "Subsets", find_hidden_triples, score=100, level="Medium", hodoku_codes=("0211",)),
    Technique("Naked Quadruple", "Subsets", find_naked_quadruples, score=120, level="Hard", min_n=9,
              aliases=("Naked Quad",), hodoku_codes=("0202",)),
    Technique("Hidden Quadruple", "Subsets", find_hidden_quadruples, score=150, level="Hard", min_n=9,
              aliases=("Hidden Quad",), hodoku_codes=("0212",)),
]
