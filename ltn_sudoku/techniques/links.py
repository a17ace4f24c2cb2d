"""The candidate link graph and alternating inference on it: the substrate of every chain technique.

Nodes are statements that can be true or false:
- a candidate node "digit d is in cell c";
- compound nodes, only when asked for: a group node "digit d is in one of these cells" for the two or more candidates
  of a digit in one box-line intersection (``grouped=True``), and an ALS node "digit d is placed in this almost locked
  set" (``als=True``).
Links between nodes, the two kinds every chain is made of:
- weak ``a - b``: a and b are never both true (two digits of one cell; one digit twice in a unit), so a true => b false;
- strong ``a = b``: a and b are never both false (a bivalue cell; a digit's last two places in a unit), so
  a false => b true. Every strong link of a Sudoku is also weak, and the weak adjacency includes it.

Node ids are ints. Candidate node (cell, digit) is ``(digit - 1) * n*n + cell``, so the nodes of one digit are one
block of bits, the candidate grid's ``digit_cells[digit]`` shifted; compound nodes follow from ``n**3`` on. A set of
nodes is a Python int with bit ``v`` set for node ``v``, which keeps the breadth-first walk to a few big-int
operations per node.

`implications(graph, premise, value)` walks from a premise ("node is true" or "node is false") through alternating
links, true -weak-> false -strong-> true ..., layer by layer (so distances are shortest chains), and can rebuild a
shortest lasso-free chain to any node it reached. `chain_text` writes a chain in Eureka notation. Also here, shared
with the ALS techniques: `almost_locked_sets` (the grid-state cache the finders share lives in techniques.cache).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache, partial
from typing import Callable

from ltn_sudoku.board import Geometry, geometry, iter_bits
from ltn_sudoku.candidates import CandidateGrid
from ltn_sudoku.techniques.cache import StateCache, state_key

DEFAULT_MAX_LINKS = 20  # longest chain searched, in links (HoDoKu restricts X- and XY-chains to 20)


@dataclass(frozen=True)
class Links:
    """One adjacency of the graph: per node, the nodes it is strongly / weakly linked to (as node-set ints).

    `long_strong` holds strong links that count as several links (an odd number, so truth values still alternate):
    HoDoKu's penalty for passing through an ALS, which makes a chain prefer plain links to an ALS shortcut.
    """

    strong: list[int]
    weak: list[int]
    with_strong: int  # node set: the nodes that have at least one strong link (the others end a walk)
    long_strong: dict[int, tuple[tuple[int, int], ...]] = field(default_factory=dict)  # node -> ((length, nodes), ...)
    with_long: int = 0  # node set: the keys of long_strong


@dataclass(frozen=True)
class GroupNode:
    """The candidates of one digit in one box-line intersection, as one node: "the digit is in one of these cells"."""

    digit: int
    cells: int  # cell set, two or more cells
    line: int  # the row or column unit
    box: int  # the box unit

    @property
    def holders(self) -> int:
        """The cells that have the digit: all of them."""
        return self.cells


@dataclass(frozen=True)
class Als:
    """An almost locked set: N cells of one unit whose candidates are N + 1 digits, so exactly one digit is missing."""

    cells: int  # cell set
    digits: int  # candidate mask of the union
    unit: int  # a unit holding every cell


@dataclass(frozen=True)
class AlsNode:
    """One digit of an ALS, as one node: "the digit is placed in the ALS"."""

    digit: int
    als: int  # index in LinkGraph.alses
    cells: int  # the ALS's cells
    holders: int  # the ALS cells that have the digit as a candidate


Compound = GroupNode | AlsNode


class LinkGraph:
    """Strong and weak links between the candidates of one candidate grid, and optionally between compound nodes.

    Compound nodes (ids from `compound_base` on): group nodes with ``grouped=True``, ALS nodes with ``als=True``
    (HoDoKu's "ALS in chains" option; ALSes of two or more cells). An ALS node A[k] is weakly linked to whatever
    sees all of A's k cells (candidates, groups and other ALSes' k nodes outside A), strongly to A's other digits and
    to the candidates it forces, by long links (see `Links`).
    `links` holds every link. `xy_links` holds only strong links inside bivalue cells and weak links between cells
    (one digit in one unit): the links an XY-chain may use. The graph is a snapshot of the grid when it was built.
    """

    def __init__(self, grid: CandidateGrid, grouped: bool = False, als: bool = False) -> None:
        n = grid.n
        self.n = n
        self.geo: Geometry = grid.geo
        self.cell_count = n * n
        self.compound_base = n * self.cell_count  # id of the first compound node
        self.masks: tuple[int, ...] = tuple(grid.masks)
        self.digit_cells: tuple[int, ...] = tuple(grid.digit_cells)
        self.alses: list[Als] = almost_locked_sets(grid, min_cells=2) if als else []
        self.compounds: list[Compound] = [*(_group_nodes(grid) if grouped else []), *_als_nodes(grid, self.alses)]
        self.compound_buddies: list[int] = [self._compound_buddies(x) for x in self.compounds]
        self._als_node_ids = {
            (x.als, x.digit): self.compound_base + i for i, x in enumerate(self.compounds) if isinstance(x, AlsNode)
        }
        self._build()

    # ---- nodes --------------------------------------------------------------------------------------------------
    def node(self, cell: int, digit: int) -> int:
        """Id of the candidate node (cell, digit)."""
        return (digit - 1) * self.cell_count + cell

    def is_candidate(self, node: int) -> bool:
        return node < self.compound_base

    def compound(self, node: int) -> Compound:
        return self.compounds[node - self.compound_base]

    def als_node(self, als: int, digit: int) -> int:
        """Id of the ALS node "digit is placed in ALS number `als`"."""
        return self._als_node_ids[(als, digit)]

    def digit(self, node: int) -> int:
        if node >= self.compound_base:
            return self.compounds[node - self.compound_base].digit
        return node // self.cell_count + 1

    def cell(self, node: int) -> int:
        """The cell of a candidate node."""
        return node % self.cell_count

    def cells(self, node: int) -> int:
        """Cell set of a node: its cell, a group's cells, an ALS's cells."""
        if node >= self.compound_base:
            return self.compounds[node - self.compound_base].cells
        return 1 << (node % self.cell_count)

    def same_place(self, a: int, b: int) -> bool:
        """Two candidate nodes of one cell, or two digits of one ALS: a link inside one place (notation merges them)."""
        if a < self.compound_base and b < self.compound_base:
            return a % self.cell_count == b % self.cell_count
        x, y = (self.compounds[v - self.compound_base] if v >= self.compound_base else None for v in (a, b))
        return isinstance(x, AlsNode) and isinstance(y, AlsNode) and x.als == y.als

    def digit_nodes(self, digit: int) -> int:
        """Node set: the candidate nodes of one digit."""
        return self.digit_cells[digit] << ((digit - 1) * self.cell_count)

    def cell_nodes(self, cell: int) -> int:
        """Node set: the candidate nodes of one cell."""
        return self._cell_nodes[cell]

    def candidate_nodes(self) -> int:
        """Node set: every candidate node."""
        return self._candidates

    def buddies(self, node: int) -> int:
        """Cell set: the cells outside the node that see all of its cells holding its digit (they lose the digit when
        the node is true)."""
        if node >= self.compound_base:
            return self.compound_buddies[node - self.compound_base]
        return self.geo.peer_bits[node % self.cell_count]

    def name(self, node: int) -> str:
        """'r1c2' for a candidate node; 'r1c23' / 'r12c3' for a group or an ALS in one line ('r1c10/11' above 9x9),
        else the ALS's cells listed."""
        if node < self.compound_base:
            return self.geo.cell_name(node % self.cell_count)
        geo = self.geo
        cells = list(iter_bits(self.compounds[node - self.compound_base].cells))
        rows = sorted({geo.row[c] + 1 for c in cells})
        cols = sorted({geo.col[c] + 1 for c in cells})
        if len(rows) > 1 and len(cols) > 1:
            return geo.cells_name(cells)
        sep = "" if self.n <= 9 else "/"
        return f"r{sep.join(map(str, rows))}c{sep.join(map(str, cols))}"

    # ---- construction ---------------------------------------------------------------------------------------------
    def _compound_buddies(self, compound: Compound) -> int:
        if isinstance(compound, GroupNode):
            return common_peers(self.geo, compound.cells)
        return common_peers(self.geo, compound.holders) & ~compound.cells

    def _build(self) -> None:
        n, nn, geo = self.n, self.cell_count, self.geo
        dc = self.digit_cells
        size = self.compound_base + len(self.compounds)
        strong, weak, cell_strong, unit_weak = [0] * size, [0] * size, [0] * size, [0] * size
        cell_nodes = [0] * nn
        for c, mask in enumerate(self.masks):
            for d0 in iter_bits(mask):
                cell_nodes[c] |= 1 << (d0 * nn + c)
        group_of = {
            (x.digit, x.cells): self.compound_base + i for i, x in enumerate(self.compounds) if isinstance(x, GroupNode)
        }
        candidates = 0
        for d in range(1, n + 1):
            base = (d - 1) * nn
            places = dc[d]
            candidates |= places << base
            for c in iter_bits(places):
                v = base + c
                in_unit = (places & geo.peer_bits[c]) << base
                in_cell = cell_nodes[c] ^ (1 << v)
                weak[v] = in_unit | in_cell
                unit_weak[v] = in_unit
                if in_cell and not in_cell & (in_cell - 1):
                    cell_strong[v] = in_cell
                strong[v] = cell_strong[v]
                for u in geo.units_of_cell[c]:
                    strong[v] |= _partner((places & geo.unit_bits[u]) ^ (1 << c), base, d, group_of)
        long_strong: dict[int, list[tuple[int, int]]] = {}
        self._link_compounds(strong, weak, long_strong, group_of)
        self._cell_nodes = cell_nodes
        self._candidates = candidates
        with_long = sum(1 << v for v in long_strong)
        self.links = Links(strong, weak, _nonempty(strong), {v: tuple(ls) for v, ls in long_strong.items()}, with_long)
        self.xy_links = Links(cell_strong, unit_weak, _nonempty(cell_strong))

    def _link_compounds(self, strong: list[int], weak: list[int], long_strong: dict[int, list[tuple[int, int]]],
                        group_of: dict[tuple[int, int], int]) -> None:
        """Compound node links. Weak: to the candidates that see the whole node, to the groups and ALS digits of a
        shared house or in sight. Strong: a group to what is left of its digit in its line or box when that is one cell
        or one group; an ALS digit to the ALS's other digits and to the cells it forces (long links)."""
        nn, geo, base = self.cell_count, self.geo, self.compound_base
        by_digit: dict[int, list[int]] = {}
        for i, x in enumerate(self.compounds):
            by_digit.setdefault(x.digit, []).append(base + i)
        als_digits: dict[int, int] = {}
        for i, x in enumerate(self.compounds):
            if isinstance(x, AlsNode):
                als_digits[x.als] = als_digits.get(x.als, 0) | 1 << (base + i)
        for i, x in enumerate(self.compounds):
            v = base + i
            shift = (x.digit - 1) * nn
            places = self.digit_cells[x.digit]
            sight = self.compound_buddies[i]
            seen = places & sight
            weak[v] |= seen << shift
            for c in iter_bits(seen):
                weak[shift + c] |= 1 << v
            for w in by_digit[x.digit]:
                other = self.compounds[w - base]
                if w > v and not other.cells & x.cells and not other.holders & ~sight:
                    weak[v] |= 1 << w  # disjoint, and every holding cell of one sees every one of the other
                    weak[w] |= 1 << v
            if isinstance(x, GroupNode):
                for house in (x.line, x.box):
                    strong[v] |= _partner(places & geo.unit_bits[house] & ~x.cells, shift, x.digit, group_of)
            else:
                inside = (_als_penalty(self.alses[x.als]) - 1, als_digits[x.als] & ~(1 << v))
                long_strong.setdefault(v, []).append(inside)
        for index in als_digits:
            self._link_als_forcings(index, long_strong)

    def _link_als_forcings(self, index: int, long_strong: dict[int, list[tuple[int, int]]]) -> None:
        """HoDoKu's forced exits: with digit j missing from the ALS, its other digits are all in it and leave every
        cell that sees all their holders; a cell of three or more candidates left with one, m, must hold it. So the
        ALS node A[j] and the candidate (z, m) are never both false: a strong link."""
        nn, als = self.cell_count, self.alses[index]
        sights = {d0 + 1: self.compound_buddies[self.als_node(index, d0 + 1) - self.compound_base]
                  for d0 in iter_bits(als.digits)}
        reach = 0
        for sight in sights.values():
            reach |= sight
        for z in iter_bits(reach):
            mask = self.masks[z]
            if mask.bit_count() < 3:
                continue  # a bivalue cell is reached through its own strong link
            seen = sum(1 << (d - 1) for d, sight in sights.items() if sight >> z & 1)
            for j in sights:
                left = mask & ~(seen & ~(1 << (j - 1)))
                if left and not left & (left - 1):
                    v, target = self.als_node(index, j), (left.bit_length() - 1) * nn + z
                    length = _als_penalty(als) + 1
                    long_strong.setdefault(v, []).append((length, 1 << target))
                    long_strong.setdefault(target, []).append((length, 1 << v))


