"""The link graph and alternating inference (ltn_sudoku.techniques.links), checked against their definitions and
against the solution found by the exact solver: every link must hold in the solution, and everything a true premise
implies must be true."""

from __future__ import annotations

import heapq
import itertools
import random

import pytest

from ltn_sudoku.board import Board, iter_bits
from ltn_sudoku.candidates import CandidateGrid
from ltn_sudoku.exact import solve
from ltn_sudoku.io import read_boards
from ltn_sudoku.paths import DATA_DIR
from ltn_sudoku.techniques.links import GroupNode, LinkGraph, almost_locked_sets, chain_text, implications, link_graph
from ltn_sudoku.techniques.soundness import states_from_puzzle
from tests.techniques_helpers import marked_grid, mixed_corpus


def _states(seed: int = 0) -> list[tuple[CandidateGrid, Board]]:
    """Candidate grids with their solution: 9x9 (top1465, qqwing expert), generated 4x4, a shipped 16x16."""
    rng = random.Random(seed)
    pairs = mixed_corpus(3, {4: 4}, seed=seed)
    for puzzle in read_boards(DATA_DIR / "generalized/sudoku_rank_4.csv")[:1]:
        solution = solve(puzzle)
        assert solution is not None
        pairs.append((puzzle, solution))
    return [(grid, solution) for puzzle, solution in pairs for grid in states_from_puzzle(puzzle, solution, rng, 2)]


STATES = _states()


def _holds(graph: LinkGraph, node: int, solution: Board) -> bool:
    """Truth of a node in the solution: its digit is placed in (one of) its cells."""
    digit = graph.digit(node)
    return any(solution.values[c] == digit for c in iter_bits(graph.cells(node)))


def _graph(grid: CandidateGrid) -> LinkGraph:
    return LinkGraph(grid, grouped=True, als=grid.n <= 9)


def test_every_link_holds_in_the_solution() -> None:
    """Weak: never both true; strong (long ones included): never both false."""
    checked = 0
    for grid, solution in STATES:
        graph = _graph(grid)
        truth = [_holds(graph, v, solution) for v in range(graph.compound_base + len(graph.compounds))]
        for v, weak in enumerate(graph.links.weak):
            for w in iter_bits(weak):
                assert not (truth[v] and truth[w]), f"weak {graph.name(v)}/{graph.digit(v)} - {graph.name(w)}"
                checked += 1
        for v, strong in enumerate(graph.links.strong):
            for w in iter_bits(strong):
                assert truth[v] or truth[w], f"strong {graph.name(v)}/{graph.digit(v)} = {graph.name(w)}"
        for v, longs in graph.links.long_strong.items():
            for _, targets in longs:
                assert all(truth[v] or truth[w] for w in iter_bits(targets))
    assert checked > 10_000


def test_candidate_links_match_their_definition() -> None:
    """Between candidates: weak = same cell or same digit in sight; strong = bivalue cell or the digit's only two
    places in a unit."""
    for grid, _ in STATES[:8]:
        graph = LinkGraph(grid)
        geo = grid.geo
        nodes = [(c, d) for c in range(grid.n * grid.n) for d in grid.candidates(c)]
        for (c1, d1), (c2, d2) in itertools.permutations(nodes, 2):
            v, w = graph.node(c1, d1), graph.node(c2, d2)
            same_cell, same_digit = c1 == c2, d1 == d2
            weak = same_cell or (same_digit and geo.sees(c1, c2))
            strong = (same_cell and grid.count(c1) == 2) or (same_digit and any(
                grid.places(u, d1) == (1 << c1 | 1 << c2) for u in geo.units_of_cell[c1]))
            assert bool(graph.links.weak[v] >> w & 1) == weak
            assert bool(graph.links.strong[v] >> w & 1) == strong
            assert bool(graph.xy_links.weak[v] >> w & 1) == (same_digit and not same_cell and weak)
            assert bool(graph.xy_links.strong[v] >> w & 1) == (same_cell and grid.count(c1) == 2)


