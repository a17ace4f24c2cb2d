"""Chains and loops (HoDoKu's 07xx family): Remote Pair, X-Chain, XY-Chain, Continuous and Discontinuous Nice Loops,
AICs, and their grouped variants, all read off the candidate link graph (ltn_sudoku.techniques.links).

Every chain is a walk of alternating inference (true -weak-> false -strong-> true ...), searched breadth-first, so
each pair of ends is reached by a shortest chain. A finder returns one step per distinct effect, with the shortest
chain found for it, shortest first; `max_links` bounds the chains searched.

- X-Chain: one digit. Assume a candidate with a strong link false; every candidate of the digit the walk reaches
  true, three or more links on, closes a chain whose two ends cannot both be false: the cells that see both ends
  lose the digit.
- XY-Chain: the same over bivalue cells only, strong links inside the cells and weak links between them, both ends
  on one digit, three or more cells.
- Remote Pair: bivalue cells with the same two digits, each seeing the next; two of them an odd number of steps
  (three or more) apart hold different digits, so a cell seeing both loses both digits.
- Nice loops and AICs, as HoDoKu's tables find them: from every candidate assumed true and assumed false, a walk
  that comes back to the start cell is a nice loop (discontinuous: it proves the start candidate true or false;
  continuous: every weak link of the loop is in fact strong, which eliminates around it), and a walk from "x false"
  to "y true" in another cell is an AIC (x or y holds: on one digit the cells seeing both ends lose it; on two digits
  in cells that see each other, each end loses the other's digit).
- Grouped variants: the same search on the graph with group nodes (a digit's candidates in one box-line
  intersection) and, with ``als=True``, ALS nodes (HoDoKu's option "ALS in chains", off by default as in HoDoKu);
  only chains through such a node are reported under the grouped names.
The nice-loop/AIC search runs once per grid state and serves all six of its finders (cached by candidate state).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable

from ltn_sudoku.board import iter_bits
from ltn_sudoku.candidates import Assignment, CandidateGrid, Step
from ltn_sudoku.techniques.base import Technique, make_step
from ltn_sudoku.techniques.cache import StateCache, state_key
from ltn_sudoku.techniques.links import (
    DEFAULT_MAX_LINKS,
    AlsNode,
    GroupNode,
    Implications,
    LinkGraph,
    Rank,
    chain_text,
    implications,
    link_graph,
)

LOOP_MAX_LINKS = 30  # nice loops and AICs: HoDoKu's tables set no length limit, and an ALS counts as several links
REMOTE_PAIR_MAX_CELLS = 10  # HoDoKu's limit: 20 chain entries, two per cell
_REMOTE_PAIR_BUDGET = 20_000  # path extensions per digit pair: remote-pair clusters are small, this is a guard

CNL, DNL, AIC = "Continuous Nice Loop", "Discontinuous Nice Loop", "AIC"
GROUPED = {CNL: "Grouped Continuous Nice Loop", DNL: "Grouped Discontinuous Nice Loop", AIC: "Grouped AIC"}

EffectKey = tuple[frozenset[Assignment], frozenset[Assignment]]


@dataclass(frozen=True)
class _Found:
    """A chain that proves some effect: among chains with the same effect the shortest is shown."""

    length: int
    chain: tuple[int, ...]
    text: str
    placements: tuple[Assignment, ...]
    eliminations: tuple[Assignment, ...]

    @property
    def key(self) -> EffectKey:
        return frozenset(self.placements), frozenset(self.eliminations)


def _keep_shortest(best: dict[EffectKey, _Found], found: _Found) -> None:
    old = best.get(found.key)
    if old is None or found.length < old.length:
        best[found.key] = found


def _steps(grid: CandidateGrid, graph: LinkGraph | None, technique: str, found: Iterable[_Found]) -> list[Step]:
    """Steps, shortest chain first, then the most effect (`graph` None: the chains hold candidate nodes only)."""
    ordered = sorted(found, key=lambda f: (f.length, -len(f.placements), -len(f.eliminations), f.text))
    nn = grid.n * grid.n
    steps = []
    for f in ordered:
        cells = 0
        for node in f.chain:
            cells |= graph.cells(node) if graph is not None else 1 << (node % nn)
        digits = {graph.digit(v) if graph is not None else v // nn + 1 for v in f.chain}
        steps.append(make_step(grid, technique, f.text, placements=f.placements, eliminations=f.eliminations,
                               cells=iter_bits(cells), digits=sorted(digits)))
    return steps


def _eliminations(cells: int, digit: int) -> tuple[Assignment, ...]:
    return tuple((c, digit) for c in iter_bits(cells))


def _by_digit(eliminations: Iterable[Assignment]) -> tuple[Assignment, ...]:
    return tuple(sorted(eliminations, key=lambda a: (a[1], a[0])))


def _far_true(imp: Implications, near: int) -> int:
    """Nodes implied true more than `near` links away (near = 1: three links or more)."""
    close = 0
    for k in range(1, min(near, len(imp.layers) - 1) + 1, 2):
        close |= imp.layers[k]
    return imp.true & ~close


def _bivalue(mask: int) -> bool:
    return mask.bit_count() == 2


def _record_open_chain(best: dict[EffectKey, _Found], imp: Implications, end: int, text: Callable[[list[int]], str],
                       eliminations: tuple[Assignment, ...]) -> None:
    """Keep the chain premise (false) -> end (true) if it is the shortest so far for its eliminations."""
    key: EffectKey = (frozenset(), frozenset(eliminations))
    length = imp.distance(end, True)
    old = best.get(key)
    if length is None or (old is not None and old.length <= length):
        return
    chain = imp.chain(end, True)
    if chain is not None:
        best[key] = _Found(length, tuple(chain), text(chain), (), eliminations)


# ---- X-Chain --------------------------------------------------------------------------------------------------------
def find_x_chains(grid: CandidateGrid, max_links: int = DEFAULT_MAX_LINKS) -> list[Step]:
    """One digit, strong and weak links alternating, both ends strong: the digit leaves every cell seeing both ends."""
    graph = link_graph(grid)
    nn, peers, dc = graph.cell_count, grid.geo.peer_bits, grid.digit_cells
    all_cells = (1 << nn) - 1
    best: dict[EffectKey, _Found] = {}
    for d in range(1, grid.n + 1):
        nodes = graph.digit_nodes(d)
        base = (d - 1) * nn
        text = lambda chain, d=d: _x_text(graph, d, chain)  # noqa: E731 - bound per digit
        for start in iter_bits(nodes & graph.links.with_strong):
            s = start - base
            imp = implications(graph, start, False, max_links, allowed=nodes)
            for t in iter_bits((_far_true(imp, 1) >> base) & all_cells & ~(1 << s)):
                common = dc[d] & peers[s] & peers[t]
                if common:
                    _record_open_chain(best, imp, base + t, text, _eliminations(common, d))
    return _steps(grid, graph, "X-Chain", best.values())


def _x_text(graph: LinkGraph, digit: int, chain: list[int]) -> str:
    """'5 r1c1 = r1c7 - r6c7 = r6c3': the digit, then the cells and their links (the first one strong)."""
    parts = [str(digit), graph.name(chain[0])]
    for i, node in enumerate(chain[1:], 1):
        parts += ["=" if i % 2 else "-", graph.name(node)]
    return " ".join(parts)


# ---- XY-Chain -------------------------------------------------------------------------------------------------------
def find_xy_chains(grid: CandidateGrid, max_links: int = DEFAULT_MAX_LINKS) -> list[Step]:
    """Bivalue cells linked cell to cell, three or more, both ends on digit x: x leaves the cells seeing both ends."""
    graph = link_graph(grid)
    nn, peers, dc, masks = graph.cell_count, grid.geo.peer_bits, grid.digit_cells, grid.masks
    all_cells = (1 << nn) - 1
    bivalue = [c for c, m in enumerate(masks) if _bivalue(m)]
    allowed = 0
    for c in bivalue:
        allowed |= graph.cell_nodes(c)
    text = lambda chain: chain_text(graph, chain, False)  # noqa: E731
    best: dict[EffectKey, _Found] = {}
    for s in bivalue:
        for x0 in iter_bits(masks[s]):
            base = x0 * nn
            imp = implications(graph, base + s, False, max_links, links=graph.xy_links, allowed=allowed)
            for t in iter_bits((_far_true(imp, 3) >> base) & all_cells & ~(1 << s)):
                common = dc[x0 + 1] & peers[s] & peers[t]
                if common:
                    _record_open_chain(best, imp, base + t, text, _eliminations(common, x0 + 1))
    return _steps(grid, graph, "XY-Chain", best.values())


# ---- Remote Pair ----------------------------------------------------------------------------------------------------
def find_remote_pairs(grid: CandidateGrid, max_cells: int = REMOTE_PAIR_MAX_CELLS) -> list[Step]:
    """Four or more bivalue cells with the same pair, each seeing the next: cells that see two of them an odd number
    (three or more) of steps apart lose both digits."""
    by_pair: dict[int, int] = {}
    for c, m in enumerate(grid.masks):
        if _bivalue(m):
            by_pair[m] = by_pair.get(m, 0) | (1 << c)
    best: dict[EffectKey, _Found] = {}
    for pair, cells in by_pair.items():
        if cells.bit_count() >= 4:
            search = _RemotePairSearch(grid, pair, cells, max_cells, best)
            for start in iter_bits(cells):
                search.extend([start], 0)
    return _steps(grid, None, "Remote Pair", best.values())


class _RemotePairSearch:
    """Depth-first over the simple paths of one pair's cells (HoDoKu enumerates them the same way)."""

    def __init__(self, grid: CandidateGrid, pair: int, cells: int, max_cells: int, best: dict[EffectKey, _Found]):
        self.grid = grid
        self.digits = tuple(b + 1 for b in iter_bits(pair))
        self.cells = cells
        self.max_cells = max_cells
        self.best = best
        self.targets = grid.digit_cells[self.digits[0]] | grid.digit_cells[self.digits[1]]
        self.budget = _REMOTE_PAIR_BUDGET

    def extend(self, path: list[int], seen: int) -> None:
        """`seen`: the cells that see two path cells an odd number (three or more) of steps apart."""
        self.budget -= 1
        if self.budget < 0 or len(path) >= self.max_cells:
            return
        peers = self.grid.geo.peer_bits
        used = 0
        for c in path:
            used |= 1 << c
        for nxt in iter_bits(self.cells & peers[path[-1]] & ~used):
            now_seen = seen
            for i in range(len(path) - 3, -1, -2):
                now_seen |= peers[path[i]] & peers[nxt]
            path.append(nxt)
            if now_seen & self.targets:
                self._record(path, now_seen & self.targets)
            self.extend(path, now_seen)
            path.pop()

    def _record(self, path: list[int], effect: int) -> None:
        x, y = self.digits
        dc, geo = self.grid.digit_cells, self.grid.geo
        eliminations = _eliminations(effect & dc[x], x) + _eliminations(effect & dc[y], y)
        text = f"{x}/{y} " + " - ".join(geo.cell_name(c) for c in path)
        chain = tuple((d - 1) * geo.cell_count + c for c in path for d in self.digits)
        _keep_shortest(self.best, _Found(2 * len(path) - 1, chain, text, (), eliminations))