def _als_penalty(als: Als) -> int:
    """HoDoKu's extra chain length for an ALS of c digits: (c - 1) * 2 (c >= 3 for the ALSes of chains)."""
    return (als.digits.bit_count() - 1) * 2


def _nonempty(adjacency: list[int]) -> int:
    """Node set of the nodes with at least one link in `adjacency`."""
    out = 0
    for v, linked in enumerate(adjacency):
        if linked:
            out |= 1 << v
    return out


def _partner(rest: int, base: int, digit: int, group_of: dict[tuple[int, int], int]) -> int:
    """Node set of the strong partner left in a unit: `rest` (the unit's other places) as one cell or one group."""
    if not rest:
        return 0
    if not rest & (rest - 1):
        return rest << base
    group = group_of.get((digit, rest))
    return 0 if group is None else 1 << group


@lru_cache(maxsize=1 << 16)
def common_peers(geo: Geometry, cells: int) -> int:
    """The cells outside `cells` that see every one of them; remembered, as ALS and compound nodes share cell sets
    and the same sets come back along a solving path."""
    common = -1
    for c in iter_bits(cells):
        common &= geo.peer_bits[c]
    return common & ~cells


@lru_cache(maxsize=None)
def _line_box_segments(n: int) -> tuple[tuple[int, int, int], ...]:
    """(line unit, box unit, cell set of their intersection) for every row and column."""
    geo = geometry(n)
    out = []
    for line in range(2 * n):
        for box in range(2 * n, 3 * n):
            common = geo.unit_bits[line] & geo.unit_bits[box]
            if common:
                out.append((line, box, common))
    return tuple(out)


