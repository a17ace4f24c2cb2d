"""The human-technique engine: easiest technique that makes progress, restart from the easiest after each step.

When no technique applies, the engine falls back to exact search and says so: it places one cell of the solution
(a "Brute Force" step, as HoDoKu does) and goes on with logic; the result is marked `guessed`. Level and score
follow HoDoKu 2.2: the score is the sum of the applied steps' scores, the level the hardest technique used, bumped
up while the score exceeds the level's maximum (Easy 800, Medium 1000, Hard 1600, Unfair 1800).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Iterable, Sequence

from ltn_sudoku.board import Board
from ltn_sudoku.candidates import CandidateGrid, Contradiction, GridSummary, Step
from ltn_sudoku.exact import solutions as exact_solutions
from ltn_sudoku.questions.memory import MemoryTracker
from ltn_sudoku.techniques.base import Technique
from ltn_sudoku.techniques.registry import by_name, priority, resolve

LEVELS: tuple[str, ...] = ("Easy", "Medium", "Hard", "Unfair", "Extreme")
LEVEL_MAX_SCORE: dict[str, float] = {"Easy": 800, "Medium": 1000, "Hard": 1600, "Unfair": 1800, "Extreme": float("inf")}
SEARCH_TECHNIQUE = "Brute Force"
SEARCH_SCORE = 10_000  # HoDoKu's score for a brute-force step


def level_for(levels_used: Iterable[str], score: int) -> str:
    """HoDoKu's rule: the hardest level used, bumped while the score exceeds that level's maximum."""
    index = max((LEVELS.index(lv) for lv in levels_used), default=0)
    while score > LEVEL_MAX_SCORE[LEVELS[index]] and index < len(LEVELS) - 1:
        index += 1
    return LEVELS[index]


def hardness(technique: str) -> tuple[int, int, float]:
    """The sort key of 'harder' between the techniques of a path: level, then score, then HoDoKu's priority (a
    Brute Force step is harder than any technique). The hardest step of a solve is the one with the largest key."""
    if technique == SEARCH_TECHNIQUE:
        return len(LEVELS), SEARCH_SCORE, float("inf")
    row = by_name(technique)
    return LEVELS.index(row.level), row.score, priority(row)


@dataclass(frozen=True)
class Applicable:
    """What one technique finds on a grid right now."""

    technique: Technique
    steps: tuple[Step, ...]

    @property
    def count(self) -> int:
        return len(self.steps)

    @property
    def progress(self) -> int:
        """Candidates settled by the best step: placements count as the candidates they remove."""
        return max((len(s.placements) * 4 + len(s.eliminations) for s in self.steps), default=0)


@dataclass(frozen=True)
class KnownSolutions:
    """What the exact solver already said of a board: min(#solutions, 2) and its first solution (None when there is
    none). A caller that has counted (classify) hands it on, sparing the engine a second count: on a sparse large
    board one count can take tens of seconds."""

    count: int
    first: Board | None

    @classmethod
    def of(cls, board: Board) -> KnownSolutions:
        found = exact_solutions(board, 2)
        return cls(len(found), found[0] if found else None)


@dataclass
class SolveResult:
    """The explained solving path of one puzzle."""

    puzzle: Board
    steps: list[Step] = field(default_factory=list)
    final: Board | None = None
    solutions: int = 0  # 0, 1 or 2 (= at least two), from the exact solver
    solved: bool = False  # the path reached a complete grid
    guessed: bool = False  # search was needed (Brute Force steps)
    score: int = 0
    level: str | None = None  # None when the puzzle has no solution
    reason: str | None = None  # why the path stopped early, if it did
    start: GridSummary | None = None  # the candidate grid of the givens (None when they clash)
    end: GridSummary | None = None  # the candidate grid where the path ended

    @property
    def logic_only(self) -> bool:
        return self.solved and not self.guessed

    @property
    def technique_counts(self) -> dict[str, int]:
        """Steps per technique (Brute Force included), in the order each technique first appears on the path."""
        counts: dict[str, int] = {}
        for step in self.steps:
            counts[step.technique] = counts.get(step.technique, 0) + 1
        return counts

    @property
    def hardest(self) -> str | None:
        """The hardest technique the path used (by `hardness`); None for a path without steps."""
        return max(self.technique_counts, key=hardness, default=None)


def _best_step(steps: Sequence[Step]) -> Step:
    """The step with the most effect (placements first); the finder's order breaks ties."""
    return max(steps, key=lambda s: (len(s.placements), len(s.eliminations)))