def test_group_nodes_are_every_box_line_segment_of_two_or_more() -> None:
    for grid, _ in STATES[:8]:
        graph = LinkGraph(grid, grouped=True)
        geo = grid.geo
        expected = set()
        for d in range(1, grid.n + 1):
            for line in range(2 * grid.n):
                for box in range(2 * grid.n, 3 * grid.n):
                    cells = grid.digit_cells[d] & geo.unit_bits[line] & geo.unit_bits[box]
                    if cells.bit_count() >= 2:
                        expected.add((d, cells))
        groups = [x for x in graph.compounds if isinstance(x, GroupNode)]
        assert {(g.digit, g.cells) for g in groups} == expected and len(groups) == len(expected)


def test_almost_locked_sets_are_all_found_once() -> None:
    """Brute force over every subset of every unit's empty cells."""
    for grid, _ in STATES[:10]:
        expected = set()
        for unit in grid.geo.units:
            empty = [c for c in unit if grid.masks[c]]
            for size in range(1, min(len(empty), grid.n if grid.n <= 9 else grid.geo.k + 1)):
                for cells in itertools.combinations(empty, size):
                    digits = 0
                    for c in cells:
                        digits |= grid.masks[c]
                    if digits.bit_count() == size + 1:
                        expected.add(sum(1 << c for c in cells))
        found = almost_locked_sets(grid)
        assert len(found) == len({a.cells for a in found}) == len(expected)
        assert {a.cells for a in found} == expected
        assert all(a.cells & ~grid.geo.unit_bits[a.unit] == 0 for a in found)


def _reference_distances(graph: LinkGraph, premise: int, value: bool, max_links: int) -> dict[tuple[int, bool], int]:
    """Shortest alternating distances by Dijkstra over (node, value) states, links weighted (long links count more)."""
    best = {(premise, value): 0}
    queue = [(0, premise, value)]
    while queue:
        dist, node, true = heapq.heappop(queue)
        if dist > best[(node, true)]:
            continue
        if true:
            moves = [(1, w) for w in iter_bits(graph.links.weak[node])]
        else:
            moves = [(1, w) for w in iter_bits(graph.links.strong[node])]
            moves += [(length, w) for length, ws in graph.links.long_strong.get(node, ()) for w in iter_bits(ws)]
        for length, w in moves:
            state = (w, not true)
            if dist + length <= max_links and dist + length < best.get(state, max_links + 1):
                best[state] = dist + length
                heapq.heappush(queue, (dist + length, w, not true))
    return best


@pytest.mark.parametrize("grouped, als", [(False, False), (True, False), (True, True)])
def test_implications_are_shortest_alternating_distances(grouped: bool, als: bool) -> None:
    rng = random.Random(3)
    for grid, _ in [s for s in STATES if s[0].n == 9][:4]:
        graph = LinkGraph(grid, grouped, als)
        for premise in rng.sample(list(iter_bits(graph.candidate_nodes())), 6):
            for value in (True, False):
                imp = implications(graph, premise, value, 14)
                reference = _reference_distances(graph, premise, value, 14)
                found = {(v, True): imp.distance(v, True) for v in iter_bits(imp.true)}
                found |= {(v, False): imp.distance(v, False) for v in iter_bits(imp.false)}
                assert found == reference


def test_what_a_true_premise_implies_is_true() -> None:
    """Soundness of the whole inference, group and ALS nodes included."""
    implied = 0
    for grid, solution in STATES:
        graph = _graph(grid)
        for premise in iter_bits(graph.candidate_nodes()):
            value = _holds(graph, premise, solution)
            imp = implications(graph, premise, value)
            for v in iter_bits(imp.true):
                assert _holds(graph, v, solution), f"{graph.name(premise)} {value} => {graph.name(v)} true"
            for v in iter_bits(imp.false):
                assert not _holds(graph, v, solution)
            implied += imp.true.bit_count() + imp.false.bit_count()
    assert implied > 50_000


