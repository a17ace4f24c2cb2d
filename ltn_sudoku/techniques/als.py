"""Almost Locked Sets: ALS-XZ (singly and doubly linked), ALS-XY-Wing, ALS-XY-Chain and Death Blossom.

An ALS is a set of N cells of one unit holding N+1 candidates together (a bivalue cell is the smallest); it is
"locked" as soon as it loses one digit. Two ALS A and B share a *restricted common* (RC) digit x when every cell of A
holding x sees every cell of B holding x and no shared cell holds x: x then sits in at most one of them, so when A
lacks x it holds every other digit. Every technique here is a chain of such implications, "A lacks x => A holds y =>
B lacks y => B holds z", ending in a digit z that one of two ALS must hold: z is removed from every cell that sees
all the z cells of both.

Bitsets throughout: cells as Python ints (bit = cell), digits as candidate masks (bit d-1 = digit d). The ALS of a
grid (enumerated by links.almost_locked_sets, which the chain finders share) and their RC links are computed once per
grid state and shared by the four finders (`AlsIndex.of`). ALS may
overlap (HoDoKu's "allow overlap" option) as long as no RC digit lies in the shared cells; chains may reuse ALS.
Each finder returns its steps simplest first (fewest ALS cells), one step per elimination set, at most `limit`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterator

from ltn_sudoku.board import Geometry, iter_bits
from ltn_sudoku.candidates import CandidateGrid, mask_digits
from ltn_sudoku.techniques.base import Assignment, Step, Technique, make_step
from ltn_sudoku.techniques.links import StateCache, almost_locked_sets, state_key


@dataclass(frozen=True, slots=True)
class Als:
    """An ALS (cells, digits) with what its links need: per digit (index d, 1-based) the ALS cells holding it and the
    cells that see all of those."""

    cells: int
    digits: int
    digit_cells: tuple[int, ...]
    sees_all: tuple[int, ...]

    @property
    def size(self) -> int:
        return self.cells.bit_count()

    def name(self, geo: Geometry) -> str:
        """'r1c1,r1c2 {1,2,3}'."""
        return f"{geo.cells_name(iter_bits(self.cells))} {{{','.join(map(str, mask_digits(self.digits)))}}}"


def default_max_cells(n: int) -> int:
    """Largest ALS searched: every size up to n-1 on boards up to 9x9 (as HoDoKu), k cells beyond (the count of
    ALS grows exponentially with the unit size)."""
    k = round(n**0.5)
    return n - 1 if k <= 3 else k


def find_alses(grid: CandidateGrid, max_cells: int | None = None) -> list[Als]:
    """Every ALS of the grid (links.almost_locked_sets: each cell set once), smallest first, with its digit data."""
    geo = grid.geo
    found = almost_locked_sets(grid, max_cells=default_max_cells(grid.n) if max_cells is None else max_cells)
    alses = []
    for base in sorted(found, key=lambda a: (a.cells.bit_count(), a.cells)):
        digit_cells = [0] * (grid.n + 1)
        sees_all = [0] * (grid.n + 1)
        for b in iter_bits(base.digits):
            holding = base.cells & grid.digit_cells[b + 1]
            seen = -1
            for c in iter_bits(holding):
                seen &= geo.peer_bits[c]
            digit_cells[b + 1] = holding
            sees_all[b + 1] = seen
        alses.append(Als(base.cells, base.digits, tuple(digit_cells), tuple(sees_all)))
    return alses


def _units_holding(geo: Geometry, cells: int) -> list[int]:
    """The units that contain every cell of a non-empty cell set."""
    first = (cells & -cells).bit_length() - 1
    return [u for u in geo.units_of_cell[first] if cells & ~geo.unit_bits[u] == 0]


class AlsIndex:
    """The ALS of one grid state and their RC links (links[i][j] = mask of RC digits between ALS i and j)."""

    def __init__(self, grid: CandidateGrid, max_cells: int | None = None) -> None:
        self.grid = grid
        self.alses = find_alses(grid, max_cells)
        self.links: list[dict[int, int]] = [{} for _ in self.alses]
        by_digit_unit: dict[tuple[int, int], list[int]] = {}
        for i, als in enumerate(self.alses):
            for b in iter_bits(als.digits):
                for unit in _units_holding(grid.geo, als.digit_cells[b + 1]):
                    by_digit_unit.setdefault((b + 1, unit), []).append(i)
        for (digit, _), members in by_digit_unit.items():
            bit = 1 << (digit - 1)
            holding = grid.digit_cells[digit]
            for x, i in enumerate(members):
                a = self.alses[i]
                for j in members[x + 1:]:
                    if a.cells & self.alses[j].cells & holding:
                        continue  # x in a shared cell: both could hold it
                    self.links[i][j] = self.links[i].get(j, 0) | bit
                    self.links[j][i] = self.links[j].get(i, 0) | bit

    @classmethod
    def of(cls, grid: CandidateGrid, max_cells: int | None = None) -> AlsIndex:
        """The index of this grid state, shared by the finders of one engine round."""
        return _INDEXES.get((max_cells, state_key(grid)), lambda: cls(grid, max_cells))


_INDEXES: StateCache[tuple[int | None, tuple[int, ...]], AlsIndex] = StateCache()


# ---- shared step building ----------------------------------------------------------------------------------------
def _targets(grid: CandidateGrid, digit: int, outside: int, *alses: Als) -> int:
    """Cells outside `outside` holding digit that see every cell of the given ALS holding it."""
    seen = grid.digit_cells[digit] & ~outside
    for als in alses:
        seen &= als.sees_all[digit]
    return seen


def _common_eliminations(grid: CandidateGrid, a: Als, b: Als, digits: int) -> list[Assignment]:
    """For each digit of the mask that A or B must hold: its cells outside A and B that see all its cells in both."""
    outside = a.cells | b.cells
    return [(c, z + 1) for z in iter_bits(digits) for c in iter_bits(_targets(grid, z + 1, outside, a, b))]


def _digits_text(mask: int) -> str:
    return ",".join(map(str, mask_digits(mask)))


def _digits_of(eliminations: list[Assignment]) -> int:
    """The candidate mask of the digits a list of eliminations removes."""
    mask = 0
    for _, digit in eliminations:
        mask |= 1 << (digit - 1)
    return mask


class _Collector:
    """Distinct steps by effect, keeping the simplest pattern (lowest cost) for each; steps are built lazily."""

    def __init__(self) -> None:
        self._found: dict[tuple[Assignment, ...], tuple[int, int, Callable[[], Step]]] = {}

    def add(self, cost: int, eliminations: list[Assignment], build: Callable[[], Step]) -> None:
        key = tuple(sorted(set(eliminations)))
        if key and (key not in self._found or cost < self._found[key][0]):
            self._found[key] = (cost, len(self._found), build)

    def steps(self, limit: int | None) -> list[Step]:
        return [build() for _, _, build in sorted(self._found.values(), key=lambda t: t[:2])[:limit]]


# ---- ALS-XZ --------------------------------------------------------------------------------------------------------
def find_als_xz(grid: CandidateGrid, max_cells: int | None = None, limit: int | None = None) -> list[Step]:
    """Two ALS with an RC x: any other common digit z is in one of them. Doubly linked (two RCs): both ALS are
    locked, each keeps all its non-RC digits and each RC lies in exactly one of them."""
    index = AlsIndex.of(grid, max_cells)
    geo, alses = grid.geo, index.alses
    out = _Collector()
    for i, links in enumerate(index.links):
        a = alses[i]
        for j, rc in links.items():
            if j < i or rc.bit_count() > 2:
                continue  # each pair once; three RCs cannot happen in a grid with a solution
            b = alses[j]
            if rc.bit_count() == 1:
                eliminations = _common_eliminations(grid, a, b, a.digits & b.digits & ~rc)
                pattern = f"X={_digits_text(rc)}, Z={_digits_text(_digits_of(eliminations))}"
            else:
                outside = a.cells | b.cells
                eliminations = _common_eliminations(grid, a, b, rc)
                for locked in (a, b):
                    for z in iter_bits(locked.digits & ~rc):
                        eliminations += [(c, z + 1) for c in iter_bits(_targets(grid, z + 1, outside, locked))]
                pattern = f"X={_digits_text(rc)} (doubly linked)"
            out.add(a.size + b.size, eliminations, lambda a=a, b=b, pattern=pattern, eliminations=eliminations: make_step(
                grid, "ALS-XZ", f"A={a.name(geo)}, B={b.name(geo)}, {pattern}", eliminations=eliminations,
                cells=iter_bits(a.cells | b.cells), digits=mask_digits(a.digits | b.digits)))
    return out.steps(limit)


# ---- ALS-XY-Wing ---------------------------------------------------------------------------------------------------
def find_als_xy_wings(grid: CandidateGrid, max_cells: int | None = None, limit: int | None = None) -> list[Step]:
    """ALS A and B both linked to a pivot ALS C, by RCs x (A-C) and y (B-C), x != y: if A lacks z it holds x, so C
    lacks x and holds y, so B lacks y and holds z. z (not an RC of either link) is in A or B."""
    index = AlsIndex.of(grid, max_cells)
    geo, alses = grid.geo, index.alses
    with_targets = [_digits_with_targets(grid, als) for als in alses]
    out = _Collector()
    for c, links in enumerate(index.links):
        pivot = alses[c]
        wings = [(i, rc) for i, rc in links.items() if with_targets[i]]
        for x, (i, rc_a) in enumerate(wings):
            a = alses[i]
            for j, rc_b in wings[x + 1:]:
                zs = with_targets[i] & with_targets[j] & ~(rc_a | rc_b)
                if not zs or (rc_a == rc_b and rc_a.bit_count() == 1):
                    continue
                b = alses[j]
                shared = a.cells & b.cells
                if shared == a.cells or shared == b.cells:
                    continue  # one wing inside the other
                eliminations = _common_eliminations(grid, a, b, zs)
                out.add(a.size + b.size + pivot.size, eliminations,
                        lambda a=a, b=b, pivot=pivot, rc_a=rc_a, rc_b=rc_b, eliminations=eliminations: make_step(
                            grid, "ALS-XY-Wing", f"A={a.name(geo)}, B={b.name(geo)}, C={pivot.name(geo)}, "
                            f"X={_digits_text(rc_a)}, Y={_digits_text(rc_b)}, Z={_digits_text(_digits_of(eliminations))}",
                            eliminations=eliminations, cells=iter_bits(a.cells | b.cells | pivot.cells),
                            digits=mask_digits(a.digits | b.digits | pivot.digits)))
    return out.steps(limit)


def _digits_with_targets(grid: CandidateGrid, als: Als) -> int:
    """Digits of the ALS with a cell outside it that sees all the ALS cells holding the digit."""
    return sum(1 << b for b in iter_bits(als.digits) if _targets(grid, b + 1, als.cells, als))


# ---- ALS-XY-Chain --------------------------------------------------------------------------------------------------
def find_als_xy_chains(grid: CandidateGrid, max_als: int = 8, max_cells: int | None = None,
                       limit: int | None = None) -> list[Step]:
    """A chain of 4 to max_als ALS, consecutive ones linked by RCs, no RC used twice in a row: if the first ALS
    lacks z it holds x1, the RC to the second, so the second lacks x1 and holds x2, ... and the last holds z.
    z (in the first and last ALS, not their RC in the chain) is in one of them.

    Implications between states (ALS i lacks digit x) form a graph; reach sets within k steps are bitsets built
    level by level, so every pair of end ALS sharing a digit with common targets is checked in a few bit tests and
    the shortest chain is read back from the levels. Chains as short as an ALS-XZ or ALS-XY-Wing are left to those.
    """
    index = AlsIndex.of(grid, max_cells)
    alses, links, n = index.alses, index.links, grid.n
    successors = [[j * n + y for j, rc in links[v // n].items() for y in iter_bits(rc & ~(1 << v % n))]
                  if alses[v // n].digits >> (v % n) & 1 else [] for v in range(len(alses) * n)]
    reach = [[1 << v for v in range(len(successors))]]  # reach[k][v]: states reachable from v in <= k steps
    for _ in range(max_als - 2):
        last = reach[-1]
        level = []
        for v, following in enumerate(successors):
            bits = 1 << v
            for u in following:
                bits |= last[u]
            level.append(bits)
        reach.append(level)
    hops = [[(j * n + x, x) for j, rc in links[i].items() for x in iter_bits(rc)] for i in range(len(alses))]
    out = _Collector()
    for (first, end), zs_pair in _productive_pairs(grid, alses).items():
        end_states = alses[end].digits << (end * n)
        for hop, x in hops[first]:
            reachable = reach[-1][hop] & end_states
            if not zs_pair & ~(1 << x):
                continue
            for target in iter_bits(reachable):
                zs = zs_pair & ~(1 << x) & ~(1 << target % n)
                if not zs:
                    continue
                steps = next(k for k, level in enumerate(reach) if level[hop] >> target & 1)
                if steps < 2:
                    continue  # an ALS-XY-Wing or shorter
                chain = [first * n, *_walk(successors, reach, hop, target, steps)]
                eliminations = _common_eliminations(grid, alses[first], alses[end], zs)
                out.add(len(chain) * 100 + sum(alses[v // n].size for v in chain), eliminations,
                        lambda chain=chain, eliminations=eliminations: _chain_step(grid, alses, chain, eliminations))
    return out.steps(limit)


def _productive_pairs(grid: CandidateGrid, alses: list[Als]) -> dict[tuple[int, int], int]:
    """(i, j), i < j -> digits z of both ALS with a cell outside both that sees all their z cells."""
    pairs: dict[tuple[int, int], int] = {}
    for zb in range(grid.n):
        by_target: dict[int, list[int]] = {}
        for i, als in enumerate(alses):
            if als.digits >> zb & 1:
                for cell in iter_bits(_targets(grid, zb + 1, als.cells, als)):
                    by_target.setdefault(cell, []).append(i)
        for members in by_target.values():
            for x, i in enumerate(members):
                for j in members[x + 1:]:
                    pairs[(i, j)] = pairs.get((i, j), 0) | 1 << zb
    return pairs


def _walk(successors: list[list[int]], reach: list[list[int]], start: int, target: int, steps: int) -> list[int]:
    """A shortest path of `steps` steps from start to target, read back from the reach levels."""
    path = [start]
    node = start
    for left in range(steps - 1, -1, -1):
        node = next(u for u in successors[node] if reach[left][u] >> target & 1)
        path.append(node)
    return path


def _chain_step(grid: CandidateGrid, alses: list[Als], chain: list[int], eliminations: list[Assignment]) -> Step:
    n, geo = grid.n, grid.geo
    text = " ".join(f"-{v % n + 1}- {alses[v // n].name(geo)}" if k else alses[v // n].name(geo)
                    for k, v in enumerate(chain))
    zs = _digits_of(eliminations)
    return make_step(grid, "ALS-XY-Chain", f"{text}, Z={_digits_text(zs)}", eliminations=eliminations,
                     cells=sorted({c for v in chain for c in iter_bits(alses[v // n].cells)}), digits=mask_digits(zs))


# ---- Death Blossom -------------------------------------------------------------------------------------------------
def find_death_blossoms(grid: CandidateGrid, max_cells: int | None = None, limit: int | None = None) -> list[Step]:
    """A stem cell with, for each of its candidates d, a petal ALS whose d cells all see the stem: whichever digit
    the stem takes, that petal lacks it and holds all its other digits. A digit z (not in the stem) common to all
    petals is removed from cells seeing every z cell of every petal. Petals may overlap, and one ALS may be the
    petal of several stem digits."""
    index = AlsIndex.of(grid, max_cells)
    geo, alses = grid.geo, index.alses
    petals_at: dict[tuple[int, int], list[int]] = {}  # (stem cell, digit) -> petals
    for i, als in enumerate(alses):
        for b in iter_bits(als.digits):
            for stem in iter_bits(als.sees_all[b + 1] & ~als.cells):
                petals_at.setdefault((stem, b + 1), []).append(i)
    out = _Collector()
    for stem in grid.empty_cells():
        stem_mask = grid.masks[stem]
        digits = sorted(mask_digits(stem_mask), key=lambda d: len(petals_at.get((stem, d), [])))
        if len(digits) < 2 or not all((stem, d) in petals_at for d in digits):
            continue
        targets = {z + 1: grid.digit_cells[z + 1] & ~(1 << stem) for z in iter_bits(~stem_mask & ((1 << grid.n) - 1))}
        for chosen, found in _blossoms(alses, [petals_at[(stem, d)] for d in digits], targets):
            eliminations = [(c, z) for z, cells in found.items() for c in iter_bits(cells)]
            out.add(sum(alses[i].size for i in chosen), eliminations,
                    lambda stem=stem, petals=sorted(zip(digits, chosen)), eliminations=eliminations:
                    _blossom_step(grid, alses, stem, petals, eliminations))
    return out.steps(limit)


def _blossom_step(grid: CandidateGrid, alses: list[Als], stem: int, petals: list[tuple[int, int]],
                  eliminations: list[Assignment]) -> Step:
    geo = grid.geo
    petal_cells = 0
    for _, i in petals:
        petal_cells |= alses[i].cells
    text = ", ".join(f"{d} => {alses[i].name(geo)}" for d, i in petals)
    return make_step(grid, "Death Blossom", f"stem {geo.cell_name(stem)} {{{_digits_text(grid.masks[stem])}}}: "
                     f"{text}, Z={_digits_text(_digits_of(eliminations))}", eliminations=eliminations,
                     cells=[stem, *iter_bits(petal_cells)], digits=[d for d, _ in petals])


def _blossoms(alses: list[Als], options: list[list[int]],
              targets: dict[int, int]) -> Iterator[tuple[list[int], dict[int, int]]]:
    """One petal per stem digit, depth first (one ALS may serve several digits); `targets` maps each digit still
    common to the petals so far to the cells that see all its petal cells (outside them). Yields (petals, targets)
    where some target is left."""
    if not options:
        yield [], targets
        return
    for i in options[0]:
        petal = alses[i]
        narrowed = {}
        for z, cells in targets.items():
            if petal.digits >> (z - 1) & 1:
                left = cells & petal.sees_all[z] & ~petal.cells
                if left:
                    narrowed[z] = left
        if narrowed:
            for rest, found in _blossoms(alses, options[1:], narrowed):
                yield [i, *rest], found


TECHNIQUES: list[Technique] = [
    Technique("ALS-XZ", "Almost Locked Sets", find_als_xz, score=300, level="Unfair", hodoku_codes=("0901",)),
    Technique("ALS-XY-Wing", "Almost Locked Sets", find_als_xy_wings, score=320, level="Unfair",
              hodoku_codes=("0902",)),
    Technique("ALS-XY-Chain", "Almost Locked Sets", find_als_xy_chains, score=340, level="Unfair",
              hodoku_codes=("0903",)),
    Technique("Death Blossom", "Almost Locked Sets", find_death_blossoms, score=360, level="Unfair",
              hodoku_codes=("0904",)),
]
