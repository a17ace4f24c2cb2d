"""Chains and loops: hand-checked positions (and must-not-fire ones), HoDoKu's regression library and exemplars, and
soundness of every step against the exact solver on 4x4, 9x9 and 16x16 boards."""

from __future__ import annotations

import random
import re
import statistics
import time
from dataclasses import replace
from functools import partial

import pytest

from ltn_sudoku.board import Board
from ltn_sudoku.candidates import CandidateGrid, Step
from ltn_sudoku.exact import solve
from ltn_sudoku.io import read_boards
from ltn_sudoku.paths import DATA_DIR
from ltn_sudoku.techniques import chains
from ltn_sudoku.techniques.hodoku import RegCase, case_finder, hodoku_exemplars, load_cases
from ltn_sudoku.techniques.soundness import (
    SINGLES,
    assert_sound,
    run_pure,
    sample_puzzles,
    states_from_puzzle,
    walk_sound,
)
from tests.techniques_helpers import cell_index, marked_grid, mixed_corpus

BY_NAME = {t.name: t for t in chains.TECHNIQUES}
GROUPED_FINDERS = (chains.find_grouped_continuous_nice_loops, chains.find_grouped_discontinuous_nice_loops,
                   chains.find_grouped_aics)


def _case(line: int) -> RegCase:
    return next(c for c in load_cases() if c.line == line)


def _effects(steps: list[Step]) -> set[tuple[frozenset, frozenset]]:
    return {(frozenset(s.placements), frozenset(s.eliminations)) for s in steps}


def _cells(*names: str) -> list[int]:
    return [cell_index(name) for name in names]


# ---- hand-checked positions (links and eliminations traced by hand on the pencil marks) ---------------------------
@pytest.mark.parametrize("line, technique, text", [
    # 8: box 1 holds it only in r3c3/r2c1, row 6 only in r6c1/r6c7; r3c7 sees both ends
    (1084, "X-Chain", "X-Chain: 8 r3c3 = r2c1 - r6c1 = r6c7 => r3c7<>8"),
    # six bivalue cells; the ends r1c3 and r3c9 both hold 2 and see r1c9, r3c2, r3c3
    (1095, "XY-Chain", "XY-Chain: (2=3)r1c3 - (3=8)r1c5 - (8=4)r6c5 - (4=1)r8c5 - (1=9)r8c4 - (9=8)r3c4 - (8=2)r3c9 "
                       "=> r1c9,r3c2,r3c3<>2"),
    # four 1/8 cells; r7c2 and r8c4 are three steps apart, r7c5, r7c6, r8c1, r8c3 see both
    (1119, "Remote Pair", "Remote Pair: 1/8 r7c2 - r2c2 - r2c4 - r8c4 => r7c5,r7c6,r8c3<>1, r7c5,r7c6,r8c1<>8"),
    # row 8 holds 2 only in r8c1/r8c6, column 1 holds 7 only in r7c1/r8c1: r8c1 keeps 2 and 7, the weak links
    # r8c6-r7c4 (2, box 8) and r7c4-r7c1 (7, row 7) become strong
    (1161, "Continuous Nice Loop", "Continuous Nice Loop: (2)r8c1 = (2)r8c6 - (2=7)r7c4 - (7)r7c1 = (7-2)r8c1 => "
                                   "r7c6,r9c6<>2, r7c6,r7c8,r7c9<>7, r8c1<>9"),
    # r6c6 is 2 or r6c4 is 3: they see each other and hold the other's digit
    (1226, "AIC", "AIC: (2=3)r6c6 - (3)r2c6 = (3-7)r2c8 = (7-8)r2c2 = (8)r1c2 - (8=3)r1c7 - (3)r1c4 = (3)r6c4 => "
                  "r6c4<>2, r6c6<>3"),
    # r4c2 not 3 leads through the group r45c5 to r4c2 not 9: 9 goes from r4c2
    (1277, "Grouped Discontinuous Nice Loop", "Grouped Discontinuous Nice Loop: (3)r4c2 = (3)r6c2 - (3=7)r6c4 - "
                                              "(7)r45c5 = (7-6)r3c5 = (6)r7c5 - (6=5)r7c2 - (5=9)r5c2 - (9)r4c2 => "
                                              "r4c2<>9"),
])
def test_hand_checked_positions(line: int, technique: str, text: str) -> None:
    steps = run_pure(_case(line).grid(), BY_NAME[technique].finder)
    assert text in [s.text for s in steps]