def _group_nodes(grid: CandidateGrid) -> list[GroupNode]:
    """Every box-line intersection holding two or more candidates of a digit, digit by digit, rows before columns."""
    groups = []
    segments = _line_box_segments(grid.n)
    for d in range(1, grid.n + 1):
        places = grid.digit_cells[d]
        for line, box, common in segments:
            cells = places & common
            if cells & (cells - 1):
                groups.append(GroupNode(d, cells, line, box))
    return groups


def _als_nodes(grid: CandidateGrid, alses: list[Als]) -> list[AlsNode]:
    return [
        AlsNode(d0 + 1, i, a.cells, a.cells & grid.digit_cells[d0 + 1])
        for i, a in enumerate(alses)
        for d0 in iter_bits(a.digits)
    ]


def almost_locked_sets(grid: CandidateGrid, min_cells: int = 1, max_cells: int | None = None) -> list[Als]:
    """Every almost locked set of the grid (N cells of one unit with N + 1 candidates, min_cells <= N <= max_cells),
    each cell set once, units in board order (rows, columns, boxes). By default every size up to 9x9 (as HoDoKu),
    at most k cells on larger boards, where the number of ALSes grows exponentially with the unit size."""
    k = grid.geo.k
    cap = (grid.n - 1 if k <= 3 else k) if max_cells is None else max_cells
    masks = grid.masks
    found: dict[int, Als] = {}
    for unit, unit_cells in enumerate(grid.geo.units):
        unit_masks = tuple(masks[c] for c in unit_cells)
        in_unit = _UNIT_ALSES.get((grid.n, unit, min_cells, cap, unit_masks),
                                  lambda: _unit_alses(unit_cells, unit_masks, min_cells, cap))
        for cells, digits in in_unit:
            if cells not in found:
                found[cells] = Als(cells, digits, unit)
    return list(found.values())


