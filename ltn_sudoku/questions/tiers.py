"""Reasoning tiers of puzzles, and the symbolic baselines the evaluation prints beside every learned figure.

The tier of a puzzle is the smallest k such that the technique engine restricted to the techniques of tiers <= k
(ltn_sudoku.questions.engine.Engine with fallback=False) solves it (a family's tier is its row's in
ltn_sudoku/techniques/families.py):

    T1 singles: Full House, Naked Single, Hidden Single
    T2 + intersections: Locked Candidates Type 1 (Pointing) and Type 2 (Claiming), Locked Pair, Locked Triple
    T3 + subsets: naked and hidden pairs, triples, quadruples
    T4 + fish (basic, finned, sashimi), single-digit patterns, wings, colouring (incl. 3D Medusa), uniqueness
    T5 + chains (incl. Remote Pair and nice loops / AIC), ALS family (incl. Death Blossom), Sue de Coq
    T6 forcing chains / nets or search: everything the engine cannot finish by T1-T5 logic, including puzzles
       with several solutions (sound logic cannot complete them)
    0  no solution: a tier is not defined

"Needs" is meant literally: it is NOT the hardest technique the default pipeline happens to use. The default
pipeline follows HoDoKu's order, which tries e.g. Remote Pair (T5) before Skyscraper (T4) and Sue de Coq (T5)
before colouring (T4), so it may use a T5 step on a puzzle that T4 techniques alone also solve; such a puzzle is T4.

Within the restricted engine the techniques are ordered tier by tier (HoDoKu's order inside a tier). The pipeline
of tiers <= k-1 is then a prefix of the pipeline of tiers <= k, so the tier-k engine's path is the tier-(k-1)
engine's path followed by more steps: labelling runs each stage on the candidate grid the previous stage left
(only puzzles still unsolved go on), which gives exactly what restarting each restricted engine from the puzzle
gives (tests/test_tiers.py checks this against Engine.solve). T6 is never run: it is what is left after T5, and the
board the engine with search reaches is the exact solution (search places the solution's digits; every logic
placement agrees with every solution).

The singles loop (`singles_loop`) is the ~20-line baseline of the issue: naked and hidden singles on a numpy
candidate array, all found singles placed at once, written independently of the engine. On a puzzle with a solution
it reaches the same board as the engine restricted to T1 (singles are confluent).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

import numpy as np

from ltn_sudoku.board import Board, geometry
from ltn_sudoku.candidates import CandidateGrid
from ltn_sudoku.exact import solve_batch
from ltn_sudoku.io.progress import progress as progress_bar
from ltn_sudoku.questions.engine import Engine
from ltn_sudoku.techniques.base import Technique
from ltn_sudoku.techniques.families import FAMILIES, family_of
from ltn_sudoku.techniques.registry import all_techniques

NO_SOLUTION = 0
SEARCH_TIER = 6
LOGIC_TIERS: tuple[int, ...] = (1, 2, 3, 4, 5)
TIER_NAMES: tuple[str, ...] = (
    "no solution",
    "T1 singles",
    "T2 + locked candidates",
    "T3 + subsets",
    "T4 + fish/wings/single-digit/colouring/uniqueness",
    "T5 + chains/ALS/Sue de Coq",
    "T6 forcing chains or search",
)
# The technique families of each tier (the tier of a family is its row's in techniques/families.py).
TIER_FAMILIES: dict[int, tuple[str, ...]] = {
    tier: tuple(f.name for f in FAMILIES if f.tier == tier) for tier in (*LOGIC_TIERS, SEARCH_TIER)}
if sum(map(len, TIER_FAMILIES.values())) != len(FAMILIES):
    raise RuntimeError("techniques/families.py: every family's tier must be one of 1-6")

_MAX_STEPS = 100_000  # the engine's own guard


@lru_cache(maxsize=None)
def tier_techniques(tier: int) -> tuple[str, ...]:
    """Names of the techniques of tiers <= `tier` (1..6), tier by tier, HoDoKu's order within a tier."""
    if tier not in TIER_FAMILIES:
        raise ValueError(f"tier must be one of {sorted(TIER_FAMILIES)}, got {tier}")
    pool = all_techniques()  # HoDoKu's order
    return tuple(t.name for k in range(1, tier + 1) for t in pool if family_of(t.family).tier == k)


