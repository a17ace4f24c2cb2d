"""Compiled exact solver (numba): the fast oracle behind labels, dead-end checks and data generation.

Two solvers, one API; both count solutions up to a limit by binary branching (`cell = digit`, then `cell != digit`)
over an explicit stack of saved states, so the hot loop neither recurses nor allocates.

- General solver, every side 4..81. A cell's candidates are a bitset of W = ceil(n / 64) uint64 words (two for 81x81).
  Propagation: naked singles (a queue fed when a cell falls to one candidate), hidden singles and box-line reduction
  (locked candidates, both ways), re-examined only in units whose cells changed since they were last looked at.
  Branching (dom/wdeg): the open cell with the highest (1 + contradictions met in its units) / candidates. Counting
  runs under a budget of dead ends, doubled at each restart, restarts taking random first options; contradiction
  weights carry over. Box-line reduction keeps unique large grids tractable (without it some 25x25 and 36x36 puzzles
  of the generalized set take seconds to minutes); dom/wdeg with restarts does the same for sparse boards with many
  solutions (random 25x25 boards at half givens: the worst of 60 went from 32 s to 0.3 s).
- Band solver, 9x9 only (the sizes that matter most, about 5x faster than the general solver on 9x9). The state is
  30 words: per digit and band (3 rows) a 27-bit mask of the cells where the digit is possible or placed, plus the
  placed cells per band. Placing a digit is a dozen word operations; naked singles come from bit-sliced counting over
  the 9 digits, hidden singles from branch-free masks per row and box and bit-sliced counting over the bands for the
  9 columns at once, box-line reduction from one table lookup per band and per stack on the 3x3 pattern of triads
  (the union of the digit's placements the pattern still allows; none left is a contradiction). Propagation tracks
  the changed (digit, band) words, so a digit is looked at again only in the bands it changed in. It branches on the
  two-candidate cell whose placements would remove the most candidates from its peers.

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
    int32 grids use the machine code already in the cache; another dtype compiles the kernel once more (~15 s).
    Each call allocates its work arrays (20 KB for 9x9, about a microsecond; more for larger sides), so loops over
    many large puzzles are faster through the batch API. Caveat of numba's cache: a caller cached with cache=True
    embeds this code and is not recompiled when this file changes; delete that caller's __pycache__/*.nbi (or set
    NUMBA_CACHE_DIR afresh) after updating ltn_sudoku.

Compilation. Every @njit here is cached on disk (`cache=True`, in ltn_sudoku/exact/__pycache__ for the editable
install, else numba's user-wide cache or NUMBA_CACHE_DIR), so only the first process compiles; later ones load the
machine code. numba compiles a function on its first call, so a command compiles what it uses: 9x9 boards go through
their own entry point (`_solve_rows_band`, about 8 CPU s to compile) and never compile the general solver (about 25
more); constants are passed as typed values, not literals, which would compile a function once per call site. A
compilation that runs for more than ANNOUNCE_AFTER_S says so on stderr, then its time (`_CompileAnnouncer`, for every
numba function of the package); `python -m ltn_sudoku.warmup` compiles everything up front. When no cache directory
is writable the functions are compiled without a cache.
Keep every jitted function in this one file: numba's cache does not notice edits to other modules.
"""

from __future__ import annotations

import itertools
import sys
import threading
import time
import warnings
from typing import TYPE_CHECKING, Any, Callable

import numpy as np
from numba import njit
from numba.core import event

from ltn_sudoku.board import Board, box_side, side_for_cell_count

if TYPE_CHECKING:
    from typing import TypeAlias, TypeVar

    _IntT = TypeVar("_IntT", int, np.integer)
    # An integer of compiled code: numba mixes Python ints and np.int64 freely (np.int64 converts a uint64 bit index,
    # so that it does not turn int64 arithmetic into float64).
    I64: TypeAlias = int | np.int64

    def trailing_zeros(src: _IntT) -> _IntT:
        """numba's stub types the call of an intrinsic with its typing context too; compiled code passes the value."""
else:
    from numba.cpython.unsafe.numbers import trailing_zeros

_ONE = np.uint64(1)
_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
_ZERO = np.uint64(0)


def cached_njit(func: Callable[..., Any] | None = None, **options: Any) -> Any:
    """`njit(cache=True)`, or plain `njit` with a warning when no cache directory is writable (read-only install)."""
    if func is None:
        return lambda f: cached_njit(f, **options)
    try:
        return njit(cache=True, **options)(func)
    except RuntimeError as e:  # numba: "cannot cache function ...: no locator available"
        warnings.warn(f"numba cache unavailable, compiling {func.__name__} in memory: {e}", RuntimeWarning,
                      stacklevel=2)
        return njit(**options)(func)


# ---- geometry --------------------------------------------------------------------------------------------------------
@cached_njit
def _box_side(n: int) -> int:
    k = 1
    while k * k < n:
        k += 1
    return k