def _unit_alses(unit_cells: tuple[int, ...], unit_masks: tuple[int, ...], min_cells: int,
                cap: int) -> list[tuple[int, int]]:
    """(cells, digits) of every ALS of one unit, depth first: a unit's ALS depend on its own candidates only, so
    along a solving path, where a step changes a few cells, most units' lists are reused (kept in `_UNIT_ALSES`)."""
    empty = [(c, m) for c, m in zip(unit_cells, unit_masks) if m]
    limit = min(len(empty) - 1, cap)
    out: list[tuple[int, int]] = []

    def extend(start: int, cells: int, digits: int, count: int) -> None:
        if count >= min_cells and digits.bit_count() == count + 1:
            out.append((cells, digits))
        if count == limit or digits.bit_count() - count - 1 > limit - count:
            return  # each further cell lowers (digits - cells) by one at most
        for i in range(start, len(empty)):
            c, m = empty[i]
            extend(i + 1, cells | 1 << c, digits | m, count + 1)

    extend(0, 0, 0, 0)
    return out


# (n, unit, min_cells, max_cells, the unit's candidate masks) -> its ALS: 27 units a 9x9 state, reused along a path
_UNIT_ALSES: StateCache[tuple[int, int, int, int, tuple[int, ...]], list[tuple[int, int]]] = StateCache(size=4096)