def tier_engine(tier: int) -> Engine:
    """The engine restricted to tiers <= `tier`, without search: Engine(tier_techniques(tier), fallback=False)."""
    return Engine(list(tier_techniques(tier)), fallback=False)


# ---- the singles loop: the plain baseline ---------------------------------------------------------------------------
def singles_loop_batch(puzzles: np.ndarray, n: int) -> np.ndarray:
    """Naked and hidden singles until none is left, on (m, n*n) puzzles (0 = empty): the boards reached."""
    return singles_loop_outcome(puzzles, n)[0]


def singles_loop_outcome(puzzles: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The boards the singles loop reaches and (m,) bool: whether it met a dead end there (a refutation).

    Candidates are recomputed from the placed digits each round; every single found is placed at once. A board stops
    at a dead end (an empty cell without candidate, a digit without a place in a unit that lacks it, or two singles
    of one digit in a unit), so the boards stay consistent and a completed board is a solution. A dead end proves
    the puzzle impossible: the singles loop is the 20-line baseline of hasSolution too."""
    unit = geometry(n).unit_matrix.astype(np.float32)  # (3n, n*n): unit u holds cell c
    values = np.array(puzzles, dtype=np.int64).reshape(-1, n * n).copy()
    refuted = np.zeros(len(values), dtype=bool)
    active = np.arange(len(values))  # boards still moving
    digits = np.arange(1, n + 1)
    while active.size:
        v = values[active]
        in_unit = unit @ (v[:, :, None] == digits).astype(np.float32) > 0  # (m, 3n, n): digit placed in unit
        cand = (v == 0)[:, :, None] & (unit.T @ in_unit.astype(np.float32) == 0)  # (m, n*n, n)
        places = unit @ cand.astype(np.float32)  # (m, 3n, n): places of each digit in each unit
        hidden = cand & (unit.T @ (places == 1).astype(np.float32) > 0)  # the only place of a digit in a unit
        naked = np.where(cand.sum(2) == 1, cand.argmax(2) + 1, 0)
        place = np.where(hidden.any(2), hidden.argmax(2) + 1, naked)
        dead = ((v == 0) & ~cand.any(2)).any(1) | ((places == 0) & ~in_unit).any((1, 2))
        dead |= (unit @ (place[:, :, None] == digits).astype(np.float32) > 1).any((1, 2))  # singles that clash
        refuted[active[dead]] = True
        moving = (place > 0).any(1) & ~dead
        values[active[moving]] += place[moving]
        active = active[moving]
    return values, refuted


def singles_loop_completes(puzzles: np.ndarray, n: int) -> np.ndarray:
    """(m,) bool: whether the singles loop completes each (m, n*n) puzzle; a completed board of the loop is a solution
    (it stops at a dead end), so this is the baseline's solved."""
    return np.asarray((singles_loop_batch(puzzles, n) > 0).all(axis=1))


def singles_loop_solves(boards: Sequence[Board]) -> np.ndarray:
    """(m,) bool: whether the singles loop completes each board to a solution (the baseline's solved)."""
    if not boards:
        return np.zeros(0, bool)
    n = boards[0].n
    return np.array([Board(r.tolist(), n).is_valid_solution
                     for r in singles_loop_batch(np.array([b.values for b in boards]), n)])


def singles_loop(board: Board) -> Board:
    """The board the singles loop reaches from `board`."""
    return Board(singles_loop_batch(np.array([board.values]), board.n)[0].tolist(), board.n)


# ---- the engine limited to each tier ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class TierRun:
    """Per puzzle: its tier and the board the engine limited to each tier reaches.

    `reached[i, k-1]` is the board of puzzle i after the engine limited to tiers <= k (k = 1..6; k = 6 is the exact
    solution, what search reaches). Puzzles without a solution keep their givens in every row."""

    n: int
    puzzles: np.ndarray  # (m, n*n)
    solutions: np.ndarray  # (m, n*n), an exact solution; zeros where there is none
    counts: np.ndarray  # (m,) solutions up to 2 (2 = several)
    tiers: np.ndarray  # (m,) 0 (no solution) or 1..6
    reached: np.ndarray  # (m, 6, n*n) int16

    def solved(self, tier: int) -> np.ndarray:
        """(m,) bool: the engine limited to tiers <= `tier` completes the puzzle."""
        return (self.tiers > NO_SOLUTION) & (self.tiers <= tier)

    def cell_accuracy(self, tier: int) -> np.ndarray:
        """(m,) share of the puzzle's empty cells that the engine limited to `tier` fills with the solution's digit
        (NaN for puzzles without a solution or without empty cells)."""
        empty = self.puzzles == 0
        right = (self.reached[:, tier - 1] == self.solutions) & empty
        with np.errstate(invalid="ignore", divide="ignore"):
            share = right.sum(1) / empty.sum(1)
        return np.where(self.counts > 0, share, np.nan)


def _advance(engine: Engine, grid: CandidateGrid, pipeline: Sequence[Technique]) -> bool:
    """Engine.solve's loop without search, continued from `grid` (mutated): True when the grid is solved."""
    for _ in range(_MAX_STEPS):
        if grid.is_solved:
            return True
        hit = engine.next_step(grid, pipeline)
        if hit is None:
            return False
        grid.apply(hit[1])
    raise RuntimeError(f"no end after {_MAX_STEPS} steps")


def _as_array(boards: Sequence[Board]) -> tuple[np.ndarray, int]:
    sizes = {b.n for b in boards}
    if not boards:
        raise ValueError("no boards")
    if len(sizes) != 1:
        raise ValueError(f"boards of one side are needed, got sides {sorted(sizes)}")
    n = sizes.pop()
    return np.array([b.values for b in boards], dtype=np.int64).reshape(len(boards), n * n), n


def run_tiers(boards: Sequence[Board], max_tier: int = 5, progress: bool = False) -> TierRun:
    """Tiers and tier-limited boards of puzzles of one side; logic stages run up to `max_tier` (1..5).

    With max_tier < 5 a puzzle the stages do not solve is labelled 6 (unknown beyond max_tier): only the rows of
    tiers <= max_tier are meaningful then (solve_within_tier uses this to stop early)."""
    if max_tier not in LOGIC_TIERS:
        raise ValueError(f"max_tier must be one of {LOGIC_TIERS}, got {max_tier}")
    puzzles, n = _as_array(boards)
    m = len(puzzles)
    counts, solutions = solve_batch(puzzles.astype(np.int32), limit=2)
    solutions = solutions.astype(np.int64)
    tiers = np.where(counts > 0, SEARCH_TIER, NO_SOLUTION).astype(np.int64)
    reached = np.repeat(puzzles[:, None, :].astype(np.int16), SEARCH_TIER, axis=1)
    reached[counts > 0, SEARCH_TIER - 1] = solutions[counts > 0]
    grids = {i: CandidateGrid.from_board(boards[int(i)]) for i in np.flatnonzero(counts > 0)}
    bar = progress_bar(total=m, unit="puzzle", desc="tiers", file=sys.stderr, dynamic_ncols=True, disable=not progress)
    for tier in range(1, max_tier + 1):
        engine = tier_engine(tier)
        pipelines = {unique: engine.techniques(n, unique) for unique in (True, False)}
        for i, grid in list(grids.items()):
            if _advance(engine, grid, pipelines[bool(counts[i] == 1)]):
                tiers[i] = tier
                reached[i, tier - 1:SEARCH_TIER - 1] = grid.values  # the engine's board, not the exact one
                del grids[i]
                bar.update(1)
            else:
                reached[i, tier - 1] = grid.values
    bar.update(m - bar.n)
    bar.close()
    return TierRun(n, puzzles, solutions, counts.astype(np.int64), tiers, reached)


def tiers(boards: Sequence[Board], progress: bool = False) -> np.ndarray:
    """(m,) tier of each puzzle (0 = no solution, 1..6)."""
    return run_tiers(boards, progress=progress).tiers


def tier_of(board: Board) -> int:
    """The tier of one puzzle (0 = no solution, 1..6)."""
    return int(run_tiers([board]).tiers[0])


def solve_within_tier(board: Board, tier: int) -> Board:
    """The board the engine limited to tiers <= `tier` (1..6) reaches; tier 6 (search) gives the exact solution."""
    if tier not in TIER_FAMILIES:
        raise ValueError(f"tier must be one of {sorted(TIER_FAMILIES)}, got {tier}")
    run = run_tiers([board], max_tier=tier if tier in LOGIC_TIERS else 1)  # row 6 is the solution in any case
    return Board(run.reached[0, tier - 1].tolist(), board.n)
