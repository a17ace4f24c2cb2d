"""Puzzles made to order: unique puzzles whose engine solve has exactly the hardest technique, level or tier asked.

Three sources feed one check:

- fresh puzzles: random unique puzzles from the generators' kernel (a random grid dug in a random order while the
  solution stays unique, ltn_sudoku.generate.open_boards), each dug towards a givens count drawn around a centre that
  each rated puzzle moves: down when it was easier than the order, up when harder (the hardest step depends strongly
  on the givens: Full House needs 60 and more on 9x9, X-Wing about 22-27);
- neighbours of accepted puzzles: one given moved to another cell (the solution's digit there), removed or added,
  kept when the puzzle stays unique. A neighbour shares all but one or two givens with the puzzle it comes from,
  and its hardest step is far more often the one asked than a fresh puzzle's; `neighbours=0` makes only fresh ones.
  Near misses (puzzles whose path uses the technique asked, below a harder step) are grown the same way. A family
  (a fresh puzzle and the neighbours grown from it, at most NEIGHBOUR_DEPTH moves away) shares one solution grid:
  MadePuzzle.family says which family a puzzle belongs to.
- neighbours of HoDoKu's exemplar puzzles of the technique asked (data/techniques/hodoku_exemplars-1.0.txt, under a
  random symmetry), for the techniques random puzzles rarely end on; the exemplars themselves are never written.

Every candidate is rated by the engine with every technique (its default pipeline, HoDoKu's order, search as the last
resort) and kept only when the order accepts the whole solve; uniqueness is the exact solver's count. The same
order, count, seed and size give the same puzzles.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from functools import partial
from typing import Iterator

import numpy as np

from ltn_sudoku.board import Board
from ltn_sudoku.candidates import Step
from ltn_sudoku.exact import solve_batch
from ltn_sudoku.generate.closed_boards import fresh_grids
from ltn_sudoku.generate.grids import GRID_DTYPE, random_symmetry
from ltn_sudoku.generate.open_boards import dig_unique
from ltn_sudoku.generate.solver import count_batch
from ltn_sudoku.io.progress import progress as progress_bar
from ltn_sudoku.questions.engine import LEVELS, SEARCH_TECHNIQUE, Engine, KnownSolutions, SolveResult, hardness
from ltn_sudoku.questions.tiers import TIER_FAMILIES, tier_of
from ltn_sudoku.techniques.hodoku import exemplar_puzzles
from ltn_sudoku.techniques.registry import by_name

FRESH_BATCH = 32  # fresh puzzles dug per round
NEIGHBOUR_BATCH = 16  # neighbours of one accepted puzzle tried per round
NEIGHBOUR_DEPTH = 3  # moves at most between a neighbour and the fresh puzzle its family starts from
NEAR_MISSES = 64  # near misses kept waiting for their neighbours' round
FAMILY_CAP = 5  # puzzles written at most per family (one solution grid): the rest come from other grids
ORIGINS = ("fresh", "neighbour", "exemplar")  # a fresh puzzle; a neighbour in a fresh puzzle's family, an exemplar's


@dataclass(frozen=True)
class Order:
    """What the puzzles must need: exactly one of a hardest technique (a registry name or Brute Force), a level or a
    tier (1-6, questions/tiers.py)."""

    hardest: str | None = None
    level: str | None = None
    tier: int | None = None

    def __post_init__(self) -> None:
        if sum(x is not None for x in (self.hardest, self.level, self.tier)) != 1:
            raise ValueError("an order names exactly one of a hardest technique, a level or a tier")
        if self.level is not None and self.level not in LEVELS:
            raise ValueError(f"level {self.level!r}: expected one of {', '.join(LEVELS)}")
        if self.tier is not None and self.tier not in TIER_FAMILIES:
            raise ValueError(f"tier {self.tier}: expected one of {', '.join(map(str, TIER_FAMILIES))}")

    def __str__(self) -> str:
        return (f"hardest {self.hardest}" if self.hardest is not None
                else f"level {self.level}" if self.level is not None else f"tier {self.tier}")

    def compare(self, result: SolveResult) -> int:
        """How the engine's solve of a unique puzzle compares with the order: 0 when it fits, -1 when the puzzle is
        easier, +1 when harder (by `hardness` of the hardest technique, the level, or the tier, computed only then)."""
        asked: tuple[float, ...]
        got: tuple[float, ...]
        if self.hardest is not None:
            asked, got = hardness(self.hardest), hardness(result.hardest or self.hardest)
        elif self.level is not None:
            asked, got = (LEVELS.index(self.level),), (LEVELS.index(result.level or LEVELS[-1]),)
        else:
            asked, got = (float(self.tier or 0),), (tier_of(result.puzzle),)
        return (got > asked) - (got < asked)


@dataclass(frozen=True)
class MadePuzzle:
    """One accepted puzzle, its solution, the engine's solve of it, where it came from (ORIGINS) and its family: the
    number (0-based) of the fresh puzzle or exemplar it descends from (a family shares one solution grid)."""

    puzzle: Board
    solution: Board
    result: SolveResult
    origin: str
    family: int


class _GivensChooser:
    """Givens counts to dig towards, steered by what the engine says: a puzzle easier than the order moves the centre
    of the draws down (fewer givens make harder puzzles), a harder one moves it up; draws spread around the centre."""

    def __init__(self, low: int, high: int, step: float = 0.25, spread: float = 2.5) -> None:
        self.low, self.high, self.step, self.spread = low, high, step, spread
        self.centre = (low + high) / 2

    def draw(self, count: int, rng: np.random.Generator) -> np.ndarray:
        return np.clip(np.rint(rng.normal(self.centre, self.spread, size=count)), self.low, self.high).astype(np.int64)

    def record(self, direction: int) -> None:
        """direction: -1 when the puzzle was easier than the order, +1 when harder, 0 when it fits."""
        self.centre = min(max(self.centre + self.step * direction, self.low), self.high)


def _neighbours(puzzle: np.ndarray, solution: np.ndarray, count: int, rng: np.random.Generator) -> np.ndarray:
    """(count, cells) variants of a puzzle: a given moved to an empty cell, removed, or an empty cell filled, each with
    the solution's digit; uniqueness is checked by the caller."""
    given, empty = np.flatnonzero(puzzle), np.flatnonzero(puzzle == 0)
    out = np.repeat(puzzle[None, :], count, axis=0)
    moves = rng.integers(3, size=count)  # 0 move, 1 remove, 2 add
    rows = np.arange(count)
    drop = rng.choice(given, size=count)
    fill = rng.choice(empty, size=count)
    out[rows[moves != 2], drop[moves != 2]] = 0
    out[rows[moves != 1], fill[moves != 1]] = solution[fill[moves != 1]]
    return out