_GRAPHS: StateCache[tuple[bool, bool, tuple[int, ...]], LinkGraph] = StateCache()


def link_graph(grid: CandidateGrid, grouped: bool = False, als: bool = False) -> LinkGraph:
    """The link graph of a grid state, shared by the finders that ask for it while the candidates stay the same."""
    return _GRAPHS.get((grouped, als, state_key(grid)), lambda: LinkGraph(grid, grouped, als))


# ---- alternating inference ---------------------------------------------------------------------------------------
Rank = Callable[[int, int], tuple[int, ...]]  # rank(u, v): order in which a search visits the link u -> v


class Implications:
    """What one premise implies through alternating links, layer by layer (layer k = distance k).

    Layer 0 is the premise; layers alternate in truth value (a true layer is followed by the false nodes its weak links
    reach, a false layer by the true nodes its strong links reach). A node can be reached both true and false.
    """

    def __init__(self, graph: LinkGraph, links: Links, premise: int, value: bool, layers: list[int], true: int,
                 false: int) -> None:
        self.graph = graph
        self.links = links
        self.premise = premise
        self.value = value
        self.layers = layers
        self.true = true
        self.false = false
        self._fifo: tuple[Rank, list[dict[int, int]], list[int]] | None = None

    def value_at(self, distance: int) -> bool:
        """Truth value of the nodes of one layer."""
        return self.value != bool(distance & 1)

    def distance(self, node: int, value: bool) -> int | None:
        """Links in a shortest chain from the premise to `node` having `value`; None when not implied."""
        if not (self.true if value else self.false) >> node & 1:
            return None
        for k in range(0 if value == self.value else 1, len(self.layers), 2):
            if self.layers[k] >> node & 1:
                return k
        return None

    def chain(self, node: int, value: bool, loop: bool = False, prefer_compounds: bool = False,
              rank: Rank | None = None) -> list[int] | None:
        """A shortest chain premise -> ... -> node (node ids, premise first) without lasso; None when there is none.

        No lasso, by HoDoKu's rule (see `_extend_back`): roughly, no node comes back to a cell the chain used two or
        more nodes earlier. With `loop` the chain returns to the premise's cell: its first link leaves that cell and
        its last link comes back from outside.
        Among equally short chains: with `rank`, the one a first-in-first-out search would record when it visits each
        node's links in `rank` order (see `fifo_positions`); otherwise candidate nodes are preferred to compound
        nodes (or the reverse: `prefer_compounds`).
        """
        k = self.distance(node, value)
        if k is None:
            return None
        order: Callable[[int, int], object]
        if rank is not None:
            positions = self.fifo_positions(rank, k)

            def fifo_order(pred: int, layer: int) -> int:
                return positions[layer][pred]
            order = fifo_order
        else:
            base = self.graph.compound_base

            def compounds_first(pred: int, layer: int) -> bool:
                return pred < base

            def candidates_first(pred: int, layer: int) -> bool:
                return pred >= base
            order = compounds_first if prefer_compounds else candidates_first
        path = [node]
        if not _extend_back(self, path, 0, k, loop, order, [_REBUILD_BUDGET]):
            return None
        path.reverse()
        return path

    def fifo_positions(self, rank: Rank, upto: int) -> list[dict[int, int]]:
        """Per layer up to `upto`, each node's position in the order a first-in-first-out search meets it when it
        visits the links of a node u to nodes v in increasing `rank(u, v)`. Nodes reached by a long link come last
        in their layer. Computed lazily and kept for one rank."""
        if self._fifo is None or self._fifo[0] is not rank:
            self._fifo = (rank, [{self.premise: 0}], [self.premise])
        _, positions, order = self._fifo
        for k in range(len(positions), min(upto, len(self.layers) - 1) + 1):
            links = self.links.strong if self.value_at(k) else self.links.weak
            layer = self.layers[k]
            met: list[int] = []
            for u in order:
                children = links[u] & layer
                if children:
                    layer &= ~children
                    met.extend(sorted(iter_bits(children), key=partial(rank, u)))
            met.extend(iter_bits(layer))
            order[:] = met
            positions.append({v: i for i, v in enumerate(met)})
        return positions

    def predecessors(self, node: int, layer: int) -> list[tuple[int, int]]:
        """(pred, its layer) for the nodes the walk could have reached `node` (in `layer`) from."""
        if not self.value_at(layer):
            return [(v, layer - 1) for v in iter_bits(self.links.weak[node] & self.layers[layer - 1])]
        preds = [(v, layer - 1) for v in iter_bits(self.links.strong[node] & self.layers[layer - 1])]
        for length, sources in self.links.long_strong.get(node, ()):
            if length <= layer:
                preds += [(v, layer - length) for v in iter_bits(sources & self.layers[layer - length])]
        return preds


