"""Reasoning tiers and the singles loop, checked against independent truth: the engine run from scratch, the exact
solver (Dancing Links backend), HoDoKu's exemplar classification and QQWing's levels."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from ltn_sudoku.board import Board
from ltn_sudoku.exact import count_solutions_batch, solve
from ltn_sudoku.generate import generate
from ltn_sudoku.questions.engine import Engine
from ltn_sudoku.questions.tiers import (
    TIER_FAMILIES,
    TIER_NAMES,
    run_tiers,
    singles_loop,
    singles_loop_batch,
    singles_loop_outcome,
    solve_within_tier,
    tier_of,
    tier_techniques,
    tiers,
)
from ltn_sudoku.techniques.families import FAMILIES
from ltn_sudoku.techniques.hodoku import hodoku_exemplars
from ltn_sudoku.techniques.registry import all_techniques
from ltn_sudoku.techniques.soundness import sample_puzzles

SINGLE_NAMES = ["Full House", "Naked Single", "Hidden Single"]
# HoDoKu exemplars 's <tag> s': singles stall, one technique of the tag, then singles finish. HoDoKu tries every
# technique of a lower priority first, so for T2-T4 tags the tier is exactly the tag's; a T5 tag only bounds it
# (HoDoKu tries Remote Pair or Sue de Coq before some T4 techniques: a T4 technique may do instead).
EXACT_TAGS: dict[str, int] = {"lc1": 2, "lc2": 2, "l2": 2, "l3": 2, "n2": 3, "n3": 3, "h2": 3, "h3": 3, "n4": 3,
                              "bf2": 4, "sk": 4, "2sk": 4, "er": 4, "tf": 4, "w": 4, "xy": 4, "xyz": 4, "u1": 4,
                              "bug1": 4, "fbf2": 4, "sbf2": 4, "fcv": 6}
AT_MOST_5_TAGS: tuple[str, ...] = ("rp", "x", "xyc", "aic", "cnl", "dnl", "gaic", "sdc")


def _exemplars(tag: str, count: int) -> list[Board]:
    found = [e.puzzle for e in hodoku_exemplars(tag) if e.before == "s" and e.after == "s"]
    assert found, f"no 's {tag} s' exemplar"
    return found[:count]


def _generated(n: int, count: int, seed: int, givens: tuple[int, int], kind: str = "unique") -> list[Board]:
    made = generate(n, "open_solvable", count, seed, kind=kind, givens=givens, unique=kind == "unique")
    return [r.board for r in made]


def test_tier_families_cover_the_registry_and_nest() -> None:
    assert sorted(f for fams in TIER_FAMILIES.values() for f in fams) == sorted(f.name for f in FAMILIES)
    assert {t.family for t in all_techniques()} == {f.name for f in FAMILIES}  # no row without a technique
    intersections = {t.name for t in importlib.import_module("ltn_sudoku.techniques.intersections").TECHNIQUES}
    assert {"Locked Pair", "Locked Triple"} <= intersections  # documented: locked pair / triple are T2
    assert tier_techniques(1) == tuple(SINGLE_NAMES)
    assert set(tier_techniques(2)) - set(tier_techniques(1)) == intersections
    for k in range(2, 7):  # the incremental labelling rests on each pipeline extending the one before
        assert tier_techniques(k)[: len(tier_techniques(k - 1))] == tier_techniques(k - 1)
    assert len(TIER_NAMES) == 7


@pytest.mark.parametrize("tag", sorted(EXACT_TAGS))
def test_hodoku_exemplars_get_the_tier_of_their_technique(tag: str) -> None:
    boards = _exemplars(tag, 4)
    assert tiers(boards).tolist() == [EXACT_TAGS[tag]] * len(boards)
    for board in boards:  # HoDoKu says singles stall: the independent loop must stall too
        assert not singles_loop(board).is_closed


def test_hodoku_chain_exemplars_are_at_most_t5() -> None:
    boards = [b for tag in AT_MOST_5_TAGS for b in _exemplars(tag, 2)]
    assert set(tiers(boards).tolist()) <= {2, 3, 4, 5}


def test_qqwing_levels_bound_the_tiers() -> None:
    """QQWing: 'simple' needs singles only; 'intermediate' needs its intersections or pairs; 'expert' needs
    guessing with those (so at least T3, QQWing having no triples)."""
    assert tiers(sample_puzzles("9x9/qqwing_simple.txt", 30, seed=1)).tolist() == [1] * 30
    assert set(tiers(sample_puzzles("9x9/qqwing_intermediate.txt", 20, seed=1)).tolist()) <= {2, 3}
    assert min(tiers(sample_puzzles("9x9/qqwing_expert.txt", 8, seed=1)).tolist()) >= 3


def test_constructed_t2_puzzle() -> None:
    """A generated puzzle on which the singles loop stalls and singles + intersections finish is T2."""
    engine = Engine(SINGLE_NAMES + [t.name for t in importlib.import_module("ltn_sudoku.techniques.intersections")
                               .TECHNIQUES], fallback=False)
    for board in _generated(9, 60, seed=11, givens=(24, 28)):
        if not singles_loop(board).is_closed and engine.solve(board).solved:
            assert tier_of(board) == 2
            return
    pytest.fail("no generated puzzle needs intersections")


@pytest.mark.parametrize(("n", "kind", "givens"), [(9, "unique", (22, 36)), (4, "unique", (4, 8)),
                                                   (4, "multiple", (3, 6))])
def test_singles_loop_matches_the_engine_restricted_to_singles(n: int, kind: str, givens: tuple[int, int]) -> None:
    boards = _generated(n, 200, seed=3, givens=givens, kind=kind)
    engine = Engine(SINGLE_NAMES, fallback=False)
    reached = singles_loop_batch(np.array([b.values for b in boards]), n)
    verdicts = set()
    for board, row in zip(boards, reached):
        result = engine.solve(board)
        assert result.final is not None
        assert row.tolist() == list(result.final.values), board.to_line()
        assert singles_loop(board) == result.final
        verdicts.add(result.solved)
    if n == 9:
        assert verdicts == {True, False}  # both verdicts occur, so the comparison says something
    if kind == "multiple":
        assert verdicts == {False}


def test_singles_loop_on_16x16() -> None:
    boards = _generated(16, 3, seed=2, givens=(130, 160))
    engine = Engine(SINGLE_NAMES, fallback=False)
    for board in boards:
        assert singles_loop(board) == engine.solve(board).final


def _check_against_engine_and_exact(boards: list[Board]) -> set[int]:
    """Every T1-T5 label is confirmed by the exact solution, and each tier-limited engine restarted from the
    puzzle (Engine.solve) solves it exactly from the puzzle's tier on and otherwise reaches the same board."""
    run = run_tiers(boards)
    for i, board in enumerate(boards):
        tier = int(run.tiers[i])
        solution = solve(board, backend="dlx")
        assert solution is not None
        if tier <= 5:
            assert run.reached[i, tier - 1].tolist() == list(solution.values)
        assert run.reached[i, 5].tolist() == list(solution.values)
        for k in range(1, 6):
            result = Engine(list(tier_techniques(k)), fallback=False).solve(board)
            assert result.solved == (k >= tier), (board.to_line(), k, tier)
            assert result.final is not None and run.reached[i, k - 1].tolist() == list(result.final.values)
    return set(run.tiers.tolist())


