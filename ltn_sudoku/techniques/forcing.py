"""Forcing chains and forcing nets: follow an assumption until it breaks, or until every alternative agrees.

A *premise* is one candidate assumed true (``r1c1=5``) or false (``r1c1<>5``). Its consequences are propagated
breadth-first, level by level, through singles:
- a placement removes the digit from the cell's peers and the cell's other digits (weak links);
- a cell left with one candidate, or a digit left with one place in a unit, is placed (naked / hidden single).

**Chains** accept a single only when it rests on one earlier fact, i.e. when the cell was bivalue, or the digit
bilocal in that unit, in the grid the search started from (strong links): every derived fact then hangs on one chain
back to the premise. **Nets** accept every single of the evolving grid, which may rest on several earlier facts, and
when the singles run out they go on with locked candidates (a digit confined to one box-line intersection leaves the
rest of the line or box), the cheapest step beyond singles: with them, singles plus these four finders solve all of
top1465 without search (99.8% when nets use singles only).

- *Contradiction*: a premise leads to a cell without candidate, a digit without place in a unit, or a cell forced to
  two values; the premise is false.
- *Verity*: all alternatives of a choice lead to the same fact, which is then true. Choices: the candidates of a cell,
  the places of a digit in a unit, and a candidate being true or false. Alternatives that end in a contradiction are
  impossible and left out; at least two must remain.

All premises of a grid are propagated in one compiled (numba) loop; each branch's eliminations come back as a bitset,
verities intersect them per choice. The four finders share that work through a small cache keyed by the grid state
(techniques.cache). Steps are sorted simplest first: by the propagation depth the deduction needs, then by board
order. ``max_depth`` bounds the number of propagation levels (None: until a fixpoint), ``limit`` the number of steps
returned. Cost grows about as (n^3)^2 (premises times grid size): milliseconds at 9x9, tens of ms at 16x16.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ltn_sudoku.board import Geometry, iter_bits
from ltn_sudoku.candidates import Assignment, CandidateGrid, Step
from ltn_sudoku.exact.kernel import cached_njit, trailing_zeros  # numba's intrinsic, typed for its compiled call
from ltn_sudoku.techniques.base import Technique, make_step
from ltn_sudoku.techniques.cache import StateCache, state_key

# contradiction kinds written by the kernel into info[0]
_EMPTY_CELL, _NO_PLACE, _TWO_VALUES, _PLACED_ELIMINATED = 1, 2, 3, 4


# ---- compiled propagation ------------------------------------------------------------------------------------------
_PLACE, _ELIMINATE = 1, 0


@cached_njit
def _branch(start: tuple, work: tuple, tables: tuple, n: int, cell: int, digit: int, truth: bool, chain_only: bool,
            max_depth: int, info: np.ndarray) -> int:
    """Propagate one premise, breadth-first (up to max_depth levels; < 0 = no bound), from work in the start state.

    One FIFO queue holds placements and eliminations, each tagged with its level: a placement at level L queues its
    eliminations at L, and the singles they create are placed at L + 1. Returns the contradiction kind (0 = none);
    info = [kind, cell or unit, digit, other digit, level]. The branch's changes stay in work, listed on its trail
    (elim_level tells when each candidate went), until `_undo`.
    """
    start_cell_count, start_unit_count = start[2], start[3]
    cand, value, cell_count, unit_count, unit_done, elim_level, queue, trail, meta = work
    units, cell_units, peers = tables
    info[:] = 0
    queue[0, 0], queue[0, 1], queue[0, 2], queue[0, 3] = cell, digit, 0, _PLACE if truth else _ELIMINATE
    head, tail, kind, eliminated, placed = 0, 1, 0, 0, 0
    while kind == 0:
        if head == tail:
            level = info[4] + 1  # singles are exhausted: a net goes on with locked candidates
            if chain_only or 0 <= max_depth < level:
                break
            head = 0
            tail = _locked_candidates(cand, unit_count, unit_done, units, cell_units, n, level, queue, 0)
            if tail == 0:
                break
        c, d, level, action = queue[head, 0], queue[head, 1], queue[head, 2], queue[head, 3]
        head += 1
        info[4] = level
        if action == _PLACE:
            if 0 <= max_depth < level:
                break
            if value[c] != 0:
                if value[c] != d + 1:
                    kind = _TWO_VALUES
                    info[0], info[1], info[2], info[3] = kind, c, d, value[c] - 1
                continue
            if cand[c * n + d] == 0:
                kind = _PLACED_ELIMINATED
                info[0], info[1], info[2] = kind, c, d
                continue
            value[c] = d + 1
            trail[1, placed] = c
            placed += 1
            for j in range(3):
                unit_done[cell_units[c, j] * n + d] = 1
            for e in range(n):
                if e != d and cand[c * n + e]:
                    queue[tail, 0], queue[tail, 1], queue[tail, 2], queue[tail, 3] = c, e, level, _ELIMINATE
                    tail += 1
            for p in peers[c]:
                if cand[p * n + d]:
                    queue[tail, 0], queue[tail, 1], queue[tail, 2], queue[tail, 3] = p, d, level, _ELIMINATE
                    tail += 1
            continue
        index = c * n + d
        if cand[index] == 0:
            continue
        if value[c] == d + 1:
            kind = _PLACED_ELIMINATED
            info[0], info[1], info[2] = kind, c, d
            continue
        cand[index] = 0
        elim_level[index] = level
        trail[0, eliminated] = index
        eliminated += 1
        cell_count[c] -= 1
        for j in range(3):
            unit_count[cell_units[c, j] * n + d] -= 1
        if value[c] == 0:
            if cell_count[c] == 0:
                kind = _EMPTY_CELL
                info[0], info[1], info[2] = kind, c, d
                continue
            if cell_count[c] == 1 and (not chain_only or start_cell_count[c] == 2):
                for e in range(n):
                    if cand[c * n + e]:
                        queue[tail, 0], queue[tail, 1], queue[tail, 2], queue[tail, 3] = c, e, level + 1, _PLACE
                        tail += 1
                        break
        for j in range(3):
            unit = cell_units[c, j]
            ud = unit * n + d
            if unit_done[ud]:
                continue
            if unit_count[ud] == 0:
                kind = _NO_PLACE
                info[0], info[1], info[2] = kind, unit, d
                break
            if unit_count[ud] == 1 and (not chain_only or start_unit_count[ud] == 2):
                for x in units[unit]:
                    if cand[x * n + d]:
                        queue[tail, 0], queue[tail, 1], queue[tail, 2], queue[tail, 3] = x, d, level + 1, _PLACE
                        tail += 1
                        break
    meta[0], meta[1] = eliminated, placed
    return kind


@cached_njit
def _locked_candidates(cand: np.ndarray, unit_count: np.ndarray, unit_done: np.ndarray, units: np.ndarray,
                       cell_units: np.ndarray, n: int, level: int, queue: np.ndarray, tail: int) -> int:
    """Queue the eliminations of every locked candidate: a digit whose places in a box lie in one line (or in a line
    lie in one box) leaves the rest of that line (box). Returns the new queue tail."""
    for unit in range(3 * n):
        for d in range(n):
            ud = unit * n + d
            if unit_done[ud] or unit_count[ud] < 2:
                continue
            first = -1
            same = np.ones(3, np.bool_)
            for x in units[unit]:
                if cand[x * n + d]:
                    if first < 0:
                        first = x
                    else:
                        for j in range(3):
                            same[j] = same[j] and cell_units[x, j] == cell_units[first, j]
            kind = unit // n
            for j in range(3):
                if j == kind or not same[j] or (kind < 2 and j < 2):
                    continue  # a box's line, or a line's box: the other unit the places share
                other = cell_units[first, j]
                for x in units[other]:
                    if cand[x * n + d] and cell_units[x, kind] != unit:
                        queue[tail, 0], queue[tail, 1], queue[tail, 2], queue[tail, 3] = x, d, level, _ELIMINATE
                        tail += 1
    return tail


@cached_njit
def _undo(work: tuple, tables: tuple, n: int) -> None:
    """Put work back in the start state by replaying the last branch's trail."""
    cand, value, cell_count, unit_count, unit_done, elim_level, queue, trail, meta = work
    cell_units = tables[1]
    for i in range(meta[0]):
        index = trail[0, i]
        c, d = index // n, index % n
        cand[index] = 1
        elim_level[index] = -1
        cell_count[c] += 1
        for j in range(3):
            unit_count[cell_units[c, j] * n + d] += 1
    for i in range(meta[1]):
        c = trail[1, i]
        d = value[c] - 1
        value[c] = 0
        for j in range(3):
            unit_done[cell_units[c, j] * n + d] = 0
    meta[0], meta[1] = 0, 0


