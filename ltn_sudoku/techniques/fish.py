"""Basic fish (X-Wing, Swordfish, Jellyfish) and their finned and sashimi variants, for one digit at a time.

A fish of size s takes s base lines (rows, or columns) whose places for the digit all lie in s cover lines of the
other direction: each cover line then takes its digit from a base line, so the cover lines lose the digit outside the
base lines. A finned fish has extra base places (the fins) outside the covers, all in one box: either a fin holds the
digit or the fish is real, so only cover cells that also see every fin (those in the fin box) lose the digit. It is
sashimi when some base line keeps at most one place inside the covers (without the fins it would be no fish at all).

Notation (HoDoKu style, cells spelled out): `X-Wing: 5 r2,r7 c3,c8 => r4c3<>5`,
`Finned Swordfish: 3 r1,r5,r9 c2,c4,c8 fr1c7,r2c7 => r2c8<>3`.
"""

from __future__ import annotations

from functools import lru_cache, partial
from itertools import combinations
from typing import Callable, Iterator, Sequence

from ltn_sudoku.board import Geometry, iter_bits
from ltn_sudoku.candidates import CandidateGrid, Step
from ltn_sudoku.techniques.base import Technique, make_step
from ltn_sudoku.techniques.cache import StateCache, state_key
from ltn_sudoku.techniques.subsets import pruned_choices, small_unions

FISH_NAMES: dict[int, str] = {2: "X-Wing", 3: "Swordfish", 4: "Jellyfish"}
TABLE_MAX_N = 16  # up to this side the line-set tables below (2^n entries each) are built; beyond, loops
# The fish of one digit, keyed by (side, size, digit, the digit's places): a solving path changes a few digits per
# step, so the other digits' fish are found again without a search (issue 29).
_BASIC_FISH: StateCache[tuple[int, int, int, int], list[Step]] = StateCache(size=2048)
_FINNED_FISH: StateCache[tuple[int, int, int, int], tuple[list[Step], list[Step]]] = StateCache(size=2048)


def line_patterns(grid: CandidateGrid, digit: int) -> tuple[list[int], list[int]]:
    """Where `digit` can go, per row (bit c set for column c) and per column (bit r set for row r)."""
    n = grid.n
    full = (1 << n) - 1
    cells = grid.digit_cells[digit]
    rows = [(cells >> (r * n)) & full for r in range(n)]
    cols = [0] * n
    for r, pattern in enumerate(rows):
        for c in iter_bits(pattern):
            cols[c] |= 1 << r
    return rows, cols


def _orientations(grid: CandidateGrid, digit: int) -> tuple[tuple[int, int, list[int]], ...]:
    """(base unit offset, cover unit offset, base line patterns): rows as base, then columns as base."""
    rows, cols = line_patterns(grid, digit)
    n = grid.n
    return (0, n, rows), (n, 0, cols)


def _cells_of(geo: Geometry, offset: int, lines: Sequence[int] | int) -> int:
    """Cell bits of lines (indices, or a bitmask of indices) of one direction (offset 0 = rows, n = columns)."""
    if isinstance(lines, int) and geo.n <= TABLE_MAX_N:
        return _line_cells(geo, offset)[lines]
    out = 0
    for i in iter_bits(lines) if isinstance(lines, int) else lines:
        out |= geo.unit_bits[offset + i]
    return out


@lru_cache(maxsize=None)
def _line_cells(geo: Geometry, offset: int) -> tuple[int, ...]:
    """The cell bits of every set of lines of one direction, indexed by its bitmask (2^n entries: the finned fish
    ask for the lines of a cover or of its fins thousands of times a board)."""
    table = [0] * (1 << geo.n)
    for lines in range(1, 1 << geo.n):
        low = lines & -lines
        table[lines] = table[lines ^ low] | geo.unit_bits[offset + low.bit_length() - 1]
    return tuple(table)


def _stacks(k: int) -> list[int]:
    """The line indices of each band / stack, as bitmasks."""
    return [((1 << k) - 1) << (t * k) for t in range(k)]


def _fins_fit(union: int, stacks: Sequence[int], size: int) -> bool:
    """Whether all but `size` of the lines in `union` lie in one band / stack, where a finned fish's fins must lie."""
    return any((union & ~stack).bit_count() <= size for stack in stacks)


@lru_cache(maxsize=None)
def _fins_fit_table(n: int, k: int, size: int) -> tuple[bool, ...]:
    """`_fins_fit` of every set of lines, indexed by its bitmask: pruned_choices' test as a lookup."""
    stacks = _stacks(k)
    return tuple(_fins_fit(union, stacks, size) for union in range(1 << n))