def _above_level(level: int, step: Step) -> bool:
    """Whether a step is of a higher level than `level` (an index of LEVELS; Brute Force is above them all)."""
    return hardness(step.technique)[0] > level


@dataclass(frozen=True)
class _Seed:
    """A puzzle whose neighbours are worth trying: accepted, a near miss (its path uses the technique asked) or an
    exemplar; `origin` is what its neighbours are counted as."""

    puzzle: np.ndarray
    solution: np.ndarray
    depth: int  # moves from the first puzzle of its family
    family: int
    origin: str


class Maker:
    """Makes puzzles for one order, keeping statistics of what it tried per origin (for benchmarks).

    Rounds: the neighbours of an accepted puzzle while one waits; else, every other round, those of a near miss (a
    puzzle whose path uses the technique asked and a harder step: its neighbours often drop the harder step) while one
    waits; else fresh puzzles (which also steer the givens). At most NEAR_MISSES near misses wait (the newest are
    kept), and a family (one solution grid) gives at most `family_cap` puzzles, after which its seeds are dropped.
    With `exemplars` (a hardest-technique order on 9x9), HoDoKu's exemplar puzzles of the technique
    (data/techniques/hodoku_exemplars-1.0.txt), each under a random Sudoku symmetry, wait as near misses from the
    start: never written themselves, only their neighbours."""

    def __init__(self, order: Order, n: int = 9, seed: int = 0, *, neighbours: int = NEIGHBOUR_BATCH,
                 givens: tuple[int, int] | None = None, exemplars: bool = True, family_cap: int = FAMILY_CAP,
                 backend: str = "auto") -> None:
        if family_cap < 1:
            raise ValueError(f"family cap {family_cap}: expected 1 or more puzzles per solution grid")
        self.order, self.n, self.neighbours, self.backend = order, n, neighbours, backend
        self.family_cap = family_cap
        self.per_family: dict[int, int] = {}  # puzzles written per family
        self.rng = np.random.default_rng(seed)
        self.engine = Engine()
        # a hardest-technique order ends a path at its first step of a higher level: the rest cannot make it fit, and
        # the steps of higher levels (chains, ALS, forcing chains) are the slow ones. Steps of the same level go on, so
        # that a near miss is seen wherever on the path the technique asked comes.
        self.too_hard = None if order.hardest is None else partial(_above_level, hardness(order.hardest)[0])
        cells = n * n
        low, high = givens if givens is not None else (max(n - 1, round(0.2 * cells)), cells - 1)
        if not 0 < low <= high < cells:
            raise ValueError(f"givens {low}-{high}: expected 1 <= LOW <= HIGH < {cells}")
        self.chooser = _GivensChooser(low, high)
        self.seen: set[bytes] = set()
        self.accepted: list[_Seed] = []  # accepted puzzles whose neighbours are tried next
        self.near: list[_Seed] = []  # near misses (and exemplars) whose neighbours are tried when none is accepted
        self.round = 0
        self.families = 0  # puzzles that started a family (fresh ones accepted or near misses, exemplars)
        self.rated = {origin: 0 for origin in ORIGINS}  # candidates rated by the engine, per origin
        self.found = {origin: 0 for origin in ORIGINS}
        self.cpu_s = {origin: 0.0 for origin in ORIGINS}  # CPU seconds spent on each origin's rounds
        if exemplars and neighbours > 0 and n == 9 and order.hardest is not None:
            self._add_exemplars(order.hardest)

    def _add_exemplars(self, technique: str) -> None:
        boards = [b for code in by_name(technique).hodoku_codes for b in exemplar_puzzles(code)] \
            if technique != SEARCH_TECHNIQUE else []
        if not boards:
            return
        puzzles = np.array([b.values for b in boards], dtype=GRID_DTYPE)
        counts, solutions = solve_batch(puzzles.astype(np.int32), limit=2)
        unique = counts == 1
        puzzles, solutions = random_symmetry([puzzles[unique], solutions[unique]], self.n, self.rng)
        for puzzle, solution in zip(puzzles, solutions):
            self.seen.add(puzzle.tobytes())
            self.near.append(_Seed(puzzle, solution, 0, self.families, "exemplar"))
            self.families += 1

    def _rate(self, puzzles: np.ndarray, solutions: np.ndarray, origin: str, depth: int = 0,
              family: int | None = None) -> list[MadePuzzle]:
        """The engine's verdict on each unseen candidate: accepted ones are returned; they and near misses become
        seeds of neighbours while within NEIGHBOUR_DEPTH moves of their family's first puzzle (a fresh one starts a
        family)."""
        made = []
        for puzzle, solution in zip(puzzles, solutions):
            key = puzzle.tobytes()
            if key in self.seen:
                continue
            self.seen.add(key)
            board, answer = Board(puzzle.tolist(), self.n), Board(solution.tolist(), self.n)
            result = self.engine.solve(board, KnownSolutions(1, answer), stop_after=self.too_hard)
            direction = self.order.compare(result)
            self.rated[origin] += 1
            if origin == "fresh":
                self.chooser.record(direction)
            near = direction != 0 and self.order.hardest in result.technique_counts
            if direction != 0 and not near:
                continue
            line = family
            if line is None:
                line, self.families = self.families, self.families + 1
            if self.per_family.get(line, 0) >= self.family_cap:
                continue
            if depth < NEIGHBOUR_DEPTH:
                seed = _Seed(puzzle, solution, depth, line, "neighbour" if origin == "fresh" else origin)
                (self.near if near else self.accepted).append(seed)
                del self.near[:-NEAR_MISSES]
            if not near:
                self.found[origin] += 1
                self.per_family[line] = self.per_family.get(line, 0) + 1
                made.append(MadePuzzle(board, answer, result, origin, line))
        return made

    def _fresh(self) -> list[MadePuzzle]:
        grids = fresh_grids(self.n, FRESH_BATCH, self.rng, self.backend)
        puzzles = dig_unique(grids, self.chooser.draw(FRESH_BATCH, self.rng), self.n, self.rng, self.backend)
        return self._rate(puzzles, grids, "fresh")

    def _around(self, seed: _Seed) -> list[MadePuzzle]:
        variants = _neighbours(seed.puzzle, seed.solution, self.neighbours, self.rng)
        unique = count_batch(variants, self.n, 2, self.backend) == 1
        solutions = np.repeat(seed.solution[None, :], int(unique.sum()), axis=0)
        return self._rate(variants[unique], solutions, seed.origin, seed.depth + 1, seed.family)

    def rounds(self) -> Iterator[list[MadePuzzle]]:
        """One round after another, each with the puzzles it accepted (often none), without end."""
        while True:
            start = time.process_time()
            self.round += 1
            for pool in (self.accepted, self.near):  # a family that has given its share grows no more
                pool[:] = [s for s in pool if self.per_family.get(s.family, 0) < self.family_cap]
            seeds = (self.accepted or (self.near if self.round % 2 else None) or None) if self.neighbours > 0 else None
            if seeds is None:
                origin, made = "fresh", self._fresh()
            else:
                seed = seeds.pop(int(self.rng.integers(len(seeds))))
                origin, made = seed.origin, self._around(seed)
            self.cpu_s[origin] += time.process_time() - start
            yield made

    def puzzles(self) -> Iterator[MadePuzzle]:
        """Accepted puzzles without end, each one once."""
        for made in self.rounds():
            yield from made