# ---- Nice loops and AICs --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Lead:
    """A premise and an end whose effect does not depend on the chain between them: rebuilt only if it wins."""

    length: int
    imp: Implications
    end: int
    end_value: bool


class _LoopSearch:
    """All nice loops and AICs of one grid state (plain or grouped), by kind and effect."""

    def __init__(self, grid: CandidateGrid, grouped: bool, als: bool, max_links: int) -> None:
        self.grid = grid
        self.grouped = grouped
        self.graph = link_graph(grid, grouped, als)
        self.rank = _hodoku_rank(self.graph)
        self.continuous: dict[EffectKey, _Found] = {}
        self.leads: dict[str, dict[EffectKey, list[_Lead]]] = {DNL: {}, AIC: {}}
        links = self.graph.links
        leads_on = links.with_strong | links.with_long  # "x false" implies nothing without a strong link from x
        for premise in iter_bits(self.graph.candidate_nodes()):
            self._loops(implications(self.graph, premise, True, max_links))
            if leads_on >> premise & 1:
                imp = implications(self.graph, premise, False, max_links)
                self._loops(imp)
                self._aics(imp)

    # -- discovery ---------------------------------------------------------------------------------------------------
    def _loops(self, imp: Implications) -> None:
        """Walks that come back to the premise's cell, by HoDoKu's rules (first link strong when the premise is false,
        last link strong when the end is true)."""
        graph = self.graph
        premise = imp.premise
        c, x = graph.cell(premise), graph.digit(premise)
        first_strong = not imp.value
        layers = imp.layers
        near = layers[0] | (layers[2] if len(layers) > 2 else 0)  # a node is reached once per value: these are
        other = layers[1] if len(layers) > 1 else 0  # the cell's nodes less than three links away
        near_true, near_false = (near, other) if imp.value else (other, near)
        cell = graph.cell_nodes(c)
        for last_strong, reached in ((True, cell & imp.true & ~near_true), (False, cell & imp.false & ~near_false)):
            for end in iter_bits(reached):
                k = imp.distance(end, last_strong)
                if k is None:
                    continue
                y = graph.digit(end)
                if x == y and first_strong == last_strong:
                    # x false => x true: x is placed; x true => x false: x goes
                    placements, eliminations = (((c, x),), ()) if first_strong else ((), ((c, x),))
                    self._lead(DNL, imp, end, last_strong, placements, eliminations)
                elif x != y and first_strong != last_strong:
                    # x false => y false, or x true => y true: the digit of the weak end goes
                    self._lead(DNL, imp, end, last_strong, (), ((c, y if first_strong else x),))
                elif x != y and (first_strong or _bivalue(self.grid.masks[c])):
                    # closed by the weak link y - x (both strong) or the strong link of a bivalue cell (both weak)
                    self._continuous(imp, end, last_strong, k + 1)

    def _aics(self, imp: Implications) -> None:
        """Walks from "x false" to "y true" in another cell, three links or more (HoDoKu's checkAics): on one digit
        when two or more cells see both ends, on two digits when the end cells see each other."""
        graph, grid = self.graph, self.grid
        nn, dc, peers = graph.cell_count, grid.digit_cells, grid.geo.peer_bits
        c, x = graph.cell(imp.premise), graph.digit(imp.premise)
        far = _far_true(imp, 1)
        for t in iter_bits((far >> ((x - 1) * nn)) & ((1 << nn) - 1) & ~(1 << c)):
            common = dc[x] & peers[c] & peers[t]
            if common.bit_count() >= 2:
                self._lead(AIC, imp, graph.node(t, x), True, (), _eliminations(common, x))
        for y0 in iter_bits(grid.masks[c] & ~(1 << (x - 1))):
            for t in iter_bits((far >> (y0 * nn)) & peers[c] & dc[x]):
                self._lead(AIC, imp, y0 * nn + t, True, (), ((c, y0 + 1), (t, x)))

    def _lead(self, kind: str, imp: Implications, end: int, end_value: bool, placements: tuple[Assignment, ...],
              eliminations: tuple[Assignment, ...]) -> None:
        length = imp.distance(end, end_value)
        assert length is not None
        key: EffectKey = (frozenset(placements), frozenset(eliminations))
        self.leads[kind].setdefault(key, []).append(_Lead(length, imp, end, end_value))

    def _continuous(self, imp: Implications, end: int, end_value: bool, length: int) -> None:
        """A continuous loop's eliminations depend on the loop itself: rebuild it now, as HoDoKu would pick it."""
        chain = self._chain(imp, end, end_value, loop=True, hodoku=True)
        if chain is None:
            return
        eliminations = self._loop_eliminations(imp, chain)
        if eliminations:
            closed = chain + [imp.premise]
            _keep_shortest(self.continuous,
                           _Found(length, tuple(closed), chain_text(self.graph, closed, imp.value), (), eliminations))

    def _chain(self, imp: Implications, end: int, end_value: bool, loop: bool,
               hodoku: bool = False) -> list[int] | None:
        """A lasso-free shortest chain (HoDoKu's own where its eliminations depend on it); in a grouped search only a
        chain through a compound node counts."""
        chain = imp.chain(end, end_value, loop=loop, rank=self.rank if hodoku else None)
        if not self.grouped or chain is None or self._compound_in(chain):
            return chain
        chain = imp.chain(end, end_value, loop=loop, prefer_compounds=True)
        return chain if chain is not None and self._compound_in(chain) else None

    def _compound_in(self, chain: list[int]) -> bool:
        return any(not self.graph.is_candidate(v) for v in chain)

    # -- continuous loop eliminations ---------------------------------------------------------------------------------
    def _loop_eliminations(self, imp: Implications, chain: list[int]) -> tuple[Assignment, ...]:
        """Every weak link of a continuous loop is in fact strong (exactly one end is true), so:
        - a weak link inside a cell keeps only its two digits there (also at the start cell, when the loop closes
          through it by a weak link);
        - a weak link between places removes its digit from the cells that see both ends (outside the loop; as in
          HoDoKu, cells of an ALS in the loop do not count as inside);
        - an ALS the loop passes through (in on one digit, out on another) is locked on its other digits, which leave
          every cell that sees all their holders; one left through a cell it forces is handled by `_als_forced`."""
        graph, grid = self.graph, self.grid
        masks, dc = grid.masks, grid.digit_cells
        start = graph.cell(chain[0])
        loop_cells = 0
        for v in chain:
            if graph.is_candidate(v) or isinstance(graph.compound(v), GroupNode):
                loop_cells |= graph.cells(v)
        out: set[Assignment] = set()

        def keep_only(cell: int, a: int, b: int) -> None:
            out.update((cell, d0 + 1) for d0 in iter_bits(masks[cell] & ~(1 << (a - 1)) & ~(1 << (b - 1))))

        if not imp.value and imp.value_at(len(chain) - 1):
            keep_only(start, graph.digit(chain[0]), graph.digit(chain[-1]))
        for i in range(1, len(chain)):
            prev, node = chain[i - 1], chain[i]
            inside = graph.same_place(prev, node)
            if not imp.value_at(i):  # a weak link
                if inside:
                    keep_only(graph.cell(node), graph.digit(prev), graph.digit(node))
                else:
                    d = graph.digit(node)
                    seen = graph.buddies(prev) & graph.buddies(node) & dc[d] & ~loop_cells & ~(1 << start)
                    out.update((cell, d) for cell in iter_bits(seen))
            elif inside and not graph.is_candidate(node):
                compound = graph.compound(node)
                assert isinstance(compound, AlsNode)  # same_place: two digits of one ALS
                out.update(self._als_locked(compound.als, graph.digit(prev), graph.digit(node)))
            elif graph.is_candidate(prev) != graph.is_candidate(node):
                als, forced = (prev, node) if graph.is_candidate(node) else (node, prev)
                if isinstance(graph.compound(als), AlsNode):
                    out.update(self._als_forced(als, forced))
        return _by_digit(out)

    def _als_locked(self, als: int, entry: int, exit: int) -> Iterable[Assignment]:
        """An ALS whose missing digit is `entry` or `exit`: its other digits are all placed in it."""
        graph = self.graph
        for d0 in iter_bits(graph.alses[als].digits & ~(1 << (entry - 1)) & ~(1 << (exit - 1))):
            for cell in iter_bits(graph.buddies(graph.als_node(als, d0 + 1)) & self.grid.digit_cells[d0 + 1]):
                yield cell, d0 + 1

    def _als_forced(self, als_node: int, forced: int) -> Iterable[Assignment]:
        """An ALS digit j and a forced candidate (z, m), exactly one of them false: either j is the ALS's missing digit
        and z = m, or z holds another of its candidates, which is then the missing digit. Either way the ALS's digits
        that z lacks are placed in it, and each other digit of z is in the ALS or in z."""
        graph, grid = self.graph, self.grid
        compound = graph.compound(als_node)
        assert isinstance(compound, AlsNode)  # the caller's check
        index, j = compound.als, graph.digit(als_node)
        z, m = graph.cell(forced), graph.digit(forced)
        exits = grid.masks[z] & ~(1 << (m - 1))
        for d0 in iter_bits(graph.alses[index].digits & ~(1 << (j - 1))):
            sight = graph.buddies(graph.als_node(index, d0 + 1)) & grid.digit_cells[d0 + 1]
            if exits >> d0 & 1:
                sight &= grid.geo.peer_bits[z]
            for cell in iter_bits(sight):
                yield cell, d0 + 1

    # -- results -----------------------------------------------------------------------------------------------------
    def found(self, kind: str) -> list[_Found]:
        """The shortest chain per effect of one kind (CNL, DNL or AIC)."""
        if kind == CNL:
            return list(self.continuous.values())
        out = []
        for (placements, eliminations), leads in self.leads[kind].items():
            for lead in sorted(leads, key=lambda lead: lead.length):
                chain = self._chain(lead.imp, lead.end, lead.end_value, loop=kind == DNL)
                if chain is not None:
                    out.append(_Found(lead.length, tuple(chain), chain_text(self.graph, chain, lead.imp.value),
                                      tuple(sorted(placements)), _by_digit(eliminations)))
                    break
        return out


