"""Almost Locked Sets: ALS-XZ (singly and doubly linked), ALS-XY-Wing, ALS-XY-Chain and Death Blossom.

An ALS is a set of N cells of one unit holding N+1 candidates together (a bivalue cell is the smallest); it is
"locked" as soon as it loses one digit. Two ALS A and B share a *restricted common* (RC) digit x when every cell of A
holding x sees every cell of B holding x and no shared cell holds x: x then sits in at most one of them, so when A
lacks x it holds every other digit. Every technique here is a chain of such implications, "A lacks x => A holds y =>
B lacks y => B holds z", ending in a digit z that one of two ALS must hold: z is removed from every cell that sees
all the z cells of both.

Bitsets throughout: cells as Python ints (bit = cell), digits as candidate masks (bit d-1 = digit d). The ALS of a
grid (enumerated by links.almost_locked_sets, which the chain finders share), their RC links, the pairs of ALS that
could eliminate together and the chain reach sets are computed once per grid state and shared by the four finders
(`AlsIndex.of`). ALS may overlap (HoDoKu's "allow overlap" option) as long as no RC digit lies in the shared cells.
Each finder returns one step per elimination set, simplest pattern first (fewest ALS, then fewest cells), at most
`limit`; the search itself is complete within the size bounds (`max_cells` per ALS, `max_als` per chain).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, partial
from typing import Callable, Iterable

from ltn_sudoku.board import Geometry, iter_bits
from ltn_sudoku.candidates import Assignment, CandidateGrid, Step, mask_digits
from ltn_sudoku.techniques.base import Technique, make_step
from ltn_sudoku.techniques.cache import StateCache, state_key
from ltn_sudoku.techniques.links import almost_locked_sets, common_peers


@dataclass(frozen=True, slots=True)
class Als:
    """An ALS with what its links need, per digit (index d, 1-based): the ALS cells holding d, and the targets: cells
    outside the ALS that hold d and see all of those (where d goes if the ALS must hold d)."""

    cells: int
    digits: int
    size: int
    digit_cells: tuple[int, ...]
    targets: tuple[int, ...]

    def name(self, geo: Geometry) -> str:
        """'r1c1,r1c2 {1,2,3}'."""
        return f"{geo.cells_name(iter_bits(self.cells))} {{{_digits_text(self.digits)}}}"


def default_max_cells(n: int) -> int:
    """Largest ALS searched: every size up to n-1 on boards up to 9x9 (as HoDoKu), k cells beyond (the count of
    ALS grows exponentially with the unit size)."""
    k = round(n**0.5)
    return n - 1 if k <= 3 else k


def default_max_als(n: int) -> int:
    """Longest ALS-XY-Chain searched, in ALS: 7 up to 9x9 (HoDoKu's library cases need up to 7), 5 beyond (bigger
    boards have many more ALS and links)."""
    return 7 if n <= 9 else 5


def find_alses(grid: CandidateGrid, max_cells: int | None = None) -> list[Als]:
    """Every ALS of the grid (links.almost_locked_sets: each cell set once), smallest first, with its digit data."""
    n, dc = grid.n, grid.digit_cells
    found = almost_locked_sets(grid, max_cells=default_max_cells(n) if max_cells is None else max_cells)
    geo = grid.geo
    alses = []
    for base in sorted(found, key=lambda a: (a.cells.bit_count(), a.cells)):
        cells = base.cells
        digit_cells = [0] * (n + 1)
        targets = [0] * (n + 1)
        rest = base.digits
        while rest:  # the digits, inlined: this loop runs for every digit of every ALS of every state
            low = rest & -rest
            d = low.bit_length()
            holding = cells & dc[d]
            digit_cells[d] = holding
            targets[d] = dc[d] & ~cells & common_peers(geo, holding)
            rest ^= low
        alses.append(Als(cells, base.digits, cells.bit_count(), tuple(digit_cells), tuple(targets)))
    return alses


def _units_holding(geo: Geometry, cells: int) -> list[int]:
    """The units that contain every cell of a non-empty cell set."""
    first = (cells & -cells).bit_length() - 1
    return [u for u in geo.units_of_cell[first] if cells & ~geo.unit_bits[u] == 0]


class AlsIndex:
    """The ALS of one grid state, their RC links (links[i][j] = mask of RC digits between ALS i and j), and what the
    wing and chain searches share, built on first use."""

    def __init__(self, grid: CandidateGrid, max_cells: int | None = None) -> None:
        self.n = grid.n
        self.alses = find_alses(grid, max_cells)
        self.links: list[dict[int, int]] = [{} for _ in self.alses]
        # an RC digit's cells in both ALS see each other, so they lie in one unit: group the ALS by (digit, unit) and,
        # within a group, by the cells holding the digit; two ALS link when those cell sets are disjoint
        groups: dict[tuple[int, int], dict[int, list[int]]] = {}
        units_of: dict[int, list[int]] = {}  # holding cells -> the units containing them all
        for i, als in enumerate(self.alses):
            for b in iter_bits(als.digits):
                holding = als.digit_cells[b + 1]
                if holding not in units_of:
                    units_of[holding] = _units_holding(grid.geo, holding)
                for unit in units_of[holding]:
                    groups.setdefault((b, unit), {}).setdefault(holding, []).append(i)
        for (b, _), by_cells in groups.items():
            bit = 1 << b
            sets = list(by_cells.items())
            for x, (cells_a, members_a) in enumerate(sets):
                for cells_b, members_b in sets[x + 1:]:
                    if cells_a & cells_b:
                        continue  # the digit in a shared cell: both could hold it
                    for i in members_a:
                        links_i = self.links[i]
                        for j in members_b:
                            links_i[j] = links_i.get(j, 0) | bit
                            self.links[j][i] = links_i[j]

    @classmethod
    def of(cls, grid: CandidateGrid, max_cells: int | None = None) -> AlsIndex:
        """The index of this grid state, shared by the finders of one engine round."""
        return _INDEXES.get((max_cells, state_key(grid)), lambda: cls(grid, max_cells))

    @cached_property
    def linked(self) -> list[int]:
        """Per ALS, the set of ALS it has an RC with (bit j = ALS j): two ALS share a pivot when theirs intersect."""
        return [sum(1 << j for j in links) for links in self.links]

    @cached_property
    def pairs(self) -> dict[tuple[int, int], int]:
        """(i, j), i < j -> the digits of both ALS with a common target (the end ALS of a wing or chain)."""
        found: dict[tuple[int, int], int] = {}
        for zb in range(self.n):
            by_target: dict[int, list[int]] = {}
            for i, als in enumerate(self.alses):
                if als.digits >> zb & 1:
                    for cell in iter_bits(als.targets[zb + 1]):
                        by_target.setdefault(cell, []).append(i)
            for members in by_target.values():
                for x, i in enumerate(members):
                    for j in members[x + 1:]:
                        found[(i, j)] = found.get((i, j), 0) | 1 << zb
        return found

    @cached_property
    def successors(self) -> list[list[int]]:
        """The implication graph of the chains: state v = i*n + x ("ALS i lacks x, so holds its other digits") leads
        to j*n + y for every RC y != x between ALS i and j ("ALS j lacks y")."""
        n = self.n
        found: list[list[int]] = []
        for i, als in enumerate(self.alses):
            lacks = [(j * n + y, y) for j, rc in self.links[i].items() for y in iter_bits(rc)]
            found += [[v for v, y in lacks if y != x] if als.digits >> x & 1 else [] for x in range(n)]
        return found

    @cached_property
    def hops(self) -> list[dict[int, list[int]]]:
        """Per ALS i and RC digit x of its links: the states "ALS j lacks x" of the ALS j it shares x with (where
        "ALS i holds x" leads). successors[i*n + x] is the union of hops[i][y] over its other digits y."""
        n = self.n
        found: list[dict[int, list[int]]] = [{} for _ in self.alses]
        for i, links_i in enumerate(self.links):
            for j, rc in links_i.items():
                for x in iter_bits(rc):
                    found[i].setdefault(x, []).append(j * n + x)
        return found

    def reach(self, max_steps: int) -> tuple[list[list[int]], list[list[dict[int, int]]]]:
        """reach[k][v]: the states reachable from v in at most k steps (bitset), k = 0 .. max_steps; and entered[k][i]:
        per RC digit x of ALS i, the union of reach[k] over hops[i][x] (what "ALS i holds x" reaches in k + 1 steps).

        A level is built from the entered sets of the one before: state i*n + x ORs entered[i][y] for y != x, so each
        link is read once per level rather than once per digit of its ALS."""
        levels, entered = self._levels, self._entered
        if not entered:
            entered.append(self._entered_from(levels[0]))
        while len(levels) <= max_steps:
            last, into = levels[-1], entered[-1]
            level = list(last)
            for i, states in enumerate(self._states):
                holding = into[i]
                if not holding:
                    continue
                for x, v in states:
                    bits = last[v]
                    for y, reached in holding.items():
                        if y != x:
                            bits |= reached
                    level[v] = bits
            levels.append(level)
            entered.append(self._entered_from(level))
        return levels[:max_steps + 1], entered[:max_steps + 1]

    def _entered_from(self, level: list[int]) -> list[dict[int, int]]:
        """Per ALS i, per RC digit x: the union of `level` over hops[i][x] (loops, not _union: this is the hot part)."""
        out = []
        for hops in self.hops:
            into = {}
            for x, states in hops.items():
                bits = 0
                for u in states:
                    bits |= level[u]
                into[x] = bits
            out.append(into)
        return out

    @cached_property
    def _states(self) -> list[list[tuple[int, int]]]:
        """Per ALS i, (x, state i*n + x) for each of its digits x."""
        return [[(x, i * self.n + x) for x in iter_bits(als.digits)] for i, als in enumerate(self.alses)]

    @cached_property
    def _levels(self) -> list[list[int]]:
        """The reach levels computed so far (`reach` extends them on demand), level 0 first."""
        return [[1 << v for v in range(len(self.alses) * self.n)]]

    @cached_property
    def _entered(self) -> list[list[dict[int, int]]]:
        """The entered sets of the levels computed so far."""
        return []


_INDEXES: StateCache[tuple[int | None, tuple[int, ...]], AlsIndex] = StateCache()


# ---- shared step building ----------------------------------------------------------------------------------------
Effect = tuple[tuple[int, int], ...]  # eliminations as (digit, cell set) pairs, by digit


def _common_targets(a: Als, b: Als, digits: int) -> Effect:
    """For each digit of the mask that A or B must hold: its cells outside both that see all its cells in both."""
    found = []
    for z in iter_bits(digits):
        cells = a.targets[z + 1] & b.targets[z + 1]
        if cells:
            found.append((z + 1, cells))
    return tuple(found)


def _eliminations(effect: Effect) -> list[Assignment]:
    return [(c, digit) for digit, cells in effect for c in iter_bits(cells)]


def _digits_text(mask: int) -> str:
    return ",".join(map(str, mask_digits(mask)))


def _digits_of(effect: Effect) -> int:
    """The candidate mask of the digits an effect removes."""
    mask = 0
    for digit, _ in effect:
        mask |= 1 << (digit - 1)
    return mask


class _Collector:
    """Distinct steps by effect, keeping the simplest pattern (lowest cost) for each; steps are built lazily."""

    def __init__(self) -> None:
        self._found: dict[Effect, tuple[int, int, Callable[[], Step]]] = {}

    def add(self, cost: int, effect: Effect, build: Callable[[], Step]) -> None:
        if effect and (effect not in self._found or cost < self._found[effect][0]):
            self._found[effect] = (cost, len(self._found), build)

    def steps(self, limit: int | None) -> list[Step]:
        return [build() for _, _, build in sorted(self._found.values(), key=lambda t: t[:2])[:limit]]


# ---- ALS-XZ --------------------------------------------------------------------------------------------------------
def find_als_xz(grid: CandidateGrid, max_cells: int | None = None, limit: int | None = None) -> list[Step]:
    """Two ALS with an RC x: any other common digit z is in one of them. Doubly linked (two RCs): both ALS are
    locked, each keeps all its non-RC digits and each RC lies in exactly one of them."""
    index = AlsIndex.of(grid, max_cells)
    alses = index.alses
    out = _Collector()
    for i, links in enumerate(index.links):
        a = alses[i]
        for j, rc in links.items():
            if j < i or rc.bit_count() > 2:
                continue  # each pair once; three RCs cannot happen in a grid with a solution
            b = alses[j]
            if rc.bit_count() == 1:
                effect = _common_targets(a, b, a.digits & b.digits & ~rc)
            else:
                by_digit = dict(_common_targets(a, b, rc))
                for locked, other in ((a, b), (b, a)):
                    for z in iter_bits(locked.digits & ~rc):
                        by_digit[z + 1] = by_digit.get(z + 1, 0) | locked.targets[z + 1] & ~other.cells
                effect = tuple(sorted((d, cells) for d, cells in by_digit.items() if cells))
            if not effect:
                continue
            out.add(a.size + b.size, effect, partial(_xz_step, grid, a, b, rc, effect))
    return out.steps(limit)


def _xz_step(grid: CandidateGrid, a: Als, b: Als, rc: int, effect: Effect) -> Step:
    geo = grid.geo
    if rc.bit_count() == 1:
        pattern = f"X={_digits_text(rc)}, Z={_digits_text(_digits_of(effect))}"
    else:
        pattern = f"X={_digits_text(rc)} (doubly linked)"
    return make_step(grid, "ALS-XZ", f"A={a.name(geo)}, B={b.name(geo)}, {pattern}", eliminations=_eliminations(effect),
                     cells=iter_bits(a.cells | b.cells), digits=mask_digits(a.digits | b.digits))


# ---- ALS-XY-Wing ---------------------------------------------------------------------------------------------------
def find_als_xy_wings(grid: CandidateGrid, max_cells: int | None = None, limit: int | None = None) -> list[Step]:
    """ALS A and B both linked to a pivot ALS C, by RCs x (A-C) and y (B-C), x != y: if A lacks z it holds x, so C
    lacks x and holds y, so B lacks y and holds z. z (not an RC of either link) is in A or B. Searched from the
    pairs (A, B) with a common target, through the pivots they share."""
    index = AlsIndex.of(grid, max_cells)
    geo, alses, links = grid.geo, index.alses, index.links
    linked = index.linked
    out = _Collector()
    for (i, j), zs_pair in index.pairs.items():
        if not linked[i] & linked[j]:
            continue  # no pivot
        a, b = alses[i], alses[j]
        shared = a.cells & b.cells
        if shared == a.cells or shared == b.cells:
            continue  # one wing inside the other
        for c in links[i].keys() & links[j].keys():
            rc_a, rc_b = links[i][c], links[j][c]
            zs = zs_pair & ~(rc_a | rc_b)
            if not zs or (rc_a == rc_b and rc_a.bit_count() == 1):
                continue
            effect = _common_targets(a, b, zs)
            if not effect:
                continue
            pivot = alses[c]

            def build(a: Als = a, b: Als = b, pivot: Als = pivot, rc_a: int = rc_a, rc_b: int = rc_b,
                      effect: Effect = effect) -> Step:
                return make_step(
                    grid, "ALS-XY-Wing", f"A={a.name(geo)}, B={b.name(geo)}, C={pivot.name(geo)}, "
                    f"X={_digits_text(rc_a)}, Y={_digits_text(rc_b)}, Z={_digits_text(_digits_of(effect))}",
                    eliminations=_eliminations(effect), cells=iter_bits(a.cells | b.cells | pivot.cells),
                    digits=mask_digits(a.digits | b.digits | pivot.digits))
            out.add(a.size + b.size + pivot.size, effect, build)
    return out.steps(limit)


# ---- ALS-XY-Chain --------------------------------------------------------------------------------------------------
def find_als_xy_chains(grid: CandidateGrid, max_als: int | None = None, max_cells: int | None = None,
                       limit: int | None = None) -> list[Step]:
    """A chain of 4 to max_als ALS (default `default_max_als`), consecutive ones linked by RCs, no RC used twice in a
    row: if the first ALS lacks z it holds x1, the RC to the second, so the second lacks x1 and holds x2, ... and the
    last holds z. z (in the first and last ALS, not their RC in the chain) is in one of them.

    The implications between states "ALS i lacks x" form a graph whose reach sets within k steps are bitsets
    (`AlsIndex.reach`). For a first ALS and its first RC x, the states reachable from all its x-links are ORed per
    level, so each pair of end ALS with a common target is checked in a few bit tests; the shortest chain is read
    back from the levels. Ends reachable in fewer steps make an ALS-XZ or ALS-XY-Wing and are left to those.
    """
    index = AlsIndex.of(grid, max_cells)
    alses, n = index.alses, grid.n
    longest = default_max_als(n) if max_als is None else max_als
    if longest < 4:
        return []
    reach, entered = index.reach(longest - 2)
    hops = index.hops  # first ALS -> first RC x -> states (second ALS, x)
    partners: list[dict[int, int]] = [{} for _ in alses]  # first ALS -> end ALS -> digits with common targets
    for (i, j), zs in index.pairs.items():
        partners[i][j] = zs
    blocks = _union(1 << (i * n) for i in range(len(alses)))  # bit i*n: the state block of ALS i
    out = _Collector()
    for first, ends in enumerate(partners):
        if not ends:
            continue
        wanted = _union(1 << (end * n) for end in ends)
        best: dict[tuple[int, int], tuple[int, int, int]] = {}  # (end, digits) -> (steps, first RC, end state)
        for x in hops[first]:
            far = entered[-1][first][x] & ~entered[1][first][x]  # fewer steps: an ALS-XZ or ALS-XY-Wing
            folded = 0
            for d in range(n):
                folded |= far >> d & blocks
            if not folded & wanted:
                continue
            reached = [level[first][x] for level in entered]
            for end_bit in iter_bits(folded & wanted):
                end = end_bit // n
                others = ends[end] & ~(1 << x)
                if not others:
                    continue
                lacks = [level >> end_bit & alses[end].digits for level in reached]  # end states by level
                for w in iter_bits(lacks[-1] & ~lacks[1]):
                    zs = others & ~(1 << w)
                    if zs:
                        steps = next(k for k in range(2, len(lacks)) if lacks[k] >> w & 1)
                        if (end, zs) not in best or steps < best[(end, zs)][0]:
                            best[(end, zs)] = (steps, x, end_bit + w)
        for (end, zs), (steps, x, target) in best.items():
            effect = _common_targets(alses[first], alses[end], zs)

            def build(first: int = first, steps: int = steps, x: int = x, target: int = target,
                      effect: Effect = effect) -> Step:
                return _chain_step(grid, index, [first * n, *_walk(index, reach, hops[first][x], target, steps)],
                                   effect)
            out.add((steps + 2) * 100 + alses[first].size + alses[end].size, effect, build)
    return out.steps(limit)


def _union(sets: Iterable[int]) -> int:
    total = 0
    for bits in sets:
        total |= bits
    return total


def _walk(index: AlsIndex, reach: list[list[int]], starts: list[int], target: int, steps: int) -> list[int]:
    """A shortest path of `steps` steps from one of `starts` to target, read back from the reach levels."""
    node = next(v for v in starts if reach[steps][v] >> target & 1)
    path = [node]
    for left in range(steps - 1, -1, -1):
        node = next(u for u in index.successors[node] if reach[left][u] >> target & 1)
        path.append(node)
    return path


def _chain_step(grid: CandidateGrid, index: AlsIndex, chain: list[int], effect: Effect) -> Step:
    n, geo, alses = grid.n, grid.geo, index.alses
    text = " ".join(f"-{v % n + 1}- {alses[v // n].name(geo)}" if k else alses[v // n].name(geo)
                    for k, v in enumerate(chain))
    zs = _digits_of(effect)
    return make_step(grid, "ALS-XY-Chain", f"{text}, Z={_digits_text(zs)}", eliminations=_eliminations(effect),
                     cells=sorted({c for v in chain for c in iter_bits(alses[v // n].cells)}), digits=mask_digits(zs))


# ---- Death Blossom -------------------------------------------------------------------------------------------------
def find_death_blossoms(grid: CandidateGrid, max_cells: int | None = None, limit: int | None = None) -> list[Step]:
    """A stem cell with, for each of its candidates d, a petal ALS whose d cells all see the stem: whichever digit
    the stem takes, that petal lacks it and holds all its other digits. A digit z (not in the stem) common to all
    petals is removed from cells seeing every z cell of every petal. Petals may overlap, and one ALS may be the
    petal of several stem digits.

    Searched per (stem, z, target cell): the target works when every stem digit has a petal holding z whose z
    targets include it; the smallest such petals make the blossom, whose step then holds all its eliminations.
    """
    index = AlsIndex.of(grid, max_cells)
    alses, n = index.alses, grid.n
    petals_at: dict[tuple[int, int], list[int]] = {}  # (stem cell, digit) -> petals, smallest first
    for i, als in enumerate(alses):
        for b in iter_bits(als.digits):
            for stem in iter_bits(als.targets[b + 1]):
                petals_at.setdefault((stem, b + 1), []).append(i)
    out = _Collector()
    for stem in grid.empty_cells():
        stem_mask = grid.masks[stem]
        options = [petals_at.get((stem, b + 1), []) for b in iter_bits(stem_mask)]
        if len(options) < 2 or not all(options):
            continue
        tried: set[tuple[int, ...]] = set()
        for zb in iter_bits(((1 << n) - 1) & ~stem_mask):
            cover = -1
            for petals in options:
                cover &= _union(alses[i].targets[zb + 1] for i in petals)
            for target in iter_bits(cover):
                chosen = tuple(next(i for i in petals if alses[i].targets[zb + 1] >> target & 1) for petals in options)
                if chosen not in tried:
                    tried.add(chosen)
                    effect = _blossom_effect(alses, chosen, stem_mask)
                    out.add(sum(alses[i].size for i in chosen), effect,
                            partial(_blossom_step, grid, alses, stem, chosen, effect))
    return out.steps(limit)


def _blossom_effect(alses: list[Als], petals: tuple[int, ...], stem_mask: int) -> Effect:
    """Each digit outside the stem common to all petals, from the cells that are targets of it in every petal."""
    common = ~stem_mask
    for i in petals:
        common &= alses[i].digits
    found = []
    for z in iter_bits(common):
        cells = -1
        for i in petals:
            cells &= alses[i].targets[z + 1]
        if cells:
            found.append((z + 1, cells))
    return tuple(found)


def _blossom_step(grid: CandidateGrid, alses: list[Als], stem: int, petals: tuple[int, ...], effect: Effect) -> Step:
    geo = grid.geo
    stem_digits = mask_digits(grid.masks[stem])
    petal_cells = _union(alses[i].cells for i in petals)
    text = ", ".join(f"{d} => {alses[i].name(geo)}" for d, i in zip(stem_digits, petals))
    return make_step(grid, "Death Blossom", f"stem {geo.cell_name(stem)} {{{_digits_text(grid.masks[stem])}}}: "
                     f"{text}, Z={_digits_text(_digits_of(effect))}", eliminations=_eliminations(effect),
                     cells=[stem, *iter_bits(petal_cells)], digits=stem_digits)


TECHNIQUES: list[Technique] = [
    Technique("ALS-XZ", "Almost Locked Sets", find_als_xz, score=300, level="Unfair",
              aliases=("Almost Locked Set XZ", "ALS XZ Rule"), hodoku_codes=("0901",)),
    Technique("ALS-XY-Wing", "Almost Locked Sets", find_als_xy_wings, score=320, level="Unfair",
              aliases=("Almost Locked Set XY-Wing",), hodoku_codes=("0902",)),
    Technique("ALS-XY-Chain", "Almost Locked Sets", find_als_xy_chains, score=340, level="Unfair",
              aliases=("Almost Locked Set Chain", "ALS Chain"), hodoku_codes=("0903",)),
    Technique("Death Blossom", "Almost Locked Sets", find_death_blossoms, score=360, level="Unfair",
              aliases=("ALS Death Blossom",), hodoku_codes=("0904",)),
]