def _names(geo: Geometry, offset: int, lines: Sequence[int] | int) -> str:
    indices = iter_bits(lines) if isinstance(lines, int) else lines
    return ",".join(geo.unit_name(offset + i) for i in indices)


def _fish_step(grid: CandidateGrid, technique: str, digit: int, offsets: tuple[int, int], base: Sequence[int],
               cover: int, victims: int, fins: int = 0) -> Step:
    """The step of a fish: base lines (indices), cover lines (bitmask), the cells that lose `digit`, the fins."""
    geo = grid.geo
    base_offset, cover_offset = offsets
    pattern = f"{digit} {_names(geo, base_offset, base)} {_names(geo, cover_offset, cover)}"
    if fins:
        pattern += f" f{geo.cells_name(iter_bits(fins))}"
    return make_step(grid, technique, pattern, eliminations=[(c, digit) for c in iter_bits(victims)],
                     cells=list(iter_bits(grid.digit_cells[digit] & _cells_of(geo, base_offset, base))),
                     digits=[digit],
                     units=[base_offset + i for i in base] + [cover_offset + j for j in iter_bits(cover)])


def _find_basic_fish(grid: CandidateGrid, size: int) -> list[Step]:
    steps: list[Step] = []
    for digit in range(1, grid.n + 1):
        if grid.digit_cells[digit]:
            steps += _BASIC_FISH.get((grid.n, size, digit, grid.digit_cells[digit]),
                                     lambda: _basic_fish_of_digit(grid, size, digit))
    return steps


def _basic_fish_of_digit(grid: CandidateGrid, size: int, digit: int) -> list[Step]:
    """The basic fish of one digit: they depend on that digit's places alone (see _BASIC_FISH)."""
    geo = grid.geo
    cells = grid.digit_cells[digit]
    steps: list[Step] = []
    for base_offset, cover_offset, patterns in _orientations(grid, digit):
        lines = [i for i, p in enumerate(patterns) if 2 <= p.bit_count() <= size]
        if len(lines) < size:
            continue
        for picks, cover in small_unions([patterns[i] for i in lines], size):
            if cover.bit_count() != size:
                continue  # fewer cover lines than base lines: a contradiction, not a fish
            base = [lines[i] for i in picks]
            victims = cells & _cells_of(geo, cover_offset, cover) & ~_cells_of(geo, base_offset, base)
            if victims:
                steps.append(_fish_step(grid, FISH_NAMES[size], digit, (base_offset, cover_offset), base, cover,
                                        victims))
    return steps


def _covers_with_fins(union: int, size: int, stacks: Sequence[int]) -> Iterator[tuple[int, int]]:
    """(cover lines, fin lines) as bitmasks: `size` of the lines in `union` cover, the others hold fins, and all fin
    lines plus at least one cover line lie in one stack (else no cover cell could see the fins)."""
    for stack in stacks:
        outside = union & ~stack
        free = size - outside.bit_count()
        if free < 1:
            continue
        inside = union & stack
        for chosen in combinations(iter_bits(inside), free):
            cover = outside | sum(1 << j for j in chosen)
            if inside & ~cover:
                yield cover, inside & ~cover


def _search_finned_fish(grid: CandidateGrid, size: int) -> tuple[list[Step], list[Step]]:
    """(finned, sashimi) fish of `size` base lines: one search serves both kinds."""
    found: tuple[list[Step], list[Step]] = ([], [])
    for digit in range(1, grid.n + 1):
        if grid.digit_cells[digit]:
            finned, sashimi = _FINNED_FISH.get((grid.n, size, digit, grid.digit_cells[digit]),
                                              lambda: _finned_fish_of_digit(grid, size, digit))
            found[0].extend(finned)
            found[1].extend(sashimi)
    return found


def _finned_fish_of_digit(grid: CandidateGrid, size: int, digit: int) -> tuple[list[Step], list[Step]]:
    """(finned, sashimi) fish of one digit: they depend on that digit's places alone (see _FINNED_FISH)."""
    geo, k = grid.geo, grid.geo.k
    name = FISH_NAMES[size]
    stacks = _stacks(k)
    fins_fit_one_stack: Callable[[int], bool] = (_fins_fit_table(grid.n, k, size).__getitem__
                                                 if grid.n <= TABLE_MAX_N else partial(_fins_fit, stacks=stacks,
                                                                                       size=size))
    found: tuple[list[Step], list[Step]] = ([], [])
    cells = grid.digit_cells[digit]
    for base_offset, cover_offset, patterns in _orientations(grid, digit):
        lines = [i for i, p in enumerate(patterns) if p]
        for picks, union in pruned_choices([patterns[i] for i in lines], size, fins_fit_one_stack):
            if union.bit_count() <= size:
                continue  # no fin needed: a basic fish (or a contradiction)
            base = [lines[i] for i in picks]
            base_cells = _cells_of(geo, base_offset, base)
            for cover, fin_lines in _covers_with_fins(union, size, stacks):
                fins = cells & base_cells & _cells_of(geo, cover_offset, fin_lines)
                fin_box = geo.unit_bits[2 * grid.n + geo.box[fins.bit_length() - 1]]
                if fins & ~fin_box:
                    continue
                victims = cells & _cells_of(geo, cover_offset, cover) & fin_box & ~base_cells
                if victims:
                    sashimi = any((patterns[i] & cover).bit_count() <= 1 for i in base)
                    technique = f"{'Sashimi' if sashimi else 'Finned'} {name}"
                    found[sashimi].append(_fish_step(grid, technique, digit, (base_offset, cover_offset), base,
                                                     cover, victims, fins))
    return found


