"""Sue de Coq: two or more cells where a line crosses a box, holding at least two digits more than cells.

Take C (2..k cells of a line-box intersection) with candidates V, |V| >= |C| + 2. Pick cells L elsewhere in the line
and B elsewhere in the box such that the digits of V that L holds and those B holds are disjoint and, counting only
digits of V, L and B cover exactly the surplus: (|L| - extra(L)) + (|B| - extra(B)) = |V| - |C|, where extra(X) is
the number of X's digits outside V (each extra digit needs a cell of its own, as in a naked subset). Then C, L and B
together hold every digit of V exactly once and their extra digits: the line outside C and L loses V's digits that B
does not hold and L's digits; the box outside C and B loses V's digits that L does not hold and B's digits (an extra
digit held by both L and B is lost by both). This is HoDoKu's extended Sue de Coq, with the same eliminations.
"""

from __future__ import annotations

from functools import lru_cache, reduce
from itertools import combinations
from operator import or_
from typing import Iterator

from ltn_sudoku.board import Geometry, iter_bits
from ltn_sudoku.candidates import Assignment, CandidateGrid, Step, mask_digits
from ltn_sudoku.techniques.base import Technique, make_step
from ltn_sudoku.techniques.cache import StateCache


def default_max_cells(n: int) -> int:
    """Largest line or box set searched: any size up to 9x9 (as HoDoKu), k cells beyond (the subsets of a unit grow
    exponentially)."""
    k = round(n**0.5)
    return n if k <= 3 else k


def _cell_sets(cells: list[int], masks: list[int], sizes: range) -> Iterator[tuple[int, int, int]]:
    """(cell bitset, candidate mask, size) of every subset of the cells with a size in `sizes` (no monotone test
    prunes these, unlike subsets.pruned_choices). When every size is wanted, subset k's union is built from subset k
    without its lowest member; otherwise the subsets are listed size by size."""
    if sizes.stop <= len(cells):
        for size in sizes:
            for chosen in combinations(cells, size):
                yield sum(1 << c for c in chosen), reduce(or_, (masks[c] for c in chosen)), size
        return
    unions = [0] * (1 << len(cells))
    members = [0] * (1 << len(cells))
    for k in range(1, 1 << len(cells)):
        low = k & -k
        i = low.bit_length() - 1
        unions[k] = unions[k ^ low] | masks[cells[i]]
        members[k] = members[k ^ low] | 1 << cells[i]
        size = k.bit_count()
        if size in sizes:
            yield members[k], unions[k], size


def _sides(pool: int, masks: list[int], core_digits: int, surplus: int,
           bound: int) -> Iterator[tuple[int, int, int, int]]:
    """Candidate line (or box) sets among the pool cells: (cells, digits, size, covered) where covered = size minus
    extra digits (outside V) is how much of the surplus the set takes, 1 <= covered < surplus, and the set holds a
    digit of V."""
    for cells, digits, size in _cell_sets(list(iter_bits(pool)), masks, range(1, bound + 1)):
        if digits & core_digits:
            covered = size - (digits & ~core_digits).bit_count()
            if 0 < covered < surplus:
                yield cells, digits, size, covered


@lru_cache(maxsize=None)
def _line_box_pairs(geo: Geometry) -> tuple[tuple[int, int, tuple[int, ...]], ...]:
    """(line unit, box unit, the cells of both) for every line crossing a box, rows first."""
    n = geo.n
    return tuple((line, box, tuple(iter_bits(geo.unit_bits[line] | geo.unit_bits[box])))
                 for line in range(2 * n) for box in range(2 * n, 3 * n)
                 if geo.unit_bits[line] & geo.unit_bits[box])


def _in(grid: CandidateGrid, digits: int, cells: int) -> list[Assignment]:
    """Candidates of the given digits in the given cells."""
    return [(c, b + 1) for c in iter_bits(cells) for b in iter_bits(grid.masks[c] & digits)]