def _hodoku_rank(graph: LinkGraph) -> Rank:
    """The order HoDoKu's tables list a node's implications in: the cell's other digits, then the digit's places in
    the row, the column and the box (by cell), then group nodes (rows before columns) and ALS nodes. Its shortest
    chains are the first ones met in this order, and a continuous loop's eliminations depend on which one is taken."""
    geo, base, n = graph.geo, graph.compound_base, graph.n
    compound_key = {
        base + i: (4, x.line >= n, x.line % n, x.digit, x.box) if isinstance(x, GroupNode) else (5, x.als, x.digit)
        for i, x in enumerate(graph.compounds)
    }

    def rank(u: int, v: int) -> tuple[int, ...]:
        if v >= base:
            return compound_key[v]
        cv = graph.cell(v)
        if u >= base:
            return (1, cv)
        cu = graph.cell(u)
        if cu == cv:
            return (0, graph.digit(v))
        if geo.row[cu] == geo.row[cv]:
            return (1, cv)
        return (2, cv) if geo.col[cu] == geo.col[cv] else (3, cv)

    return rank


_SEARCHES: StateCache[tuple, _LoopSearch] = StateCache(size=4)


def _loop_steps(grid: CandidateGrid, kind: str, grouped: bool, max_links: int, als: bool = False) -> list[Step]:
    search = _SEARCHES.get((grouped, als, max_links, state_key(grid)),
                           lambda: _LoopSearch(grid, grouped, als, max_links))
    return _steps(grid, search.graph, GROUPED[kind] if grouped else kind, search.found(kind))