_REBUILD_BUDGET = 400  # predecessor tries per rebuilt chain: lasso-free chains are nearly always found at once


def _extend_back(imp: Implications, path: list[int], far_keys: int, layer: int, loop: bool,
                 order: Callable[[int, int], object], budget: list[int]) -> bool:
    """Grow `path` (target first) back to the premise through the layers, depth-first, keeping HoDoKu's lasso rule.

    The rule, read from the premise on: a node's key cell must not lie in the cells of any node before its
    predecessor. A candidate's key is its cell, a group's its first cell, an ALS's its first cell holding the digit it
    is entered by (the node leaving the ALS has none); in a loop the start cell is never counted as used, but the
    first link must leave it and the last one come back from outside. `path[-1]` sits in `layer`; `far_keys` holds
    the key cells of the nodes beyond it (its neighbour excluded). Predecessors one layer back are tried before
    those a long link reaches from further back.
    """
    if layer == 0:
        return True
    budget[0] -= 1
    if budget[0] < 0:
        return False
    graph = imp.graph
    start = graph.cells(imp.premise)
    newest = path[-1]
    preds = sorted(imp.predecessors(newest, layer), key=lambda p: (layer - p[1], order(*p)))
    for pred, pred_layer in preds:
        if loop and (pred_layer == 0 and _key_cell(graph, newest, pred) & start
                     or len(path) == 1 and _key_cell(graph, pred, -1) & start):
            continue  # a loop leaves its start cell at once and comes back from outside
        used = 0 if loop and _key_cell(graph, pred, -1) & start else graph.cells(pred)
        if used & far_keys:
            continue  # (in a loop HoDoKu never records the start cell as used)
        path.append(pred)
        if _extend_back(imp, path, far_keys | _key_cell(graph, newest, pred), pred_layer, loop, order, budget):
            return True
        path.pop()
    return False


