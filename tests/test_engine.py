"""The technique engine: ordered pipeline, restart after each step, search fallback, levels and scores."""

from __future__ import annotations

import pytest

from ltn_sudoku.exact import count_solutions, solve
from ltn_sudoku.io import parse_board_text
from ltn_sudoku.questions.engine import SEARCH_TECHNIQUE, Engine, level_for
from ltn_sudoku.questions.memory import MemoryTracker
from ltn_sudoku.techniques import singles, subsets
from ltn_sudoku.techniques.base import Technique

SEED_9 = "2.14.....4...7358..5....6....9.2.8.1.23.1..5...8354..97..28.....15..93.6.6....74."
SEED_4 = "1.34" "34.2" "2143" "432."
HARD = "4...3.......6..8..........1....5..9..8....6...7.2........1.27..5.3....4.9........"  # top1465 #1
SINGLES: list[Technique] = list(singles.TECHNIQUES)


def test_seed_example_is_solved_by_logic_with_an_explained_path() -> None:
    board = parse_board_text(SEED_9)
    result = Engine(SINGLES).solve(board)
    assert result.solved and result.logic_only and not result.guessed
    assert result.final == solve(board)
    assert result.level == "Easy" and result.score == sum(
        next(t.score for t in SINGLES if t.name == s.technique) for s in result.steps)
    assert all(s.text.startswith(s.technique) for s in result.steps)
    assert len(result.steps) == board.cell_count - board.givens  # singles place one cell per step


def test_seed_4x4_example() -> None:
    result = Engine(SINGLES).solve(parse_board_text(SEED_4))
    assert result.solved and result.final == parse_board_text("1234341221434321")


def test_stuck_without_fallback_says_so() -> None:
    result = Engine(SINGLES, fallback=False).solve(parse_board_text(HARD))
    assert not result.solved and result.reason == "no technique of the pipeline applies"
    assert result.level is None


def test_fallback_is_reported_as_search_and_reaches_the_solution() -> None:
    board = parse_board_text(HARD)
    result = Engine(SINGLES).solve(board)
    assert result.solved and result.guessed and not result.logic_only
    assert result.final == solve(board)
    assert any(s.technique == SEARCH_TECHNIQUE for s in result.steps)
    assert result.level == "Extreme"


def test_board_without_solution() -> None:
    board = parse_board_text("123." "...." "...." "...4")  # consistent, but r1c4 has no digit left
    assert count_solutions(board) == 0
    result = Engine(SINGLES).solve(board)
    assert result.solutions == 0 and not result.solved and result.level is None
    assert "no solution" in (result.reason or "")


def test_conflicting_givens() -> None:
    result = Engine(SINGLES).solve(parse_board_text("11.." "...." "...." "...."))
    assert not result.solved and "conflict" in (result.reason or "")


def test_several_solutions_are_completed_by_search_without_uniqueness_techniques() -> None:
    board = parse_board_text("12.." "...." "...." "....")
    engine = Engine(SINGLES)
    assert all(not t.uniqueness for t in engine.techniques(4, unique=False))
    result = engine.solve(board)
    assert result.solutions == 2 and result.solved and result.guessed
    assert result.final is not None and result.final.is_valid_solution


def test_levels_follow_hodoku_thresholds() -> None:
    assert level_for([], 0) == "Easy"
    assert level_for(["Easy"], 801) == "Medium"
    assert level_for(["Medium", "Hard"], 500) == "Hard"
    assert level_for(["Hard"], 1700) == "Unfair"
    assert level_for(["Extreme"], 10) == "Extreme"


def test_tracker_sees_every_try_and_step() -> None:
    tracker = MemoryTracker()
    result = Engine(SINGLES, tracker=tracker).solve(parse_board_text(SEED_9))
    stats = tracker.stats_frame().set_index("technique")
    assert stats.applied.sum() == len(result.steps) == len(tracker.history)
    assert stats.loc["Full House", "tried"] >= stats.loc["Full House", "found"]


def test_applicable_and_recommend_rank_easiest_first() -> None:
    board = parse_board_text(SEED_9)
    engine = Engine(SINGLES + list(subsets.TECHNIQUES))
    found = engine.applicable(board)
    assert [a.technique.name for a in found] == [t.name for t in engine.techniques(9)]
    ranked = engine.recommend(found)
    assert ranked and all(a.count > 0 for a in ranked)
    names = [a.technique.name for a in ranked]
    assert names.index("Naked Single") < names.index("Hidden Single")


@pytest.mark.parametrize("unknown", ["Not A Technique"])
def test_unknown_technique_name_is_a_clear_error(unknown: str) -> None:
    with pytest.raises(ValueError, match="unknown technique"):
        Engine([unknown]).techniques(9)
