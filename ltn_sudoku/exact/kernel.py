"""Compiled exact solver (numba): the fast oracle behind labels, dead-end checks and data generation.

Algorithm. Candidates are bitsets of W = ceil(n / 64) uint64 words per cell, so every side 4..81 shares one code path.
Beside them the kernel keeps, incrementally, the number of candidates of each cell and the number of places of each
(unit, digit). Removing a candidate updates both counters; a counter that falls to 1 queues a naked single (cell) or a
hidden single (unit, digit), one that falls to 0 is a contradiction. At a fixpoint the search branches on the smallest
choice among cells (fewest candidates) and (unit, digit) pairs (fewest places), stopping the scan at 2. Branching is
binary, `cell = digit` then `cell != digit`, over an explicit stack of choice points; every change is written to a
trail and undone by replaying it backwards, so the hot loop neither recurses nor allocates.

Module API (Board in, Board out), the same as ltn_sudoku.exact.search:
    count_solutions(board, limit=2) -> int       min(#solutions, limit)
    solve(board) -> Board | None
    solutions(board, limit=2) -> list[Board]
Batch API (numpy, one compiled loop, no Python per puzzle):
    count_solutions_batch(puzzles, limit=2) -> counts (m,) int64
    solve_batch(puzzles, limit=2) -> (counts (m,) int64, first solutions (m, n*n) int32, zero rows where none)
    random_solutions(n, count, seed) -> (count, n*n) int32 random complete grids, reproducible by seed
where puzzles is an integer array (m, n*n), row-major, 0 = empty.

For other engineers' numba code, one function callable from inside an @njit function:
    count_solutions_nb(grid, n, limit) -> int
        grid:  1-D integer array of n*n cells (any integer dtype; each dtype compiles once), row-major,
               0 = empty, 1..n = digit. Not modified. Values are NOT validated: out-of-range digits are undefined.
        n:     the side (4, 9, 16, ..., 81).
        limit: >= 1; the search stops at the limit-th solution.
        returns min(#solutions, limit): 0 impossible (inconsistent givens included), 1 unique, limit = "at least".
    It allocates its own work arrays (a few microseconds for 9x9); loops over many puzzles are faster through the
    batch API. Caveat of numba's cache: a caller cached with cache=True embeds this code and is not recompiled when
    this file changes; delete that caller's __pycache__/*.nbi after updating ltn_sudoku.

Compilation. Every @njit here is cached on disk (`cache=True`, in ltn_sudoku/exact/__pycache__ for the editable
install, else numba's user-wide cache or NUMBA_CACHE_DIR), so only the first process compiles (several seconds);
later ones load the machine code. When no cache directory is writable the functions are compiled without a cache.
Keep every jitted function in this one file: numba's cache does not notice edits to other modules.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from ltn_sudoku.board import Board, box_side, side_for_cell_count

_ONE = np.uint64(1)
_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)


def cached_njit(func: Callable[..., Any]) -> Any:
    """`njit(cache=True)`, or plain `njit` with a warning when no cache directory is writable (read-only install)."""
    try:
        return njit(cache=True)(func)
    except RuntimeError as e:  # numba: "cannot cache function ...: no locator available"
        warnings.warn(f"numba cache unavailable, compiling {func.__name__} in memory: {e}", RuntimeWarning,
                      stacklevel=2)
        return njit(func)


# ---- geometry and work arrays ----------------------------------------------------------------------------------------
@cached_njit
def _tables(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(units (3n, n), cell_units (n*n, 3), peers (n*n, 3n-2k-1)) as int32: rows, then columns, then boxes."""
    k = 1
    while k * k < n:
        k += 1
    cells = n * n
    units = np.empty((3 * n, n), np.int32)
    cell_units = np.empty((cells, 3), np.int32)
    for r in range(n):
        for c in range(n):
            cell = r * n + c
            b = (r // k) * k + c // k
            units[r, c] = cell
            units[n + c, r] = cell
            units[2 * n + b, (r % k) * k + c % k] = cell
            cell_units[cell, 0] = r
            cell_units[cell, 1] = n + c
            cell_units[cell, 2] = 2 * n + b
    peers = np.empty((cells, 3 * n - 2 * k - 1), np.int32)
    seen = np.zeros(cells, np.int32)  # seen[p] == cell + 1: p already listed as a peer of cell
    for cell in range(cells):
        count = 0
        for j in range(3):
            for p in units[cell_units[cell, j]]:
                if p != cell and seen[p] != cell + 1:
                    seen[p] = cell + 1
                    peers[cell, count] = p
                    count += 1
    return units, cell_units, peers


@cached_njit
def _workspace(n: int) -> tuple[np.ndarray, ...]:
    """Arrays reused for every puzzle of one side: candidates, counters, trail, queue, choice stack."""
    cells = n * n
    words = (n + 63) // 64
    cand = np.empty(cells * words, np.uint64)
    cell_count = np.empty(cells, np.int32)
    unit_count = np.empty(3 * n * n, np.int32)  # places of (unit u, digit d) at u * n + d
    placed = np.empty(3 * n * n, np.uint8)  # digit d already placed in unit u
    value = np.empty(cells, np.int32)  # 0 = open, else the digit 1..n
    trail_cell = np.empty(cells * (n + 1), np.int32)
    trail_digit = np.empty(cells * (n + 1), np.int32)  # -1 marks an assignment, else an eliminated digit
    queue = np.empty(4 * cells + 8, np.int32)  # >= 0: naked single cell; < 0: -(u * n + d) - 1, hidden single
    meta = np.zeros(3, np.int64)  # trail length, queue length, assigned cells
    choice_mark = np.empty(cells + 1, np.int64)
    choice_cell = np.empty(cells + 1, np.int32)
    choice_digit = np.empty(cells + 1, np.int32)
    return (cand, cell_count, unit_count, placed, value, trail_cell, trail_digit, queue, meta,
            choice_mark, choice_cell, choice_digit)


# ---- elementary moves (all recorded on the trail) ------------------------------------------------------------------
@cached_njit
def _eliminate(ws: tuple, cell_units: np.ndarray, n: int, words: int, cell: int, digit: int) -> bool:
    """Remove one candidate, updating counters and queueing singles; False on contradiction (state stays undoable)."""
    cand, cell_count, unit_count, placed, value, trail_cell, trail_digit, queue, meta = ws[:9]
    cand[cell * words + (digit >> 6)] &= ~(_ONE << np.uint64(digit & 63))
    t = meta[0]
    trail_cell[t] = cell
    trail_digit[t] = digit
    meta[0] = t + 1
    ok = True
    left = cell_count[cell] - 1
    cell_count[cell] = left
    if left == 0:
        ok = False
    elif left == 1 and value[cell] == 0:
        queue[meta[1]] = cell
        meta[1] += 1
    for j in range(3):
        ud = cell_units[cell, j] * n + digit
        places = unit_count[ud] - 1
        unit_count[ud] = places
        if places == 0:
            ok = False
        elif places == 1 and placed[ud] == 0:
            queue[meta[1]] = -ud - 1
            meta[1] += 1
    return ok


@cached_njit
def _assign(ws: tuple, cell_units: np.ndarray, peers: np.ndarray, n: int, words: int, cell: int, digit: int) -> bool:
    """Set cell to digit (0-based): drop its other candidates and the digit from every peer; False on contradiction."""
    cand, value, trail_cell, trail_digit, placed, meta = ws[0], ws[4], ws[5], ws[6], ws[3], ws[8]
    if value[cell] != 0:
        return value[cell] == digit + 1
    word = digit >> 6
    bit = _ONE << np.uint64(digit & 63)
    if cand[cell * words + word] & bit == 0:
        return False
    value[cell] = digit + 1
    t = meta[0]
    trail_cell[t] = cell
    trail_digit[t] = -1
    meta[0] = t + 1
    meta[2] += 1
    for j in range(3):
        placed[cell_units[cell, j] * n + digit] = 1
    for w in range(words):
        others = cand[cell * words + w]
        if w == word:
            others &= ~bit
        while others:
            e = w * 64 + np.int64(trailing_zeros(others))
            others &= others - _ONE
            if not _eliminate(ws, cell_units, n, words, cell, e):
                return False
    for p in peers[cell]:
        if cand[p * words + word] & bit:
            if not _eliminate(ws, cell_units, n, words, p, digit):
                return False
    return True


@cached_njit
def _undo(ws: tuple, cell_units: np.ndarray, n: int, words: int, mark: int) -> None:
    """Replay the trail backwards down to `mark` and empty the queue."""
    cand, cell_count, unit_count, placed, value, trail_cell, trail_digit, queue, meta = ws[:9]
    for t in range(meta[0] - 1, mark - 1, -1):
        cell = trail_cell[t]
        digit = trail_digit[t]
        if digit < 0:
            d = value[cell] - 1
            value[cell] = 0
            meta[2] -= 1
            for j in range(3):
                placed[cell_units[cell, j] * n + d] = 0
        else:
            cand[cell * words + (digit >> 6)] |= _ONE << np.uint64(digit & 63)
            cell_count[cell] += 1
            for j in range(3):
                unit_count[cell_units[cell, j] * n + digit] += 1
    meta[0] = mark
    meta[1] = 0


@cached_njit
def _first_digit(cand: np.ndarray, words: int, cell: int) -> int:
    for w in range(words):
        m = cand[cell * words + w]
        if m:
            return w * 64 + np.int64(trailing_zeros(m))
    return -1


@cached_njit
def _propagate(ws: tuple, units: np.ndarray, cell_units: np.ndarray, peers: np.ndarray, n: int, words: int) -> bool:
    """Place queued naked and hidden singles until none is left; False on contradiction."""
    cand, placed, value, queue, meta = ws[0], ws[3], ws[4], ws[7], ws[8]
    while meta[1] > 0:
        meta[1] -= 1
        q = queue[meta[1]]
        if q >= 0:
            if value[q] == 0 and not _assign(ws, cell_units, peers, n, words, q, _first_digit(cand, words, q)):
                return False
        elif placed[-q - 1] == 0:
            ud = -q - 1
            d = ud % n
            word = d >> 6
            bit = _ONE << np.uint64(d & 63)
            for x in units[ud // n]:
                if cand[x * words + word] & bit:
                    if not _assign(ws, cell_units, peers, n, words, x, d):
                        return False
                    break
    return True


# ---- search ------------------------------------------------------------------------------------------------------------
@cached_njit
def _next_random(rng: np.ndarray) -> np.uint64:
    """splitmix64 step: the kernel's own generator, so results depend on the seed only."""
    rng[0] += np.uint64(0x9E3779B97F4A7C15)
    z = rng[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@cached_njit
def _pick(ws: tuple, units: np.ndarray, n: int, words: int, rng: np.ndarray) -> tuple[int, int]:
    """The branching decision (cell, digit): smallest cell or (unit, digit); random among its options if rng is set."""
    cand, cell_count, unit_count, placed, value = ws[:5]
    cells = n * n
    best = n + 1
    best_cell = -1
    for c in range(cells):
        if value[c] == 0 and cell_count[c] < best:
            best = cell_count[c]
            best_cell = c
            if best <= 2:
                break
    best_ud = -1
    if best > 2:
        for ud in range(3 * cells):
            if placed[ud] == 0 and unit_count[ud] < best:
                best = unit_count[ud]
                best_ud = ud
                if best <= 2:
                    break
    skip = 0
    if rng.shape[0] > 0:
        skip = np.int64(_next_random(rng) % np.uint64(best))
    if best_ud < 0:
        for w in range(words):
            m = cand[best_cell * words + w]
            while m:
                d = w * 64 + np.int64(trailing_zeros(m))
                if skip == 0:
                    return best_cell, d
                skip -= 1
                m &= m - _ONE
    d = best_ud % n
    bit = _ONE << np.uint64(d & 63)
    for x in units[best_ud // n]:
        if cand[x * words + (d >> 6)] & bit:
            if skip == 0:
                return x, d
            skip -= 1
    return -1, -1  # unreachable: the counters always match the candidates


@cached_njit
def _count(ws: tuple, units: np.ndarray, cell_units: np.ndarray, peers: np.ndarray, n: int, grid: np.ndarray,
           limit: int, found: np.ndarray, rng: np.ndarray) -> int:
    """min(#solutions of grid, limit); the first found.shape[0] solutions go to found's rows."""
    cand, cell_count, unit_count, placed, value = ws[:5]
    meta, choice_mark, choice_cell, choice_digit = ws[8], ws[9], ws[10], ws[11]
    cells = n * n
    words = (n + 63) // 64
    for w in range(words):
        bits = min(64, n - 64 * w)
        full = _ALL if bits == 64 else (_ONE << np.uint64(bits)) - _ONE
        for c in range(cells):
            cand[c * words + w] = full
    cell_count[:] = n
    unit_count[:] = n
    placed[:] = 0
    value[:] = 0
    meta[:] = 0
    ok = True
    for c in range(cells):
        if grid[c] != 0 and not _assign(ws, cell_units, peers, n, words, c, grid[c] - 1):
            ok = False
            break
    if ok:
        ok = _propagate(ws, units, cell_units, peers, n, words)
    depth = 0
    total = 0
    while True:
        if ok:
            if meta[2] == cells:
                if total < found.shape[0]:
                    found[total, :] = value
                total += 1
                if total >= limit:
                    break
                ok = False
                continue
            c, d = _pick(ws, units, n, words, rng)
            choice_mark[depth] = meta[0]
            choice_cell[depth] = c
            choice_digit[depth] = d
            depth += 1
            ok = _assign(ws, cell_units, peers, n, words, c, d) and _propagate(ws, units, cell_units, peers, n, words)
        else:
            if depth == 0:
                break
            depth -= 1
            _undo(ws, cell_units, n, words, choice_mark[depth])
            c = choice_cell[depth]
            ok = _eliminate(ws, cell_units, n, words, c, choice_digit[depth]) and _propagate(
                ws, units, cell_units, peers, n, words)
    meta[1] = 0
    return total


# ---- numba-callable and batch entry points -------------------------------------------------------------------------
@cached_njit
def count_solutions_nb(grid: np.ndarray, n: int, limit: int) -> int:
    """min(#solutions, limit) of a flat grid; callable from @njit code (see the module docstring)."""
    units, cell_units, peers = _tables(n)
    return _count(_workspace(n), units, cell_units, peers, n, grid, limit, np.empty((0, n * n), np.int32),
                  np.empty(0, np.uint64))


@cached_njit
def _solve_rows(puzzles: np.ndarray, n: int, limit: int, counts: np.ndarray, firsts: np.ndarray) -> None:
    units, cell_units, peers = _tables(n)
    ws = _workspace(n)
    no_rng = np.empty(0, np.uint64)
    first = np.empty((1, n * n), np.int32)
    for i in range(puzzles.shape[0]):
        counts[i] = _count(ws, units, cell_units, peers, n, puzzles[i], limit, first, no_rng)
        if counts[i] > 0:
            firsts[i] = first[0]


@cached_njit
def _solutions_of(grid: np.ndarray, n: int, limit: int, found: np.ndarray) -> int:
    units, cell_units, peers = _tables(n)
    return _count(_workspace(n), units, cell_units, peers, n, grid, limit, found, np.empty(0, np.uint64))


@cached_njit
def _random_grids(n: int, seed: int, out: np.ndarray) -> None:
    units, cell_units, peers = _tables(n)
    ws = _workspace(n)
    rng = np.zeros(1, np.uint64)
    rng[0] = np.uint64(seed)
    empty = np.zeros(n * n, np.int32)
    grid = np.empty((1, n * n), np.int32)
    for i in range(out.shape[0]):
        _count(ws, units, cell_units, peers, n, empty, 1, grid, rng)
        out[i] = grid[0]


# ---- Python wrappers -------------------------------------------------------------------------------------------------
def _check_limit(limit: int) -> None:
    if limit < 1:
        raise ValueError("limit must be at least 1")


def _as_puzzles(puzzles: np.ndarray) -> tuple[np.ndarray, int]:
    """Validate (m, n*n) integer puzzles and return them as contiguous int32 with n."""
    grid = np.asarray(puzzles)
    if grid.ndim != 2:
        raise ValueError(f"puzzles must be a 2-D array (m, n*n), got shape {grid.shape}")
    if grid.size and not np.issubdtype(grid.dtype, np.integer):
        raise ValueError(f"puzzles must hold integers, got dtype {grid.dtype}")
    n = side_for_cell_count(grid.shape[1])
    if grid.size and (grid.min() < 0 or grid.max() > n):
        raise ValueError(f"puzzle values must be 0 (empty) or digits 1..{n}, got {grid.min()}..{grid.max()}")
    return np.ascontiguousarray(grid, dtype=np.int32), n


def solve_batch(puzzles: np.ndarray, limit: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """(counts, first solutions) of (m, n*n) puzzles; counts = min(#solutions, limit), zero solution rows where none."""
    _check_limit(limit)
    grid, n = _as_puzzles(puzzles)
    counts = np.zeros(grid.shape[0], np.int64)
    firsts = np.zeros(grid.shape, np.int32)
    _solve_rows(grid, n, limit, counts, firsts)
    return counts, firsts


def count_solutions_batch(puzzles: np.ndarray, limit: int = 2) -> np.ndarray:
    """min(#solutions, limit) for each row of (m, n*n) puzzles."""
    return solve_batch(puzzles, limit)[0]


def random_solutions(n: int, count: int, seed: int) -> np.ndarray:
    """(count, n*n) random complete valid grids (randomized search on the empty grid), the same for the same seed."""
    box_side(n)
    if count < 0:
        raise ValueError("count must be >= 0")
    out = np.zeros((count, n * n), np.int32)
    _random_grids(n, seed & 0xFFFFFFFFFFFFFFFF, out)
    return out


def solutions(board: Board, limit: int = 2) -> list[Board]:
    """Up to `limit` solutions of the board (an empty list when it has none)."""
    _check_limit(limit)
    found = np.zeros((limit, board.cell_count), np.int32)
    total = _solutions_of(np.asarray(board.values, np.int32), board.n, limit, found)
    return [Board(row.tolist(), board.n) for row in found[:total]]


def count_solutions(board: Board, limit: int = 2) -> int:
    """Number of solutions, counted up to `limit` (so 2 means 'at least two' with the default)."""
    _check_limit(limit)
    return int(count_solutions_nb(np.asarray(board.values, np.int32), board.n, limit))


def solve(board: Board) -> Board | None:
    """One solution, or None when the board has none."""
    sols = solutions(board, 1)
    return sols[0] if sols else None


def warm_up() -> None:
    """Compile (or load from the cache) every entry point with its one signature, e.g. before timing."""
    for n in (4,):
        solve_batch(np.zeros((1, n * n), np.int32))
        random_solutions(n, 1, 0)
        solutions(Board.empty(n))
        count_solutions(Board.empty(n))

