"""The names people use for techniques (Technique.aliases, plurals, punctuation) resolve wherever a technique is
named: the registry, the engine, the command line."""

from __future__ import annotations

import pytest

from ltn_sudoku.cli import main
from ltn_sudoku.questions.engine import build
from ltn_sudoku.techniques.registry import all_techniques, by_name, normalise_name, resolve

SEED_9 = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"


@pytest.mark.parametrize(("alias", "name"), [
    ("Y-Wing", "XY-Wing"),
    ("Unique Rectangle", "Uniqueness Test 1"),
    ("Unique Rectangle Type 4", "Uniqueness Test 4"),
    ("UR2", "Uniqueness Test 2"),
    ("Naked Quads", "Naked Quadruple"),
    ("Hidden Quad", "Hidden Quadruple"),
    ("X-Wings", "X-Wing"),
    ("xwing", "X-Wing"),
    ("Pointing Pairs", "Locked Candidates Type 1 (Pointing)"),
    ("Box/Line Reduction", "Locked Candidates Type 2 (Claiming)"),
    ("BUG+1", "Bivalue Universal Grave + 1"),
    ("Two-String Kite", "2-String Kite"),
    ("Simple Colours Trap", "Simple Colors Trap"),
    ("Medusa", "3D Medusa"),
    ("Alternating Inference Chains", "AIC"),
    ("Sole Candidate", "Naked Single"),
    ("hidden singles", "Hidden Single"),
])
def test_common_names_resolve_to_the_technique(alias: str, name: str) -> None:
    assert by_name(alias).name == name
    assert [t.name for t in resolve([alias])] == [name]


def test_every_name_and_alias_names_one_technique() -> None:
    keys: dict[str, str] = {}
    for technique in all_techniques():
        for name in (technique.name, *technique.aliases):
            assert keys.setdefault(normalise_name(name), technique.name) == technique.name, name
    assert len(keys) > 2 * len(all_techniques())  # the aliases are there, not only the names


def test_an_unknown_name_still_fails_and_names_the_alias_table() -> None:
    with pytest.raises(ValueError, match="unknown technique 'Bogus Wing'.*reference/techniques.md"):
        by_name("Bogus Wing")


def test_the_engine_and_the_command_line_take_aliases(capsys: pytest.CaptureFixture[str]) -> None:
    engine = build("Naked Singles, Hidden Singles, Pointing")
    assert [t.name for t in engine.techniques(9)] == [
        "Naked Single", "Hidden Single", "Locked Candidates Type 1 (Pointing)"]
    assert main(["rate", "--board", SEED_9, "--techniques", "Full House,Naked Singles,Hidden Singles"]) == 0
    assert "Easy" in capsys.readouterr().out
