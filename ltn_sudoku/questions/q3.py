"""Q3 for an open board: which techniques apply now, which to recommend, and the explained solving path.

The answer is a Report section (questions.report.ReportSection): JSON keys `heuristics`, `survey`, `recommended`,
`steps`, `level`, `score`, `guessed`, `stats`, `heuristics_limit`, and readable lines for the text report.

The survey ("what applies now") costs in proportion to the board's difficulty: by default ("tiered") it tries the
techniques in order of difficulty (HoDoKu's), a tier at a time (a tier: consecutive techniques of one family), and
stops after the first tier where something applies. That tier holds the easiest applicable technique, so the
recommendation is the one the complete survey gives, at the cost of the easy finders alone on an easy board;
`survey="complete"` (classify --full-survey) tries every technique.

Budget. On large or sparse boards some finders (forcing chains, ALS, long chains) and a solving path that tries every
technique at every step cost minutes, so by default Q3 uses only the families that stay fast on the board's size
(the rows of techniques/families.py flagged `large_boards`, from 16x16 up) and a budget of work (Q3_WORK_BUDGET):
each finder call costs its family's work rate (the row's `work`) times the candidates on the grid, so one board
gets one answer on every machine, whatever its speed or load. Once half the budget is spent the survey stops; once all of it is, the solving path goes on with search
steps. A CPU-time guard (Q3_GUARD_S, several times what the budget costs) remains only as a safety net against a cost
the model misjudges, and the answer says when it fired. `heuristics_limit` says what was left out (null when nothing
was); full=True (classify --full-analysis) lifts every limit and surveys completely.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import asdict, dataclass, field
from typing import Literal, Sequence

from ltn_sudoku.board import Board, geometry
from ltn_sudoku.candidates import CandidateGrid
from ltn_sudoku.questions.engine import Applicable, Engine, KnownSolutions, SolveResult
from ltn_sudoku.questions.memory import MemoryTracker
from ltn_sudoku.techniques.base import Technique
from ltn_sudoku.techniques.families import BY_NAME, LARGE_BOARD_FAMILIES
from ltn_sudoku.techniques.registry import priority

MAX_STEPS_SHOWN = 400  # text report only; JSON always has the whole path
LARGE_BOARD = 16  # from this side up, Q3 uses only the families of LARGE_BOARD_FAMILIES (techniques/families.py)
Survey = Literal["tiered", "complete"]
SURVEYS: tuple[str, ...] = ("tiered", "complete")
# Work units for the survey and the solving path together (boards up to 16x16, and larger ones). About 10 million
# units took a CPU second on the machine that measured the work rates; the costliest of 200 top1465 boards took
# 18.5 million (1.15 CPU s), so the 9x9 budget leaves every recorded answer whole (tests/test_q3_answers.py).
Q3_WORK_BUDGET = (30_000_000, 60_000_000)
# The CPU-seconds safety net (boards up to 16x16, larger ones): only a cost far beyond the model's reaches it.
Q3_GUARD_S = (10.0, 60.0)
GUARD_EVERY = 16  # finder calls between two readings of the safety net's clock (WorkMeter.allows)


@dataclass(frozen=True)
class Q3Answer:
    """Q3's answer for one board."""

    board: Board
    found: tuple[Applicable, ...]
    ranked: tuple[Applicable, ...]
    result: SolveResult
    tracker: MemoryTracker = field(compare=False)
    limit: str | None = None  # what the budget left out; None when the answer is complete
    survey: Survey = "complete"
    pipeline_size: int = 0  # techniques the survey could have tried

    title = "Q3: solving techniques"

    def as_dict(self) -> dict[str, object]:
        geo = geometry(self.board.n)
        return {
            "heuristics": [{"name": a.technique.name, "applies": bool(a.steps), "count": a.count} for a in self.found],
            "survey": self.survey,
            "recommended": [a.technique.name for a in self.ranked],
            "steps": [s.as_dict(geo) for s in self.result.steps],
            "level": self.result.level,
            "score": self.result.score,
            "guessed": self.result.guessed,
            "stats": [asdict(s) for s in self.tracker.stats.values()],
            "heuristics_limit": self.limit,
        }

    def _survey_line(self) -> str:
        if self.survey == "complete":
            return f"Survey: complete ({len(self.found)} of {self.pipeline_size} techniques tried)."
        last = self.found[-1].technique.family if self.found else "none"
        return (f"Survey: tiered, easiest first, up to the first family that applies ({last}): {len(self.found)} of "
                f"{self.pipeline_size} techniques tried (classify --full-survey tries all).")

    def describe(self) -> list[str]:
        r = self.result
        lines: list[str] = [f"Limited: {self.limit}"] if self.limit else []
        lines.append(self._survey_line())
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


def q3_work_budget(n: int) -> int:
    """The default work budget of Q3 for a board side."""
    return Q3_WORK_BUDGET[0] if n <= LARGE_BOARD else Q3_WORK_BUDGET[1]


def q3_guard(n: int) -> float:
    """The CPU-seconds safety net of Q3 for a board side."""
    return Q3_GUARD_S[0] if n <= LARGE_BOARD else Q3_GUARD_S[1]


def finder_work(technique: Technique, grid: CandidateGrid) -> int:
    """The work units one call of the technique's finder costs on the grid: its family's work rate per candidate
    (every registered technique's family has a row: registry.check_family). The candidates are counted per digit
    (n place sets) rather than per cell (n² masks): the same count, at every finder call of a solving path."""
    return BY_NAME[technique.family].work * sum(map(int.bit_count, grid.digit_cells))


