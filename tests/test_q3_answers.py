"""Q3 at the cost of the answer (issue 29): the tiered survey and the work budget leave the recommendation, the
explained path, level and score as they were, on 200 real boards of each Kaggle set and of top1465 recorded before
the change (tests/fixtures/q3_answers.jsonl, made by scripts/record_q3_answers.py); and one board gets one answer
however fast or loaded the machine is."""

from __future__ import annotations

import json
import time
from dataclasses import replace
from pathlib import Path

import pytest

from ltn_sudoku.board import Board
from ltn_sudoku.io import parse_board_text
from ltn_sudoku.questions import q3
from ltn_sudoku.questions.engine import Engine
from ltn_sudoku.questions.q3 import answer_q3, survey_tiers
from ltn_sudoku.questions.report import classify
from ltn_sudoku.techniques.base import Technique
from ltn_sudoku.techniques.families import family_of
from ltn_sudoku.techniques.registry import all_techniques, check_family, priority
from scripts.record_q3_answers import FIXTURE, SETS, essentials

FAST_PER_SET = 12  # boards per set in the fast test; the slow one checks more


def recorded() -> list[dict[str, object]]:
    return [json.loads(line) for line in Path(FIXTURE).read_text(encoding="utf-8").splitlines()]


def now(board: Board, survey: str = "tiered") -> dict[str, object]:
    """Today's essentials of the default Q3 answer (scripts/record_q3_answers.essentials)."""
    answer = answer_q3(board, survey=survey)  # type: ignore[arg-type]
    text = answer.ranked[0].steps[0].text if answer.ranked else None
    data = answer.as_dict()
    assert data["heuristics_limit"] is None, f"{board.to_line()}: {data['heuristics_limit']}"
    return {**essentials({**data, "recommendation": text}), "surveyed": [h["name"] for h in data["heuristics"]]}


def check(boards: list[dict[str, object]], survey: str) -> None:
    for old in boards:
        new = now(parse_board_text(str(old["board"])), survey)
        where = f"{old['set']} board {old['board']}"
        for key in ("recommendation", "path", "path_steps", "level", "score", "guessed"):
            assert new[key] == old[key], f"{where}: {key} {new[key]!r} != recorded {old[key]!r}"
        if survey == "complete":
            assert (new["recommended"], new["survey"]) == (old["recommended"], old["survey"]), where
        else:  # the tiered survey's ranking is the recorded one restricted to the techniques it tried
            surveyed = set(new["surveyed"])  # type: ignore[arg-type]
            assert new["recommended"] == [t for t in old["recommended"] if t in surveyed], where  # type: ignore[union-attr]


def test_the_fixture_covers_every_set() -> None:
    boards = recorded()
    assert {b["set"] for b in boards} == set(SETS) and len(boards) == 200 * len(SETS)


def test_default_answers_are_the_recorded_ones_on_a_few_boards_of_each_set() -> None:
    boards = recorded()
    check([b for name in SETS for b in [b for b in boards if b["set"] == name][:FAST_PER_SET]], "tiered")
    check([b for b in boards if b["set"] == "top1465"][:3], "complete")


@pytest.mark.slow
@pytest.mark.parametrize("survey", ["tiered", "complete"])
@pytest.mark.parametrize("board_set", list(SETS))
def test_default_answers_are_the_recorded_ones_across_each_set(board_set: str, survey: str) -> None:
    """One case per set and survey, so that the suite's workers share them. To keep the suite inside CI's time, the
    complete survey (a minute on the 1M boards alone) checks every fourth recorded board, and the tiered survey
    every second top1465 board (the costliest) and all 200 of each Kaggle set."""
    boards = [b for b in recorded() if b["set"] == board_set]
    stride = 4 if survey == "complete" else 2 if board_set == "top1465" else 1
    check(boards[::stride], survey)


def test_an_easy_board_surveys_the_singles_only_and_says_so() -> None:
    board = parse_board_text(str(recorded()[0]["board"]))  # a 1M row: singles solve it
    answer = answer_q3(board)
    assert [a.technique.family for a in answer.found] == ["Singles"] * 3
    assert answer.as_dict()["survey"] == "tiered" and "first family that applies (Singles)" in answer.describe()[0]
    assert len(answer_q3(board, survey="complete").found) == len(Engine().techniques(9))


def test_tiers_are_contiguous_in_difficulty_and_every_family_has_a_row() -> None:
    """Q3's work rates and large-board flags, the tiers and the HoDoKu priorities are one row per family
    (techniques/families.py): every technique's family has one, naming the module it comes from, and a technique of
    a family without a row (or of another module's family) is refused when the registry loads it."""
    tiers = survey_tiers(Engine().techniques(9))
    assert [t for tier in tiers for t in tier] == sorted(Engine().techniques(9), key=priority)
    for t in all_techniques():
        assert family_of(t.family).module == t.finder.__module__.rsplit(".", 1)[1], t.name
    new = Technique("Twin Wing", "Twin Wings", lambda grid: [], score=100, level="Hard")
    with pytest.raises(ValueError, match="no row in ltn_sudoku/techniques/families.py"):
        check_family("twin_wings", new)
    with pytest.raises(ValueError, match="'fish'"):
        check_family("wings", Technique("Twin Wing", "Basic Fish", lambda grid: [], score=100, level="Hard"))


def _slowed(delay_s: float) -> Engine:
    """Every technique whose finder also burns `delay_s` of CPU per call (a loaded or slow machine)."""
    def slow(finder):  # type: ignore[no-untyped-def]
        def find(grid):  # type: ignore[no-untyped-def]
            end = time.process_time() + delay_s
            while time.process_time() < end:
                pass
            return finder(grid)
        return find
    return Engine([replace(t, finder=slow(t.finder)) for t in Engine().techniques(9)])


def test_a_slowed_finder_gives_the_same_answer_as_a_fast_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """The budget counts work, not seconds: a machine 10 ms slower per finder call (past the former 1.2 s time
    budget on this board's path) answers exactly as a fast one. A budget small enough to bite shows that it bites
    in the same place on both."""
    board = parse_board_text(str([b for b in recorded() if b["level"] == "Hard"][0]["board"]))

    def untimed(answer: dict[str, object]) -> dict[str, object]:
        return {k: v for k, v in answer.items() if k != "stats"}

    fast = untimed(answer_q3(board).as_dict())
    assert fast["heuristics_limit"] is None
    assert untimed(answer_q3(board, _slowed(0.01)).as_dict()) == fast
    monkeypatch.setattr(q3, "Q3_WORK_BUDGET", (15_000, 15_000))  # about half its path
    cut = untimed(answer_q3(board).as_dict())
    assert cut["guessed"] and "work units were spent" in str(cut["heuristics_limit"])
    assert untimed(answer_q3(board, _slowed(0.002)).as_dict()) == cut


def test_the_guard_is_a_safety_net_that_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(q3, "Q3_GUARD_S", (0.0, 0.0))
    data = classify(parse_board_text(str(recorded()[0]["board"]))).as_dict()
    assert "safety net" in str(data["heuristics_limit"]) and data["guessed"]
