"""Dancing Links (Knuth's Algorithm X): the Sudoku backend "dlx" and the public exact-cover API.

`exact_cover(rows, columns)` solves any exact-cover problem: choose rows so that every primary column is covered
exactly once (and every secondary column at most once). For Sudoku, columns are the constraints not yet met by the
givens (each open cell holds one digit, each (row, digit), (column, digit) and (box, digit) is used once) and rows the
placements (cell, digit) the givens allow. Any side 4..81 works; the search is iterative (no recursion limit) and
always covers a column with fewest rows. Pure Python, sharing nothing with the other backends but the Board model.

Every run counts its link updates (each unlink and relink of a node, Knuth's "updates"), the generalized-Sudoku
study's measure. `run(board, faithful=True)` builds the study's matrix instead (every cell a column, a given one row,
its box numbering) and takes its column rule (the first column of least size, covered even when empty), so the counts
are the study's on the same puzzles.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Hashable, Iterable, Iterator, Sequence

from ltn_sudoku.board import Board, geometry

CHECK_EVERY = 1024  # choices made between two looks at the clock


class _Links:
    """The toroidal doubly linked matrix: node 0 is the root, nodes 1..columns the column headers; headers past
    `primary` are secondary (not in the root's list: covered at most once, never chosen)."""

    def __init__(self, columns: int, primary: int | None = None, *, first_minimum: bool = False) -> None:
        heads = range(columns + 1)
        primary = columns if primary is None else primary
        self.left = [i - 1 for i in heads]
        self.right = [i + 1 for i in heads]
        self.left[0], self.right[primary] = primary, 0
        for col in range(primary + 1, columns + 1):
            self.left[col] = self.right[col] = col
        self.up = list(heads)
        self.down = list(heads)
        self.column = list(heads)
        self.size = [0] * (columns + 1)
        self.row_of = [-1] * (columns + 1)
        self.first_minimum = first_minimum  # the study's rule: the first column of least size, none skipped
        self.updates = 0  # links changed: one per column taken out of (or put back into) the header list, one per node
        self.stopped: str | None = None  # "time" when a deadline ended the last search

    def add_row(self, row: int, columns: list[int]) -> None:
        """Append one matrix row covering `columns` (header indices)."""
        first = len(self.up)
        for i, col in enumerate(columns):
            node = first + i
            self.left.append(first + (i - 1) % len(columns))
            self.right.append(first + (i + 1) % len(columns))
            self.up.append(self.up[col])
            self.down.append(col)
            self.down[self.up[col]] = node
            self.up[col] = node
            self.column.append(col)
            self.row_of.append(row)
            self.size[col] += 1

    def cover(self, col: int) -> None:
        left, right, up, down, column, size = self.left, self.right, self.up, self.down, self.column, self.size
        right[left[col]] = right[col]
        left[right[col]] = left[col]
        changed = 1
        i = down[col]
        while i != col:
            j = right[i]
            while j != i:
                up[down[j]] = up[j]
                down[up[j]] = down[j]
                size[column[j]] -= 1
                changed += 1
                j = right[j]
            i = down[i]
        self.updates += changed

    def uncover(self, col: int) -> None:
        left, right, up, down, column, size = self.left, self.right, self.up, self.down, self.column, self.size
        changed = 1
        i = up[col]
        while i != col:
            j = left[i]
            while j != i:
                size[column[j]] += 1
                up[down[j]] = j
                down[up[j]] = j
                changed += 1
                j = left[j]
            i = up[i]
        right[left[col]] = col
        left[right[col]] = col
        self.updates += changed

    def select(self, node: int) -> None:
        """Cover the other columns of node's row (its own column is already covered)."""
        j = self.right[node]
        while j != node:
            self.cover(self.column[j])
            j = self.right[j]

    def unselect(self, node: int) -> None:
        j = self.left[node]
        while j != node:
            self.uncover(self.column[j])
            j = self.left[j]

    def smallest_column(self) -> int:
        right, size = self.right, self.size
        stop = 0 if self.first_minimum else 1  # any column this small is the choice
        best, best_size = 0, 1 << 62
        col = right[0]
        while col != 0:
            if size[col] < best_size:
                best, best_size = col, size[col]
                if best_size <= stop:
                    break
            col = right[col]
        return best

    def covers(self, deadline: float | None = None) -> Iterator[list[int]]:
        """Every exact cover, each as the list of its row ids, as the search meets them; a `deadline`
        (time.process_time()) ends the search early and sets `stopped`."""
        self.stopped = None
        chosen: list[int] = []  # one selected node per level
        descend = True
        choices = 0
        while True:
            if descend:
                if self.right[0] == 0:
                    yield [self.row_of[node] for node in chosen]
                    descend = False
                    continue
                choices += 1
                if deadline is not None and choices % CHECK_EVERY == 0 and time.process_time() > deadline:
                    self.stopped = "time"
                    return
                col = self.smallest_column()
                if self.size[col] == 0:
                    if self.first_minimum:
                        self.updates += 2  # the study covers an empty column and uncovers it again
                    descend = False
                    continue
                self.cover(col)
                node = self.down[col]
                chosen.append(node)
                self.select(node)
                continue
            # backtrack: move the deepest choice to the next row of its column, or give the column back
            while chosen:
                node = chosen.pop()
                self.unselect(node)
                col = self.column[node]
                node = self.down[node]
                if node != col:
                    chosen.append(node)
                    self.select(node)
                    descend = True
                    break
                self.uncover(col)
            if not descend:
                return


# ---- the public exact-cover API ---------------------------------------------------------------------------------------
def exact_cover(rows: Sequence[Iterable[Hashable]], columns: Sequence[Hashable] | None = None, *,
                secondary: Iterable[Hashable] = (), limit: int | None = None) -> Iterator[tuple[int, ...]]:
    """The exact covers of a 0/1 matrix, each as the sorted indices of its rows, as Dancing Links meets them.

    rows: each row as the items (column names) it covers. columns: the primary items, each covered exactly once
    (None: every item the rows name that is not secondary). secondary: items covered at most once. limit: stop after
    that many covers. An item a row names that is neither primary nor secondary raises ValueError, as does a row that
    names an item twice.
    """
    if limit is not None and limit < 1:
        raise ValueError("limit must be at least 1")
    row_items = [list(row) for row in rows]
    extra = list(dict.fromkeys(secondary))
    if columns is None:
        skip = set(extra)
        columns = list(dict.fromkeys(item for row in row_items for item in row if item not in skip))
    header = {item: i + 1 for i, item in enumerate(columns)}
    if len(header) != len(columns):
        raise ValueError("columns must be distinct")
    for item in extra:
        if item in header:
            raise ValueError(f"item {item!r} is both primary and secondary")
        header[item] = len(header) + 1
    links = _Links(len(header), len(columns))
    for index, items in enumerate(row_items):
        try:
            cols = [header[item] for item in items]
        except KeyError as e:
            raise ValueError(f"row {index} names {e.args[0]!r}, which is not a column") from None
        if len(set(cols)) != len(cols):
            raise ValueError(f"row {index} names an item twice")
        if cols:
            links.add_row(index, sorted(cols))
    for found, cover in enumerate(links.covers(), start=1):
        yield tuple(sorted(cover))
        if limit is not None and found >= limit:
            return


# ---- Sudoku -----------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class DlxRun:
    """What one Sudoku run found: up to `limit` solutions, the link updates spent, and whether the search ended by
    itself (`complete`) or by its deadline (`stopped` = "time")."""

    solutions: tuple[Board, ...]
    updates: int
    complete: bool
    stopped: str | None = None

    @property
    def solution(self) -> Board | None:
        return self.solutions[0] if self.solutions else None


def _matrix(board: Board, faithful: bool = False) -> tuple[_Links, list[tuple[int, int]]] | None:
    """The exact-cover matrix of the board and its rows as (cell, digit); None if givens clash.

    By default only the open part: columns for the constraints the givens leave, rows for the placements they allow.
    `faithful`: the generalized-Sudoku study's matrix: all 4n² constraints in its order (cell, row-digit,
    column-digit, box-digit with its boxes numbered down the columns of boxes), one row per given, and its column
    rule."""
    n = board.n
    g = geometry(n)
    used = [0] * (3 * n)  # per unit, a bitmask of the digits the givens hold
    for cell, digit in enumerate(board.values):
        if digit:
            for u in g.units_of_cell[cell]:
                if used[u] >> (digit - 1) & 1:
                    return None
                used[u] |= 1 << (digit - 1)
    if faithful:
        k = g.k
        box_index = [(b % k) * k + b // k for b in range(n)]  # the study's box b: box row b % k, box column b // k

        def constraint(unit: int, digit: int) -> int:  # header of (unit, digit), 1-based, units as the geometry's
            kind, index = divmod(unit, n)
            index = box_index[index] if kind == 2 else index
            return n * n + kind * n * n + index * n + digit + 1

        links = _Links(4 * n * n, first_minimum=True)
        placements: list[tuple[int, int]] = []
        for cell, given in enumerate(board.values):
            units = g.units_of_cell[cell]
            for d in [given - 1] if given else range(n):
                if not given and any(used[u] >> d & 1 for u in units):
                    continue
                links.add_row(len(placements), [cell + 1] + [constraint(u, d) for u in units])
                placements.append((cell, d + 1))
        return links, placements
    header: dict[tuple[int, int], int] = {}  # (kind, index): kind 0 = cell, 1 + unit kind = (unit, digit)
    for cell, digit in enumerate(board.values):
        if not digit:
            header[(0, cell)] = len(header) + 1
    for u in range(3 * n):
        for d in range(n):
            if not used[u] >> d & 1:
                header[(1, u * n + d)] = len(header) + 1
    links = _Links(len(header))
    placements = []
    for cell, digit in enumerate(board.values):
        if digit:
            continue
        units = g.units_of_cell[cell]
        for d in range(n):
            if any(used[u] >> d & 1 for u in units):
                continue
            links.add_row(len(placements), [header[(0, cell)]] + [header[(1, u * n + d)] for u in units])
            placements.append((cell, d + 1))
    return links, placements


def run(board: Board, limit: int = 2, *, faithful: bool = False, deadline: float | None = None) -> DlxRun:
    """Up to `limit` solutions with the link updates it took (the study's count on a unique puzzle: its solver
    searches on after the first solution, as a limit of 2 does). deadline: a time.process_time() value."""
    if limit < 1:
        raise ValueError("limit must be at least 1")
    built = _matrix(board, faithful)
    if built is None:
        return DlxRun((), 0, True)
    links, placements = built
    boards = []
    for rows in links.covers(deadline):
        values = list(board.values)
        for row in rows:
            cell, digit = placements[row]
            values[cell] = digit
        boards.append(Board(values, board.n))
        if len(boards) >= limit:
            break
    return DlxRun(tuple(boards), links.updates, links.stopped is None, links.stopped)


def solutions(board: Board, limit: int = 2) -> list[Board]:
    """Up to `limit` solutions of the board (an empty list when it has none)."""
    return list(run(board, limit).solutions)


def count_solutions(board: Board, limit: int = 2) -> int:
    """Number of solutions, counted up to `limit` (so 2 means 'at least two' with the default)."""
    return len(run(board, limit).solutions)


def solve(board: Board) -> Board | None:
    """One solution, or None when the board has none."""
    return run(board, 1).solution
