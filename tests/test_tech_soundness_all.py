"""Soundness of every registered technique at once, through the engine: every step of the engine's path, and every
step of every finder on sampled states of that path, checked against the unique solution (the exact solver).

The sweep is the one of scripts/bench_techniques.py (its full run covers 10,000+ puzzles: docs/techniques.md).
"""

from __future__ import annotations

import random

import pytest

from ltn_sudoku.board import Board
from ltn_sudoku.candidates import CandidateGrid, Step
from ltn_sudoku.questions.engine import Engine
from ltn_sudoku.techniques.base import Technique
from ltn_sudoku.techniques.registry import all_techniques, resolve
from scripts.bench_techniques import CORPORA, SoundnessTally, _file_pairs, run_soundness, sweep_puzzle

# the benchmark's corpora, with the shipped sample of the 17-clue list (data/README.md) for the list of the data home
SHIPPED_CORPORA = {**CORPORA, "17clue": _file_pairs("9x9/17clue_sample1000.txt", None)}

FAST_SAMPLE: dict[str, int] = {"top1465": 15, "qqwing_expert": 20, "17clue": 20, "gen4x4": 35, "gen16x16": 10}
SLOW_SAMPLE: dict[str, int] = {"top1465": 100, "17clue": 150, "qqwing_simple": 50, "qqwing_easy": 50,
                               "qqwing_intermediate": 75, "qqwing_expert": 100, "gen4x4": 200, "gen16x16": 20,
                               "gen16x16_hard": 3}  # 748 puzzles, for CI's time; the benchmark sweeps 10,000+

# Fewer than 70 checked steps each in the full 10,125-puzzle sweep (docs/techniques.md): not asserted on a sample.
RARE_ON_CORPORA: frozenset[str] = frozenset({"Uniqueness Test 5", "Uniqueness Test 6", "Avoidable Rectangle Type 1",
                                             "Avoidable Rectangle Type 2"})


def _sweep(sample: dict[str, int], survey_share: float, seed: int) -> SoundnessTally:
    engine = Engine()
    tally = SoundnessTally()
    rng = random.Random(seed)
    for name, count in sample.items():
        for puzzle, solution in SHIPPED_CORPORA[name](count, seed):
            sweep_puzzle(engine, puzzle, solution, rng, survey_share, tally)
    return tally


def test_every_step_of_every_technique_is_sound_on_a_hundred_puzzles() -> None:
    tally = _sweep(FAST_SAMPLE, survey_share=0.3, seed=11)
    assert tally.puzzles == sum(FAST_SAMPLE.values()) and tally.not_unique == 0
    assert not tally.failures, "\n".join(tally.failures[:10])
    checked = tally.path + tally.survey
    assert sum(tally.path.values()) > 5000 and sum(tally.survey.values()) > 2000
    assert tally.survey["Naked Single"] + tally.survey["Hidden Single"] > 0  # 'mixed' surveys reach singles' states
    # the sample reaches well beyond singles: most families fire somewhere
    fired_families = {t.family for t in all_techniques() if checked[t.name]}
    assert len(fired_families) >= 9, sorted(fired_families)


def test_the_sweep_reports_an_unsound_step() -> None:
    """A technique that removes the solution's digit must be caught, on the path and in the survey."""
    [(puzzle, solution)] = CORPORA["qqwing_easy"](1, 0)
    start = CandidateGrid.from_board(puzzle)
    cell = next(c for c in start.empty_cells() if start.count(c) > 1)

    def wrong(grid: CandidateGrid) -> list[Step]:
        """Removes the solution's digit from one cell, once."""
        if not grid.has(cell, solution.values[cell]):
            return []
        return [Step("Wrong", eliminations=((cell, solution.values[cell]),), cells=(cell,), text="wrong")]

    bogus = Technique("Wrong", "Test", wrong, score=1, level="Easy")
    engine = Engine([bogus, *resolve(["Naked Single", "Hidden Single"])], fallback=False)
    tally = SoundnessTally()
    sweep_puzzle(engine, puzzle, solution, random.Random(0), survey_share=1.0, tally=tally)
    assert tally.path["Wrong"] == tally.survey["Wrong"] == 1 and tally.failed["Wrong"] == 2
    assert any("unsound elimination" in f for f in tally.failures)


def test_multiple_solution_puzzles_are_set_aside() -> None:
    board = Board([0] * 16, 4)
    tally = SoundnessTally()
    sweep_puzzle(Engine(), board, Board([1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1], 4), random.Random(0), 1.0,
                 tally)
    assert tally.not_unique == 1 and not tally.path


@pytest.mark.slow
def test_every_step_is_sound_on_thousands_of_puzzles() -> None:
    """748 puzzles of every corpus (4x4, 9x9 of five kinds, easy and hard 16x16), a fifth of them surveyed."""
    tally = _sweep(SLOW_SAMPLE, survey_share=0.2, seed=12)
    assert tally.puzzles == sum(SLOW_SAMPLE.values()) and tally.not_unique == 0
    assert not tally.failures, "\n".join(tally.failures[:10])
    assert sum(tally.path.values()) > 35_000  # 38,747 with this sample
    assert all(tally.path[t.name] + tally.survey[t.name] > 0 for t in all_techniques()
               if t.name not in RARE_ON_CORPORA), \
        [t.name for t in all_techniques() if not tally.path[t.name] + tally.survey[t.name]]


def test_run_soundness_keeps_one_tally_per_corpus() -> None:
    tallies = run_soundness(["gen4x4", "qqwing_simple"], limit=3, survey_share=1.0, seed=0)
    assert list(tallies) == ["gen4x4", "qqwing_simple"]
    assert all(t.puzzles == 3 and t.states == 3 and not t.failures for t in tallies.values())
