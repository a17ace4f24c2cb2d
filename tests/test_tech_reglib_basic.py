"""HoDoKu's own test data for the basic families (singles to single-digit patterns).

- Regression library: per technique code, the pass rate must not drop below what the finders reach today (FLOORS),
  with the library's criterion (ltn_sudoku/techniques/hodoku.py) and with HoDoKu's stricter one (every step on the
  case's digits agrees).
- Exemplars: puzzles HoDoKu solves with singles (or simple techniques) plus one named technique; our pipeline must
  solve them and use that technique on the way.
Failing cases and divergences are listed with their reasons in docs/techniques_basic.md.
"""

from __future__ import annotations

import pytest

from ltn_sudoku.candidates import Step
from ltn_sudoku.techniques import fish, intersections, single_digit, singles, subsets
from ltn_sudoku.techniques.base import Finder, Technique
from ltn_sudoku.techniques.hodoku import (
    SIAMESE_PARTS,
    RegCase,
    answering_techniques,
    case_finder,
    hodoku_exemplars,
    load_cases,
    ssts_finders,
)
from ltn_sudoku.techniques.registry import priority
from ltn_sudoku.techniques.soundness import walk_sound

TECHNIQUES: list[Technique] = sorted(
    singles.TECHNIQUES + intersections.TECHNIQUES + subsets.TECHNIQUES + fish.TECHNIQUES + single_digit.TECHNIQUES,
    key=priority)
BY_CODE: dict[str, Technique] = {code: t for t in TECHNIQUES for code in t.hodoku_codes}

# code -> minimum share of its cases that must pass
FLOORS: dict[str, float] = {code: 1.0 for code in (
    "0000", "0002", "0003",
    "0100", "0101", "0110", "0111",
    "0200", "0201", "0202", "0210", "0211", "0212",
    "0300", "0301", "0302", "0310", "0311", "0312", "0320", "0321", "0322", "03111", "03121", "03211", "03221",
    "0400", "0401", "0402", "0403", "0404", "0405",
)}

ANSWERING = answering_techniques(TECHNIQUES)


def finder_for(case: RegCase) -> Finder:
    return case_finder(case, ANSWERING)


def hodoku_agrees(case: RegCase, steps: list[Step]) -> bool:
    """HoDoKu's criterion: some step on the case's digits, and every such step has exactly the expected effects."""
    mine = [s for s in steps if set(s.digits) == set(case.digits)]
    return bool(mine) and all(frozenset(s.eliminations) == case.eliminations
                              and frozenset(s.placements) == case.placements for s in mine)


@pytest.mark.parametrize("code", sorted(FLOORS))
def test_reglib_pass_rate(code: str) -> None:
    cases = load_cases(codes=[code])
    assert cases, f"no cases for {code}"
    failed = [case.line for case in cases if not case.check(finder_for(case))]
    rate = 1 - len(failed) / len(cases)
    assert rate >= FLOORS[code], f"{code}: {rate:.1%} < {FLOORS[code]:.1%}; failing lines {failed}"


@pytest.mark.parametrize("code", sorted(c for c in FLOORS if c not in SIAMESE_PARTS and c not in ("0404", "0405")))
def test_reglib_hodoku_criterion(code: str) -> None:
    failed = [case.line for case in load_cases(codes=[code]) if not hodoku_agrees(case, finder_for(case)(case.grid()))]
    assert not failed, f"{code}: steps on the case's digits disagree with HoDoKu at lines {failed}"


def test_every_floor_code_is_claimed_by_one_technique() -> None:
    claimed = [code for t in TECHNIQUES for code in t.hodoku_codes]
    assert len(claimed) == len(set(claimed))
    assert set(FLOORS) - set(SIAMESE_PARTS) <= set(claimed)


# ---- exemplars ---------------------------------------------------------------------------------------------------
EXEMPLAR_TAGS: dict[str, str] = {  # HoDoKu's exemplar tag -> technique code
    "lc1": "0100", "lc2": "0101", "l2": "0110", "l3": "0111",
    "n2": "0200", "n3": "0201", "n4": "0202", "h2": "0210", "h3": "0211", "h4": "0212",
    "bf2": "0300", "bf3": "0301", "bf4": "0302", "fbf2": "0310", "fbf3": "0311", "fbf4": "0312",
    "sbf2": "0320", "sbf3": "0321", "sbf4": "0322",
    "sk": "0400", "2sk": "0401", "er": "0402", "tf": "0403",
}
# HoDoKu tries a finned and a sashimi fish of one size in one search and keeps the best step, so its exemplar of one
# may be solved by the other here.
SAME_FISH: dict[str, str] = {"0310": "0320", "0320": "0310", "0311": "0321", "0321": "0311", "0312": "0322",
                             "0322": "0312"}


def test_exemplars_are_solved_with_their_technique() -> None:
    basic = [t.finder for t in TECHNIQUES]
    with_ssts = basic + [f for f in ssts_finders() if f not in basic]  # adds XY-Wing and colouring at the end
    missed = []
    tried = 0
    for tag, code in EXEMPLAR_TAGS.items():
        wanted = {BY_CODE[code].name} | ({BY_CODE[SAME_FISH[code]].name} if code in SAME_FISH else set())
        for exemplar in hodoku_exemplars(tag):
            if {exemplar.before, exemplar.after} - {"s", "ssts"}:
                continue  # needs techniques beyond these families
            tried += 1
            ssts = "ssts" in (exemplar.before, exemplar.after)
            grid, fired = walk_sound(exemplar.puzzle, with_ssts if ssts else basic)
            if not (grid.is_solved and wanted & set(fired)):
                missed.append(f"{exemplar.before} {tag} {exemplar.after}")
    assert tried > 200
    # Known divergences (docs/techniques_basic.md): the exemplar sections were not all made with one solver setup.
    # Two Finned X-Wing, one Sashimi X-Wing and one Sashimi Swordfish exemplar meet a Turbot Fish first (HoDoKu 2.2
    # order, and HoDoKu's own Turbot Fish exemplars are that very form); three Empty Rectangle ones meet a 2-String
    # Kite first (tried first in HoDoKu 2.2 as well).
    assert sorted(missed) == ["s er s"] * 3 + ["s fbf2 s"] * 2 + ["s sbf2 s", "ssts sbf3 s"]
