"""The candidate link graph and alternating inference on it: the substrate of every chain technique.

Nodes are statements that can be true or false:
- a candidate node "digit d is in cell c";
- a group node "digit d is in one of these cells", for the two or more candidates of a digit in one box-line
  intersection (only in a graph built with ``grouped=True``).
Links between nodes, the two kinds every chain is made of:
- weak ``a - b``: a and b are never both true (two digits of one cell; one digit twice in a unit), so a true => b false;
- strong ``a = b``: a and b are never both false (a bivalue cell; a digit's last two places in a unit), so
  a false => b true. Every strong link of a Sudoku is also weak, and the weak adjacency includes it.

Node ids are ints. Candidate node (cell, digit) is ``(digit - 1) * n*n + cell``, so the nodes of one digit are one
block of bits, the candidate grid's ``digit_cells[digit]`` shifted; group nodes follow from ``n**3`` on. A set of nodes
is a Python int with bit ``v`` set for node ``v``, which keeps the breadth-first walk to a few big-int operations
per node.

`implications(graph, premise, value)` walks from a premise ("node is true" or "node is false") through alternating
links, true -weak-> false -strong-> true ..., layer by layer (so distances are shortest chains), and can rebuild a
shortest chain to any node it reached, with or without lassos. `chain_text` writes a chain in Eureka notation.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Generic, Hashable, TypeVar

from ltn_sudoku.board import Geometry, geometry, iter_bits
from ltn_sudoku.candidates import CandidateGrid

DEFAULT_MAX_LINKS = 20  # longest chain searched, in links (HoDoKu restricts X- and XY-chains to 20)


@dataclass(frozen=True)
class Links:
    """One adjacency of the graph: per node, the nodes it is strongly / weakly linked to (as node-set ints)."""

    strong: list[int]
    weak: list[int]
    with_strong: int  # node set: the nodes that have at least one strong link (the others end a walk)


@dataclass(frozen=True)
class GroupNode:
    """The candidates of one digit in one box-line intersection, as one node."""

    digit: int
    cells: int  # cell set, two or more cells
    line: int  # the row or column unit
    box: int  # the box unit


class LinkGraph:
    """Strong and weak links between the candidates (and optionally the group nodes) of one candidate grid.

    `links` holds every link. `xy_links` holds only strong links inside bivalue cells and weak links between cells
    (one digit in one unit): the links an XY-chain may use. The graph is a snapshot: it does not follow later
    changes of the grid.
    """

    def __init__(self, grid: CandidateGrid, grouped: bool = False) -> None:
        n = grid.n
        self.n = n
        self.geo: Geometry = grid.geo
        self.cell_count = n * n
        self.group_base = n * self.cell_count  # id of the first group node
        self.masks: tuple[int, ...] = tuple(grid.masks)
        self.digit_cells: tuple[int, ...] = tuple(grid.digit_cells)
        self.groups: list[GroupNode] = _group_nodes(grid) if grouped else []
        self.group_buddies: list[int] = [_common_peers(self.geo, g.cells) for g in self.groups]
        self._build()

    # ---- nodes --------------------------------------------------------------------------------------------------
    def node(self, cell: int, digit: int) -> int:
        """Id of the candidate node (cell, digit)."""
        return (digit - 1) * self.cell_count + cell

    def is_group(self, node: int) -> bool:
        return node >= self.group_base

    def digit(self, node: int) -> int:
        if node >= self.group_base:
            return self.groups[node - self.group_base].digit
        return node // self.cell_count + 1

    def cell(self, node: int) -> int:
        """The cell of a candidate node."""
        return node % self.cell_count

    def cells(self, node: int) -> int:
        """Cell set of a node: its cell, or the cells of a group."""
        if node >= self.group_base:
            return self.groups[node - self.group_base].cells
        return 1 << (node % self.cell_count)

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
        """Cell set: the cells outside the node that see all of its cells (they lose its digit when it is true)."""
        if node >= self.group_base:
            return self.group_buddies[node - self.group_base]
        return self.geo.peer_bits[node % self.cell_count]

    def name(self, node: int) -> str:
        """'r1c2' for a candidate node; compact 'r1c23' / 'r12c3' for a group node ('r1c10/11' above 9x9)."""
        if node < self.group_base:
            return self.geo.cell_name(node % self.cell_count)
        geo = self.geo
        cells = list(iter_bits(self.groups[node - self.group_base].cells))
        rows = sorted({geo.row[c] + 1 for c in cells})
        cols = sorted({geo.col[c] + 1 for c in cells})
        sep = "" if self.n <= 9 else "/"
        return f"r{sep.join(map(str, rows))}c{sep.join(map(str, cols))}"

    # ---- construction ---------------------------------------------------------------------------------------------
    def _build(self) -> None:
        n, nn, geo = self.n, self.cell_count, self.geo
        dc = self.digit_cells
        size = self.group_base + len(self.groups)
        strong, weak, cell_strong, unit_weak = [0] * size, [0] * size, [0] * size, [0] * size
        cell_nodes = [0] * nn
        for c, mask in enumerate(self.masks):
            for d0 in iter_bits(mask):
                cell_nodes[c] |= 1 << (d0 * nn + c)
        group_of = {(g.digit, g.cells): self.group_base + i for i, g in enumerate(self.groups)}
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
        self._link_groups(strong, weak, group_of)
        self._cell_nodes = cell_nodes
        self._candidates = candidates
        self.links = Links(strong, weak, _nonempty(strong))
        self.xy_links = Links(cell_strong, unit_weak, _nonempty(cell_strong))

    def _link_groups(self, strong: list[int], weak: list[int], group_of: dict[tuple[int, int], int]) -> None:
        """Group node links: weak to the candidates that see the whole group and to the disjoint groups of a shared
        house; strong to what is left of the digit in the group's line or box when that is one cell or one group."""
        nn, geo = self.cell_count, self.geo
        sharing: dict[tuple[int, int], list[int]] = {}
        for i, g in enumerate(self.groups):
            sharing.setdefault((g.digit, g.line), []).append(i)
            sharing.setdefault((g.digit, g.box), []).append(i)
        for i, g in enumerate(self.groups):
            v = self.group_base + i
            base = (g.digit - 1) * nn
            places = self.digit_cells[g.digit]
            seen = places & self.group_buddies[i]
            weak[v] |= seen << base
            for c in iter_bits(seen):
                weak[base + c] |= 1 << v
            for house in (g.line, g.box):
                for j in sharing[(g.digit, house)]:
                    if not self.groups[j].cells & g.cells:
                        weak[v] |= 1 << (self.group_base + j)
                strong[v] |= _partner(places & geo.unit_bits[house] & ~g.cells, base, g.digit, group_of)


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