def find_sue_de_coq(grid: CandidateGrid, max_cells: int | None = None, limit: int | None = None) -> list[Step]:
    """Every Sue de Coq with eliminations, one step per elimination set, fewest pattern cells first."""
    geo, masks, values = grid.geo, grid.masks, grid.values
    empty = sum(1 << c for c in grid.empty_cells())  # once per call, not once per pair searched
    bound = default_max_cells(grid.n) if max_cells is None else max_cells
    found: dict[tuple[Assignment, ...], tuple[int, int, Step]] = {}
    for line, box, cells in _line_box_pairs(geo):
        state = (grid.n, line, box, bound, tuple([masks[c] for c in cells]), tuple([values[c] > 0 for c in cells]))
        for key, cost, step in _PAIR_FINDS.get(state, lambda: _pair_finds(grid, line, box, bound, empty)):
            if key not in found or cost < found[key][0]:
                found[key] = (cost, len(found), step)
    return [step for _, _, step in sorted(found.values(), key=lambda t: t[:2])][:limit]


# What one line-box pair finds, keyed by the candidates and emptiness of its cells (all it reads): a solving path
# changes a few cells per step, so most pairs are found again without a search (issue 29).
_PAIR_FINDS: StateCache[tuple[object, ...], list[tuple[tuple[Assignment, ...], int, Step]]] = StateCache(size=8192)


def _pair_finds(grid: CandidateGrid, line: int, box: int, bound: int,
                empty: int) -> list[tuple[tuple[Assignment, ...], int, Step]]:
    """The Sue de Coqs of one line-box pair in the order they are met: (elimination set, pattern cells, step)."""
    geo, masks = grid.geo, grid.masks
    finds: list[tuple[tuple[Assignment, ...], int, Step]] = []
    line_cells, box_cells = geo.unit_bits[line] & empty, geo.unit_bits[box] & empty
    crossing = list(iter_bits(line_cells & box_cells))
    for core, core_digits, core_size in _cell_sets(crossing, masks, range(2, len(crossing) + 1)):
        surplus = core_digits.bit_count() - core_size
        if surplus < 2:
            continue
        line_sets = list(_sides(line_cells & ~core, masks, core_digits, surplus, bound))
        if not line_sets:
            continue
        box_sets: dict[int, list[tuple[int, int, int]]] = {}  # by how much of the surplus they cover
        for entry in _sides(box_cells & ~core, masks, core_digits, surplus, bound):
            box_sets.setdefault(entry[3], []).append(entry[:3])
        for line_set, line_digits, line_size, covered in line_sets:
            forbidden = line_digits & core_digits  # the box set may not hold V's digits that the line set holds
            for box_set, box_digits, box_size in box_sets.get(surplus - covered, ()):
                if box_set & line_set or box_digits & forbidden:
                    continue
                shared = box_digits & line_digits
                eliminations = (
                    _in(grid, ((core_digits | line_digits) & ~box_digits) | shared, line_cells & ~line_set & ~core)
                    + _in(grid, ((core_digits | box_digits) & ~line_digits) | shared, box_cells & ~box_set & ~core))
                if eliminations:
                    finds.append((tuple(sorted(set(eliminations))), core_size + line_size + box_size,
                                  _step(grid, core, line_set, box_set, eliminations)))
    return finds


def _step(grid: CandidateGrid, core: int, line_set: int, box_set: int, eliminations: list[Assignment]) -> Step:
    geo, masks = grid.geo, grid.masks

    def part(cells: int) -> str:
        mask = 0
        for c in iter_bits(cells):
            mask |= masks[c]
        return f"{geo.cells_name(iter_bits(cells))} {{{','.join(map(str, mask_digits(mask)))}}}"

    return make_step(grid, "Sue de Coq", f"{part(core)} with line {part(line_set)} and box {part(box_set)}",
                     eliminations=eliminations, cells=iter_bits(core | line_set | box_set),
                     digits=sorted({d for c in iter_bits(core) for d in mask_digits(masks[c])}))


TECHNIQUES: list[Technique] = [
    Technique("Sue de Coq", "Miscellaneous", find_sue_de_coq, score=250, level="Unfair",
              aliases=("SDC", "Two-Sector Disjoint Subsets"), hodoku_codes=("1101",)),
]
