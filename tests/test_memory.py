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


def test_history_read_between_steps_keeps_growing_in_order() -> None:
    """The records are built when `history` is read: a read between steps, and steps of a second puzzle after it,
    give one record per applied step, numbered in order, each with its puzzle."""
    t = _tracker()
    assert [r.index for r in t.history] == [0, 1]
    t.start_puzzle()
    t.record_step(Step("Full House", placements=((80, 9),), text="Full House: r9c9=9"), geometry(9), 0.5)
    records = t.history
    assert [(r.index, r.technique, r.puzzle) for r in records] == [
        (0, "Hidden Single", 1), (1, "Naked Single", 1), (2, "Full House", 2)]
    assert records[2].placements == [[8, 8, 9]] and records[2].time_s == 0.5 and records[2].text.startswith("Full")
    assert t.history is records and len(t.to_dict()["steps"]) == 3


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
