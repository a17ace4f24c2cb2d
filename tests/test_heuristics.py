"""Q3: the techniques that apply now, the recommendation and the explained path, as a Report section."""

from __future__ import annotations

import json

import pytest

from ltn_sudoku.board import Board
from ltn_sudoku.exact import solve
from ltn_sudoku.io import parse_board_text
from ltn_sudoku.questions.engine import Engine, KnownSolutions
from ltn_sudoku.questions.q3 import answer_q3
from ltn_sudoku.questions.report import classify
from ltn_sudoku.questions.text import render_report
from ltn_sudoku.techniques import singles, subsets

SEED_9 = "2.14.....4...7358..5....6....9.2.8.1.23.1..5...8354..97..28.....15..93.6.6....74."
SEED_SOLUTION = "281465973496173582357892614549627831623918457178354269734286195815749326962531748"


def test_seed_example_gets_q3_in_json_and_text() -> None:
    report = classify(parse_board_text(SEED_9))
    data = json.loads(json.dumps(report.as_dict()))
    assert data["solution"] == SEED_SOLUTION
    assert data["level"] == "Easy" and data["guessed"] is False and data["score"] > 0
    names = [h["name"] for h in data["heuristics"]]
    assert names[:3] == ["Full House", "Naked Single", "Hidden Single"]
    assert all(set(h) == {"name", "applies", "count"} for h in data["heuristics"])
    assert all(h["applies"] == (h["count"] > 0) for h in data["heuristics"])
    assert data["recommended"][0] == "Naked Single"  # no full house at the start, 18 naked singles
    # the path, replayed from its 0-based triples, reaches the solution
    values = list(parse_board_text(SEED_9).values)
    for step in data["steps"]:
        assert set(step) == {"technique", "placements", "eliminations", "text"}
        for r, c, d in step["placements"]:
            values[r * 9 + c] = d
    assert Board(values).to_line() == SEED_SOLUTION
    text = render_report(report)
    assert "Q3" in text and "Solving path" in text and "Naked Single: r1c7=9" in text


def test_counts_are_what_each_finder_finds_now() -> None:
    board = parse_board_text(SEED_9)
    engine = Engine(list(singles.TECHNIQUES) + list(subsets.TECHNIQUES))
    answer = answer_q3(board, engine)
    from ltn_sudoku.candidates import CandidateGrid

    grid = CandidateGrid.from_board(board)
    for entry in answer.as_dict()["heuristics"]:  # type: ignore[union-attr]
        technique = next(t for t in engine.techniques(9) if t.name == entry["name"])
        assert entry["count"] == len(technique.finder(grid))


def test_closed_and_conflicting_boards_have_no_q3() -> None:
    closed = classify(parse_board_text("1234341221434321")).as_dict()
    assert "heuristics" not in closed
    clash = classify(parse_board_text("11.." "...." "...." "....")).as_dict()
    assert "steps" not in clash


def test_impossible_board_says_why_there_is_no_path() -> None:
    report = classify(parse_board_text("123." "...." "...." "...4"))
    data = report.as_dict()
    assert data["steps"] == [] and data["level"] is None
    assert "No solving path" in render_report(report)


def test_hard_puzzle_path_is_sound_and_marks_search_when_used() -> None:
    board = parse_board_text("4...3.......6..8..........1....5..9..8....6...7.2........1.27..5.3....4.9........")
    data = classify(board).as_dict()
    solution = solve(board)
    assert solution is not None
    for step in data["steps"]:  # type: ignore[union-attr]
        for r, c, d in step["placements"]:
            assert solution[r, c] == d, step["text"]
        for r, c, d in step["eliminations"]:
            assert solution[r, c] != d, step["text"]
    assert data["guessed"] == any(s["technique"] == "Brute Force" for s in data["steps"])  # type: ignore[union-attr]


def test_classify_counts_once_and_hands_the_count_to_q3(monkeypatch: pytest.MonkeyPatch) -> None:
    """Q3 takes Q2's exact answer (KnownSolutions) instead of counting again: on a sparse 36x36 board each count
    took about 20 s, and the engine's count ran inside Q3's time budget. The answers are the ones Q3 gives when it
    counts itself, for a board with one solution and one with several."""
    import ltn_sudoku.questions.engine as engine_module

    def no_count(*args: object, **kwargs: object) -> None:
        pytest.fail("Q3 counted the solutions again")

    several = parse_board_text(SEED_9).with_values([(0, 0), (2, 0), (3, 0), (10, 0), (14, 0)])
    for board, count in ((parse_board_text(SEED_9), 1), (several, 2)):
        known = KnownSolutions.of(board)
        assert known.count == count and known.first is not None and known.first.is_valid_solution
        counted = [answer_q3(board, full=full).as_dict() for full in (False, True)]
        with monkeypatch.context() as patch:
            patch.setattr(engine_module, "exact_solutions", no_count)
            given = [answer_q3(board, full=full, known=known).as_dict() for full in (False, True)]
            report = classify(board)
        assert report.known_solutions() == known
        for with_count, without in zip(counted, given):
            assert {k: v for k, v in with_count.items() if k != "stats"} == \
                   {k: v for k, v in without.items() if k != "stats"}