_FINNED_SEARCHES: StateCache[tuple[int, tuple[int, ...]], tuple[list[Step], list[Step]]] = StateCache(size=6)


def _find_finned_fish(grid: CandidateGrid, size: int, sashimi: bool) -> list[Step]:
    """Finned (sashimi=False) or sashimi (sashimi=True) fish of `size` base lines; the engine asks for both kinds on
    the same candidates one after the other, so the search is cached per grid state."""
    found = _FINNED_SEARCHES.get((size, state_key(grid)), lambda: _search_finned_fish(grid, size))
    return list(found[sashimi])


def find_x_wings(grid: CandidateGrid) -> list[Step]:
    """Two base lines whose places for a digit lie in two cover lines."""
    return _find_basic_fish(grid, 2)


def find_swordfish(grid: CandidateGrid) -> list[Step]:
    """Three base lines whose places for a digit lie in three cover lines."""
    return _find_basic_fish(grid, 3)


def find_jellyfish(grid: CandidateGrid) -> list[Step]:
    """Four base lines whose places for a digit lie in four cover lines."""
    return _find_basic_fish(grid, 4)


def find_finned_x_wings(grid: CandidateGrid) -> list[Step]:
    """An X-Wing with fins in one box."""
    return _find_finned_fish(grid, 2, sashimi=False)


def find_sashimi_x_wings(grid: CandidateGrid) -> list[Step]:
    """A finned X-Wing whose body misses a place."""
    return _find_finned_fish(grid, 2, sashimi=True)


def find_finned_swordfish(grid: CandidateGrid) -> list[Step]:
    """A Swordfish with fins in one box."""
    return _find_finned_fish(grid, 3, sashimi=False)


def find_sashimi_swordfish(grid: CandidateGrid) -> list[Step]:
    """A finned Swordfish with a base line of at most one body place."""
    return _find_finned_fish(grid, 3, sashimi=True)


def find_finned_jellyfish(grid: CandidateGrid) -> list[Step]:
    """A Jellyfish with fins in one box."""
    return _find_finned_fish(grid, 4, sashimi=False)


def find_sashimi_jellyfish(grid: CandidateGrid) -> list[Step]:
    """A finned Jellyfish with a base line of at most one body place."""
    return _find_finned_fish(grid, 4, sashimi=True)


TECHNIQUES: list[Technique] = [
    Technique("X-Wing", "Basic Fish", find_x_wings, score=140, level="Hard", hodoku_codes=("0300",)),
    Technique("Swordfish", "Basic Fish", find_swordfish, score=150, level="Hard", min_n=9, hodoku_codes=("0301",)),
    Technique("Jellyfish", "Basic Fish", find_jellyfish, score=160, level="Hard", min_n=9, hodoku_codes=("0302",)),
    Technique("Finned X-Wing", "Finned Fish", find_finned_x_wings, score=130, level="Hard", hodoku_codes=("0310",)),
    Technique("Sashimi X-Wing", "Finned Fish", find_sashimi_x_wings, score=150, level="Hard",
              hodoku_codes=("0320",)),
    Technique("Finned Swordfish", "Finned Fish", find_finned_swordfish, score=200, level="Unfair", min_n=9,
              hodoku_codes=("0311",)),
    Technique("Sashimi Swordfish", "Finned Fish", find_sashimi_swordfish, score=240, level="Unfair", min_n=9,
              hodoku_codes=("0321",)),
    Technique("Finned Jellyfish", "Finned Fish", find_finned_jellyfish, score=250, level="Unfair", min_n=9,
              hodoku_codes=("0312",)),
    Technique("Sashimi Jellyfish", "Finned Fish", find_sashimi_jellyfish, score=260, level="Unfair", min_n=9,
              hodoku_codes=("0322",)),
]