def _common_peers(geo: Geometry, cells: int) -> int:
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


# ---- a small cache keyed by grid state: the finders of one engine pass share their graphs and searches ------------
K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class StateCache(Generic[K, V]):
    """The last few results keyed by a grid-state key; cheap insurance against rebuilding per finder call."""

    def __init__(self, size: int = 4) -> None:
        self.size = size
        self._items: dict[K, V] = {}

    def get(self, key: K, build: Callable[[], V]) -> V:
        if key in self._items:
            return self._items[key]
        value = build()
        if len(self._items) >= self.size:
            del self._items[next(iter(self._items))]
        self._items[key] = value
        return value


def state_key(grid: CandidateGrid) -> tuple[int, ...]:
    """What the links of a grid depend on: its candidate masks (placed cells have mask 0)."""
    return tuple(grid.masks)


_GRAPHS: StateCache[tuple[bool, tuple[int, ...]], LinkGraph] = StateCache()


def link_graph(grid: CandidateGrid, grouped: bool = False) -> LinkGraph:
    """The (cached) link graph of a grid state; build it fresh with LinkGraph(grid) when the grid will change."""
    return _GRAPHS.get((grouped, state_key(grid)), lambda: LinkGraph(grid, grouped))


# ---- alternating inference ---------------------------------------------------------------------------------------
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

    def chain(self, node: int, value: bool, loop: bool = False, prefer_groups: bool = False) -> list[int] | None:
        """A shortest chain premise -> ... -> node (node ids, premise first) without lasso; None when there is none.

        No lasso: two nodes that are not neighbours in the chain have disjoint cells (neighbours share a cell only
        across a link inside it). With `loop` the chain returns to the premise's cell: its last node and group
        nodes may lie there, but no other candidate node, so the first and last links leave / enter it from outside.
        Among equally short chains, candidate nodes are preferred to group nodes (or the reverse: `prefer_groups`).
        """
        k = self.distance(node, value)
        if k is None:
            return None
        start_cells = self.graph.cells(self.premise) if loop else 0
        path = [node]
        if not _extend_back(self, path, 0, k, start_cells, prefer_groups, [_REBUILD_BUDGET]):
            return None
        path.reverse()
        return path


