"""Q3 for an open board: which techniques apply now, which to recommend, and the explained solving path.

The answer is a Report section (see questions.ReportSection): JSON keys `heuristics`, `recommended`, `steps`, `level`,
`score`, `guessed`, `stats`, `heuristics_limit`, and readable lines for the text report.

Time budget. On large or sparse boards some finders (forcing chains, ALS, long chains) and a solving path that tries
every technique at every step cost minutes, so by default Q3 uses only the families that stay fast on the board's
size (LARGE_BOARD_FAMILIES from 16x16 up) and a CPU-time budget (Q3_BUDGET_S): techniques not surveyed in time are
named, and once the budget is spent the solving path goes on with search steps. `heuristics_limit` says what was
left out (null when nothing was); full=True (classify --full-analysis) lifts both limits.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

from ltn_sudoku.board import Board, geometry
from ltn_sudoku.candidates import CandidateGrid
from ltn_sudoku.engine import Applicable, Engine, KnownSolutions, SolveResult
from ltn_sudoku.memory import MemoryTracker
from ltn_sudoku.techniques.base import Technique

MAX_STEPS_SHOWN = 400  # text report only; JSON always has the whole path
# The families a default Q3 uses from 16x16 up: each finder of the others took seconds to minutes on one 16x16-81x81
# board (scripts/bench_classify.py --sizes measures the default answers; docs/cli.md has the figures).
LARGE_BOARD_FAMILIES: tuple[str, ...] = ("Singles", "Intersections", "Subsets", "Basic Fish", "Uniqueness",
                                         "Single Digit Patterns", "Wings", "Finned Fish", "Coloring")
LARGE_BOARD = 16
# CPU seconds for the survey and the solving path together: boards up to 16x16, and larger ones.
Q3_BUDGET_S = (1.2, 6.0)


@dataclass(frozen=True)
class HeuristicsAnswer:
    """Q3's answer for one board."""

    board: Board
    found: tuple[Applicable, ...]
    ranked: tuple[Applicable, ...]
    result: SolveResult
    tracker: MemoryTracker = field(compare=False)
    limit: str | None = None  # what the time budget left out; None when the answer is complete

    title = "Q3: solving techniques"

    def as_dict(self) -> dict[str, object]:
        geo = geometry(self.board.n)
        return {
            "heuristics": [{"name": a.technique.name, "applies": bool(a.steps), "count": a.count} for a in self.found],
            "recommended": [a.technique.name for a in self.ranked],
            "steps": [s.as_dict(geo) for s in self.result.steps],
            "level": self.result.level,
            "score": self.result.score,
            "guessed": self.result.guessed,
            "stats": self.tracker.to_dict()["stats"],
            "heuristics_limit": self.limit,
        }

    def describe(self) -> list[str]:
        r = self.result
        lines: list[str] = [f"Limited: {self.limit}"] if self.limit else []
        if not self.ranked:
            lines.append("No technique applies now.")
        else:
            best = self.ranked[0]
            lines.append(f"Recommended now: {best.technique.name} — {best.steps[0].text}")
            lines.append("Applicable now (easiest first): " + ", ".join(
                f"{a.technique.name} x{a.count}" for a in self.ranked))
        if r.solutions == 0:
            lines.append(f"No solving path: {r.reason}.")
            return lines
        how = "search was needed (Brute Force steps)" if r.guessed else "logic only"
        lines.append(f"Solving path: {len(r.steps)} steps, level {r.level}, score {r.score}, {how}.")
        width = len(str(len(r.steps)))
        for i, step in enumerate(r.steps[:MAX_STEPS_SHOWN], 1):
            lines.append(f"  {i:>{width}}. {step.text}")
        if len(r.steps) > MAX_STEPS_SHOWN:
            lines.append(f"  ... {len(r.steps) - MAX_STEPS_SHOWN} more steps (see --json)")
        lines.append("Technique statistics (memory tracker):")
        lines.extend("  " + line for line in self.tracker.summary().splitlines())
        return lines


def q3_budget(n: int) -> float:
    """The default CPU-time budget of Q3 for a board side."""
    return Q3_BUDGET_S[0] if n <= LARGE_BOARD else Q3_BUDGET_S[1]


def _until(technique: Technique, deadline: float) -> Technique:
    """The technique, finding nothing once the deadline has passed (the engine then takes a search step)."""
    finder = technique.finder
    return replace(technique, finder=lambda grid: [] if time.process_time() > deadline else finder(grid))


def answer_q3(board: Board, engine: Engine | None = None, full: bool = False,
              known: KnownSolutions | None = None) -> HeuristicsAnswer:
    """Apply the engine to an open board: what applies now, the ranked recommendation and the whole path; within
    the default time budget unless `full` (see the module docstring). `known`: the exact solver's answer for the
    board when the caller has counted (classify), so that it is not counted again."""
    tracker = MemoryTracker()
    engine = (engine or Engine()).with_tracker(tracker)
    if board.is_consistent and known is None:
        known = KnownSolutions.of(board)
    if full:
        found = tuple(engine.applicable(board, known=known)) if board.is_consistent else ()
        return HeuristicsAnswer(board, found, tuple(engine.recommend(found)), engine.solve(board, known), tracker)
    n = board.n
    budget = q3_budget(n)
    pipeline = engine.techniques(n, unique=known is not None and known.count == 1)
    start = time.process_time()  # after the first use's imports and compilation
    notes: list[str] = []
    if n >= LARGE_BOARD:
        dropped = {t.family for t in pipeline if t.family not in LARGE_BOARD_FAMILIES}
        pipeline = [t for t in pipeline if t.family in LARGE_BOARD_FAMILIES]
        if dropped:
            notes.append(f"on {n}x{n} boards only {', '.join(LARGE_BOARD_FAMILIES)} are used "
                         f"(left out: {', '.join(sorted(dropped))})")
    found: list[Applicable] = []
    if board.is_consistent:
        grid = CandidateGrid.from_board(board)
        for i, t in enumerate(pipeline):
            if time.process_time() > start + budget / 2:
                notes.append(f"{len(pipeline) - i} techniques not surveyed within {budget / 2:g} s")
                break
            found.append(Applicable(t, tuple(t.finder(grid))))
    limited = Engine([_until(t, start + budget) for t in pipeline], uniqueness=engine.uniqueness,
                     fallback=engine.fallback, tracker=tracker, max_steps=engine.max_steps)
    result = limited.solve(board, known)
    if time.process_time() > start + budget and result.guessed:
        notes.append(f"the solving path took search steps once the {budget:g} s budget was spent")
    limit = "; ".join(notes) + " (classify --full-analysis for everything)" if notes else None
    return HeuristicsAnswer(board, tuple(found), tuple(engine.recommend(found)), result, tracker, limit)