def find_continuous_nice_loops(grid: CandidateGrid, max_links: int = LOOP_MAX_LINKS) -> list[Step]:
    """A loop of alternating links: each weak link acts as strong, which eliminates around the loop."""
    return _loop_steps(grid, CNL, False, max_links)


def find_discontinuous_nice_loops(grid: CandidateGrid, max_links: int = LOOP_MAX_LINKS) -> list[Step]:
    """A loop broken at its start cell: the start candidate is proved true (placed) or false (eliminated)."""
    return _loop_steps(grid, DNL, False, max_links)


def find_aics(grid: CandidateGrid, max_links: int = LOOP_MAX_LINKS) -> list[Step]:
    """Alternating inference chain, strong at both ends: one of its two end candidates is true."""
    return _loop_steps(grid, AIC, False, max_links)


def find_grouped_continuous_nice_loops(grid: CandidateGrid, max_links: int = LOOP_MAX_LINKS,
                                       als: bool = False) -> list[Step]:
    """Continuous nice loops through a group node (or an ALS node, with `als`)."""
    return _loop_steps(grid, CNL, True, max_links, als)


def find_grouped_discontinuous_nice_loops(grid: CandidateGrid, max_links: int = LOOP_MAX_LINKS,
                                          als: bool = False) -> list[Step]:
    """Discontinuous nice loops through a group node (or an ALS node, with `als`)."""
    return _loop_steps(grid, DNL, True, max_links, als)


