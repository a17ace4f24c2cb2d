"""Chains and loops (HoDoKu's 07xx family): Remote Pair, X-Chain, XY-Chain, Continuous and Discontinuous Nice Loops,
AICs, and their grouped variants, all read off the candidate link graph (ltn_sudoku.techniques.links).

Every chain is a walk of alternating inference (true -weak-> false -strong-> true ...), searched breadth-first, so
each pair of ends is reached by a shortest chain. A finder returns one step per distinct effect, with the shortest
chain found for it, shortest first; `max_links` bounds the chains searched.

- X-Chain: one digit. Assume a candidate with a strong link false; every candidate of the digit the walk reaches
  true, three or more links on, closes a chain whose two ends cannot both be false: the cells that see both ends
  lose the digit.
- XY-Chain: the same over bivalue cells only, strong links inside the cells and weak links between them, ends on
  the same digit, three or more cells.
- Remote Pair: bivalue cells with the same two digits, linked cell to cell; two cells an odd number of steps (three
  or more) apart hold different digits, so a cell seeing both loses both digits.
- Nice loops and AICs, HoDoKu's tabling view: from every candidate assumed true and assumed false, the walk that
  comes back to the start cell is a nice loop (discontinuous: it proves the start candidate true or false;
  continuous: every weak link of the loop is in fact strong, which eliminates around it), and the walk from
  "x false" to "y true" in another cell is an AIC (x or y holds: same digit, the cells seeing both ends lose it;
  different digits in cells that see each other, each end loses the other's digit).
- Grouped variants: the same search on the graph with group nodes (a digit's candidates in one box-line
  intersection); only chains that use a group node are reported under the grouped names.
The nice-loop/AIC search runs once per grid state and serves all six of its finders (cached by candidate state).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from ltn_sudoku.board import iter_bits
from ltn_sudoku.candidates import CandidateGrid
from ltn_sudoku.techniques.base import Assignment, Step, Technique, make_step
from ltn_sudoku.techniques.links import (
    DEFAULT_MAX_LINKS,
    Implications,
    LinkGraph,
    StateCache,
    chain_text,
    implications,
    link_graph,
    state_key,
)

REMOTE_PAIR_MAX_CELLS = 10  # HoDoKu's limit: 20 chain entries, two per cell
_REMOTE_PAIR_BUDGET = 20_000  # path extensions per digit pair: remote-pair components are small, this is a guard

CNL, DNL, AIC = "Continuous Nice Loop", "Discontinuous Nice Loop", "AIC"
GROUPED = {CNL: "Grouped Continuous Nice Loop", DNL: "Grouped Discontinuous Nice Loop", AIC: "Grouped AIC"}


@dataclass(frozen=True)
class _Found:
    """A chain that proves some effect, before de-duplication: its length decides which one a step shows."""

    length: int
    chain: tuple[int, ...]
    text: str
    placements: tuple[Assignment, ...]
    eliminations: tuple[Assignment, ...]


def _keep_shortest(best: dict[tuple, _Found], found: _Found) -> None:
    """De-duplicate by effect: the shortest chain per set of placements and eliminations wins."""
    key = (frozenset(found.placements), frozenset(found.eliminations))
    old = best.get(key)
    if old is None or found.length < old.length:
        best[key] = found


def _steps(grid: CandidateGrid, graph: LinkGraph, technique: str, found: Iterable[_Found]) -> list[Step]:
    """Steps, shortest chain first, then the most effect."""
    ordered = sorted(found, key=lambda f: (f.length, -len(f.placements), -len(f.eliminations), f.text))
    steps = []
    for f in ordered:
        cells = 0
        for node in f.chain:
            cells |= graph.cells(node)
        steps.append(make_step(grid, technique, f.text, placements=f.placements, eliminations=f.eliminations,
                               cells=iter_bits(cells), digits=sorted({graph.digit(v) for v in f.chain})))
    return steps


def _eliminations(cells: int, digit: int) -> tuple[Assignment, ...]:
    return tuple((c, digit) for c in iter_bits(cells))


def _far_true(imp: Implications, near: int) -> int:
    """Nodes implied true at a distance beyond `near` links (near = 1: three links or more)."""
    close = 0
    for k in range(1, min(near, len(imp.layers) - 1) + 1, 2):
        close |= imp.layers[k]
    return imp.true & ~close


# ---- X-Chain --------------------------------------------------------------------------------------------------------
def find_x_chains(grid: CandidateGrid, max_links: int = DEFAULT_MAX_LINKS) -> list[Step]:
    """One digit, strong and weak links alternating, both ends strong: the digit leaves every cell seeing both ends."""
    graph = link_graph(grid)
    nn, peers, dc = graph.cell_count, grid.geo.peer_bits, grid.digit_cells
    all_cells = (1 << nn) - 1
    best: dict[tuple, _Found] = {}
    for d in range(1, grid.n + 1):
        nodes = graph.digit_nodes(d)
        base = (d - 1) * nn
        for start in iter_bits(nodes & graph.links.with_strong):
            s = start - base
            imp = implications(graph, start, False, max_links, allowed=nodes)
            for t in iter_bits((_far_true(imp, 1) >> base) & all_cells & dc[d] & ~(1 << s)):
                common = dc[d] & peers[s] & peers[t]
                if common:
                    _record_chain(best, graph, imp, base + t, lambda chain: _x_text(graph, d, chain),
                                  _eliminations(common, d))
    return _steps(grid, graph, "X-Chain", best.values())


def _x_text(graph: LinkGraph, digit: int, chain: list[int]) -> str:
    parts = [str(digit), graph.name(chain[0])]
    for i, node in enumerate(chain[1:], 1):
        parts += ["=" if i % 2 else "-", graph.name(node)]
    return " ".join(parts)


def _record_chain(best: dict[tuple, _Found], graph: LinkGraph, imp: Implications, end: int, text, eliminations:
                  tuple[Assignment, ...]) -> None:
    """Rebuild the shortest lasso-free chain premise -> end (true) and keep it if it is the shortest for its effect."""
    key = (frozenset(), frozenset(eliminations))
    length = imp.distance(end, True)
    old = best.get(key)
    if length is None or (old is not None and old.length <= length):
        return
    chain = imp.chain(end, True)
    if chain is not None:
        best[key] = _Found(length, tuple(chain), text(chain), (), eliminations)


# ---- XY-Chain -------------------------------------------------------------------------------------------------------
def find_xy_chains(grid: CandidateGrid, max_links: int = DEFAULT_MAX_LINKS) -> list[Step]:
    """Bivalue cells linked cell to cell, three or more, both ends on digit x: x leaves the cells seeing both ends."""
    graph = link_graph(grid)
    nn, peers, dc, masks = graph.cell_count, grid.geo.peer_bits, grid.digit_cells, grid.masks
    all_cells = (1 << nn) - 1
    bivalue = [c for c, m in enumerate(masks) if m and (m & (m - 1)) and not (m & (m - 1)) & ((m & (m - 1)) - 1)]
    allowed = 0
    for c in bivalue:
        allowed |= graph.cell_nodes(c)
    best: dict[tuple, _Found] = {}
    for s in bivalue:
        for x0 in iter_bits(masks[s]):
            x = x0 + 1
            base = x0 * nn
            imp = implications(graph, base + s, False, max_links, links=graph.xy_links, allowed=allowed)
            for t in iter_bits((_far_true(imp, 3) >> base) & all_cells & ~(1 << s)):
                common = dc[x] & peers[s] & peers[t]
                if common:
                    _record_chain(best, graph, imp, base + t, lambda chain: chain_text(graph, chain, False),
                                  _eliminations(common, x))
    return _steps(grid, graph, "XY-Chain", best.values())


# ---- Remote Pair ----------------------------------------------------------------------------------------------------
def find_remote_pairs(grid: CandidateGrid, max_cells: int = REMOTE_PAIR_MAX_CELLS) -> list[Step]:
    """Four or more bivalue cells with the same pair, each seeing the next: cells that see two of them an odd number
    (three or more) of steps apart lose both digits."""
    graph = link_graph(grid)
    masks, peers, dc = grid.masks, grid.geo.peer_bits, grid.digit_cells
    by_pair: dict[int, int] = {}
    for c, m in enumerate(masks):
        if m and (m & (m - 1)) and not (m & (m - 1)) & ((m & (m - 1)) - 1):
            by_pair[m] = by_pair.get(m, 0) | (1 << c)
    best: dict[tuple, _Found] = {}
    for pair, cells in by_pair.items():
        if cells.bit_count() < 4:
            continue
        x, y = (b + 1 for b in iter_bits(pair))
        targets = dc[x] | dc[y]
        budget = [_REMOTE_PAIR_BUDGET]
        for start in iter_bits(cells):
            _remote_paths(grid, best, [start], 0, cells, peers, targets, (x, y), max_cells, budget)
    return _steps(grid, graph, "Remote Pair", best.values())


def _remote_paths(grid: CandidateGrid, best: dict[tuple, _Found], path: list[int], seen: int, cells: int,
                  peers: tuple[int, ...], targets: int, pair: tuple[int, int], max_cells: int,
                  budget: list[int]) -> None:
    """Depth-first over simple paths of same-pair cells; `seen` = cells seeing two path cells of opposite parity
    three or more steps apart (the eliminations so far)."""
    budget[0] -= 1
    if budget[0] < 0 or len(path) >= max_cells:
        return
    used = 0
    for c in path:
        used |= 1 << c
    for nxt in iter_bits(cells & peers[path[-1]] & ~used):
        j = len(path)
        added = seen
        for i in range(j - 3, -1, -2):
            added |= peers[path[i]] & peers[nxt]
        path.append(nxt)
        effect = added & targets
        if j >= 3 and effect:
            x, y = pair
            elims = _eliminations(effect & grid.digit_cells[x], x) + _eliminations(effect & grid.digit_cells[y], y)
            geo = grid.geo
            text = f"{x}/{y} " + " - ".join(geo.cell_name(c) for c in path)
            chain = tuple((d - 1) * geo.cell_count + c for c in path for d in pair)
            _keep_shortest(best, _Found(2 * len(path) - 1, chain, text, (), elims))
        _remote_paths(grid, best, path, added, cells, peers, targets, pair, max_cells, budget)
        path.pop()


# ---- Nice loops and AICs --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Lead:
    """A (premise, end) pair whose effect does not depend on the chain between them: rebuilt only if it wins."""

    length: int
    imp: Implications
    end: int
    end_value: bool
    loop: bool


class _LoopSearch:
    """All nice loops and AICs of one grid state (plain or grouped), by technique and effect."""

    def __init__(self, grid: CandidateGrid, grouped: bool, max_links: int) -> None:
        self.grid = grid
        self.grouped = grouped
        self.graph = link_graph(grid, grouped)
        self.max_links = max_links
        self.continuous: dict[tuple, _Found] = {}
        self.leads: dict[str, dict[tuple, list[_Lead]]] = {DNL: {}, AIC: {}}
        for premise in iter_bits(self.graph.candidate_nodes()):
            for value in (True, False):
                imp = implications(self.graph, premise, value, max_links)
                self._loops(imp)
                if not value:
                    self._aics(imp)

    # -- discovery ---------------------------------------------------------------------------------------------------
    def _loops(self, imp: Implications) -> None:
        """Walks that come back to the premise's cell (HoDoKu's checkNiceLoop)."""
        graph, grid = self.graph, self.grid
        premise = imp.premise
        c, x = graph.cell(premise), graph.digit(premise)
        in_cell = graph.cell_nodes(c)
        first_strong = not imp.value  # a false premise leaves by a strong link
        for end_value, reached in ((True, imp.true), (False, imp.false)):
            for end in iter_bits(in_cell & reached):
                k = imp.distance(end, end_value)
                if k is None or k < 3:
                    continue
                y = graph.digit(end)
                last_strong = end_value
                closing = -1 if end == premise else premise
                if not first_strong and not last_strong and x == y:
                    self._lead(DNL, imp, end, end_value, (), ((c, x),))
                elif first_strong and last_strong and x == y:
                    self._lead(DNL, imp, end, end_value, ((c, x),), ())
                elif first_strong != last_strong and x != y:
                    self._lead(DNL, imp, end, end_value, (), ((c, y if first_strong else x),))
                elif x != y and (first_strong and last_strong or (not first_strong and not last_strong
                                                                   and grid.masks[c].bit_count() == 2)):
                    self._continuous(imp, end, end_value, k + 1, closing)

    def _aics(self, imp: Implications) -> None:
        """Walks from "x false" to "y true" in another cell (HoDoKu's checkAics: type 1 same digit, type 2 not)."""
        graph, grid = self.graph, self.grid
        nn, dc, peers = graph.cell_count, grid.digit_cells, grid.geo.peer_bits
        all_cells = (1 << nn) - 1
        c, x = graph.cell(imp.premise), graph.digit(imp.premise)
        far = _far_true(imp, 1)
        for t in iter_bits((far >> ((x - 1) * nn)) & all_cells & ~(1 << c)):
            common = dc[x] & peers[c] & peers[t]
            if common.bit_count() >= 2:
                self._lead(AIC, imp, graph.node(t, x), True, (), _eliminations(common, x))
        for y0 in iter_bits(grid.masks[c] & ~(1 << (x - 1))):
            for t in iter_bits((far >> (y0 * nn)) & peers[c] & dc[x]):
                self._lead(AIC, imp, y0 * nn + t, True, (), ((c, y0 + 1), (t, x)))

    def _lead(self, kind: str, imp: Implications, end: int, end_value: bool, placements: tuple[Assignment, ...],
              eliminations: tuple[Assignment, ...]) -> None:
        key = (frozenset(placements), frozenset(eliminations))
        length = imp.distance(end, end_value)
        assert length is not None
        self.leads[kind].setdefault(key, []).append(_Lead(length, imp, end, end_value, kind == DNL))

    def _continuous(self, imp: Implications, end: int, end_value: bool, length: int, closing: int) -> None:
        """A continuous loop's eliminations depend on the loop itself: rebuild it now."""
        chain = self._chain(imp, end, end_value, loop=True)
        if chain is None:
            return
        eliminations = self._loop_eliminations(imp, chain)
        if eliminations:
            full = chain + [closing]
            text = chain_text(self.graph, full, imp.value)
            _keep_shortest(self.continuous, _Found(length, tuple(full), text, (), eliminations))

    def _chain(self, imp: Implications, end: int, end_value: bool, loop: bool) -> list[int] | None:
        """A lasso-free shortest chain; in a grouped search only one through a group node counts."""
        chain = imp.chain(end, end_value, loop=loop)
        if not self.grouped or chain is None or self._has_group(chain):
            return chain
        chain = imp.chain(end, end_value, loop=loop, prefer_groups=True)
        return chain if chain is not None and self._has_group(chain) else None

    def _has_group(self, chain: list[int]) -> bool:
        return any(self.graph.is_group(v) for v in chain)

    def _loop_eliminations(self, imp: Implications, chain: list[int]) -> tuple[Assignment, ...]:
        """Every weak link of a continuous loop is strong: a weak link inside a cell keeps only its two digits there;
        one between cells removes its digit from the cells that see both ends (outside the loop)."""
        graph, grid = self.graph, self.grid
        masks, dc = grid.masks, grid.digit_cells
        start = graph.cell(chain[0])
        loop_cells = 0
        for v in chain:
            loop_cells |= graph.cells(v)
        out: set[Assignment] = set()

        def keep_only(cell: int, a: int, b: int) -> None:
            for d0 in iter_bits(masks[cell] & ~(1 << (a - 1)) & ~(1 << (b - 1))):
                out.add((cell, d0 + 1))

        if not imp.value and imp.value_at(len(chain) - 1):  # strong links on both sides of the start cell
            keep_only(start, graph.digit(chain[0]), graph.digit(chain[-1]))
        for i in range(1, len(chain)):
            prev, node = chain[i - 1], chain[i]
            same_cell = not graph.is_group(prev) and not graph.is_group(node) and graph.cell(prev) == graph.cell(node)
            if imp.value_at(i):
                continue  # a strong link: nothing to gain
            if same_cell:
                keep_only(graph.cell(node), graph.digit(prev), graph.digit(node))
            else:
                d = graph.digit(node)
                seen = graph.buddies(prev) & graph.buddies(node) & dc[d] & ~loop_cells & ~(1 << start)
                out.update((cell, d) for cell in iter_bits(seen))
        return tuple(sorted(out, key=lambda a: (a[1], a[0])))

    # -- results -----------------------------------------------------------------------------------------------------
    def found(self, kind: str) -> list[_Found]:
        """The shortest chain per effect of one kind (CNL, DNL or AIC)."""
        if kind == CNL:
            return list(self.continuous.values())
        out = []
        for (placements, eliminations), leads in self.leads[kind].items():
            for lead in sorted(leads, key=lambda lead: lead.length):
                chain = self._chain(lead.imp, lead.end, lead.end_value, loop=lead.loop)
                if chain is not None:
                    text = chain_text(self.graph, chain, lead.imp.value)
                    out.append(_Found(lead.length, tuple(chain), text, tuple(sorted(placements)),
                                      tuple(sorted(eliminations, key=lambda a: (a[1], a[0])))))
                    break
        return out


_SEARCHES: StateCache[tuple, _LoopSearch] = StateCache(size=4)


def _loop_steps(grid: CandidateGrid, kind: str, grouped: bool, max_links: int) -> list[Step]:
    search = _SEARCHES.get((grouped, max_links, state_key(grid)), lambda: _LoopSearch(grid, grouped, max_links))
    return _steps(grid, search.graph, GROUPED[kind] if grouped else kind, search.found(kind))


def find_continuous_nice_loops(grid: CandidateGrid, max_links: int = DEFAULT_MAX_LINKS) -> list[Step]:
    """A loop of alternating links: each weak link acts as strong, which eliminates around the loop."""
    return _loop_steps(grid, CNL, False, max_links)


def find_discontinuous_nice_loops(grid: CandidateGrid, max_links: int = DEFAULT_MAX_LINKS) -> list[Step]:
    """A loop broken at its start cell: the start candidate is proved true (placed) or false (eliminated)."""
    return _loop_steps(grid, DNL, False, max_links)


def find_aics(grid: CandidateGrid, max_links: int = DEFAULT_MAX_LINKS) -> list[Step]:
    """Alternating inference chain, strong at both ends: one of its two end candidates is true."""
    return _loop_steps(grid, AIC, False, max_links)


def find_grouped_continuous_nice_loops(grid: CandidateGrid, max_links: int = DEFAULT_MAX_LINKS) -> list[Step]:
    """Continuous nice loops through at least one group node."""
    return _loop_steps(grid, CNL, True, max_links)


def find_grouped_discontinuous_nice_loops(grid: CandidateGrid, max_links: int = DEFAULT_MAX_LINKS) -> list[Step]:
    """Discontinuous nice loops through at least one group node."""
    return _loop_steps(grid, DNL, True, max_links)


def find_grouped_aics(grid: CandidateGrid, max_links: int = DEFAULT_MAX_LINKS) -> list[Step]:
    """AICs through at least one group node."""
    return _loop_steps(grid, AIC, True, max_links)


# HoDoKu 2.2 default scores and levels: Remote Pair 110 Hard; X-/XY-Chain 260, nice loops and AIC 280, grouped 300,
# all Unfair.
TECHNIQUES: list[Technique] = [
    Technique("Remote Pair", "Chains and Loops", find_remote_pairs, score=110, level="Hard", hodoku_codes=("0703",)),
    Technique("X-Chain", "Chains and Loops", find_x_chains, score=260, level="Unfair", hodoku_codes=("0701",)),
    Technique("XY-Chain", "Chains and Loops", find_xy_chains, score=260, level="Unfair", hodoku_codes=("0702",)),
    Technique(CNL, "Chains and Loops", find_continuous_nice_loops, score=280, level="Unfair",
              hodoku_codes=("0706",)),
    Technique(DNL, "Chains and Loops", find_discontinuous_nice_loops, score=280, level="Unfair",
              hodoku_codes=("0707",)),
    Technique(AIC, "Chains and Loops", find_aics, score=280, level="Unfair", hodoku_codes=("0708",)),
    Technique(GROUPED[CNL], "Chains and Loops", find_grouped_continuous_nice_loops, score=300, level="Unfair",
              hodoku_codes=("0709",)),
    Technique(GROUPED[DNL], "Chains and Loops", find_grouped_discontinuous_nice_loops, score=300, level="Unfair",
              hodoku_codes=("0710",)),
    Technique(GROUPED[AIC], "Chains and Loops", find_grouped_aics, score=300, level="Unfair",
              hodoku_codes=("0711",)),
]