@dataclass
class WorkMeter:
    """The work Q3's finder calls have spent against its budget, and the CPU-time safety net."""

    budget: int
    guard_deadline: float  # time.process_time() past which the safety net stops every finder
    spent: int = 0
    guard_fired: bool = False
    asked: int = 0  # calls of `allows`: the clock is read on every GUARD_EVERY-th

    def allows(self, share: float = 1.0) -> bool:
        """Whether less than `share` of the budget is spent and the safety net has not fired. The net reads the CPU
        clock every GUARD_EVERY calls, not at each: a reading costs about a fifth of a microsecond, a few per cent of
        a singles step, and the net is for costs many seconds beyond the budget."""
        self.asked += 1
        if not self.guard_fired and self.asked % GUARD_EVERY == 0 and time.process_time() > self.guard_deadline:
            self.guard_fired = True
        return self.spent < self.budget * share and not self.guard_fired

    def charge(self, technique: Technique, grid: CandidateGrid) -> None:
        self.spent += finder_work(technique, grid)

    def admit(self, technique: Technique, grid: CandidateGrid) -> bool:
        """The engine's gate (Engine.gate): charge the call to the meter, or refuse it once the budget is spent (the
        engine then takes a search step)."""
        if not self.allows():
            return False
        self.charge(technique, grid)
        return True


def survey_tiers(pipeline: Sequence[Technique]) -> list[list[Technique]]:
    """The pipeline in order of difficulty (HoDoKu's priorities), cut into tiers of consecutive techniques of one
    family. Tiers are contiguous in priority, so the first tier where something applies holds the easiest
    applicable technique."""
    ordered = sorted(pipeline, key=priority)  # stable: the pipeline's order among equal priorities
    return [list(tier) for _, tier in itertools.groupby(ordered, key=lambda t: t.family)]


def _survey(grid: CandidateGrid, pipeline: Sequence[Technique], mode: Survey,
            meter: WorkMeter | None) -> tuple[list[Applicable], str | None]:
    """What applies now: every technique (complete) or tier by tier up to the first that applies (tiered); and what
    the budget left out, if anything."""
    tiers = [list(pipeline)] if mode == "complete" else survey_tiers(pipeline)
    found: list[Applicable] = []
    for tier in tiers:
        for t in tier:
            if meter is not None and not meter.allows(0.5):
                untried = len(pipeline) - len(found)
                return found, f"{untried} techniques not surveyed within half the budget"
            if meter is not None:
                meter.charge(t, grid)
            found.append(Applicable(t, tuple(t.finder(grid))))
        if mode == "tiered" and any(a.steps for a in found):
            break
    return found, None


def answer_q3(board: Board, engine: Engine | None = None, full: bool = False,
              known: KnownSolutions | None = None, survey: Survey = "tiered") -> Q3Answer:
    """Apply the engine to an open board: what applies now (`survey`, see the module docstring), the ranked
    recommendation and the whole path; within the default work budget unless `full`, which also surveys completely.
    `known`: the exact solver's answer for the board when the caller has counted (classify), so that it is not
    counted again."""
    if survey not in SURVEYS:
        raise ValueError(f"unknown survey {survey!r}: expected one of {', '.join(SURVEYS)}")
    tracker = MemoryTracker()
    engine = (engine or Engine()).with_tracker(tracker)
    consistent = board.is_consistent
    if consistent and known is None:
        known = KnownSolutions.of(board)
    mode: Survey = "complete" if full else survey
    n = board.n
    pipeline = engine.techniques(n, unique=known is not None and known.count == 1)
    notes: list[str] = []
    meter = None
    if not full:
        meter = WorkMeter(q3_work_budget(n), time.process_time() + q3_guard(n))  # after first-use imports
        if n >= LARGE_BOARD:
            dropped = {t.family for t in pipeline if t.family not in LARGE_BOARD_FAMILIES}
            pipeline = [t for t in pipeline if t.family in LARGE_BOARD_FAMILIES]
            if dropped:
                notes.append(f"on {n}x{n} boards only {', '.join(LARGE_BOARD_FAMILIES)} are used "
                             f"(left out: {', '.join(sorted(dropped))})")
    found: list[Applicable] = []
    grid = None
    if consistent:
        grid = CandidateGrid.from_board(board)
        found, cut = _survey(grid, pipeline, mode, meter)  # finders only read the grid (soundness.run_pure)
        notes += [cut] if cut else []
    if meter is None:
        result = engine.solve(board, known, candidates=grid)
    else:
        limited = Engine(pipeline, uniqueness=engine.uniqueness, fallback=engine.fallback, tracker=tracker,
                         max_steps=engine.max_steps, gate=meter.admit)
        result = limited.solve(board, known, candidates=grid)
        if not meter.allows() and result.guessed:
            notes.append(f"the solving path took search steps once the {meter.budget:,} work units were spent")
        if meter.guard_fired:
            notes.append(f"safety net: the CPU-time guard ({q3_guard(n):g} s) stopped the finders, so this answer "
                         "depends on the machine's speed and load")
    limit = "; ".join(notes) + " (classify --full-analysis for everything)" if notes else None
    return Q3Answer(board, tuple(found), tuple(engine.recommend(found)), result, tracker, limit, mode,
                            len(pipeline))
