"""Colouring: Simple Colors (trap, wrap), Multi-Colors 1 and 2, and 3D Medusa.

A strong link joins two candidates of which exactly one is true: the only two places of a digit in a unit (a conjugate
pair), or, for 3D Medusa, the two candidates of a bivalue cell. Following strong links splits a cluster of candidates
into two colours, one all true and one all false; every elimination below follows from that. Colour sets are cell-set
ints (bit c for cell c), as in CandidateGrid.digit_cells.
"""

from __future__ import annotations

from collections import defaultdict
from functools import lru_cache

from ltn_sudoku.board import geometry, iter_bits
from ltn_sudoku.candidates import CandidateGrid, Step
from ltn_sudoku.techniques.base import Technique, make_step

Cluster = tuple[int, int]  # (cells of colour 1, cells of colour 2) for one digit


def conjugate_pairs(grid: CandidateGrid, digit: int) -> list[tuple[int, int, int]]:
    """(unit, cell, cell) for every unit where `digit` has exactly two places (cells ascending)."""
    return list(_conjugate_pairs(grid.n, grid.digit_cells[digit]))


@lru_cache(maxsize=1024)
def _conjugate_pairs(n: int, cells: int) -> tuple[tuple[int, int, int], ...]:
    """Cached on the digit's cell set alone: between two steps most digits keep theirs."""
    pairs = []
    for unit, unit_bits in enumerate(geometry(n).unit_bits):
        places = cells & unit_bits
        if places and places.bit_count() == 2:
            low = places & -places
            pairs.append((unit, low.bit_length() - 1, (places ^ low).bit_length() - 1))
    return tuple(pairs)


def color_clusters(grid: CandidateGrid, digit: int) -> tuple[Cluster, ...]:
    """The conjugate-pair clusters of one digit, each split into its two colours (cell-set ints)."""
    return _color_clusters(grid.n, grid.digit_cells[digit])


@lru_cache(maxsize=1024)
def _color_clusters(n: int, cells: int) -> tuple[Cluster, ...]:
    links: dict[int, list[int]] = defaultdict(list)
    for _, a, b in _conjugate_pairs(n, cells):
        links[a].append(b)
        links[b].append(a)
    colour: dict[int, int] = {}
    clusters: list[Cluster] = []
    for start in links:
        if start in colour:
            continue
        colour[start] = 0
        sides = [1 << start, 0]
        todo = [start]
        while todo:
            cell = todo.pop()
            other = 1 - colour[cell]
            for partner in links[cell]:
                if partner not in colour:
                    colour[partner] = other
                    sides[other] |= 1 << partner
                    todo.append(partner)
        clusters.append((sides[0], sides[1]))
    return tuple(clusters)


def _seen_by(grid: CandidateGrid, cells: int) -> int:
    """Every cell that sees at least one of `cells`."""
    peer_bits = grid.geo.peer_bits
    seen = 0
    for cell in iter_bits(cells):
        seen |= peer_bits[cell]
    return seen


def _sees_itself(grid: CandidateGrid, cells: int) -> bool:
    """True if two of `cells` see each other (a colour that does so is false)."""
    peer_bits = grid.geo.peer_bits
    return any(peer_bits[cell] & cells for cell in iter_bits(cells))


def _colours_text(grid: CandidateGrid, digit: int, *colours: int) -> str:
    names = " / ".join(grid.geo.cells_name(iter_bits(c)) for c in colours)
    return f"{digit} in {names}"


def find_simple_colors_trap(grid: CandidateGrid) -> list[Step]:
    """A candidate that sees both colours of one cluster is false, whichever colour is true."""
    steps: list[Step] = []
    for digit in range(1, grid.n + 1):
        for one, two in color_clusters(grid, digit):
            targets = grid.digit_cells[digit] & _seen_by(grid, one) & _seen_by(grid, two)
            if targets:
                steps.append(make_step(grid, "Simple Colors Trap", _colours_text(grid, digit, one, two),
                                       eliminations=[(c, digit) for c in iter_bits(targets)],
                                       cells=list(iter_bits(one | two)), digits=[digit]))
    return steps


