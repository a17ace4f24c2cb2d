"""scripts/reproduce.py end to end on a tiny input: every study writes its files and the page sets them beside the
study's figures; bad usage is an exit 2."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from types import ModuleType

import pytest

from tests.script_loader import load_script

REPO_ROOT = Path(__file__).resolve().parents[1]


def reproduce() -> ModuleType:
    """scripts/reproduce.py as a module."""
    return load_script("reproduce")


def rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def test_every_study_writes_its_files_and_the_page(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = reproduce()
    out, page = tmp_path / "out", tmp_path / "page.md"
    where = ["--out", str(out), "--page", str(page)]
    assert script.main([*where, "generalized", "--ranks", "3", "4", "--count", "2", "--limit", "0.3"]) == 0
    assert script.main([*where, "human", "--levels", "expert", "--count", "1", "--limit", "1",
                        "--solvers", "human13", "backtracking"]) == 0
    assert script.main([*where, "preprocess", "--sets", "qqwing_expert", "--count", "1", "--limit", "0.5",
                        "--generations", "30"]) == 0
    assert script.main([*where, "ltn"]) == 0
    assert script.main([*where, "generalized", "--name", "generalized_extra", "--ranks", "3", "--count", "1",
                        "--solvers", "dlx"]) == 0  # a further run, shown below the main one
    assert "[generalized] 9x9 #0 backtracking: 170,126 iterations" in capsys.readouterr().err  # progress, per puzzle

    general = rows(out / "generalized.csv")
    assert list(general[0]) == ["size", "puzzle", "solver", "iterations", "seconds", "solved", "valid"]
    assert len(general) == 2 * 2 * 3
    by_key = {(r["size"], r["puzzle"], r["solver"]): r for r in general}
    assert by_key[("9", "0", "backtracking")]["iterations"] == "170126"  # the study's recorded count
    assert by_key[("16", "1", "dlx")]["iterations"] == "223784"
    assert by_key[("16", "0", "backtracking")]["solved"] == "False"  # plain backtracking stops at the limit
    assert all(r["valid"] == "True" for r in general if r["solved"] == "True")
    study = rows(out / "generalized_study.csv")
    assert {(r["size"], r["solver"]) for r in study} == {("9", "backtracking"), ("9", "dlx"), ("16", "dlx")}
    meta = json.loads((out / "generalized.json").read_text(encoding="utf-8"))
    assert meta["command"].startswith("python scripts/reproduce.py") and meta["machine"] and meta["peak_rss_mib"] > 0

    human = rows(out / "human.csv")
    assert [r["solver"] for r in human] == ["human13", "backtracking"]
    assert {r["technique"] for r in rows(out / "human_techniques.csv")} >= {"Naked Single", "Hidden Single"}
    pre = rows(out / "preprocess.csv")
    assert len(pre) == 1 and pre[0]["pre_solved"] == "False" and int(pre[0]["filled"]) > 0
    assert {r["figure"] for r in rows(out / "ltn.csv")} >= {"naked singles", "hidden singles (cells)"}
    boards = {r["board"]: r for r in rows(out / "ltn_boards.csv")}
    assert boards["seed_9x9"]["line"] == boards["repo_9x9_aberto_valido"]["line"]  # the study's board, shipped
    assert (boards["repo_9x9_aberto_invalido"]["givens_clash"], boards["repo_9x9_aberto_invalido"]["solutions"]) \
        == ("True", "0")

    text = page.read_text(encoding="utf-8")
    assert text == script.page.render(out)  # the page is what the files render to
    for heading in ("## The studies beside ours", "## Generalized Sudoku", "## Human strategies",
                    "## Pre-processing", "## The LTN system", "### The LTN recipe experiment"):
        assert heading in text
    assert "equal on 4 / 4 finished" in text  # dlx: 9x9 and 16x16 puzzles the study recorded
    assert "ltn_recipe.json" in text  # the named place for the lead's recipe figures
    assert "A further run, `generalized_extra`" in text and "dlx: link updates, 1 9x9 puzzles" in text

    (out / "ltn_recipe.json").write_text(json.dumps([{"figure": "Q1 accuracy", "study": "0.9", "ours": "0.8"}]))
    assert "| Q1 accuracy | 0.9 | 0.8 |" in script.page.render(out)


def test_bad_usage_is_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    script = reproduce()
    bad = (["generalized", "--count", "0"], ["human", "--limit", "-1"], ["nonsense"], ["generalized", "--ranks", "2"],
           ["generalized", "--name", "results"], ["generalized", "--name", "generalized_x_study"])
    for argv in bad:
        with pytest.raises(SystemExit) as stop:
            script.main(argv)
        assert stop.value.code == 2
    assert "must be at least 1" in capsys.readouterr().err