@cached_njit
def _tables(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(units (3n, n), peers (n*n, 3n-2k-1), cell_units (n*n, 3), full words (W,)): rows, then columns, then boxes.

    A box lists its cells row-major, so cell i of a box lies in box-row i // k and box-column i % k.
    """
    k = _box_side(n)
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
    words = (n + 63) // 64
    full = np.empty(words, np.uint64)
    for w in range(words):
        bits = min(64, n - 64 * w)
        full[w] = _ALL if bits == 64 else (_ONE << np.uint64(bits)) - _ONE
    return units, peers, cell_units, full


# ---- state and elementary moves --------------------------------------------------------------------------------------
# One search node: cand (cells, W) uint64 candidate bitsets (an assigned cell keeps only its digit's bit), count
# (cells,) candidates per cell, value (cells,) 0 or the assigned digit. Work arrays beside it: flags (3n,) per unit,
# _SWEEP = look for hidden singles again, _LOCK = look for locked candidates again (set when a cell of the unit
# changes); queue: cells whose count fell to 1; meta = [queue length, assigned cells].
_QUEUED, _ASSIGNED = 0, 1
_SWEEP, _LOCK = 1, 2


@cached_njit
def _workspace(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Fresh (cand, count, value, flags, queue, meta, weight) for side n, reused across the puzzles of a batch."""
    cells = n * n
    return (np.empty((cells, (n + 63) // 64), np.uint64), np.empty(cells, np.int16), np.empty(cells, np.int16),
            np.empty(3 * n, np.uint8), np.empty(cells + 1, np.int32), np.empty(2, np.int64), np.zeros(3 * n, np.int64))


@cached_njit(inline="always")
def _touch(flags: np.ndarray, cell_units: np.ndarray, cell: int) -> None:
    for j in range(3):
        flags[cell_units[cell, j]] = _SWEEP | _LOCK


@cached_njit(inline="always")
def _blame(weight: np.ndarray, cell_units: np.ndarray, cell: int) -> None:
    """A contradiction at this cell: its units weigh more in the choice of the next branching cells."""
    for j in range(3):
        weight[cell_units[cell, j]] += 1


@cached_njit(inline="always")
def _eliminate(cand: np.ndarray, count: np.ndarray, flags: np.ndarray, queue: np.ndarray, meta: np.ndarray,
               weight: np.ndarray, cell_units: np.ndarray, cell: int, digit: int) -> bool:
    """Remove one candidate; queue the cell when one is left; False when none is left."""
    cand[cell, digit >> 6] &= ~(_ONE << np.uint64(digit & 63))
    left = count[cell] - 1
    count[cell] = left
    if left == 1:
        queue[meta[_QUEUED]] = cell
        meta[_QUEUED] += 1
    _touch(flags, cell_units, cell)
    if left == 0:
        _blame(weight, cell_units, cell)
    return left > 0


@cached_njit(inline="always")
def _assign(cand: np.ndarray, count: np.ndarray, value: np.ndarray, flags: np.ndarray, queue: np.ndarray,
            meta: np.ndarray, weight: np.ndarray, peers: np.ndarray, cell_units: np.ndarray, cell: int,
            digit: int) -> bool:
    """Set cell to digit (0-based) and remove the digit from every peer; False on contradiction."""
    if value[cell] != 0:
        return value[cell] == digit + 1
    word = digit >> 6
    bit = _ONE << np.uint64(digit & 63)
    if cand[cell, word] & bit == 0:
        _blame(weight, cell_units, cell)
        return False
    value[cell] = digit + 1
    meta[_ASSIGNED] += 1
    cand[cell, :] = 0
    cand[cell, word] = bit
    count[cell] = 1
    _touch(flags, cell_units, cell)
    for p in peers[cell]:
        if cand[p, word] & bit:
            if not _eliminate(cand, count, flags, queue, meta, weight, cell_units, p, digit):
                return False
    return True


@cached_njit(inline="always")
def _digit_at(cand: np.ndarray, cell: int, skip: int) -> I64:
    """The candidate of cell after skipping `skip` of them, lowest first; -1 past the last."""
    for w in range(cand.shape[1]):
        m = cand[cell, w]
        while m:
            if skip == 0:
                return w * 64 + np.int64(trailing_zeros(m))
            skip -= 1
            m &= m - _ONE
    return -1


# ---- propagation -----------------------------------------------------------------------------------------------------
@cached_njit
def _hidden_singles(cand: np.ndarray, count: np.ndarray, value: np.ndarray, flags: np.ndarray, queue: np.ndarray,
                    meta: np.ndarray, weight: np.ndarray, units: np.ndarray, peers: np.ndarray,
                    cell_units: np.ndarray, full: np.ndarray) -> int:
    """In every unit flagged _SWEEP, place each digit that has one place left; -1 on contradiction (a digit without
    a place), else the number of placements."""
    made = 0
    for u in range(flags.shape[0]):
        if not flags[u] & _SWEEP:
            continue
        flags[u] &= ~_SWEEP
        for w in range(cand.shape[1]):
            once = _ZERO
            twice = _ZERO
            placed = _ZERO
            for c in units[u]:
                m = cand[c, w]
                if value[c] != 0:
                    placed |= m
                else:
                    twice |= once & m
                    once |= m
            if once | placed != full[w]:
                weight[u] += 1
                return -1
            hidden = once & ~twice & ~placed
            while hidden:
                bit = hidden & (~hidden + _ONE)
                hidden ^= bit
                digit = w * 64 + np.int64(trailing_zeros(bit))
                for c in units[u]:
                    if cand[c, w] & bit:
                        if value[c] == 0:
                            if not _assign(cand, count, value, flags, queue, meta, weight, peers, cell_units, c, digit):
                                return -1
                            made += 1
                        break
                else:  # its only place went to an earlier single of this unit
                    weight[u] += 1
                    return -1
    return made


@cached_njit
def _locked_candidates(cand: np.ndarray, count: np.ndarray, value: np.ndarray, flags: np.ndarray,
                       queue: np.ndarray, meta: np.ndarray, weight: np.ndarray, units: np.ndarray,
                       cell_units: np.ndarray, k: int) -> int:
    """Box-line reduction from every unit flagged _LOCK; -1 on contradiction, else the number of eliminations.

    A digit whose open places in a box lie in one row (column) leaves the rest of that row (column); a digit whose
    open places in a line lie in one box leaves the rest of that box.
    """
    n = units.shape[1]
    made = 0
    for u in range(flags.shape[0]):
        if not flags[u] & _LOCK:
            continue
        flags[u] &= ~_LOCK
        is_box = u >= 2 * n
        for w in range(cand.shape[1]):
            placed = _ZERO
            for part in range(2 if is_box else 1):  # groups of k cells: box-rows or line segments, then box-columns
                once = _ZERO
                twice = _ZERO
                for g in range(k):
                    acc = _ZERO
                    for j in range(k):
                        c = units[u, g * k + j if part == 0 else j * k + g]
                        if value[c] != 0:
                            placed |= cand[c, w]
                        else:
                            acc |= cand[c, w]
                    twice |= once & acc
                    once |= acc
                confined = once & ~twice & ~placed
                while confined:
                    bit = confined & (~confined + _ONE)
                    confined ^= bit
                    digit = w * 64 + np.int64(trailing_zeros(bit))
                    target = -1
                    for c in units[u]:  # its first open place names the other unit of the group
                        if cand[c, w] & bit and value[c] == 0:
                            target = cell_units[c, part] if is_box else cell_units[c, 2]
                            break
                    for t in units[target]:
                        if cand[t, w] & bit and cell_units[t, 0] != u and cell_units[t, 1] != u and \
                                cell_units[t, 2] != u:
                            if not _eliminate(cand, count, flags, queue, meta, weight, cell_units, t, digit):
                                return -1
                            made += 1
    return made


@cached_njit
def _propagate(cand: np.ndarray, count: np.ndarray, value: np.ndarray, flags: np.ndarray, queue: np.ndarray,
               meta: np.ndarray, weight: np.ndarray, units: np.ndarray, peers: np.ndarray, cell_units: np.ndarray,
               full: np.ndarray, k: int) -> bool:
    """Naked singles, hidden singles, then locked candidates, in units changed since they were last looked at,
    to a fixpoint (every flag clear); False on contradiction."""
    while True:
        while meta[_QUEUED] > 0:
            meta[_QUEUED] -= 1
            c = queue[meta[_QUEUED]]
            if value[c] == 0 and not _assign(cand, count, value, flags, queue, meta, weight, peers, cell_units, c,
                                             _digit_at(cand, c, 0)):
                return False
        made = _hidden_singles(cand, count, value, flags, queue, meta, weight, units, peers, cell_units, full)
        if made < 0:
            return False
        if made > 0 or meta[_QUEUED] > 0:
            continue
        made = _locked_candidates(cand, count, value, flags, queue, meta, weight, units, cell_units, k)
        if made < 0:
            return False
        if made == 0:
            return True


# ---- search ----------------------------------------------------------------------------------------------------------
@cached_njit(inline="always")
def _next_random(rng: np.ndarray) -> np.uint64:
    """splitmix64 step: the kernel's own generator, so results depend on the seed only."""
    rng[0] += np.uint64(0x9E3779B97F4A7C15)
    z = rng[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@cached_njit
def _two_places(cand: np.ndarray, value: np.ndarray, units: np.ndarray) -> int:
    """unit * n + digit for the first digit with exactly two places in a unit, or -1."""
    n = units.shape[1]
    for u in range(units.shape[0]):
        for w in range(cand.shape[1]):
            once = _ZERO
            twice = _ZERO
            thrice = _ZERO
            for c in units[u]:
                if value[c] == 0:
                    m = cand[c, w]
                    thrice |= twice & m
                    twice |= once & m
                    once |= m
            two = twice & ~thrice
            if two:
                return u * n + w * 64 + np.int64(trailing_zeros(two))
    return -1


@cached_njit
def _pick(cand: np.ndarray, count: np.ndarray, value: np.ndarray, units: np.ndarray, cell_units: np.ndarray,
          weight: np.ndarray, rng: np.ndarray, scored: bool) -> tuple[int, int]:
    """The branching decision (cell, digit), with rng (non-empty) a random option of the chosen cell, else its first.

    scored: the open cell with the highest (1 + contradictions met in its units) / candidates, the dom/wdeg rule,
    which steers the search to where it keeps failing (the cure for the heavy tails of sparse large boards).
    Otherwise: the first cell with two candidates, else a digit with two places in a unit, else a cell with fewest
    candidates (cheap, for random grids).
    """
    n = units.shape[1]
    best_cell = -1
    pair = -1
    options = 0
    if scored:
        best = -1.0
        for c in range(count.shape[0]):
            if value[c] == 0:
                units_weight = weight[cell_units[c, 0]] + weight[cell_units[c, 1]] + weight[cell_units[c, 2]]
                score = (1.0 + units_weight) / count[c]
                if score > best:
                    best = score
                    best_cell = c
        options = count[best_cell]
    else:
        fewest = n + 1
        for c in range(count.shape[0]):
            if value[c] == 0 and count[c] < fewest:
                fewest = count[c]
                best_cell = c
                if fewest <= 2:
                    break
        options = fewest
        if fewest > 2:
            pair = _two_places(cand, value, units)
            if pair >= 0:
                options = 2
    skip: I64 = 0
    if rng.shape[0] > 0:
        skip = np.int64(_next_random(rng) % np.uint64(options))
    if pair < 0:
        return best_cell, _digit_at(cand, best_cell, skip)
    digit = pair % n
    bit = _ONE << np.uint64(digit & 63)
    for c in units[pair // n]:
        if cand[c, digit >> 6] & bit and value[c] == 0:
            if skip == 0:
                return c, digit
            skip -= 1
    return -1, -1  # unreachable: a pair always has two open places


@cached_njit
def _grown(a: np.ndarray, levels: int) -> np.ndarray:
    """A copy of a stack array with room for `levels` entries along its first axis."""
    out = np.empty((levels,) + a.shape[1:], a.dtype)
    out[:a.shape[0]] = a
    return out


@cached_njit
def _load(grid: np.ndarray, units: np.ndarray, peers: np.ndarray, cell_units: np.ndarray, full: np.ndarray,
          cand: np.ndarray, count: np.ndarray, value: np.ndarray, flags: np.ndarray, queue: np.ndarray,
          meta: np.ndarray, weight: np.ndarray) -> bool:
    """Reset the workspace to a flat grid's givens and propagate them (singles, box-line reduction): the root state
    of a search, and what the portfolio reads; False on contradiction."""
    n = units.shape[1]
    for c in range(n * n):
        cand[c, :] = full
    count[:] = n
    value[:] = 0
    flags[:] = _SWEEP | _LOCK
    meta[:] = 0
    for c in range(n * n):
        if grid[c] != 0 and not _assign(cand, count, value, flags, queue, meta, weight, peers, cell_units, c,
                                        grid[c] - 1):
            return False
    return _propagate(cand, count, value, flags, queue, meta, weight, units, peers, cell_units, full, _box_side(n))


@cached_njit
def _search(grid: np.ndarray, limit: int, found: np.ndarray, rng: np.ndarray, scored: bool, budget: int,
            units: np.ndarray, peers: np.ndarray, cell_units: np.ndarray, full: np.ndarray, cand: np.ndarray,
            count: np.ndarray, value: np.ndarray, flags: np.ndarray, queue: np.ndarray, meta: np.ndarray,
            weight: np.ndarray) -> int:
    """min(#solutions of grid, limit); the first found.shape[0] solutions go to found's rows.

    rng (non-empty) picks the branch's first option at random; scored ranks two-candidate cells by impact (see
    _pick). budget > 0 caps the dead ends: past it the search gives up and returns -1 - (solutions found so far,
    which are in found's first rows); 0 = no cap.
    """
    n = units.shape[1]
    k = _box_side(n)
    cells = n * n
    ok = _load(grid, units, peers, cell_units, full, cand, count, value, flags, queue, meta, weight)
    levels = 8  # stack of states saved at choice points: grows by doubling
    saved_cand = np.empty((levels,) + cand.shape, np.uint64)
    saved_count = np.empty((levels, cells), np.int16)
    saved_value = np.empty((levels, cells), np.int16)
    saved_assigned = np.empty(levels, np.int64)
    choice = np.empty((levels, 2), np.int64)
    depth = 0
    total = 0
    while True:
        if ok:
            if meta[_ASSIGNED] == cells:
                if total < found.shape[0]:
                    found[total, :] = value
                total += 1
                if total >= limit:
                    break
                ok = False
                continue
            c, d = _pick(cand, count, value, units, cell_units, weight, rng, scored)
            if depth == levels:
                levels *= 2
                saved_cand = _grown(saved_cand, levels)
                saved_count = _grown(saved_count, levels)
                saved_value = _grown(saved_value, levels)
                saved_assigned = _grown(saved_assigned, levels)
                choice = _grown(choice, levels)
            saved_cand[depth] = cand
            saved_count[depth] = count
            saved_value[depth] = value
            saved_assigned[depth] = meta[_ASSIGNED]
            choice[depth, 0] = c
            choice[depth, 1] = d
            depth += 1
            ok = _assign(cand, count, value, flags, queue, meta, weight, peers, cell_units, c, d) and _propagate(
                cand, count, value, flags, queue, meta, weight, units, peers, cell_units, full, k)
        else:
            if depth == 0:
                break
            if budget > 0:
                budget -= 1
                if budget == 0:
                    return -1 - total
            depth -= 1  # the saved state was a fixpoint: every flag clear
            cand[:] = saved_cand[depth]
            count[:] = saved_count[depth]
            value[:] = saved_value[depth]
            flags[:] = 0
            meta[_ASSIGNED] = saved_assigned[depth]
            meta[_QUEUED] = 0
            ok = _eliminate(cand, count, flags, queue, meta, weight, cell_units, choice[depth, 0],
                            choice[depth, 1]) and \
                _propagate(cand, count, value, flags, queue, meta, weight, units, peers, cell_units, full, k)
    return total


# ---- 9x9: band solver ------------------------------------------------------------------------------------------------
# The 81 cells form 3 bands of 27 (3 rows x 9 columns); bit 9 * (row % 3) + column of a band word is one cell.
# State: F[3 * d + b], the cells of band b where digit d is possible or placed, and S[b], the placed cells of band b;
# 30 words in one uint64 array (F then S), copied whole at each choice point. Propagation tracks the words that
# changed as a 27-bit set (bit 3 * d + b for F[3 * d + b]): a digit is looked at again only in the bands it changed in.
_BAND = np.uint64((1 << 27) - 1)
_LOW9 = np.uint64(0x1FF)


def _band_tables() -> tuple[np.ndarray, ...]:
    """Constant masks for the 9x9 solver: peers per cell and band, rows/boxes/columns within a band, and box-line
    reduction on a 3x3 pattern of triads (3 cells of a row or column in one box)."""
    peers = np.zeros((81, 3), np.uint64)
    for cell in range(81):
        r, c = divmod(cell, 9)
        for p in range(81):
            pr, pc = divmod(p, 9)
            if p != cell and (pr == r or pc == c or (pr // 3 == r // 3 and pc // 3 == c // 3)):
                peers[cell, pr // 3] |= np.uint64(1 << (9 * (pr % 3) + pc))
    rows = np.array([0x1FF << (9 * r) for r in range(3)], np.uint64)
    boxes = np.array([(0x7 | 0x7 << 9 | 0x7 << 18) << (3 * j) for j in range(3)], np.uint64)
    col3 = np.array([sum((1 | 1 << 9 | 1 << 18) << i for i in range(3) if x >> i & 1) for x in range(8)], np.uint64)
    triads = np.array([sum(1 << j for j in range(3) if y >> (3 * j) & 7) for y in range(512)], np.uint64)
    expand = np.array([sum(0x7 << (9 * (i // 3) + 3 * (i % 3)) for i in range(9) if p >> i & 1) for p in range(512)],
                      np.uint64)
    # A digit fills one triad per row and per box of a band (or one column per band and per box of a stack): one of
    # the 6 permutations of a 3x3 pattern (bit 3 * row + box). lock[p] is the union of those the pattern p still
    # allows: box-line reduction (pointing and claiming) to its fixpoint, and 0 when none is left (a contradiction).
    permutations = [sum(1 << (3 * a + s[a]) for a in range(3)) for s in itertools.permutations(range(3))]
    lock = np.zeros(512, np.uint64)
    for p in range(512):
        for m in permutations:
            if m & p == m:
                lock[p] |= np.uint64(m)
    return peers, rows, boxes, col3, triads, expand, lock


_PEERS9, _ROWS9, _BOXES9, _COL3_9, _TRIADS9, _EXPAND9, _LOCK9 = _band_tables()


@cached_njit(inline="always")
def _b_place(st: np.ndarray, cell: int, d: int) -> I64:
    """Place digit d (0-based) in cell: -1 if d is not possible there, else the words that changed (bit 3*d+b)."""
    b = cell // 27
    bit = _ONE << np.uint64(cell % 27)
    if st[3 * d + b] & bit == 0:
        return -1
    if st[27 + b] & bit:
        return 0
    keep = st[3 * d + b]
    changed: I64 = 0
    for e in range(9):  # without branches: clear the cell in every digit's word, then give d's back
        x = st[3 * e + b]
        changed |= np.int64((x & bit) != _ZERO) << (3 * e + b)
        st[3 * e + b] = x & ~bit
    st[3 * d + b] = keep
    for bb in range(3):  # branch-free too: whether a peer lost d is data, not a jump
        x = st[3 * d + bb]
        y = x & ~_PEERS9[cell, bb]
        st[3 * d + bb] = y
        changed |= np.int64(y != x) << (3 * d + bb)
    st[27 + b] |= bit
    return changed


@cached_njit(inline="always")
def _b_place_single(st: np.ndarray, b: int, bit: np.uint64, cell: int) -> I64:
    """Place the one digit left in a naked single (cell, its bit in band b): -1 if none is left (an earlier single
    of the band took it), else the words that changed, as _b_place. Finds the digit in the same branch-free pass
    over the 9 digits that clears the cell, instead of a search for it and then _b_place's pass."""
    found: I64 = 0
    changed: I64 = 0
    for e in range(9):
        x = st[3 * e + b]
        has = np.int64((x & bit) != _ZERO)
        found += (e + 1) * has
        changed |= has << (3 * e + b)
        st[3 * e + b] = x & ~bit
    if found == 0:
        return -1
    d = found - 1
    st[3 * d + b] |= bit
    changed &= ~(1 << (3 * d + b))
    for bb in range(3):
        x = st[3 * d + bb]
        y = x & ~_PEERS9[cell, bb]
        st[3 * d + bb] = y
        changed |= np.int64(y != x) << (3 * d + bb)
    st[27 + b] |= bit
    return changed


@cached_njit(inline="always")
def _fold(x: np.uint64) -> np.uint64:
    """The columns (9 bits) where a band word has a cell."""
    return (x | x >> np.uint64(9) | x >> np.uint64(18)) & _LOW9


@cached_njit(inline="always")
def _fold2(x: np.uint64) -> np.uint64:
    """The columns where a band word has two cells or more."""
    r0 = x & _LOW9
    r1 = x >> np.uint64(9) & _LOW9
    r2 = x >> np.uint64(18)
    return (r0 & r1) | (r0 & r2) | (r1 & r2)


@cached_njit(inline="always")
def _band_lock(x: np.uint64) -> np.uint64:
    """Box-line reduction of one digit's word in one band: 0 when the band has no place left for it."""
    p = _TRIADS9[x & _LOW9] | _TRIADS9[x >> np.uint64(9) & _LOW9] << np.uint64(3) | \
        _TRIADS9[x >> np.uint64(18)] << np.uint64(6)
    return x & _EXPAND9[_LOCK9[p]]


@cached_njit(inline="always")
def _alone(m: np.uint64) -> np.uint64:
    """m if it has at most one cell, else 0."""
    return m if m & (m - _ONE) == _ZERO else _ZERO


@cached_njit(inline="always")
def _band_hidden(x: np.uint64) -> np.uint64:
    """The cells of a band word alone in their row or in their box."""
    rows = _alone(x & _ROWS9[0]) | _alone(x & _ROWS9[1]) | _alone(x & _ROWS9[2])
    return rows | _alone(x & _BOXES9[0]) | _alone(x & _BOXES9[1]) | _alone(x & _BOXES9[2])


@cached_njit
def _b_digit(st: np.ndarray, d: int, bands: int) -> I64:
    """Box-line reduction and hidden singles of digit d, whose words changed in `bands` (bit b): -1 on
    contradiction, else the words that changed (bit 3*d+b). The three words stay in registers, the checks are
    branch-free bit operations (hidden singles of all 9 columns at once by bit-sliced counting over the bands)."""
    x0 = st[3 * d]
    x1 = st[3 * d + 1]
    x2 = st[3 * d + 2]
    changed: I64 = 0
    touched = bands
    while True:  # box-line reduction in the bands that changed, then in the three stacks, until stable
        y0 = _band_lock(x0) if bands & 1 else x0
        y1 = _band_lock(x1) if bands & 2 else x1
        y2 = _band_lock(x2) if bands & 4 else x2
        if y0 == _ZERO or y1 == _ZERO or y2 == _ZERO:
            return -1  # a band without a place for d
        changed |= np.int64(y0 != x0) | np.int64(y1 != x1) << 1 | np.int64(y2 != x2) << 2
        x0 = y0
        x1 = y1
        x2 = y2
        r0 = _fold(x0)
        r1 = _fold(x1)
        r2 = _fold(x2)
        bands = 0
        for j in range(3):
            shift = np.uint64(3 * j)
            p = (r0 >> shift & np.uint64(7)) | (r1 >> shift & np.uint64(7)) << np.uint64(3) | \
                (r2 >> shift & np.uint64(7)) << np.uint64(6)
            q = _LOCK9[p]
            if q != p:
                if q == _ZERO:
                    return -1
                gone = p & ~q
                g = gone & np.uint64(7)
                if g:
                    x0 &= ~(_COL3_9[g] << shift)
                    bands |= 1
                g = gone >> np.uint64(3) & np.uint64(7)
                if g:
                    x1 &= ~(_COL3_9[g] << shift)
                    bands |= 2
                g = gone >> np.uint64(6)
                if g:
                    x2 &= ~(_COL3_9[g] << shift)
                    bands |= 4
        if bands == 0:
            break
        changed |= bands
        touched |= bands
    st[3 * d] = x0
    st[3 * d + 1] = x1
    st[3 * d + 2] = x2
    r0 = _fold(x0)
    r1 = _fold(x1)
    r2 = _fold(x2)
    if r0 | r1 | r2 != _LOW9:
        return -1  # a column without a place for d
    single_columns = (r0 | r1 | r2) & ~(_fold2(x0) | _fold2(x1) | _fold2(x2) | (r0 & r1) | (r0 & r2) | (r1 & r2))
    spread = single_columns * np.uint64(1 | 1 << 9 | 1 << 18)  # the cells of those columns in every band
    h0 = ((_band_hidden(x0) if touched & 1 else _ZERO) | x0 & spread) & ~st[27]
    h1 = ((_band_hidden(x1) if touched & 2 else _ZERO) | x1 & spread) & ~st[28]
    h2 = ((_band_hidden(x2) if touched & 4 else _ZERO) | x2 & spread) & ~st[29]
    changed <<= 3 * d
    for b in range(3):  # each of these cells is the only place of d in a unit: two that see each other contradict
        h = h0 if b == 0 else (h1 if b == 1 else h2)
        while h:
            bit = h & (~h + _ONE)
            h ^= bit
            got = _b_place(st, 27 * b + np.int64(trailing_zeros(bit)), d)
            if got < 0:
                return -1
            changed |= got
    return changed


@cached_njit(inline="always")
def _band_set(changed: int) -> int:
    """The bands (bit b) of a set of changed words (bit 3*d+b)."""
    x = changed | changed >> 3 | changed >> 6
    x = x | x >> 9 | x >> 18
    return x & 7


@cached_njit
def _b_propagate(st: np.ndarray, dirty: I64) -> bool:
    """To a fixpoint: naked singles in the bands whose words changed, then box-line reduction and hidden singles of
    every changed digit in the bands it changed in. dirty: the changed words (bit 3*d+b)."""
    d: I64  # bound by range() and from a bit index (np.int64)
    scan = _band_set(dirty)
    while True:
        while scan:
            b = np.int64(trailing_zeros(np.uint64(scan)))
            scan &= ~(1 << b)
            open_cells = ~st[27 + b] & _BAND
            if open_cells == 0:
                continue
            once = _ZERO
            twice = _ZERO
            for d in range(9):
                x = st[3 * d + b]
                twice |= once & x
                once |= x
            if open_cells & ~once:
                return False
            singles = open_cells & ~twice
            while singles:
                bit = singles & (~singles + _ONE)
                singles ^= bit
                got = _b_place_single(st, b, bit, 27 * b + np.int64(trailing_zeros(bit)))
                if got < 0:
                    return False  # an earlier single of this band took its last candidate
                dirty |= got
                scan |= _band_set(got)
        if dirty == 0:
            return True
        todo = dirty  # every digit changed so far, once, before the next naked singles
        dirty = 0
        while todo:
            d = np.int64(trailing_zeros(np.uint64(todo))) // 3
            bands = ((todo | dirty) >> (3 * d)) & 7
            todo &= ~(7 << (3 * d))
            dirty &= ~(7 << (3 * d))
            got = _b_digit(st, d, bands)
            if got < 0:
                return False
            dirty |= got
            scan |= _band_set(got)


@cached_njit(inline="always")
def _popcount(x: np.uint64) -> np.int64:
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@cached_njit
def _b_pick(st: np.ndarray) -> tuple[I64, int]:
    """The branching decision (cell, digit): among cells with two candidates the one whose two placements remove
    the most candidates from its peers (product of the two counts, so both branches bite), else a cell with fewest
    candidates. Halves the search tree of the hardest puzzles against 'first cell with two candidates'."""
    b: I64  # bound by range() and computed from a cell
    cell: I64  # bound by range() and from a bit index (np.int64)
    best = -1
    best_cell: I64 = -1
    best_digit = -1
    for b in range(3):
        open_cells = ~st[27 + b] & _BAND
        once = _ZERO
        twice = _ZERO
        thrice = _ZERO
        for d in range(9):
            x = st[3 * d + b]
            thrice |= twice & x
            twice |= once & x
            once |= x
        two = open_cells & twice & ~thrice
        while two:
            bit = two & (~two + _ONE)
            two ^= bit
            cell = 27 * b + np.int64(trailing_zeros(bit))
            score = 1
            first = -1
            for d in range(9):
                if st[3 * d + b] & bit:
                    score *= 1 + _popcount(st[3 * d] & _PEERS9[cell, 0]) + _popcount(st[3 * d + 1] & _PEERS9[cell, 1]) \
                        + _popcount(st[3 * d + 2] & _PEERS9[cell, 2])
                    if first < 0:
                        first = d
            if score > best:
                best, best_cell, best_digit = score, cell, first
    if best_cell >= 0:
        return best_cell, best_digit
    fewest = 10
    for cell in range(81):
        b = cell // 27
        bit = _ONE << np.uint64(cell % 27)
        if st[27 + b] & bit:
            continue
        k = 0
        first = -1
        for d in range(9):
            if st[3 * d + b] & bit:
                k += 1
                if first < 0:
                    first = d
        if k < fewest:
            fewest, best_cell, best_digit = k, cell, first
    return best_cell, best_digit


@cached_njit
def _b_search(grid: np.ndarray, limit: int, found: np.ndarray, work: np.ndarray) -> int:
    """min(#solutions of a 9x9 grid (an integer array or the 81 cell bytes), limit); the first found.shape[0]
    solutions go to found's rows. work: _b_work(), the state and the stack of choice points in one allocation
    (row 82 the state; rows 0..81 a saved state each, its choice (cell, digit) in columns 30 and 31)."""
    cell: I64  # bound by range() and read back from `work` (np.int64)
    d: I64
    st = work[82]
    st[:27] = _BAND
    st[27:] = 0
    ok = True
    for cell in range(81):
        if grid[cell] != 0 and _b_place(st, cell, grid[cell] - 1) < 0:
            ok = False
            break
    if ok:
        ok = _b_propagate(st, np.int64((1 << 27) - 1))  # an int64, not a literal: _b_propagate compiles once
    depth = 0
    total = 0
    while True:
        if ok:
            if st[27] == _BAND and st[28] == _BAND and st[29] == _BAND:
                if total < found.shape[0]:
                    for cell in range(81):
                        bit = _ONE << np.uint64(cell % 27)
                        for d in range(9):
                            if st[3 * d + cell // 27] & bit:
                                found[total, cell] = d + 1
                total += 1
                if total >= limit:
                    break
                ok = False
                continue
            cell, d = _b_pick(st)
            work[depth, :30] = st[:30]
            work[depth, 30] = cell
            work[depth, 31] = d
            depth += 1
            got = _b_place(st, cell, d)
            ok = got >= 0 and _b_propagate(st, got)
        else:
            if depth == 0:
                break
            depth -= 1
            st[:30] = work[depth, :30]
            cell = np.int64(work[depth, 30])
            d = np.int64(work[depth, 31])
            st[3 * d + cell // 27] &= ~(_ONE << np.uint64(cell % 27))
            ok = _b_propagate(st, 1 << (3 * d + cell // 27))
    return total


@cached_njit(inline="always")
def _b_work() -> np.ndarray:
    """The band solver's work array (see _b_search): 21 KB, one allocation per count, or per batch."""
    return np.empty((83, 32), np.uint64)


# ---- numba-callable and batch entry points -------------------------------------------------------------------------
_RESTART_BUDGET = 64  # dead ends allowed to the first run of a count, doubled at each restart
_RESTART_LIMIT = 64  # counts to a higher limit run once, without restarts (they would keep every solution met)
_RESTART_SEED = 0x5EED  # restarts are randomized, but the same for the same puzzle
# _count's "no cap on dead ends" as an int64, not the literal 0: numba compiles a function once per argument types,
# and a literal argument is a type of its own (each literal call site would compile _count and _search again)
_NO_CAP = np.int64(0)


@cached_njit
def _count(grid: np.ndarray, limit: int, found: np.ndarray, units: np.ndarray, peers: np.ndarray,
           cell_units: np.ndarray, full: np.ndarray, cand: np.ndarray, count: np.ndarray, value: np.ndarray,
           flags: np.ndarray, queue: np.ndarray, meta: np.ndarray, weight: np.ndarray, max_dead_ends: int) -> int:
    """min(#solutions, limit) with the general solver, first solutions in found's rows.

    Sparse large boards with many solutions can send one depth-first search into a huge subtree without any (a
    heavy tail: tens of seconds at 25x25 where a restarted search needs milliseconds). So the search runs under a
    budget of dead ends, doubled at each restart, the restarts taking random first options. A run that completes
    is exact; runs cut short still count the distinct solutions they met, and that many reaching the limit is an
    answer too. max_dead_ends > 0 caps the dead ends of all runs together: past it the count gives up and returns
    -1 (the portfolio then hands the board to a SAT solver); 0 = no cap.
    """
    cells = units.shape[1] ** 2
    weight[:] = 0  # what the runs of this puzzle learn about where it fails, kept across its restarts
    rng = np.empty(0, np.uint64)
    if limit > _RESTART_LIMIT:
        got = _search(grid, limit, found, rng, True, max_dead_ends, units, peers, cell_units, full, cand, count,
                      value, flags, queue, meta, weight)
        return got if got >= 0 else -1
    met = np.empty((limit, cells), np.int16)  # distinct solutions met by runs cut short
    n_met = 0
    run = np.empty((limit, cells), np.int16)
    budget = _RESTART_BUDGET
    left = max_dead_ends
    while True:
        if max_dead_ends > 0:
            if left <= 0:
                return -1
            budget = min(budget, left)
            left -= budget
        got = _search(grid, limit, run, rng, True, budget, units, peers, cell_units, full, cand, count, value,
                      flags, queue, meta, weight)
        if got >= 0:
            for j in range(min(found.shape[0], got)):
                found[j] = run[j]
            return got
        for j in range(-1 - got):
            new = True
            for m in range(n_met):
                if np.array_equal(met[m], run[j]):
                    new = False
                    break
            if new:
                met[n_met] = run[j]
                n_met += 1
                if n_met == limit:
                    for jj in range(min(found.shape[0], limit)):
                        found[jj] = met[jj]
                    return limit
        budget *= 2
        if rng.shape[0] == 0:
            rng = np.full(1, _RESTART_SEED, np.uint64)


@cached_njit
def _solve_rows_band(puzzles: np.ndarray, limit: int, store: int, counts: np.ndarray, found: np.ndarray) -> None:
    """counts[i] = min(#solutions of the 9x9 puzzles[i], limit); found[i] = its first `store` solutions (store <=
    limit), by the band solver. Its own entry point, apart from the general solver's: a 9x9 run compiles only this."""
    out = np.empty((store, 81), np.int16)
    work = _b_work()
    for i in range(puzzles.shape[0]):
        counts[i] = _b_search(puzzles[i], limit, out, work)
        for j in range(min(store, counts[i])):
            found[i, j] = out[j]


@cached_njit
def _solve_rows(puzzles: np.ndarray, n: int, limit: int, store: int, rng: np.ndarray, counts: np.ndarray,
                found: np.ndarray) -> None:
    """counts[i] = min(#solutions of puzzles[i], limit); found[i] = its first `store` solutions (store <= limit), by
    the general solver (with restarts, see _count; 9x9 without rng goes to _solve_rows_band). With rng non-empty
    the puzzles are searched at random for one solution each (random grids), restarting with a doubled budget of
    dead ends whenever a run goes astray.
    """
    out = np.empty((store, n * n), np.int16)
    units, peers, cell_units, full = _tables(n)
    cand, count, value, flags, queue, meta, weight = _workspace(n)
    for i in range(puzzles.shape[0]):
        if rng.shape[0] == 0:
            got = _count(puzzles[i], limit, out, units, peers, cell_units, full, cand, count, value, flags, queue,
                         meta, weight, _NO_CAP)
        else:
            budget = n * n
            while True:
                got = _search(puzzles[i], limit, out, rng, False, budget, units, peers, cell_units, full, cand,
                              count, value, flags, queue, meta, weight)
                if got >= 0:
                    break
                budget *= 2
        counts[i] = got
        for j in range(min(store, got)):
            found[i, j] = out[j]


@cached_njit
def count_solutions_nb(grid: np.ndarray, n: int, limit: int) -> int:
    """min(#solutions, limit) of a flat grid; callable from @njit code (see the module docstring)."""
    if n == 9:
        return _b_search(grid, limit, np.empty((0, 81), np.int16), _b_work())
    units, peers, cell_units, full = _tables(n)
    cand, count, value, flags, queue, meta, weight = _workspace(n)
    return _count(grid, limit, np.empty((0, n * n), np.int16), units, peers, cell_units, full, cand, count, value,
                  flags, queue, meta, weight, _NO_CAP)


@cached_njit
def _count_capped(grid: np.ndarray, n: int, limit: int, max_dead_ends: int, found: np.ndarray) -> int:
    """min(#solutions of a flat grid, limit), its first found.shape[0] solutions into found's rows; -1 when a count
    of a side other than 9 met more than max_dead_ends dead ends (0 = no cap). 9x9 goes to the band solver, which
    has no cap and needs none (its worst known puzzles take milliseconds)."""
    if n == 9:
        return _b_search(grid, limit, found, _b_work())
    units, peers, cell_units, full = _tables(n)
    cand, count, value, flags, queue, meta, weight = _workspace(n)
    return _count(grid, limit, found, units, peers, cell_units, full, cand, count, value, flags, queue, meta, weight,
                  max_dead_ends)


@cached_njit
def _count_cells(cells: bytes, limit: int) -> int:
    """min(#solutions, limit) of a 9x9 board given as its 81 cell bytes (Board.cell_bytes()): the single-board path.
    bytes go to numba as they are (no numpy array to build, the band solver reads them) and two arguments dispatch
    faster than five."""
    return _b_search(cells, limit, np.empty((0, 81), np.int16), _b_work())


@cached_njit
def _root_candidates(grid: np.ndarray, n: int, out: np.ndarray) -> bool:
    """The candidates that propagation (singles, box-line reduction) leaves of a flat grid, into out (n*n, n) bool;
    False on contradiction. What the portfolio hands to the SAT solver."""
    units, peers, cell_units, full = _tables(n)
    cand, count, value, flags, queue, meta, weight = _workspace(n)
    ok = _load(grid, units, peers, cell_units, full, cand, count, value, flags, queue, meta, weight)
    for c in range(n * n):
        for d in range(n):
            out[c, d] = (cand[c, d >> 6] >> np.uint64(d & 63)) & _ONE != _ZERO
    return ok


# ---- Python wrappers -------------------------------------------------------------------------------------------------
_NO_RNG = np.empty(0, np.uint64)  # no random choices
_STORE_FIRST = 1024  # solutions() keeps this many at first and searches again only when there are more


def _check_limit(limit: int) -> None:
    if limit < 1:
        raise ValueError("limit must be at least 1")


def _as_puzzles(puzzles: np.ndarray) -> tuple[np.ndarray, int]:
    """Validate (m, n*n) integer puzzles and return them as contiguous int32 with n."""
    grid = np.asarray(puzzles)
    if grid.ndim != 2:
        raise ValueError(f"puzzles must be a 2-D array (m, n*n), got shape {grid.shape}")
    if not np.issubdtype(grid.dtype, np.integer) and not (grid.size == 0 and grid.dtype == np.float64):
        raise ValueError(f"puzzles must hold integers, got dtype {grid.dtype}")
    n = side_for_cell_count(grid.shape[1])
    if grid.size and (grid.min() < 0 or grid.max() > n):
        raise ValueError(f"puzzle values must be 0 (empty) or digits 1..{n}, got {grid.min()}..{grid.max()}")
    return np.ascontiguousarray(grid, dtype=np.int32), n


def _solve(grid: np.ndarray, n: int, limit: int, store: int, rng: np.ndarray = _NO_RNG) -> tuple[np.ndarray,
                                                                                                np.ndarray]:
    """(counts (m,), solutions (m, store, n*n)) of validated int32 puzzles."""
    counts = np.zeros(grid.shape[0], np.int64)
    found = np.zeros((grid.shape[0], store, n * n), np.int16)
    if n == 9 and rng.shape[0] == 0:
        _solve_rows_band(grid, limit, store, counts, found)
    else:
        _solve_rows(grid, n, limit, store, rng, counts, found)
    return counts, found


def solve_batch(puzzles: np.ndarray, limit: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """(counts, first solutions) of (m, n*n) puzzles; counts = min(#solutions, limit), zero solution rows where none."""
    _check_limit(limit)
    grid, n = _as_puzzles(puzzles)
    counts, found = _solve(grid, n, limit, 1)
    return counts, found[:, 0, :].astype(np.int32)


def count_solutions_batch(puzzles: np.ndarray, limit: int = 2) -> np.ndarray:
    """min(#solutions, limit) for each row of (m, n*n) puzzles."""
    _check_limit(limit)
    grid, n = _as_puzzles(puzzles)
    return _solve(grid, n, limit, 0)[0]


def random_solutions(n: int, count: int, seed: int) -> np.ndarray:
    """(count, n*n) random complete valid grids (randomized search on the empty grid), the same for the same seed."""
    box_side(n)
    if count < 0:
        raise ValueError("count must be >= 0")
    empty = np.zeros((count, n * n), np.int32)
    rng = np.array([seed & 0xFFFFFFFFFFFFFFFF], np.uint64)
    return _solve(empty, n, 1, 1, rng)[1][:, 0, :].astype(np.int32)


def solutions(board: Board, limit: int = 2) -> list[Board]:
    """Up to `limit` solutions of the board (an empty list when it has none)."""
    _check_limit(limit)
    grid = np.asarray([board.values], np.int32)
    store = min(limit, _STORE_FIRST)  # a huge limit must not allocate room for solutions that do not exist
    counts, found = _solve(grid, board.n, limit, store)
    if counts[0] > store:
        counts, found = _solve(grid, board.n, limit, int(counts[0]))
    return [Board(row.tolist(), board.n) for row in found[0, : counts[0]]]


def count_solutions(board: Board, limit: int = 2) -> int:
    """Number of solutions, counted up to `limit` (so 2 means 'at least two' with the default)."""
    _check_limit(limit)
    return int(_solve(np.asarray([board.values], np.int32), board.n, limit, 0)[0][0])


def solve(board: Board) -> Board | None:
    """One solution, or None when the board has none."""
    sols = solutions(board, 1)
    return sols[0] if sols else None


def warm_up() -> None:
    """Compile (or load from the cache) every entry point, e.g. before timing or at install (ltn_sudoku.warmup)."""
    count_solutions_batch(np.zeros((1, 16), np.int32))  # the general solver
    count_solutions_batch(np.zeros((1, 81), np.int32), 1)  # the 9x9 band solver
    count_solutions_nb(np.zeros(16, np.int32), 4, 2)
    _count_cells(bytes(81), 2)


ANNOUNCE_AFTER_S = 3.0  # a compilation still running after this long is announced on stderr


class _CompileAnnouncer(event.Listener):
    """Says on stderr when numba compiles this package's machine code for longer than ANNOUNCE_AFTER_S (a fresh
    install's first run, or a new numba cache): what is happening, then how long it took. numba compiles each
    function on its first call (lazily: a command compiles what it uses) and caches it on disk, so later processes
    load it in milliseconds and say nothing. Loading from the cache passes through the same event, too briefly to
    be announced."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._depth = 0  # compilations nest: a function compiles the functions it calls
        self._started = 0.0
        self._timer: threading.Timer | None = None
        self._announced = False

    def on_start(self, ev: event.Event) -> None:
        if not _ours(ev):
            return
        with self._lock:
            self._depth += 1
            if self._depth == 1:
                self._started, self._announced = time.perf_counter(), False
                self._timer = threading.Timer(ANNOUNCE_AFTER_S, self._announce, args=(_function_name(ev),))
                self._timer.daemon = True
                self._timer.start()

    def on_end(self, ev: event.Event) -> None:
        if not _ours(ev):
            return
        with self._lock:
            self._depth -= 1
            if self._depth or self._timer is None:
                return
            self._timer.cancel()
            self._timer = None
            if self._announced:
                print(f"ltn-sudoku: compiled in {time.perf_counter() - self._started:.0f} s (cached for later runs)",
                      file=sys.stderr, flush=True)

    def _announce(self, name: str) -> None:
        with self._lock:
            if self._timer is None:
                return
            self._announced = True
        print(f"ltn-sudoku: compiling machine code for this machine (numba, {name} and what it calls): once, on "
              "first use; later runs load it from the cache", file=sys.stderr, flush=True)


def _ours(ev: event.Event) -> bool:
    dispatcher = (ev.data or {}).get("dispatcher")
    return getattr(getattr(dispatcher, "py_func", None), "__module__", "").startswith("ltn_sudoku.")


def _function_name(ev: event.Event) -> str:
    func = ev.data["dispatcher"].py_func
    return f"{func.__module__.rsplit('.', 1)[-1]}.{func.__name__}"


event.register("numba:compile", _CompileAnnouncer())