def find_simple_colors_wrap(grid: CandidateGrid) -> list[Step]:
    """A colour with two cells in one unit would put the digit twice there: every candidate of it is false."""
    steps: list[Step] = []
    for digit in range(1, grid.n + 1):
        for one, two in color_clusters(grid, digit):
            false_cells = (one if _sees_itself(grid, one) else 0) | (two if _sees_itself(grid, two) else 0)
            if false_cells:
                steps.append(make_step(grid, "Simple Colors Wrap", _colours_text(grid, digit, one, two),
                                       eliminations=[(c, digit) for c in iter_bits(false_cells)],
                                       cells=list(iter_bits(one | two)), digits=[digit]))
    return steps


def _multi_color_steps(grid: CandidateGrid, technique: str) -> list[Step]:
    """Both Multi-Colors types over every pair of clusters of every digit (HoDoKu's grouping of eliminations).

    Type 1: a colour of one cluster sees a colour of another, so one of the two opposite colours is true: a candidate
    seeing both opposite colours is false. Type 2: a colour that sees both colours of another cluster is false.
    """
    steps: list[Step] = []
    found: set[frozenset[tuple[int, int]]] = set()
    for digit in range(1, grid.n + 1):
        clusters = color_clusters(grid, digit)
        if len(clusters) < 2:
            continue
        seen = [(_seen_by(grid, one), _seen_by(grid, two)) for one, two in clusters]
        for i, colours_i in enumerate(clusters):
            for j, colours_j in enumerate(clusters):
                if i == j or (technique == "Multi-Colors 1" and j < i):  # type 1 is symmetric in i and j
                    continue
                targets = 0
                for p in (0, 1):
                    if technique == "Multi-Colors 1":
                        for q in (0, 1):
                            if seen[i][p] & colours_j[q]:
                                targets |= seen[i][1 - p] & seen[j][1 - q] & grid.digit_cells[digit]
                    elif seen[i][p] & colours_j[0] and seen[i][p] & colours_j[1]:
                        targets |= colours_i[p]
                eliminations = frozenset((c, digit) for c in iter_bits(targets))
                if not eliminations or eliminations in found:
                    continue
                found.add(eliminations)
                steps.append(make_step(grid, technique, _colours_text(grid, digit, *colours_i, *colours_j),
                                       eliminations=eliminations,
                                       cells=list(iter_bits(colours_i[0] | colours_i[1] | colours_j[0] | colours_j[1])),
                                       digits=[digit]))
    return steps


def find_multi_colors_1(grid: CandidateGrid) -> list[Step]:
    """Two clusters linked by sight: a candidate seeing both of their opposite colours is false."""
    return _multi_color_steps(grid, "Multi-Colors 1")


def find_multi_colors_2(grid: CandidateGrid) -> list[Step]:
    """A colour that sees both colours of another cluster is false."""
    return _multi_color_steps(grid, "Multi-Colors 2")


# ---- 3D Medusa --------------------------------------------------------------------------------------------------
Colouring = tuple[list[int], list[int]]  # per colour, per digit (index 1..n): the cells of that colour


