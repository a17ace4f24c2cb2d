"""Q3 for an open board: which techniques apply now, which to recommend, and the explained solving path.

The answer is a Report section (see questions.ReportSection): JSON keys `heuristics`, `recommended`, `steps`, `level`,
`score`, `guessed`, `stats`, and readable lines for the text report.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ltn_sudoku.board import Board, geometry
from ltn_sudoku.engine import Applicable, Engine, SolveResult
from ltn_sudoku.memory import MemoryTracker

MAX_STEPS_SHOWN = 400  # text report only; JSON always has the whole path


@dataclass(frozen=True)
class HeuristicsAnswer:
    """Q3's answer for one board."""

    board: Board
    found: tuple[Applicable, ...]
    ranked: tuple[Applicable, ...]
    result: SolveResult
    tracker: MemoryTracker = field(compare=False)

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
        }

    def describe(self) -> list[str]:
        r = self.result
        lines: list[str] = []
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


def answer_q3(board: Board, engine: Engine | None = None) -> HeuristicsAnswer:
    """Apply the engine to an open board: what applies now, the ranked recommendation and the whole path."""
    tracker = MemoryTracker()
    engine = (engine or Engine()).with_tracker(tracker)
    found = tuple(engine.applicable(board)) if board.is_consistent else ()
    result = engine.solve(board)
    return HeuristicsAnswer(board, found, tuple(engine.recommend(found)), result, tracker)