_REBUILD_BUDGET = 400  # predecessor tries per rebuilt chain: lasso-free chains are nearly always found at once


def _extend_back(imp: Implications, path: list[int], far: int, depth: int, start_cells: int, prefer_groups: bool,
                 budget: list[int]) -> bool:
    """Grow `path` (target first) back to the premise through the layers, depth-first, keeping the lasso rule.

    `path[-1]` sits at distance `depth`; `far` is the cell set of the nodes beyond it (not its neighbour).
    """
    if depth == 0:
        return True
    budget[0] -= 1
    if budget[0] < 0:
        return False
    graph = imp.graph
    newest = path[-1]
    links = imp.links.strong if imp.value_at(depth) else imp.links.weak
    preds = list(iter_bits(links[newest] & imp.layers[depth - 1]))
    if graph.groups:
        base = graph.group_base
        preds.sort(key=(lambda v: v < base) if prefer_groups else (lambda v: v >= base))
    beyond = far | graph.cells(newest)
    for pred in preds:
        cells = graph.cells(pred)
        if cells & far & ~start_cells:
            continue
        if start_cells and depth > 1 and pred < graph.group_base and cells & start_cells:
            continue
        path.append(pred)
        if _extend_back(imp, path, beyond, depth - 1, start_cells, prefer_groups, budget):
            return True
        path.pop()
    return False


def implications(graph: LinkGraph, premise: int, value: bool, max_links: int = DEFAULT_MAX_LINKS,
                 links: Links | None = None, allowed: int = -1) -> Implications:
    """Breadth-first alternating inference from "premise is `value`", at most `max_links` links deep.

    `links` picks the adjacency (default: every link); `allowed` restricts the walk to a node set.
    """
    links = graph.links if links is None else links
    strong, weak, with_strong = links.strong, links.weak, links.with_strong
    frontier = 1 << premise
    true = frontier if value else 0
    false = 0 if value else frontier
    layers = [frontier]
    current_true = value
    for _ in range(max_links):
        reached = 0
        if current_true:
            f = frontier
            while f:
                low = f & -f
                reached |= weak[low.bit_length() - 1]
                f ^= low
            reached &= allowed & ~false
            false |= reached
        else:
            f = frontier & with_strong
            while f:
                low = f & -f
                reached |= strong[low.bit_length() - 1]
                f ^= low
            reached &= allowed & ~true
            true |= reached
        if not reached:
            break
        layers.append(reached)
        frontier = reached
        current_true = not current_true
    return Implications(graph, links, premise, value, layers, true, false)


# ---- notation -----------------------------------------------------------------------------------------------------
def chain_text(graph: LinkGraph, chain: list[int], first_value: bool) -> str:
    """Eureka notation, e.g. '(4)r1c1 = (4)r1c5 - (4=7)r2c6 - (7)r3c6'.

    `first_value` is the truth value the chain assumes for its first node; the values then alternate, and the link
    into a true node is strong '=', into a false node weak '-'. Two neighbouring nodes of one cell print as
    '(a=b)cell' or '(a-b)cell'.
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
        if nxt >= 0 and not graph.is_group(node) and not graph.is_group(nxt) and graph.cell(node) == graph.cell(nxt):
            parts.append(f"({graph.digit(node)}{link_into(i + 1)}{graph.digit(nxt)}){graph.name(node)}")
            i += 2
        else:
            parts.append(f"({graph.digit(node)}){graph.name(node)}")
            i += 1
    return " ".join(parts)