def collect(maker: Maker, count: int, made: list[MadePuzzle], time_limit_s: float | None = None,
            progress: bool = False) -> list[MadePuzzle]:
    """Rounds of `maker` until `made` holds `count` puzzles, or `time_limit_s` seconds of wall time have passed
    (checked between rounds); `made` is appended to as puzzles come, so a caller interrupted keeps them."""
    end = None if time_limit_s is None else time.monotonic() + time_limit_s
    bar = progress_bar(total=count, unit="puzzle", desc=str(maker.order), file=sys.stderr, disable=not progress)
    try:
        for found in maker.rounds():
            taken = found[:count - len(made)]
            made.extend(taken)
            bar.update(len(taken))
            if len(made) >= count or (end is not None and time.monotonic() > end):
                break
    finally:
        bar.close()
    return made


def make_to_order(order: Order, count: int, seed: int = 0, *, n: int = 9, neighbours: int = NEIGHBOUR_BATCH,
                  givens: tuple[int, int] | None = None, exemplars: bool = True, family_cap: int = FAMILY_CAP,
                  time_limit_s: float | None = None, progress: bool = False) -> list[MadePuzzle]:
    """`count` unique puzzles of side n whose engine solve fits `order`, reproducibly by seed (a progress bar on
    stderr when asked); fewer when `time_limit_s` runs out first (a technique the engine never ends on is never
    found)."""
    if count < 1:
        raise ValueError(f"count {count}: expected a positive number of puzzles")
    maker = Maker(order, n, seed, neighbours=neighbours, givens=givens, exemplars=exemplars, family_cap=family_cap)
    return collect(maker, count, [], time_limit_s, progress)
