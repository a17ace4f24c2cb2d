"""MemoryTracker: what the engine tried and applied, step by step and per technique.

The history answers "how was this solved?"; the statistics answer "which techniques pay off, and at what cost?"
(tried = finder calls, found = calls that found at least one step, applied = steps carried out; times are CPU
seconds).
Both export to pandas, CSV and JSON.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from ltn_sudoku.board import Geometry
from ltn_sudoku.candidates import Step
from ltn_sudoku.io import atomic_write_text, strict_json

STAT_COLUMNS = ("technique", "tried", "found", "applied", "placements", "eliminations", "time_s")


@dataclass
class TechniqueStats:
    """Counters of one technique."""

    technique: str
    tried: int = 0
    found: int = 0
    applied: int = 0
    placements: int = 0
    eliminations: int = 0
    time_s: float = 0.0


@dataclass(frozen=True)
class StepRecord:
    """One applied step, JSON-ready (0-based [row, col, digit] triples)."""

    index: int
    technique: str
    placements: list[list[int]]
    eliminations: list[list[int]]
    text: str
    time_s: float
    puzzle: int = 0


@dataclass
class MemoryTracker:
    """Collects every applied step and per-technique statistics; one tracker may span many puzzles.

    The applied steps are kept as they come and turned into StepRecords when `history` is first read: Q3 records
    every step of every board's path, and most answers never read the records."""

    stats: dict[str, TechniqueStats] = field(default_factory=dict)
    puzzles: int = 0
    _applied: list[tuple[Step, Geometry, float, int]] = field(default_factory=list, repr=False)
    _records: list[StepRecord] = field(default_factory=list, repr=False)

    @property
    def history(self) -> list[StepRecord]:
        """Every applied step, JSON-ready, in order."""
        for step, geo, seconds, puzzle in self._applied[len(self._records):]:
            d = step.as_dict(geo)
            self._records.append(StepRecord(len(self._records), step.technique, d["placements"],  # type: ignore[arg-type]
                                            d["eliminations"], step.text, seconds, puzzle))  # type: ignore[arg-type]
        return self._records

    def _stats(self, technique: str) -> TechniqueStats:
        s = self.stats.get(technique)
        if s is None:
            s = self.stats[technique] = TechniqueStats(technique)
        return s

    def start_puzzle(self) -> None:
        self.puzzles += 1

    def record_try(self, technique: str, found: int, seconds: float) -> None:
        """A finder call: how many steps it found and how long it took."""
        s = self._stats(technique)
        s.tried += 1
        s.found += found > 0
        s.time_s += seconds

    def record_step(self, step: Step, geo: Geometry, seconds: float = 0.0) -> None:
        """A step the engine applied."""
        s = self._stats(step.technique)
        s.applied += 1
        s.placements += len(step.placements)
        s.eliminations += len(step.eliminations)
        self._applied.append((step, geo, seconds, self.puzzles))

    # ---- exports --------------------------------------------------------------------------------------------------
    def steps_frame(self) -> pd.DataFrame:
        """One row per applied step."""
        rows = [asdict(r) | {"n_placements": len(r.placements), "n_eliminations": len(r.eliminations)}
                for r in self.history]
        return pd.DataFrame(rows, columns=["index", "puzzle", "technique", "placements", "eliminations", "n_placements",
                                           "n_eliminations", "text", "time_s"])

    def stats_frame(self) -> pd.DataFrame:
        """One row per technique that was tried, in first-tried order."""
        return pd.DataFrame([asdict(s) for s in self.stats.values()], columns=list(STAT_COLUMNS))

    def to_dict(self) -> dict[str, Any]:
        return {
            "puzzles": self.puzzles,
            "stats": [asdict(s) for s in self.stats.values()],
            "steps": [asdict(r) for r in self.history],
        }

    def to_json(self, path: str | Path | None = None) -> str:
        text = strict_json.dumps(self.to_dict(), indent=1)
        if path is not None:
            atomic_write_text(path, text + "\n")
        return text

    def to_csv(self, path: str | Path, table: str = "stats") -> None:
        """Write the 'stats' or the 'steps' table as CSV (atomically)."""
        frame = {"stats": self.stats_frame, "steps": self.steps_frame}.get(table)
        if frame is None:
            raise ValueError(f"unknown table {table!r}: expected 'stats' or 'steps'")
        atomic_write_text(path, frame().to_csv(index=False))

    def summary(self) -> str:
        """A readable per-technique table (for the CLI report)."""
        df = self.stats_frame()
        if df.empty:
            return "(no technique tried)"
        df = df.assign(time_ms=(df.time_s * 1000).round(2)).drop(columns="time_s")
        return df.to_string(index=False)
