"""HoDoKu's regression library over every registered technique: per technique code, the share of cases (the '-x'
must-find-nothing cases included) that must keep passing. The judge is scripts/bench_techniques.py's (the finder(s)
answering the code, with the options HoDoKu's tester sets); the figures are in docs/techniques.md.
"""

from __future__ import annotations

import pytest

from ltn_sudoku.techniques.hodoku import load_cases
from ltn_sudoku.techniques.registry import all_techniques
from scripts.bench_techniques import reglib_case_passes, reglib_techniques, run_reglib

# code -> minimum pass rate; every implemented code passes all its cases today (docs/techniques.md)
FLOORS: dict[str, float] = {code: 1.0 for code in (
    "0000", "0002", "0003",
    "0100", "0101", "0110", "0111",
    "0200", "0201", "0202", "0210", "0211", "0212",
    "0300", "0301", "0302", "0310", "0311", "03111", "0312", "03121", "0320", "0321", "03211", "0322", "03221",
    "0400", "0401", "0402", "0403", "0404", "0405",
    "0500", "0501", "0502", "0503",
    "0600", "0601", "0602", "0603", "0604", "0605", "0606", "0607", "0608", "0610",
    "0701", "0702", "0703", "0706", "0707", "0708", "0709", "0710", "0711",
    "0800", "0801", "0803",
    "0901", "0902", "0903", "0904",
    "1101",
)}
# Library codes no registered technique answers: Franken and Mutant fish, templates.
NOT_IMPLEMENTED: frozenset[str] = frozenset({"0331", "0332", "0340", "0341", "03411", "0342", "03421", "0362", "03621",
                                             "0363", "0364", "1201", "1202"})


@pytest.mark.parametrize("code", sorted(FLOORS))
def test_reglib_pass_rate_per_code(code: str) -> None:
    cases = load_cases(codes=[code])
    assert cases, f"the library has no case for {code}"
    failed = [case.line for case in cases if not reglib_case_passes(case)]
    rate = 1 - len(failed) / len(cases)
    assert rate >= FLOORS[code], f"{code}: {rate:.1%} < {FLOORS[code]:.1%}; failing lines {failed}"


def test_every_answered_code_has_a_floor_and_the_rest_is_known() -> None:
    """A new technique (or code) must get a floor here; a library code nobody answers is listed as such."""
    library = {case.code for case in load_cases()}
    answered = set(reglib_techniques()) & library
    assert answered == set(FLOORS)
    assert library - answered == NOT_IMPLEMENTED


def test_codes_map_to_registered_techniques() -> None:
    names = {t.name for t in all_techniques()}
    assert all(t.name in names for techniques in reglib_techniques().values() for t in techniques)
    assert [t.name for t in reglib_techniques()["03211"]] == ["Finned Swordfish", "Sashimi Swordfish"]


def test_total_pass_rate_is_at_least_95_percent() -> None:
    results, missing = run_reglib()
    cases = sum(r.cases for r in results)
    assert cases > 1000 and sum(r.fail_cases for r in results) >= 4  # the -x cases are counted
    assert sum(r.passed for r in results) / cases >= 0.95
    assert set(missing) == NOT_IMPLEMENTED