def test_remote_pair_needs_four_cells_and_xy_chain_three() -> None:
    four = marked_grid(candidates={"r1c1": "58", "r1c5": "58", "r5c5": "58", "r5c9": "58"})
    pair = run_pure(four, chains.find_remote_pairs)
    assert [s.text for s in pair] == ["Remote Pair: 5/8 r1c1 - r1c5 - r5c5 - r5c9 => r1c9,r5c1<>5, r1c9,r5c1<>8"]
    xy = run_pure(four, chains.find_xy_chains)
    assert _effects(xy) == {(frozenset(), frozenset((c, d) for c in _cells("r1c9", "r5c1"))) for d in (5, 8)}
    three = marked_grid(candidates={"r1c1": "58", "r1c5": "58", "r5c5": "58"})
    assert run_pure(three, chains.find_remote_pairs) == []
    assert run_pure(three, chains.find_xy_chains) == []  # its ends hold different digits
    naked_pair = marked_grid(candidates={"r1c1": "12", "r1c2": "12"})
    assert run_pure(naked_pair, chains.find_xy_chains) == []  # two cells: a naked pair, not a chain


def test_max_links_bounds_the_chains() -> None:
    four = marked_grid(candidates={"r1c1": "58", "r1c5": "58", "r5c5": "58", "r5c9": "58"})
    assert chains.find_xy_chains(four, max_links=6) == []  # the chain has 7 links
    assert chains.find_xy_chains(four, max_links=7)
    assert chains.find_remote_pairs(four, max_cells=3) == []


def test_remote_pair_broken_by_one_candidate() -> None:
    grid = _case(1119).grid()
    grid.eliminate(cell_index("r2c2"), 8)  # r2c2 is no longer a 1/8 cell: no four of them form a path
    assert run_pure(grid, chains.find_remote_pairs) == []


@pytest.mark.parametrize("grid", [CandidateGrid.from_board(Board.empty(9)),
                                  CandidateGrid.from_board(solve(sample_puzzles("9x9/top95.txt", 1)[0]))],
                         ids=["no strong link", "solved"])
def test_nothing_fires_without_strong_links(grid: CandidateGrid) -> None:
    for technique in chains.TECHNIQUES:
        assert run_pure(grid, technique.finder) == [], technique.name
    for finder in GROUPED_FINDERS:
        assert run_pure(grid, partial(finder, als=True)) == []


def test_grouped_finders_report_only_chains_through_a_compound_node() -> None:
    compound = re.compile(r"r\d\d+c|c\d\d|r\d+c\d+,")  # 'r45c5', 'r1c89', or an ALS's listed cells
    for line in (1161, 1226, 1277, 1299):
        grid = _case(line).grid()
        for finder in GROUPED_FINDERS:
            for step in finder(grid, als=True):
                assert compound.search(step.text.split(":", 1)[1]), step.text


# ---- HoDoKu's regression library ------------------------------------------------------------------------------------
# Variants run with HoDoKu's option "ALS in chains" (the library's "with ALS" sections); it is off by default.
FLOORS: dict[str, float] = {code: 1.0 for t in chains.TECHNIQUES for code in t.hodoku_codes}


@pytest.mark.parametrize("code", sorted(FLOORS))
def test_reglib_pass_rate(code: str) -> None:
    technique = next(t for t in chains.TECHNIQUES if code in t.hodoku_codes)
    cases = load_cases(codes=[code])
    assert cases
    answering = {code: [technique]}
    failed = [case.line for case in cases if not case.passes(run_pure(case.grid(), case_finder(case, answering)))]
    rate = 1 - len(failed) / len(cases)
    assert rate >= FLOORS[code], f"{code}: {rate:.1%} < {FLOORS[code]:.0%}; failing lines {failed}"


# ---- HoDoKu's exemplars: puzzles solved by singles and one chain technique ----------------------------------------
@pytest.mark.parametrize("tag, name, least", [
    ("x", "X-Chain", 4), ("xyc", "XY-Chain", 16), ("rp", "Remote Pair", 16), ("cnl", "Continuous Nice Loop", 5),
    ("dnl", "Discontinuous Nice Loop", 4), ("aic", "AIC", 14), ("gcnl", "Grouped Continuous Nice Loop", 1),
    ("gaic", "Grouped AIC", 6),
])
def test_hodoku_exemplars_solve_with_singles_and_the_chain(tag: str, name: str, least: int) -> None:
    """HoDoKu made the exemplars with ALS in chains on: the grouped finders run with it."""
    finder = BY_NAME[name].finder
    if name.startswith("Grouped"):
        finder = partial(finder, als=True)
    exemplars = [e for e in hodoku_exemplars(tag) if e.before == e.after == "s"]
    assert len(exemplars) >= least
    for exemplar in exemplars:
        grid, fired = walk_sound(exemplar.puzzle, SINGLES + [finder])
        assert grid.is_solved and fired.get(name), exemplar.puzzle.to_line()


# ---- soundness against the exact solver -----------------------------------------------------------------------------
def _sixteen(count: int) -> list[tuple[Board, Board]]:
    pairs = []
    for puzzle in read_boards(DATA_DIR / "generalized/sudoku_rank_4.csv")[:count]:
        solution = solve(puzzle)
        assert solution is not None
        pairs.append((puzzle, solution))
    return pairs


