"""Dancing Links (Knuth's Algorithm X) over the Sudoku exact-cover matrix: an independent cross-check.

Columns are the constraints not yet met by the givens: each open cell holds one digit, each (row, digit),
(column, digit) and (box, digit) is used once. Rows are the placements (cell, digit) that the givens allow. Any side
4..81 works; the search is iterative (no recursion limit) and always covers the column with fewest rows.
Pure Python, sharing nothing with the other backends but the Board model.
"""

from __future__ import annotations

from ltn_sudoku.board import Board, geometry


class _Links:
    """The toroidal doubly linked matrix: node 0 is the root, nodes 1..columns the column headers."""

    def __init__(self, columns: int) -> None:
        heads = range(columns + 1)
        self.left = [i - 1 for i in heads]
        self.right = [i + 1 for i in heads]
        self.left[0], self.right[columns] = columns, 0
        self.up = list(heads)
        self.down = list(heads)
        self.column = list(heads)
        self.size = [0] * (columns + 1)
        self.row_of = [-1] * (columns + 1)

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
        i = down[col]
        while i != col:
            j = right[i]
            while j != i:
                up[down[j]] = up[j]
                down[up[j]] = down[j]
                size[column[j]] -= 1
                j = right[j]
            i = down[i]

    def uncover(self, col: int) -> None:
        left, right, up, down, column, size = self.left, self.right, self.up, self.down, self.column, self.size
        i = up[col]
        while i != col:
            j = left[i]
            while j != i:
                size[column[j]] += 1
                up[down[j]] = j
                down[up[j]] = j
                j = left[j]
            i = up[i]
        right[left[col]] = col
        left[right[col]] = col

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
        best, best_size = 0, 1 << 62
        col = right[0]
        while col != 0:
            if size[col] < best_size:
                best, best_size = col, size[col]
                if best_size <= 1:
                    break
            col = right[col]
        return best

    def exact_covers(self, limit: int) -> list[list[int]]:
        """Up to `limit` exact covers, each as the list of its row ids."""
        found: list[list[int]] = []
        chosen: list[int] = []  # one selected node per level
        descend = True
        while True:
            if descend:
                if self.right[0] == 0:
                    found.append([self.row_of[node] for node in chosen])
                    if len(found) >= limit:
                        return found
                    descend = False
                    continue
                col = self.smallest_column()
                if self.size[col] == 0:
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
                return found


def _matrix(board: Board) -> tuple[_Links, list[tuple[int, int]]] | None:
    """The exact-cover matrix of the open part of the board and its rows as (cell, digit); None if givens clash."""
    n = board.n
    g = geometry(n)
    used = [0] * (3 * n)  # per unit, a bitmask of the digits the givens hold
    for cell, digit in enumerate(board.values):
        if digit:
            for u in g.units_of_cell[cell]:
                if used[u] >> (digit - 1) & 1:
                    return None
                used[u] |= 1 << (digit - 1)
    header: dict[tuple[int, int], int] = {}  # (kind, index): kind 0 = cell, 1 + unit kind = (unit, digit)
    for cell, digit in enumerate(board.values):
        if not digit:
            header[(0, cell)] = len(header) + 1
    for u in range(3 * n):
        for d in range(n):
            if not used[u] >> d & 1:
                header[(1, u * n + d)] = len(header) + 1
    links = _Links(len(header))
    placements: list[tuple[int, int]] = []
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


def solutions(board: Board, limit: int = 2) -> list[Board]:
    """Up to `limit` solutions of the board (an empty list when it has none)."""
    if limit < 1:
        raise ValueError("limit must be at least 1")
    built = _matrix(board)
    if built is None:
        return []
    links, placements = built
    boards = []
    for rows in links.exact_covers(limit):
        values = list(board.values)
        for row in rows:
            cell, digit = placements[row]
            values[cell] = digit
        boards.append(Board(values, board.n))
    return boards


def count_solutions(board: Board, limit: int = 2) -> int:
    """Number of solutions, counted up to `limit` (so 2 means 'at least two' with the default)."""
    return len(solutions(board, limit))


def solve(board: Board) -> Board | None:
    """One solution, or None when the board has none."""
    sols = solutions(board, 1)
    return sols[0] if sols else None
