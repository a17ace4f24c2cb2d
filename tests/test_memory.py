"""MemoryTracker: counters, history and exports."""

import json

import pandas as pd

from ltn_sudoku.board import geometry
from ltn_sudoku.candidates import Step
from ltn_sudoku.questions.memory import STAT_COLUMNS, MemoryTracker


def _tracker() -> MemoryTracker:
    t = MemoryTracker()
    t.start_puzzle()
    t.record_try("Naked Single", 0, 0.001)
    t.record_try("Hidden Single", 2, 0.002)
    t.record_step(Step("Hidden Single", placements=((10, 3),), text="Hidden Single: r2c2=3"), geometry(9), 0.002)
    t.record_try("Naked Single", 1, 0.001)
    t.record_step(Step("Naked Single", placements=((0, 1),), eliminations=((1, 2),), text="x"), geometry(9))
    return t


def test_statistics_count_tries_finds_and_effects() -> None:
    stats = _tracker().stats_frame().set_index("technique")
    assert list(stats.reset_index().columns) == list(STAT_COLUMNS)
    assert stats.loc["Naked Single", "tried"] == 2 and stats.loc["Naked Single", "found"] == 1
    assert stats.loc["Hidden Single", "applied"] == 1 and stats.loc["Hidden Single", "placements"] == 1
    assert stats.loc["Naked Single", "eliminations"] == 1
    assert abs(stats.loc["Naked Single", "time_s"] - 0.002) < 1e-9


def test_history_uses_zero_based_triples() -> None:
    steps = _tracker().steps_frame()
    assert steps.loc[0, "placements"] == [[1, 1, 3]]
    assert list(steps.technique) == ["Hidden Single", "Naked Single"]


def test_exports_round_trip(tmp_path) -> None:
    t = _tracker()
    t.to_csv(tmp_path / "stats.csv")
    t.to_csv(tmp_path / "steps.csv", table="steps")
    assert pd.read_csv(tmp_path / "stats.csv").shape == (2, len(STAT_COLUMNS))
    assert pd.read_csv(tmp_path / "steps.csv").shape[0] == 2
    data = json.loads(t.to_json(tmp_path / "m.json"))
    assert json.loads((tmp_path / "m.json").read_text()) == data
    assert data["puzzles"] == 1 and len(data["steps"]) == 2
    assert "Hidden Single" in t.summary()