def _check_states(pairs: list[tuple[Board, Board]], states: int, als_every: int, seed: int) -> dict[str, int]:
    """Every finder on `states` grids of each puzzle; the grouped ones also with ALS nodes on every `als_every`-th."""
    rng = random.Random(seed)
    checked: dict[str, int] = {}
    count = 0
    for puzzle, solution in pairs:
        for grid in states_from_puzzle(puzzle, solution, rng, states):
            for technique in chains.TECHNIQUES:
                steps = run_pure(grid, technique.finder)
                checked[technique.name] = checked.get(technique.name, 0) + assert_sound(grid, steps, solution)
            count += 1
            if puzzle.n <= 9 and count % als_every == 0:
                for finder in GROUPED_FINDERS:
                    steps = run_pure(grid, partial(finder, als=True))
                    checked["with ALS"] = checked.get("with ALS", 0) + assert_sound(grid, steps, solution)
    return checked


def test_sound_on_top1465_and_generated_states() -> None:
    checked = _check_states(mixed_corpus(20, {4: 20}, seed=1) + _sixteen(2), states=3, als_every=6, seed=1)
    assert all(checked.get(t.name, 0) > 0 for t in chains.TECHNIQUES if t.name != "Remote Pair"), checked
    assert sum(checked.values()) > 3000 and checked["with ALS"] > 100


def test_walks_with_singles_and_chains_stay_sound() -> None:
    finders = SINGLES + [t.finder for t in chains.TECHNIQUES]
    fired: dict[str, int] = {}
    for puzzle in sample_puzzles("9x9/top1465.txt", 12, seed=4):
        _, counts = walk_sound(puzzle, finders)
        for name, n in counts.items():
            fired[name] = fired.get(name, 0) + n
    assert sum(n for name, n in fired.items() if name in BY_NAME) > 50


@pytest.mark.slow
def test_sound_on_thousands_of_states() -> None:
    """150 top1465 puzzles (three states each), a qqwing expert sample, 16x16 and 4x4 boards (the whole sets run in
    scripts/bench_techniques.py soundness)."""
    pairs = [(p, solve(p)) for p in sample_puzzles("9x9/top1465.txt", 150, seed=7)]
    pairs += mixed_corpus(0, {4: 60}, seed=7) + _sixteen(3)
    pairs += [(p, solve(p)) for p in sample_puzzles("9x9/qqwing_expert.txt", 50, seed=7)]
    checked = _check_states(pairs, states=3, als_every=10, seed=7)
    assert sum(checked.values()) > 10_000, checked


@pytest.mark.slow
def test_walks_on_hundreds_of_puzzles_stay_sound() -> None:
    finders = SINGLES + [t.finder for t in chains.TECHNIQUES]
    fired = 0
    for puzzle in sample_puzzles("9x9/top1465.txt", 150, seed=8):
        _, counts = walk_sound(puzzle, finders)
        fired += sum(n for name, n in counts.items() if name in BY_NAME)
    assert fired > 150, fired  # chain steps were checked (12 puzzles give > 50 in the fast test above)


@pytest.mark.slow
def test_time_per_call_on_engine_states(capsys: pytest.CaptureFixture[str]) -> None:
    """Mean time per finder call on the states where the engine (every technique up to grouped nice loops, HoDoKu
    order) reaches each chain technique, on 60 top1465 puzzles; printed with -s, bounded loosely against regressions."""
    from ltn_sudoku.questions.engine import Engine
    from ltn_sudoku.techniques.registry import all_techniques, priority

    times: dict[str, list[float]] = {t.name: [] for t in chains.TECHNIQUES}

    def timed(technique):  # type: ignore[no-untyped-def]
        def finder(grid: CandidateGrid) -> list[Step]:
            start = time.perf_counter()
            steps = technique.finder(grid)
            times[technique.name].append(time.perf_counter() - start)
            return steps
        return replace(technique, finder=finder)

    last = priority(chains.TECHNIQUES[-1])
    pipeline = [timed(t) if t.name in times else t for t in all_techniques() if priority(t) <= last]
    engine = Engine(pipeline)
    solved = sum(engine.solve(p).logic_only for p in sample_puzzles("9x9/top1465.txt", 60, seed=9))
    with capsys.disabled():
        print(f"\nlogic-only solved {solved}/60")
        for name, ts in times.items():
            if ts:
                print(f"{name:34s} calls {len(ts):5d}  mean {statistics.mean(ts) * 1e3:6.2f} ms  "
                      f"max {max(ts) * 1e3:7.1f} ms")
    assert all(statistics.mean(ts) < 0.05 for ts in times.values() if ts)