def find_grouped_aics(grid: CandidateGrid, max_links: int = LOOP_MAX_LINKS, als: bool = False) -> list[Step]:
    """AICs through a group node (or an ALS node, with `als`)."""
    return _loop_steps(grid, AIC, True, max_links, als)


# HoDoKu 2.2 default scores and levels: Remote Pair 110 Hard; X- and XY-Chain 260, nice loops and AIC 280, grouped
# nice loops and AIC 300, all Unfair.
TECHNIQUES: list[Technique] = [
    Technique("Remote Pair", "Chains and Loops", find_remote_pairs, score=110, level="Hard", hodoku_codes=("0703",)),
    Technique("X-Chain", "Chains and Loops", find_x_chains, score=260, level="Unfair", hodoku_codes=("0701",)),
    Technique("XY-Chain", "Chains and Loops", find_xy_chains, score=260, level="Unfair", hodoku_codes=("0702",)),
    Technique(CNL, "Chains and Loops", find_continuous_nice_loops, score=280, level="Unfair",
              aliases=("Continuous Loop",), hodoku_codes=("0706",)),
    Technique(DNL, "Chains and Loops", find_discontinuous_nice_loops, score=280, level="Unfair",
              aliases=("Discontinuous Loop",), hodoku_codes=("0707",)),
    Technique(AIC, "Chains and Loops", find_aics, score=280, level="Unfair",
              aliases=("Alternating Inference Chain",), hodoku_codes=("0708",)),
    Technique(GROUPED[CNL], "Chains and Loops", find_grouped_continuous_nice_loops, score=300, level="Unfair",
              hodoku_codes=("0709",)),
    Technique(GROUPED[DNL], "Chains and Loops", find_grouped_discontinuous_nice_loops, score=300, level="Unfair",
              hodoku_codes=("0710",)),
    Technique(GROUPED[AIC], "Chains and Loops", find_grouped_aics, score=300, level="Unfair",
              aliases=("Grouped Alternating Inference Chain",), hodoku_codes=("0711",)),
]