def test_labels_agree_with_restarted_engines_and_the_exact_solution() -> None:
    boards = (_generated(9, 12, seed=7, givens=(22, 32)) + sample_puzzles("9x9/qqwing_expert.txt", 4, seed=2)
              + _exemplars("l2", 1) + _exemplars("n2", 1))
    assert {1, 2, 3, 4} <= _check_against_engine_and_exact(boards)
    assert 1 in _check_against_engine_and_exact(_generated(4, 20, seed=7, givens=(4, 6)))


@pytest.mark.slow
def test_labels_agree_on_hard_public_puzzles() -> None:
    boards = sample_puzzles("9x9/top95.txt", 15, seed=3) + sample_puzzles("9x9/top1465.txt", 15, seed=3)
    assert {5, 6} <= _check_against_engine_and_exact(boards)


@pytest.mark.slow
def test_labels_agree_on_16x16() -> None:
    assert len(_check_against_engine_and_exact(_generated(16, 8, seed=1, givens=(110, 140))[:3])) >= 2


def test_singles_loop_on_impossible_boards_keeps_the_givens() -> None:
    boards = [r.board for r in generate(9, "open_impossible", 40, seed=4)]
    reached = singles_loop_batch(np.array([b.values for b in boards]), 9)
    for board, row in zip(boards, reached):
        assert all(v == 0 or v == r for v, r in zip(board.values, row.tolist()))
        assert not (row > 0).all() or board.is_closed  # a board without solution is never completed


@pytest.mark.parametrize("n", [4, 9])
def test_singles_refutations_are_proofs_and_catch_the_obvious_boards(n: int) -> None:
    impossible = [r for r in generate(n, "open_impossible", 40, seed=6)]
    solvable = [r.board for r in generate(n, "open_solvable", 20, seed=6)]
    puzzles = np.array([r.board.values for r in impossible] + [b.values for b in solvable])
    reached, refuted = singles_loop_outcome(puzzles, n)
    assert (reached == singles_loop_batch(puzzles, n)).all()
    counts = count_solutions_batch(puzzles, limit=1)
    assert not (refuted & (counts > 0)).any()  # a refutation is a proof (the exact solver agrees)
    kinds = np.array([r.kind for r in impossible] + ["solvable"] * len(solvable))
    assert refuted[kinds == "obvious"].all()  # a given clash is a dead end at once
    assert refuted[kinds == "subtle"].mean() < 1 or n == 4  # 9x9: some subtle boards need more than singles


def test_monotone_in_the_tier() -> None:
    boards = _generated(9, 6, seed=5, givens=(22, 26)) + sample_puzzles("9x9/top95.txt", 2, seed=5)
    for board in boards:
        previous = board
        for k in range(1, 7):
            reached = solve_within_tier(board, k)
            assert all(p == 0 or p == r for p, r in zip(previous.values, reached.values))  # only adds digits
            assert not previous.is_closed or reached == previous  # solved at k-1: solved at k
            previous = reached
        assert previous.is_closed


def test_no_solution_and_several_solutions() -> None:
    impossible = generate(9, "open_impossible", 4, seed=1, kind="subtle")
    several = _generated(9, 4, seed=1, givens=(24, 30), kind="multiple")
    run = run_tiers([r.board for r in impossible] + several)
    assert run.tiers.tolist() == [0] * 4 + [6] * 4  # sound logic cannot complete a board with two solutions
    assert not run.solved(6)[:4].any() and run.solved(6)[4:].all()
    assert np.isnan(run.cell_accuracy(1)[:4]).all()
    with pytest.raises(ValueError):
        solve_within_tier(several[0], 7)