class Engine:
    """An ordered technique pipeline with a search fallback.

    `techniques`: names (or Technique objects) in the order to try them; None = every technique in HoDoKu's order.
    `uniqueness`: allow techniques that assume a unique solution (they are always off for boards without one).
    `fallback`: when stuck, place one solution cell found by exact search (marked `guessed`) instead of stopping.
    `gate`: asked before each finder call of a solving path (Q3's work budget, ltn_sudoku.questions.q3); when it says
    no, the technique finds nothing (and the fallback takes a search step).
    """

    def __init__(
        self,
        techniques: Sequence[str | Technique] | None = None,
        *,
        uniqueness: bool = True,
        fallback: bool = True,
        tracker: MemoryTracker | None = None,
        max_steps: int = 100_000,
        gate: Callable[[Technique, CandidateGrid], bool] | None = None,
    ) -> None:
        self._requested = techniques
        self.uniqueness = uniqueness
        self.fallback = fallback
        self.tracker = tracker
        self.max_steps = max_steps
        self.gate = gate

    def techniques(self, size: int, unique: bool = True) -> list[Technique]:
        """The pipeline for a board side; uniqueness techniques only when allowed and the puzzle is unique."""
        allow = self.uniqueness and unique
        req = self._requested
        if req is not None and all(isinstance(t, Technique) for t in req):
            chosen = [t for t in req if isinstance(t, Technique)]
            return [t for t in chosen if (allow or not t.uniqueness) and size >= t.min_n]
        names = None if req is None else [t.name if isinstance(t, Technique) else t for t in req]
        return resolve(names, uniqueness=allow, size=size)

    def with_tracker(self, tracker: MemoryTracker | None) -> Engine:
        """The same pipeline recording into another tracker."""
        return Engine(self._requested, uniqueness=self.uniqueness, fallback=self.fallback, tracker=tracker,
                      max_steps=self.max_steps, gate=self.gate)

    # ---- one step -------------------------------------------------------------------------------------------------
    def _run(self, technique: Technique, grid: CandidateGrid) -> list[Step]:
        """The steps a solving path chooses from: the finder's, or only its first where that is the one `_best_step`
        takes (Technique.first: the singles)."""
        start = time.process_time()  # CPU time: comparable across runs on a busy machine
        finder = technique.first or technique.finder
        steps = finder(grid) if self.gate is None or self.gate(technique, grid) else []
        if self.tracker is not None:
            self.tracker.record_try(technique.name, len(steps), time.process_time() - start)
        return steps

    def next_step(self, grid: CandidateGrid, pipeline: Sequence[Technique]) -> tuple[Technique, Step] | None:
        """The first technique in order that finds something, and its best step."""
        for technique in pipeline:
            steps = self._run(technique, grid)
            if steps:
                return technique, _best_step(steps)
        return None

    def applicable(self, board: Board, grid: CandidateGrid | None = None,
                   known: KnownSolutions | None = None) -> list[Applicable]:
        """Every technique of the pipeline with the steps it finds on the board now (empty when it does not apply).

        A survey, not part of a solving path: the tracker does not record it."""
        grid = grid or CandidateGrid.from_board(board)
        unique = (known or KnownSolutions.of(board)).count == 1
        return [Applicable(t, tuple(t.finder(grid))) for t in self.techniques(board.n, unique)]

    @staticmethod
    def recommend(found: Sequence[Applicable]) -> list[Applicable]:
        """Applicable techniques ranked: easiest (HoDoKu order) first, more progress first among equals."""
        return sorted((a for a in found if a.steps), key=lambda a: (priority(a.technique), -a.progress))

    # ---- the whole path -------------------------------------------------------------------------------------------
    def solve(self, board: Board, known: KnownSolutions | None = None,
              stop_after: Callable[[Step], bool] | None = None, candidates: CandidateGrid | None = None) -> SolveResult:
        """Solve by techniques, falling back to search when stuck (if allowed); explained step by step. `known`: the
        exact solver's answer for the board when the caller has it (otherwise the engine counts). `stop_after`: the
        path ends after a step it says yes to (the puzzle generator's early exit once a step is too hard). `candidates`:
        the board's candidate grid when the caller has built it (Q3's survey); the path works on a copy."""
        result = SolveResult(puzzle=board)
        if self.tracker is not None:
            self.tracker.start_puzzle()
        try:
            grid = CandidateGrid.from_board(board) if candidates is None else candidates.copy()
        except Contradiction as e:
            result.reason = f"the givens conflict: {e}"
            result.final = board
            return result
        result.start = grid.summary()
        known = known or KnownSolutions.of(board)
        result.solutions = known.count
        reference = known.first
        if reference is None:
            result.reason = "the puzzle has no solution" + (f" ({grid.dead_end()})" if grid.dead_end() else "")
            result.final, result.end = board, result.start
            return result
        pipeline = self.techniques(board.n, unique=known.count == 1)
        levels: list[str] = []
        for _ in range(self.max_steps):
            if grid.is_solved:
                break
            start = time.process_time()
            hit = self.next_step(grid, pipeline)
            if hit is None:
                if not self.fallback:
                    result.reason = "no technique of the pipeline applies"
                    break
                technique_level, step = "Extreme", self._search_step(grid, reference)
                score = SEARCH_SCORE
                result.guessed = True
            else:
                technique, step = hit
                technique_level, score = technique.level, technique.score
            grid.apply(step)
            result.steps.append(step)
            result.score += score
            levels.append(technique_level)
            if self.tracker is not None:
                self.tracker.record_step(step, grid.geo, time.process_time() - start)
            if stop_after is not None and stop_after(step):
                result.reason = f"stopped after a {step.technique} step, as asked"
                break
        else:
            result.reason = f"stopped after {self.max_steps} steps"
        result.final = grid.to_board()
        result.end = grid.summary()
        result.solved = grid.is_solved
        if result.solved:
            result.level = level_for(levels, result.score)
        return result

    @staticmethod
    def _search_step(grid: CandidateGrid, solution: Board) -> Step:
        """Place the solution's digit in the empty cell with the fewest candidates (HoDoKu's brute-force step)."""
        cell = min(grid.empty_cells(), key=lambda c: (grid.count(c), c))
        digit = solution.values[cell]
        if not grid.has(cell, digit):
            # earlier steps assumed uniqueness and removed this solution's digit: the puzzle has several solutions
            raise Contradiction(f"{grid.geo.cell_name(cell)}: solution digit {digit} was eliminated")
        name = grid.geo.cell_name(cell)
        return Step(SEARCH_TECHNIQUE, placements=((cell, digit),), cells=(cell,), digits=(digit,),
                    text=f"{SEARCH_TECHNIQUE}: {name}={digit} (no technique applies; value taken from exact search)")


def build(techniques: str | Sequence[str] | None = None, uniqueness: bool = True, *, fallback: bool = True,
          tracker: MemoryTracker | None = None) -> Engine:
    """An engine from plain arguments: `techniques` as names or one comma-separated string (None: all, HoDoKu's
    order). Unknown names raise ValueError here, before any board is answered."""
    if isinstance(techniques, str):
        techniques = [t.strip() for t in techniques.split(",") if t.strip()] or None
    engine = Engine(techniques, uniqueness=uniqueness, fallback=fallback, tracker=tracker)
    engine.techniques(9)  # resolve the names now
    return engine