def test_rebuilt_chains_are_alternating_chains_of_the_walked_length() -> None:
    rebuilt = 0
    for grid, _ in [s for s in STATES if s[0].n == 9][:4]:
        graph = _graph(grid)
        for premise in list(iter_bits(graph.candidate_nodes()))[::7]:
            for value in (True, False):
                imp = implications(graph, premise, value)
                for end_value, reached in ((True, imp.true), (False, imp.false)):
                    for end in list(iter_bits(reached & graph.candidate_nodes()))[::5]:
                        for loop in (False, True) if graph.cells(end) & graph.cells(premise) else (False,):
                            chain = imp.chain(end, end_value, loop=loop)
                            if chain is None:
                                continue
                            rebuilt += 1
                            assert chain[0] == premise and chain[-1] == end
                            assert loop or len(set(chain)) == len(chain)
                            length = 0
                            for i in range(1, len(chain)):
                                u, v = chain[i - 1], chain[i]
                                into_true = imp.value_at(i)
                                if into_true and graph.links.strong[u] >> v & 1:
                                    length += 1
                                elif into_true:
                                    length += next(n for n, ws in graph.links.long_strong[u] if ws >> v & 1)
                                else:
                                    assert graph.links.weak[u] >> v & 1
                                    length += 1
                            assert length == imp.distance(end, end_value)
                            if loop and len(chain) > 2:
                                start = graph.cells(premise)
                                assert not graph.cells(chain[1]) & start or not graph.is_candidate(chain[1])
                                assert graph.cells(chain[-1]) & start
    assert rebuilt >= 2000, rebuilt  # 2226 when written; the loop must not pass by rebuilding no chain


def test_allowed_nodes_and_max_links_bound_the_walk() -> None:
    grid, _ = STATES[0]
    graph = link_graph(grid)
    premise = next(iter_bits(graph.links.with_strong))
    digit_nodes = graph.digit_nodes(graph.digit(premise))
    imp = implications(graph, premise, False, max_links=3, allowed=digit_nodes)
    assert len(imp.layers) <= 4
    assert not (imp.true | imp.false) & ~digit_nodes


def test_link_graph_is_shared_while_the_candidates_stay_the_same() -> None:
    grid = STATES[0][0].copy()
    first = link_graph(grid)
    assert link_graph(grid) is first and link_graph(grid.copy()) is first
    assert link_graph(grid, grouped=True) is not first
    cell = next(c for c, m in enumerate(grid.masks) if m.bit_count() > 1)
    grid.eliminate(cell, grid.candidates(cell)[0])
    assert link_graph(grid) is not first


def test_chain_text_in_eureka_notation() -> None:
    grid = marked_grid(candidates={"r2c6": "47", "r1c1": "1234", "r1c5": "4567"})
    graph = link_graph(grid)
    chain = [graph.node(0, 4), graph.node(4, 4), graph.node(14, 4), graph.node(14, 7), graph.node(11, 7)]
    assert chain_text(graph, chain, False) == "(4)r1c1 = (4)r1c5 - (4=7)r2c6 - (7)r2c3"
    assert chain_text(graph, chain[:3], True) == "(4)r1c1 - (4)r1c5 = (4)r2c6"


def test_compound_node_names() -> None:
    grid = marked_grid(places={5: ["55.......", "5..5.....", "..5......", ".........", ".........", ".........",
                                   "5........", ".........", "........."]},
                       candidates={"r4c4": "12", "r5c6": "23"})
    graph = LinkGraph(grid, grouped=True, als=True)
    groups = {graph.name(graph.compound_base + i) for i, x in enumerate(graph.compounds)
              if isinstance(x, GroupNode) and x.digit == 5}
    assert groups == {"r1c12", "r12c1"}
    pair = next(i for i, a in enumerate(graph.alses) if a.cells == (1 << 30 | 1 << 41))
    assert graph.name(graph.als_node(pair, 2)) == "r4c4,r5c6"
    big = LinkGraph(CandidateGrid.from_board(Board.empty(16)), grouped=True)
    segment = next(big.compound_base + i for i, x in enumerate(big.compounds) if x.line == 0 and x.box == 34)
    assert big.name(segment) == "r1c9/10/11/12"