def _medusa_colourings(grid: CandidateGrid) -> list[Colouring]:
    """Two-coloured clusters of candidates linked by conjugate pairs and bivalue cells, spanning two digits or more
    (a cluster of one digit is Simple Colors). A candidate is the node cell * n + digit - 1."""
    n = grid.n
    links: dict[int, list[int]] = defaultdict(list)
    for digit in range(1, n + 1):
        for _, a, b in _conjugate_pairs(n, grid.digit_cells[digit]):
            links[a * n + digit - 1].append(b * n + digit - 1)
            links[b * n + digit - 1].append(a * n + digit - 1)
    for cell, mask in enumerate(grid.masks):
        if mask.bit_count() == 2:
            low = mask & -mask
            first, second = cell * n + low.bit_length() - 1, cell * n + (mask ^ low).bit_length() - 1
            links[first].append(second)
            links[second].append(first)
    colour: dict[int, int] = {}
    colourings = []
    for start in links:
        if start in colour:
            continue
        colour[start] = 0
        sides: tuple[list[int], list[int]] = ([start], [])
        todo = [start]
        while todo:
            node = todo.pop()
            other = 1 - colour[node]
            for partner in links[node]:
                if partner not in colour:
                    colour[partner] = other
                    sides[other].append(partner)
                    todo.append(partner)
        if len({node % n for node in sides[0] + sides[1]}) > 1:
            by_digit = ([0] * (n + 1), [0] * (n + 1))
            for side in (0, 1):
                for node in sides[side]:
                    by_digit[side][node % n + 1] |= 1 << (node // n)
            colourings.append(by_digit)
    return colourings


def _medusa_false_colour(grid: CandidateGrid, by_digit: list[int], seen: list[int], uncoloured: int) -> bool:
    """A colour is false if it puts two digits in one cell, one digit twice in a unit, or leaves an uncoloured cell
    (one of `uncoloured`) without a candidate."""
    cells_so_far = 0
    emptied = uncoloured
    for digit in range(1, grid.n + 1):
        cells = by_digit[digit]
        if cells & cells_so_far or seen[digit] & cells:
            return True
        cells_so_far |= cells
        emptied &= ~(grid.digit_cells[digit] & ~seen[digit])
    return bool(emptied)


def _medusa_step(grid: CandidateGrid, by_digit: Colouring, unsolved: int) -> Step | None:
    """The eliminations of one cluster: a whole colour if it is false, else the uncoloured candidates that one of the
    colours forbids whichever is true (both colours in its cell, both seen, or one in its cell and the other seen)."""
    n = grid.n
    seen = [[_seen_by(grid, cells) if cells else 0 for cells in by_digit[side]] for side in (0, 1)]
    on = [0, 0]  # cells holding a candidate of each colour
    for side in (0, 1):
        for cells in by_digit[side]:
            on[side] |= cells
    cluster_cells = on[0] | on[1]
    cells_text = grid.geo.cells_name(iter_bits(cluster_cells))
    for side in (0, 1):
        if _medusa_false_colour(grid, by_digit[side], seen[side], unsolved & ~cluster_cells):
            return make_step(grid, "3D Medusa", f"colour wrap in {cells_text}",
                             eliminations=[(c, d) for d in range(1, n + 1) for c in iter_bits(by_digit[side][d])],
                             cells=list(iter_bits(cluster_cells)))
    eliminations: list[tuple[int, int]] = []
    for digit in range(1, n + 1):
        uncoloured = grid.digit_cells[digit] & ~(by_digit[0][digit] | by_digit[1][digit])
        trapped = uncoloured & ((on[0] & on[1]) | (seen[0][digit] & seen[1][digit]) | (on[0] & seen[1][digit])
                                | (on[1] & seen[0][digit]))
        eliminations.extend((c, digit) for c in iter_bits(trapped))
    if not eliminations:
        return None
    return make_step(grid, "3D Medusa", f"colour trap in {cells_text}", eliminations=eliminations,
                     cells=list(iter_bits(cluster_cells)))


def find_3d_medusa(grid: CandidateGrid) -> list[Step]:
    """Colour candidates across digits through conjugate pairs and bivalue cells; eliminate what a colour forbids."""
    unsolved = sum(1 << c for c, mask in enumerate(grid.masks) if mask)
    steps = []
    for by_digit in _medusa_colourings(grid):
        step = _medusa_step(grid, by_digit, unsolved)
        if step is not None:
            steps.append(step)
    return steps


TECHNIQUES: list[Technique] = [
    Technique("Simple Colors Trap", "Coloring", find_simple_colors_trap, score=150, level="Hard",
              aliases=("Color Trap", "Simple Coloring Trap", "Simple Coloring Rule 4"), hodoku_codes=("0500",)),
    Technique("Simple Colors Wrap", "Coloring", find_simple_colors_wrap, score=150, level="Hard",
              aliases=("Color Wrap", "Simple Coloring Wrap", "Simple Coloring Rule 2"), hodoku_codes=("0501",)),
    Technique("Multi-Colors 1", "Coloring", find_multi_colors_1, score=200, level="Hard",
              aliases=("Multi-Coloring 1", "Multi-Coloring Type 1"), hodoku_codes=("0502",)),
    Technique("Multi-Colors 2", "Coloring", find_multi_colors_2, score=200, level="Hard",
              aliases=("Multi-Coloring 2", "Multi-Coloring Type 2"), hodoku_codes=("0503",)),
    Technique("3D Medusa", "Coloring", find_3d_medusa, score=250, level="Unfair",
              aliases=("Medusa", "3D Medusa Coloring"), hodoku_codes=("0507",)),
]