@cached_njit
def _workspace(start: tuple, tables: tuple, n: int) -> tuple:
    """One branch's work arrays, in the start state: candidates, values, cell and (unit, digit) counters, done flags,
    elimination levels, an event queue long enough for what singles can create plus one locked-candidates scan (the
    queue restarts empty for each scan), the trail and its lengths."""
    cells = n * n
    events = 4 * cells * n + cells * (n + tables[2].shape[1]) + 3 * n**3 + 8
    return (start[0].copy(), start[1].copy(), start[2].copy(), start[3].copy(), start[4].copy(),
            np.full(cells * n, -1, np.int32), np.empty((events, 4), np.int32), np.empty((2, cells * n), np.int32),
            np.zeros(2, np.int64))


@cached_njit
def _propagate_all(start: tuple, tables: tuple, n: int, chain_only: bool,
                   max_depth: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every premise of the start state, propagated: (premises, contradiction kinds, infos, eliminations as bits).

    Premises come in candidate order, 2k = "candidate k true", 2k + 1 = "candidate k false"; a row of premises is
    (cell, digit 0-based, truth). Bit i of a row of bits: candidate i (cell * n + digit) eliminated by that premise.
    """
    start_cand = start[0]
    chosen = np.flatnonzero(start_cand)
    premises = np.empty((2 * chosen.shape[0], 3), np.int32)
    for k in range(chosen.shape[0]):
        for truth in range(2):
            premises[2 * k + truth, 0] = chosen[k] // n
            premises[2 * k + truth, 1] = chosen[k] % n
            premises[2 * k + truth, 2] = 1 - truth
    status = np.zeros(premises.shape[0], np.int64)
    infos = np.zeros((premises.shape[0], 5), np.int64)
    bits = np.zeros((premises.shape[0], (start_cand.shape[0] + 63) // 64), np.uint64)
    work = _workspace(start, tables, n)
    trail, meta = work[7], work[8]
    for p in range(premises.shape[0]):
        kind = _branch(start, work, tables, n, premises[p, 0], premises[p, 1], premises[p, 2] == 1, chain_only,
                       max_depth, infos[p])
        status[p] = kind
        if kind == 0:
            for i in range(meta[0]):
                index = trail[0, i]
                bits[p, index >> 6] |= np.uint64(1) << np.uint64(index & 63)
        _undo(work, tables, n)
    return premises, status, infos, bits


@cached_njit
def _close_choice(premises: np.ndarray, status: np.ndarray, bits: np.ndarray, n: int, members: np.ndarray, first: int,
                  last: int, common: np.ndarray) -> bool:
    """AND of the eliminations of a choice's live alternatives, minus the choice's own candidates (whose fate is a
    contradiction step's business); True when at least two are alive and something is left."""
    alive = 0
    common[:] = ~np.uint64(0)
    for j in range(first, last):
        p = members[j]
        if status[p] == 0:
            alive += 1
            common &= bits[p]
    if alive < 2:
        return False
    for j in range(first, last):
        index = premises[members[j], 0] * n + premises[members[j], 1]
        common[index >> 6] &= ~(np.uint64(1) << np.uint64(index & 63))
    for w in range(common.shape[0]):
        if common[w]:
            return True
    return False


@cached_njit
def _verity_choices(start: tuple, tables: tuple, n: int, premises: np.ndarray, status: np.ndarray,
                    bits: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The choices whose live alternatives share eliminations: (member offsets, member premises, common bits).

    Choices: each cell's candidates, each (unit, digit)'s places (true premises), each candidate's true/false pair.
    """
    start_cand, start_value, start_cell_count, start_unit_count, start_unit_done = start
    units = tables[0]
    cells = n * n
    count = premises.shape[0] // 2
    rank = np.full(cells * n, -1, np.int64)
    for k in range(count):
        rank[premises[2 * k, 0] * n + premises[2 * k, 1]] = k
    most = cells + 3 * n * n + count
    offsets = np.zeros(most + 1, np.int64)
    members = np.empty(6 * count + 1, np.int64)
    common = np.zeros((most, bits.shape[1]), np.uint64)
    found = 0
    for cell in range(cells):
        if start_value[cell] == 0 and start_cell_count[cell] >= 2:
            last = offsets[found]
            for d in range(n):
                if start_cand[cell * n + d]:
                    members[last] = 2 * rank[cell * n + d]
                    last += 1
            if _close_choice(premises, status, bits, n, members, offsets[found], last, common[found]):
                found += 1
                offsets[found] = last
    for ud in range(3 * n * n):
        if start_unit_done[ud] == 0 and start_unit_count[ud] >= 2:
            d = ud % n
            last = offsets[found]
            for x in units[ud // n]:
                if start_cand[x * n + d]:
                    members[last] = 2 * rank[x * n + d]
                    last += 1
            if _close_choice(premises, status, bits, n, members, offsets[found], last, common[found]):
                found += 1
                offsets[found] = last
    for k in range(count):
        last = offsets[found]
        members[last] = 2 * k
        members[last + 1] = 2 * k + 1
        if _close_choice(premises, status, bits, n, members, last, last + 2, common[found]):
            found += 1
            offsets[found] = last + 2
    return offsets[:found + 1].copy(), members[:offsets[found]].copy(), common[:found].copy()


@cached_njit
def _choice_depths(start: tuple, tables: tuple, n: int, premises: np.ndarray, status: np.ndarray,
                   offsets: np.ndarray, members: np.ndarray, common: np.ndarray, chain_only: bool,
                   max_depth: int) -> np.ndarray:
    """Per choice, the propagation level by which every live alternative has made all the common eliminations."""
    work = _workspace(start, tables, n)
    elim_level = work[5]
    info = np.zeros(5, np.int64)
    depths = np.zeros(offsets.shape[0] - 1, np.int64)
    for g in range(depths.shape[0]):
        for j in range(offsets[g], offsets[g + 1]):
            p = members[j]
            if status[p]:
                continue
            _branch(start, work, tables, n, premises[p, 0], premises[p, 1], premises[p, 2] == 1, chain_only,
                    max_depth, info)
            for w in range(common.shape[1]):
                word = common[g, w]
                while word:
                    index = w * 64 + np.int64(trailing_zeros(word))
                    word &= word - np.uint64(1)
                    depths[g] = max(depths[g], elim_level[index])
            _undo(work, tables, n)
    return depths


# ---- Python side -----------------------------------------------------------------------------------------------------
@lru_cache(maxsize=None)
def _tables(geo: Geometry) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(units (3n, n), cell_units (n*n, 3), peers (n*n, 3n-2k-1)) as int32 arrays of a geometry."""
    return (np.array(geo.units, np.int32), np.array(geo.units_of_cell, np.int32), np.array(geo.peers, np.int32))


def _start_state(grid: CandidateGrid) -> tuple[np.ndarray, ...]:
    """The grid as the kernel's arrays: candidates (cell*n + digit-1), values, and the counters they imply."""
    n = grid.n
    masks = np.array(grid.masks, dtype=np.int64)
    cand2d = ((masks[:, None] >> np.arange(n, dtype=np.int64)[None, :]) & 1).astype(np.uint8)
    units = _tables(grid.geo)[0]
    unit_count = cand2d[units].sum(axis=1, dtype=np.int32).reshape(-1)  # (3n, n) -> u * n + d
    values = np.array(grid.values, dtype=np.int32)
    unit_done = np.zeros((3 * n, n + 1), np.uint8)
    np.put_along_axis(unit_done, values[units], 1, axis=1)
    return (cand2d.reshape(-1), values, cand2d.sum(axis=1, dtype=np.int32), unit_count,
            np.ascontiguousarray(unit_done[:, 1:]).reshape(-1))


class _Analysis:
    """Every premise of one grid propagated in one mode (chains or nets); the verity choices computed on demand."""

    def __init__(self, grid: CandidateGrid, chain_only: bool, max_depth: int | None) -> None:
        self.n = grid.n
        self.chain_only = chain_only
        self.max_depth = -1 if max_depth is None else max_depth
        self.start = _start_state(grid)
        self.tables = _tables(grid.geo)
        self.premises, self.status, self.infos, self.bits = _propagate_all(
            self.start, self.tables, self.n, chain_only, self.max_depth)
        self._verities: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None

    def verities(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(offsets, members, common bits, depths) of the choices whose live alternatives agree on something."""
        if self._verities is None:
            offsets, members, common = _verity_choices(self.start, self.tables, self.n, self.premises, self.status,
                                                       self.bits)
            depths = _choice_depths(self.start, self.tables, self.n, self.premises, self.status, offsets, members,
                                    common, self.chain_only, self.max_depth)
            self._verities = (offsets, members, common, depths)
        return self._verities


_ANALYSES: StateCache[tuple[bool, int | None, tuple[int, ...]], _Analysis] = StateCache()


def _analyse(grid: CandidateGrid, chain_only: bool, max_depth: int | None) -> _Analysis:
    """The analysis of this grid state, shared by the finders of one engine round (the candidates alone decide it on
    a grid without dead end, which the finders check first)."""
    return _ANALYSES.get((chain_only, max_depth, state_key(grid)), lambda: _Analysis(grid, chain_only, max_depth))


def _premise_text(geo: Geometry, premise: np.ndarray) -> str:
    cell, digit, truth = (int(x) for x in premise)
    return f"{geo.cell_name(cell)}{'=' if truth else '<>'}{digit + 1}"


def _contradiction_text(geo: Geometry, info: np.ndarray) -> str:
    kind, where, digit, other = (int(x) for x in info[:4])
    if kind == _EMPTY_CELL:
        return f"no candidate left in {geo.cell_name(where)}"
    if kind == _NO_PLACE:
        return f"no place left for {digit + 1} in {geo.unit_kind(where)} {where % geo.n + 1}"
    if kind == _TWO_VALUES:
        return f"{geo.cell_name(where)}={other + 1} and {geo.cell_name(where)}={digit + 1}"
    return f"{geo.cell_name(where)}={digit + 1} and {geo.cell_name(where)}<>{digit + 1}"


def _contradictions(grid: CandidateGrid, technique: str, chain_only: bool, max_depth: int | None,
                    limit: int | None) -> list[Step]:
    if grid.dead_end():
        return []
    geo = grid.geo
    analysis = _analyse(grid, chain_only, max_depth)
    broken = np.flatnonzero(analysis.status)
    order = broken[np.argsort(analysis.infos[broken, 4], kind="stable")]
    steps = []
    for p in order[:limit]:
        cell, digit, truth = (int(x) for x in analysis.premises[p])
        effect = [(cell, digit + 1)]
        steps.append(make_step(
            grid, technique,
            f"{_premise_text(geo, analysis.premises[p])} => {_contradiction_text(geo, analysis.infos[p])}",
            placements=[] if truth else effect, eliminations=effect if truth else [], cells=[cell], digits=[digit + 1]))
    return steps


def _effects(grid: CandidateGrid, common: int) -> tuple[list[Assignment], list[Assignment]]:
    """Common eliminations as a step's effects: a cell left with one candidate becomes a placement, and the
    eliminations that placement implies are not repeated."""
    n, geo = grid.n, grid.geo
    removed: dict[int, int] = {}
    for index in iter_bits(common):
        removed[index // n] = removed.get(index // n, 0) | 1 << (index % n)
    placements = []
    for cell, mask in removed.items():
        left = grid.masks[cell] & ~mask
        if left and not left & (left - 1):
            placements.append((cell, left.bit_length()))
    implied: set[tuple[int, int]] = set()
    for cell, digit in placements:
        implied.update((cell, b + 1) for b in iter_bits(grid.masks[cell]) if b + 1 != digit)
        implied.update((p, digit) for p in iter_bits(grid.digit_cells[digit] & geo.peer_bits[cell]))
    eliminations = [(cell, b + 1) for cell, mask in removed.items() for b in iter_bits(mask)
                    if (cell, b + 1) not in implied]
    return placements, eliminations


def _alternatives_text(geo: Geometry, premises: list[np.ndarray]) -> str:
    names = [_premise_text(geo, p) for p in premises]
    if len(names) == 2:
        return f"{names[0]} and {names[1]} both"
    return f"{', '.join(names[:-1])} and {names[-1]} all"


def _verities(grid: CandidateGrid, technique: str, chain_only: bool, max_depth: int | None,
              limit: int | None) -> list[Step]:
    if grid.dead_end():
        return []
    analysis = _analyse(grid, chain_only, max_depth)
    offsets, members, common, depths = analysis.verities()
    found: dict[tuple, Step] = {}
    for g in np.lexsort((np.arange(depths.shape[0]), depths)):
        placements, eliminations = _effects(grid, int.from_bytes(common[g].tobytes(), "little"))
        key = (tuple(sorted(placements)), tuple(sorted(eliminations)))
        if key in found:
            continue
        alive = [analysis.premises[p] for p in members[offsets[g]:offsets[g + 1]] if not analysis.status[p]]
        found[key] = make_step(grid, technique, _alternatives_text(grid.geo, alive), placements=placements,
                               eliminations=eliminations, cells=sorted({int(p[0]) for p in alive}),
                               digits=sorted({int(p[1]) + 1 for p in alive}))
        if limit is not None and len(found) >= limit:
            break
    return list(found.values())


# ---- finders ---------------------------------------------------------------------------------------------------------
def find_forcing_chain_contradictions(grid: CandidateGrid, max_depth: int | None = None,
                                      limit: int | None = None) -> list[Step]:
    """Premises whose chains (strong links of the grid) reach a contradiction: the premise is false."""
    return _contradictions(grid, "Forcing Chain Contradiction", True, max_depth, limit)


def find_forcing_chain_verities(grid: CandidateGrid, max_depth: int | None = None,
                                limit: int | None = None) -> list[Step]:
    """Facts that the chains of every alternative of a cell, a unit's places or a candidate's on/off all reach."""
    return _verities(grid, "Forcing Chain Verity", True, max_depth, limit)


def find_forcing_net_contradictions(grid: CandidateGrid, max_depth: int | None = None,
                                    limit: int | None = None) -> list[Step]:
    """Premises whose net (all singles of the evolving grid) reaches a contradiction: the premise is false."""
    return _contradictions(grid, "Forcing Net Contradiction", False, max_depth, limit)


def find_forcing_net_verities(grid: CandidateGrid, max_depth: int | None = None,
                              limit: int | None = None) -> list[Step]:
    """Facts that the nets of every alternative of a cell, a unit's places or a candidate's on/off all reach."""
    return _verities(grid, "Forcing Net Verity", False, max_depth, limit)


TECHNIQUES: list[Technique] = [
    Technique("Forcing Chain Contradiction", "Forcing Chains", find_forcing_chain_contradictions, score=500,
              level="Extreme", aliases=("Contradiction Forcing Chain",), hodoku_codes=("1301",)),
    Technique("Forcing Chain Verity", "Forcing Chains", find_forcing_chain_verities, score=500, level="Extreme",
              aliases=("Verity Forcing Chain",), hodoku_codes=("1302",)),
    Technique("Forcing Net Contradiction", "Forcing Chains", find_forcing_net_contradictions, score=700,
              level="Extreme", aliases=("Contradiction Forcing Net",), hodoku_codes=("1303",)),
    Technique("Forcing Net Verity", "Forcing Chains", find_forcing_net_verities, score=700, level="Extreme",
              aliases=("Verity Forcing Net",), hodoku_codes=("1304",)),
]
