"""Pure-Python exact search: candidate bitmasks, naked + hidden single propagation, branching on the smallest cell.

Works for every side n (Python ints are arbitrary-width bitsets). It is the readable reference implementation and an
independent cross-check for the compiled kernel and for Dancing Links.
"""

from __future__ import annotations

from functools import lru_cache

from ltn_sudoku.board import Board, geometry


class _Tables:
    """Geometry flattened into plain lists, the fastest form for the inner loops."""

    def __init__(self, n: int) -> None:
        g = geometry(n)
        self.n = n
        self.full = (1 << n) - 1
        self.peers = [list(p) for p in g.peers]
        self.units = [list(u) for u in g.units]


@lru_cache(maxsize=None)
def _tables(n: int) -> _Tables:
    return _Tables(n)


def _assign(t: _Tables, values: list[int], masks: list[int], cell: int, bit: int) -> bool:
    """Place `bit` at `cell` and propagate naked singles; False on contradiction. Values hold bits, not digits."""
    peers = t.peers
    stack = [(cell, bit)]
    while stack:
        c, b = stack.pop()
        v = values[c]
        if v:
            if v != b:
                return False
            continue
        if not masks[c] & b:
            return False
        values[c] = b
        masks[c] = 0
        nb = ~b
        for p in peers[c]:
            m = masks[p]
            if m & b:
                m &= nb
                if not m:
                    return False
                masks[p] = m
                if not m & (m - 1):
                    stack.append((p, m))
    return True


def _hidden_singles(t: _Tables, values: list[int], masks: list[int]) -> int:
    """One sweep of hidden singles over all units: -1 on contradiction, else the number of placements made."""
    full = t.full
    made = 0
    for unit in t.units:
        once = twice = placed = 0
        for c in unit:
            v = values[c]
            if v:
                placed |= v
            else:
                m = masks[c]
                twice |= once & m
                once |= m
        if (once | placed) != full:
            return -1
        hidden = once & ~twice & ~placed
        while hidden:
            b = hidden & -hidden
            hidden ^= b
            for c in unit:
                if masks[c] & b:
                    if not _assign(t, values, masks, c, b):
                        return -1
                    made += 1
                    break
                if values[c] == b:  # placed meanwhile by propagation of an earlier single of this sweep
                    break
            else:
                # the only place was taken away by an earlier placement in this sweep
                return -1
    return made


def _propagate(t: _Tables, values: list[int], masks: list[int]) -> bool:
    while True:
        made = _hidden_singles(t, values, masks)
        if made < 0:
            return False
        if made == 0:
            return True


def _search(t: _Tables, values: list[int], masks: list[int], limit: int, found: list[list[int]]) -> int:
    """Count solutions up to `limit`, appending the first ones (as bit values) to `found`."""
    if not _propagate(t, values, masks):
        return 0
    best = -1
    best_count = t.n + 1
    for c, m in enumerate(masks):
        if m:
            k = m.bit_count()
            if k < best_count:
                best, best_count = c, k
                if k == 2:
                    break
    if best < 0:
        found.append(values[:])
        return 1
    total = 0
    m = masks[best]
    while m:
        b = m & -m
        m ^= b
        v2 = values[:]
        m2 = masks[:]
        if _assign(t, v2, m2, best, b):
            total += _search(t, v2, m2, limit - total, found)
            if total >= limit:
                break
    return total


def _initial_state(board: Board) -> tuple[_Tables, list[int], list[int]] | None:
    t = _tables(board.n)
    values = [0] * board.cell_count
    masks = [t.full] * board.cell_count
    for c, d in enumerate(board.values):
        if d and not _assign(t, values, masks, c, 1 << (d - 1)):
            return None
    return t, values, masks


def solutions(board: Board, limit: int = 2) -> list[Board]:
    """Up to `limit` solutions of the board (an empty list when it has none)."""
    if limit < 1:
        raise ValueError("limit must be at least 1")
    state = _initial_state(board)
    if state is None:
        return []
    t, values, masks = state
    found: list[list[int]] = []
    _search(t, values, masks, limit, found)
    return [Board([b.bit_length() for b in sol], board.n) for sol in found[:limit]]


def count_solutions(board: Board, limit: int = 2) -> int:
    """Number of solutions, counted up to `limit` (so 2 means 'at least two' with the default)."""
    if limit < 1:
        raise ValueError("limit must be at least 1")
    state = _initial_state(board)
    if state is None:
        return 0
    t, values, masks = state
    return min(_search(t, values, masks, limit, []), limit)


def solve(board: Board) -> Board | None:
    """One solution, or None when the board has none."""
    sols = solutions(board, 1)
    return sols[0] if sols else None
