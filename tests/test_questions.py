"""Q1/Q2 answers against truth: brute force over all 288 4x4 grids, per-move exact counts on 9x9 boards, the seed's
examples, the shipped example files, and the shape of the JSON and text reports."""

from __future__ import annotations

import json
import random
import time
from dataclasses import dataclass
from functools import lru_cache

import pytest

from ltn_sudoku.board import Board
from ltn_sudoku.exact import count_solutions, random_solutions, solutions
from ltn_sudoku.io import parse_board_text, read_boards
from ltn_sudoku.paths import DATA_DIR
from ltn_sudoku.questions import report as questions
from ltn_sudoku.questions.report import Report
from ltn_sudoku.questions.text import render_report


def classify(board: Board, backend: str = "auto") -> Report:
    """Q1/Q2 only: Q3's section is tested in tests/test_heuristics.py."""
    return questions.classify(board, backend=backend, heuristics=False)

SEED_9 = "2.14.....4...7358..5....6....9.2.8.1.23.1..5...8354..97..28.....15..93.6.6....74."
SEED_9_SOLUTION = "281465973496173582357892614549627831623918457178354269734286195815749326962531748"
SEED_4 = "1.34 34.2 2143 432."
SEED_4_SOLUTION = "1234341221434321"


@lru_cache(maxsize=None)
def all_4x4_grids() -> tuple[Board, ...]:
    grids = tuple(solutions(Board.empty(4), limit=1000, backend="python"))
    assert len(grids) == 288  # the known number of 4x4 Sudoku grids
    return grids


def brute_force_completions(board: Board) -> list[Board]:
    """Every 4x4 grid that agrees with the board's givens (no search involved)."""
    return [g for g in all_4x4_grids() if all(v in (0, g.values[c]) for c, v in enumerate(board.values))]


def basic_rule_moves(board: Board) -> set[tuple[int, int]]:
    """(cell, digit) for every empty cell and every digit none of its peers holds, straight from the definition."""
    g = board.geometry
    return {(c, d) for c in board.empty_cells for d in range(1, board.n + 1)
            if all(board.values[p] != d for p in g.peers[c])}


def random_4x4_boards(count: int, seed: int) -> list[Board]:
    """A mix of every kind: random givens (often impossible or inconsistent) and puzzles cut from real grids."""
    rng = random.Random(seed)
    boards = []
    for i in range(count):
        if i % 2:
            values = [rng.randint(1, 4) if rng.random() < 0.3 else 0 for _ in range(16)]
        else:
            grid = rng.choice(all_4x4_grids())
            values = [v if rng.random() < rng.choice([0.2, 0.4, 0.6, 0.9]) else 0 for v in grid.values]
        boards.append(Board(values, 4))
    return boards


def assert_moves_match(report: Report, truth: dict[tuple[int, int], bool]) -> None:
    got = {(m.cell, m.digit): m.dead_end for m in report.moves}
    assert got == truth


# ---- the seed's examples -------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "solution"), [(SEED_9, SEED_9_SOLUTION), (SEED_4, SEED_4_SOLUTION)])
def test_seed_examples_are_solvable_with_their_unique_solution(text: str, solution: str) -> None:
    report = classify(parse_board_text(text))
    assert not report.closed and report.valid and report.solvable is True
    assert report.solution_count == 1 and report.solution is not None
    assert report.solution.to_line() == solution
    assert report.no_solution_reason is None
    alive = {(m.cell, m.digit) for m in report.moves if not m.dead_end}
    assert alive == {(c, report.solution.values[c]) for c in report.board.empty_cells}


