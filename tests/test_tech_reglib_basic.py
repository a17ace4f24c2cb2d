"""HoDoKu regression library, per technique code, for the basic families (singles to single-digit patterns).

Each code's pass rate must not drop below what the finders reach today (FLOORS); the cases that still fail are
listed in docs/techniques_basic.md with the reason. The finder for a code is the technique whose `hodoku_codes`
names it.
"""

from __future__ import annotations

import pytest

from ltn_sudoku.techniques import fish, intersections, singles, subsets
from ltn_sudoku.techniques.base import Finder
from ltn_sudoku.techniques.reglib import load_cases

MODULES = (singles, intersections, subsets, fish)

# code -> minimum share of its cases that must pass
FLOORS: dict[str, float] = {
    "0000": 1.0,
    "0002": 1.0,
    "0003": 1.0,
    "0100": 1.0,
    "0101": 1.0,
    "0110": 1.0,
    "0111": 1.0,
    "0200": 1.0,
    "0201": 1.0,
    "0202": 1.0,
    "0210": 1.0,
    "0211": 1.0,
    "0212": 1.0,
    "0300": 1.0,
    "0301": 1.0,
    "0302": 1.0,
    "0310": 1.0,
    "0311": 1.0,
    "0312": 1.0,
    "0320": 1.0,
    "0321": 1.0,
    "0322": 1.0,
    "03111": 1.0,
    "03121": 1.0,
    "03211": 1.0,
    "03221": 1.0,
}

# A siamese fish joins two fish on the same base lines, finned or sashimi alike: its finder is both of that size.
SIAMESE_PARTS: dict[str, tuple[str, str]] = {
    "03111": ("0311", "0321"),
    "03211": ("0311", "0321"),
    "03121": ("0312", "0322"),
    "03221": ("0312", "0322"),
}


def finder_for(code: str) -> Finder:
    if code in SIAMESE_PARTS:
        parts = [finder_for(part) for part in SIAMESE_PARTS[code]]
        return lambda grid: [step for part in parts for step in part(grid)]
    for module in MODULES:
        for technique in module.TECHNIQUES:
            if code in technique.hodoku_codes:
                return technique.finder
    raise KeyError(code)


@pytest.mark.parametrize("code", sorted(FLOORS))
def test_reglib_pass_rate(code: str) -> None:
    cases = load_cases(codes=[code])
    assert cases, f"no cases for {code}"
    finder = finder_for(code)
    failed = [case.line for case in cases if not case.check(finder)]
    rate = 1 - len(failed) / len(cases)
    assert rate >= FLOORS[code], f"{code}: {rate:.1%} < {FLOORS[code]:.1%}; failing lines {failed}"


def test_every_floor_code_is_claimed_by_one_technique() -> None:
    claimed = [code for module in MODULES for t in module.TECHNIQUES for code in t.hodoku_codes]
    assert len(claimed) == len(set(claimed))
    assert set(FLOORS) - set(SIAMESE_PARTS) <= set(claimed)