def _key_cell(graph: LinkGraph, node: int, before: int) -> int:
    """Cell set of the one cell HoDoKu checks a node by, given the node before it in the chain (-1: unknown)."""
    if node < graph.compound_base:
        return 1 << (node % graph.cell_count)
    compound = graph.compounds[node - graph.compound_base]
    if isinstance(compound, AlsNode):
        if before >= 0 and graph.same_place(before, node):
            return 0  # leaving the ALS: HoDoKu's one ALS node was checked where it was entered
        return compound.holders & -compound.holders
    return compound.cells & -compound.cells


def implications(graph: LinkGraph, premise: int, value: bool, max_links: int = DEFAULT_MAX_LINKS,
                 links: Links | None = None, allowed: int = -1) -> Implications:
    """Breadth-first alternating inference from "premise is `value`", at most `max_links` links deep.

    `links` picks the adjacency (default: every link); `allowed` restricts the walk to a node set.
    """
    links = graph.links if links is None else links
    strong, weak, with_strong = links.strong, links.weak, links.with_strong
    long_strong, with_long = links.long_strong, links.with_long
    frontier = 1 << premise
    true = frontier if value else 0
    false = 0 if value else frontier
    layers = [frontier]
    pending: dict[int, int] = {}  # layer -> nodes a long link reaches there (graphs with ALS nodes only)
    current_true = value
    for depth in range(1, max_links + 1):
        reached = 0
        if current_true:
            f = frontier
            while f:
                low = f & -f
                reached |= weak[low.bit_length() - 1]
                f ^= low
            if allowed != -1:
                reached &= allowed
            reached &= ~false
            false |= reached
        else:
            f = frontier & with_strong
            while f:
                low = f & -f
                reached |= strong[low.bit_length() - 1]
                f ^= low
            if with_long:
                f = frontier & with_long
                while f:
                    low = f & -f
                    for length, targets in long_strong[low.bit_length() - 1]:
                        pending[depth - 1 + length] = pending.get(depth - 1 + length, 0) | targets
                    f ^= low
                reached |= pending.pop(depth, 0)
            if allowed != -1:
                reached &= allowed
            reached &= ~true
            true |= reached
        if not reached and not pending:
            break
        layers.append(reached)
        frontier = reached
        current_true = not current_true
    return Implications(graph, links, premise, value, layers, true, false)


# ---- notation -----------------------------------------------------------------------------------------------------
def chain_text(graph: LinkGraph, chain: list[int], first_value: bool) -> str:
    """Eureka notation, e.g. '(4)r1c1 = (4)r1c5 - (4=7)r2c6 - (7)r3c6'.

    `first_value` is the truth value the chain assumes for its first node; the values then alternate, and the link
    into a true node is strong '=', into a false node weak '-'. Two neighbouring nodes of one cell (or of one ALS)
    print as '(a=b)cell' or '(a-b)cell'.
    """

    def link_into(i: int) -> str:
        return "=" if first_value != bool(i & 1) else "-"

    parts: list[str] = []
    i = 0
    while i < len(chain):
        if i:
            parts.append(link_into(i))
        node = chain[i]
        nxt = chain[i + 1] if i + 1 < len(chain) else -1
        if nxt >= 0 and graph.same_place(node, nxt):
            parts.append(f"({graph.digit(node)}{link_into(i + 1)}{graph.digit(nxt)}){graph.name(node)}")
            i += 2
        else:
            parts.append(f"({graph.digit(node)}){graph.name(node)}")
            i += 1
    return " ".join(parts)