# ---- against brute force -------------------------------------------------------------------------------------------
@pytest.fixture(params=["enumerated", "searched"])
def dead_end_strategy(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Both ways to settle moves: from all solutions enumerated at once, or (limit forced to 1) a search per move."""
    if request.param == "searched":
        monkeypatch.setattr(questions, "ENUMERATED_SOLUTIONS", 1)
    return str(request.param)


@pytest.mark.parametrize("seed", range(4))
def test_4x4_answers_match_brute_force_over_all_grids(seed: int, dead_end_strategy: str) -> None:
    kinds = set()
    for board in random_4x4_boards(60, seed):
        report = classify(board)
        completions = brute_force_completions(board)
        assert report.valid == board.is_consistent
        assert report.solution_count == min(len(completions), 2)
        assert (report.solution in completions) if completions else report.solution is None
        if board.is_closed:
            assert report.moves == () and report.solvable is None
            assert report.valid == (completions == [board])
            continue
        assert report.solvable == bool(completions)
        moves = basic_rule_moves(board)
        truth = {(c, d): not any(g.values[c] == d for g in completions) for c, d in moves}
        assert_moves_match(report, truth)
        kinds.add(min(len(completions), 2))
    assert kinds == {0, 1, 2}  # the sample covers impossible, unique and multiple boards


def changed_given(board: Board, rng: random.Random) -> Board:
    """The board with one given replaced by another digit its peers allow, chosen so that no solution remains."""
    while True:
        cell = rng.choice([c for c in range(81) if board.values[c]])
        others = [d for d in board.with_value(cell, 0).candidates(cell) if d != board.values[cell]]
        if others:
            changed = board.with_value(cell, rng.choice(others))
            if count_solutions(changed, 1, backend="python") == 0:
                return changed


def puzzles_9x9(seed: int) -> list[Board]:
    """Unique qqwing puzzles, the same with givens removed (several solutions) and with one given changed (none)."""
    rng = random.Random(seed)
    base = rng.sample(read_boards(DATA_DIR / "9x9/qqwing_easy.txt"), 3)
    boards = list(base)
    for b in base:
        filled = [c for c in range(81) if b.values[c]]
        boards.append(b.with_values((c, 0) for c in rng.sample(filled, 12)))
        boards.append(b.with_values((c, 0) for c in rng.sample(filled, len(filled) // 2)))
        boards.append(changed_given(b, rng))
    return boards


@lru_cache(maxsize=None)
def exact_truth(board: Board) -> tuple[int, dict[tuple[int, int], bool]]:
    """(solution count up to 2, dead-end flag per basic-rule move), by the pure-Python search, one count per move."""
    return count_solutions(board, 2, backend="python"), {
        (c, d): count_solutions(board.with_value(c, d), 1, backend="python") == 0 for c, d in basic_rule_moves(board)}


@pytest.mark.parametrize("seed", range(2))
def test_9x9_dead_ends_match_a_count_per_move(seed: int, dead_end_strategy: str) -> None:
    counts = set()
    for board in puzzles_9x9(seed):
        report = classify(board)
        count, truth = exact_truth(board)
        assert report.solution_count == count
        assert_moves_match(report, truth)
        assert report.solution is None or (report.solution.is_valid_solution and all(
            v in (0, report.solution.values[c]) for c, v in enumerate(board.values)))
        counts.add(report.solution_count)
    assert counts == {0, 1, 2}


@pytest.mark.parametrize("backend", ["auto", "kernel", "python"])
def test_backends_agree(backend: str) -> None:
    board = parse_board_text(SEED_9).with_values([(0, 0), (2, 0), (3, 0)])
    reference, report = classify(board, backend="python"), classify(board, backend=backend)
    assert report.solution_count == reference.solution_count == 2
    assert report.moves == reference.moves
    assert report.solution is not None and report.solution.is_valid_solution


def test_a_few_solutions_settle_every_move_without_a_search(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(questions, "solve_within", lambda b, work, backend: pytest.fail("no per-move search expected"))
    board = parse_board_text(SEED_9).with_values([(0, 0), (2, 0), (3, 0), (10, 0), (14, 0)])  # 6 solutions
    report = classify(board)
    assert report.solution_count == 2 and 0 < report.dead_ends < len(report.moves)


def test_many_solutions_need_few_searches(monkeypatch: pytest.MonkeyPatch) -> None:
    """On an empty board every one of the 729 moves is alive; each witness solution clears many of them at once."""
    calls: list[Board] = []
    real_solve = questions.solve_within

    def counted_solve(board: Board, work: int | None, backend: str) -> tuple[Board | None, int]:
        calls.append(board)
        return real_solve(board, work, backend)

    monkeypatch.setattr(questions, "solve_within", counted_solve)
    report = classify(Board.empty(9))
    assert len(report.moves) == 729 and report.dead_ends == 0 and report.solution_count == 2
    assert len(calls) < 729 // 3  # each witness clears dozens of moves: far fewer searches than moves


# ---- closed boards and the no-solution reasons ---------------------------------------------------------------------
def test_closed_boards_answer_q1_with_every_conflict() -> None:
    grid = parse_board_text(SEED_9_SOLUTION)
    assert classify(grid).valid and classify(grid).solution == grid and classify(grid).solvable is None
    swapped = grid.with_values([(0, grid.values[1]), (1, grid.values[0])])
    report = classify(swapped)
    assert not report.valid and report.closed and report.solvable is None and report.solution_count == 0
    assert list(report.conflicts) == swapped.conflicts()
    assert {(c.unit_kind, c.digit) for c in report.conflicts} == {("col", 2), ("col", 8)}
    assert report.moves == () and report.no_solution_reason is None


@pytest.mark.parametrize(("rows", "reason"), [
    (["12345678.", ".........", ".........", ".........", "........9"] + ["........."] * 4,
     "cell r1c9 has no candidate"),
    (["23.......", "....1....", ".......1.", "..1......"] + ["........."] * 5, "digit 1 has no place in row 1"),
    (["11......."] + ["........."] * 8, "the givens conflict: digit 1 appears 2 times in row 1: r1c1,r1c2 "
                                        "(and 1 more conflict)"),
])
def test_obvious_no_solution_reasons(rows: list[str], reason: str) -> None:
    report = classify(parse_board_text("".join(rows)))
    assert report.solvable is False and report.solution is None
    assert report.no_solution_reason == reason
    assert report.moves and all(m.dead_end for m in report.moves)


def test_subtle_no_solution_has_no_obvious_reason() -> None:
    report = classify(parse_board_text(SEED_9[:49] + "6" + SEED_9[50:]))  # r6c5: 5 -> 6
    assert report.valid and report.solvable is False and report.no_solution_reason is None


# ---- the shipped examples ------------------------------------------------------------------------------------------
EXAMPLES = {
    "seed_9x9.csv": (9, False, True, 1), "seed_4x4.csv": (4, False, True, 1),
    "valid_closed_4x4.csv": (4, True, True, 1), "valid_closed_9x9.csv": (9, True, True, 1),
    "invalid_closed_9x9.csv": (9, True, False, 0), "impossible_obvious_9x9.csv": (9, False, True, 0),
    "impossible_subtle_9x9.csv": (9, False, True, 0), "multiple_solutions_9x9.csv": (9, False, True, 2),
    "unique_16x16.csv": (16, False, True, 1), "unique_16x16_digits_letters.csv": (16, False, True, 1),
}


def test_every_example_file_is_what_its_name_says() -> None:
    assert sorted(p.name for p in (DATA_DIR / "examples").glob("*.csv")) == sorted(EXAMPLES)
    for name, (n, closed, valid, count) in EXAMPLES.items():
        [board] = read_boards(DATA_DIR / "examples" / name, "grid")
        report = classify(board)
        assert (report.board.n, report.closed, report.valid, report.solution_count) == (n, closed, valid, count), name
        assert count_solutions(board, 2, backend="python") == count
        assert (report.no_solution_reason is not None) == name.startswith("impossible_obvious"), name


# ---- report shapes -------------------------------------------------------------------------------------------------
def test_as_dict_keys_and_types_survive_json() -> None:
    report = classify(parse_board_text(SEED_4).with_value(0, 0))
    d = json.loads(json.dumps(report.as_dict()))
    assert {"size", "closed", "valid", "conflicts", "solvable", "solutions", "solution", "moves"} <= set(d)
    assert d["size"] == 4 and d["closed"] is False and d["valid"] is True and d["solvable"] is True
    assert d["solutions"] == 1 and d["solution"] == SEED_4_SOLUTION and d["conflicts"] == []
    assert d["moves"][0] == {"row": 0, "col": 0, "digit": 1, "dead_end": False}
    assert all(isinstance(m["dead_end"], bool) for m in d["moves"])
    closed = json.loads(json.dumps(classify(parse_board_text("1134341221434321")).as_dict()))
    assert closed["solvable"] is None and closed["conflicts"][0] == {
        "unit": "row", "index": 0, "digit": 1, "cells": [[0, 0], [0, 1]]}


def test_flat_csv_row_counts_lists_and_dead_ends() -> None:
    from ltn_sudoku.cli.results import flat_row

    row = flat_row(classify(parse_board_text(SEED_9)).as_dict())
    assert row["moves"] == 98 and row["dead_ends"] == 51 and row["conflicts"] == 0 and row["dead_ends_unknown"] == 0
    assert all(not isinstance(v, (list, dict)) for v in row.values())


def test_text_report_shows_board_answers_and_marked_moves() -> None:
    text = render_report(classify(parse_board_text(SEED_9)), "seed")
    assert text.startswith("== seed: 9x9, 34 givens, open")
    assert "| 2 . 1 | 4 . . | . . . |" in text
    assert f"Solution: {SEED_9_SOLUTION}" in text and "Q2 solutions: 1 (unique)" in text
    assert "r1c2: 3! 7! 8 9!" in text
    invalid = render_report(classify(parse_board_text("1134341221434321")))
    assert "| 1*1*| 3 4 |" in invalid and "digit 1 appears 2 times in row 1: r1c1,r1c2" in invalid


@dataclass(frozen=True)
class FakeSection:
    """A later answer (as Q3 or the LTN will add): its keys join the JSON, its lines the text report."""

    title: str = "Heuristics"

    def as_dict(self) -> dict[str, object]:
        return {"level": "Easy", "heuristics": ["Naked Single"]}

    def describe(self) -> list[str]:
        return ["Naked Single: 3 steps"]


def test_sections_extend_json_text_and_rows() -> None:
    report = classify(parse_board_text(SEED_4)).with_section(FakeSection())
    d = report.as_dict()
    assert d["level"] == "Easy" and d["heuristics"] == ["Naked Single"] and d["solutions"] == 1
    from ltn_sudoku.cli.results import flat_row

    assert flat_row(d)["level"] == "Easy" and flat_row(d)["heuristics"] == 1
    assert render_report(report).endswith("Heuristics:\n  Naked Single: 3 steps")


@pytest.mark.parametrize("n", [4, 9, 16, 25])
def test_unique_puzzles_of_every_size(n: int) -> None:
    grid = Board(random_solutions(n, 1, seed=n)[0].tolist(), n)
    puzzle = grid.with_values((c, 0) for c in random.Random(n).sample(range(n * n), n * n // 3))
    report = classify(puzzle)
    assert report.solution_count == count_solutions(puzzle, 2, backend="python")
    assert report.solution is not None and report.solution.is_valid_solution
    if report.solution_count == 1:
        assert report.solution == grid
        assert all(m.dead_end == (m.digit != grid.values[m.cell]) for m in report.moves)


# ---- work budget of the dead-end proofs (issue 9, item 10; work, not time: issue 29) -------------------------------
def _many_solutions_9x9() -> Board:
    """A 9x9 board with more than ENUMERATED_SOLUTIONS solutions, so some moves need a proof each."""
    grid = Board(random_solutions(9, 1, seed=11)[0].tolist(), 9)
    return grid.with_values((c, 0) for c in random.Random(11).sample(range(81), 60))


def test_dead_ends_past_the_budget_are_undecided_and_said_so(monkeypatch: pytest.MonkeyPatch) -> None:
    board = _many_solutions_9x9()
    truth = {(c, d): count_solutions(board.with_value(c, d), 1, backend="python") == 0
             for c, mask in enumerate(board.candidate_masks()) for d in range(1, 10) if mask >> (d - 1) & 1}
    monkeypatch.setattr(questions, "DEAD_END_WORK", (0, 0))
    limited = classify(board)
    undecided = [m for m in limited.moves if m.dead_end is None]
    assert undecided and limited.dead_end_limit is not None and "--full-analysis" in limited.dead_end_limit
    assert all(m.dead_end == truth[m.cell, m.digit] for m in limited.moves if m.dead_end is not None)
    assert f"{len(undecided)} of {len(limited.moves)} moves undecided" in limited.dead_end_limit
    assert "?" in render_report(limited) and limited.as_dict()["dead_end_limit"] == limited.dead_end_limit
    full = questions.classify(board, heuristics=False, full=True)
    assert full.dead_end_limit is None and {(m.cell, m.digit): m.dead_end for m in full.moves} == truth


def test_one_slow_dead_end_search_stops_at_the_budget() -> None:
    """On a sparse 36x36 board a single move's search takes 10-70 s (CaDiCaL), far past a budget checked only
    between moves. The portfolio's runs are cut to the work left, so the proofs stop at the budget."""
    from ltn_sudoku.exact.sparse import sparse_boards

    boards, _ = sparse_boards(36, 12, 1)
    board = Board(boards[9].tolist(), 36)
    solution = Board(random_solutions(36, 12, 1)[9].tolist(), 36)  # the grid the board was cut from
    assert solution.is_valid_solution and all(g in (0, v) for g, v in zip(board.values, solution.values))
    moves = questions._possible_moves(board)
    found = [solution] * (questions.ENUMERATED_SOLUTIONS + 1)  # "more than can be enumerated": a search per move
    start = time.process_time()
    flags, limit = questions._dead_end_flags(board, moves, found, "auto", 30_000)
    assert time.process_time() - start < 5.0
    alive = {(c, solution.values[c]) for c in board.empty_cells}
    assert all(flag is False for move, flag in zip(moves, flags) if move in alive)
    assert None in flags and limit is not None and "budget of 30,000 work units" in limit


def test_dead_end_flags_are_the_same_with_a_slowed_solver(monkeypatch: pytest.MonkeyPatch) -> None:
    """The proofs' budget counts work, not time: a solver slowed tenfold (as on a loaded machine) leaves the same
    moves undecided, and the safety net does not fire."""
    board = _many_solutions_9x9()
    monkeypatch.setattr(questions, "DEAD_END_WORK", (20, 20))  # 20 proofs: some moves stay undecided
    quick = questions.classify(board, heuristics=False)
    real_solve = questions.solve_within

    def slowed(b: Board, work: int | None, backend: str) -> tuple[Board | None, int]:
        start = time.process_time()
        found = real_solve(b, work, backend)
        while time.process_time() < start + 0.01:  # burn CPU: a slow machine, measured the way the guard measures
            pass
        return found

    monkeypatch.setattr(questions, "solve_within", slowed)
    monkeypatch.setattr(questions, "DEAD_END_GUARD_S", (0.1, 0.1))  # the slowed proofs take longer than this...
    slow = questions.classify(board, heuristics=False)
    assert slow.moves != quick.moves and slow.dead_end_limit is not None and "safety net" in slow.dead_end_limit
    monkeypatch.setattr(questions, "DEAD_END_GUARD_S", (60.0, 60.0))  # ...but not than the real safety net
    slow = questions.classify(board, heuristics=False)
    assert None in quick.moves.flags and quick.dead_end_limit is not None  # type: ignore[attr-defined]
    assert slow.moves == quick.moves and slow.dead_end_limit == quick.dead_end_limit


def test_batch_of_large_boards_keeps_the_portfolio_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    """classify_batch (classify-board's Q1/Q2) counts boards above 9x9 through the portfolio, never with the
    uncapped kernel batch, whose heavy tail on a sparse 36x36 board ran for over 10 minutes; the reports equal
    classify's board by board. 9x9 boards keep the batch (the portfolio runs the kernel uncapped there too)."""
    from ltn_sudoku.exact.sparse import sparse_boards

    calls: list[int] = []
    batch = questions.solve_batch

    def counted(values, limit=2):  # type: ignore[no-untyped-def]
        calls.append(values.shape[1])
        return batch(values, limit)

    monkeypatch.setattr(questions, "solve_batch", counted)
    monkeypatch.setattr(questions, "DEAD_END_WORK", (5_000, 5_000))
    rows, _ = sparse_boards(16, 3, 5)
    large = [Board(row.tolist(), 16) for row in rows]
    reports = questions.classify_batch(large)
    assert calls == []
    for board, report in zip(large, reports):
        single = classify(board)
        assert report.solution_count == single.solution_count
        decided = [(a.dead_end, b.dead_end) for a, b in zip(report.moves, single.moves)
                   if None not in (a.dead_end, b.dead_end)]
        assert decided and all(a == b for a, b in decided)
    questions.classify_batch([_many_solutions_9x9()])
    assert calls == [81]
