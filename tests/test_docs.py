"""The documentation is built strictly and cannot drift: the site builds with `mkdocs build --strict` (broken links,
missing anchors or API references fail), every generated page (reference and results, the README's results table)
equals what scripts/render_docs.py renders now from the code and the committed result files, the README fits its
screen and a half with the two commands first, and no page names a numbered issue or a commit."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from ltn_sudoku.paths import REPO_ROOT
from tests.script_loader import load_script

DOC_FILES = sorted([*(REPO_ROOT / "docs").rglob("*.md"), REPO_ROOT / "README.md", REPO_ROOT / "CHANGELOG.md"])


def render_docs() -> ModuleType:
    """scripts/render_docs.py as a module."""
    return load_script("render_docs")


def test_the_site_builds_strictly(tmp_path: Path) -> None:
    """mkdocs build --strict: a broken link, a missing anchor, a page missing from the nav's files or an API path
    mkdocstrings cannot find fails the build (mkdocs.yml's `validation` makes each of them a warning)."""
    mkdocs = Path(sys.executable).parent / "mkdocs"
    command = [str(mkdocs)] if mkdocs.is_file() else [sys.executable, "-m", "mkdocs"]
    done = subprocess.run([*command, "build", "--strict", "--site-dir", str(tmp_path / "site")], cwd=REPO_ROOT,
                          capture_output=True, text=True, timeout=120, env={"NO_MKDOCS_2_WARNING": "1",
                                                                            "PATH": str(mkdocs.parent)})
    assert done.returncode == 0, done.stderr[-4000:]
    api = (tmp_path / "site" / "reference" / "api" / "index.html").read_text(encoding="utf-8")
    assert "count_solutions" in api and "parse_board_text" in api  # the docstrings were rendered


def test_generated_pages_equal_their_generation() -> None:
    stale = render_docs().differences()
    assert not stale, f"generated pages differ from their sources: {stale} (run python scripts/render_docs.py)"


def test_a_changed_result_file_changes_its_page(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check can fail: a figure edited in a committed result file shows up in the rendered results page."""
    docs = render_docs()
    copy = tmp_path / "results"
    shutil.copytree(docs.RESULTS, copy)
    before = docs.render_sweeps()
    import pandas as pd

    table = pd.read_csv(copy / "sweeps" / "sweep_9x9.csv")
    table.loc[table["logic.family"] == "lukasiewicz", "val/solve/board_accuracy"] = 0.123
    table.to_csv(copy / "sweeps" / "sweep_9x9.csv", index=False)
    monkeypatch.setattr(docs, "RESULTS", copy)
    after = docs.render_sweeps()
    assert after != before and "0.123" in after


def test_every_results_row_has_a_baseline_command_date_and_machine() -> None:
    rows = json.loads((REPO_ROOT / "docs" / "results" / "headline.json").read_text(encoding="utf-8"))["figures"]
    for row in rows:
        assert all(row.get(key) for key in ("what", "figure", "baseline", "command", "date", "machine", "page")), row
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", row["date"]), row["date"]
    assert 1 <= sum(bool(row.get("readme")) for row in rows) <= 8  # the README's table: at most 8 rows


def test_paired_bootstrap_says_tie_when_the_interval_holds_zero() -> None:
    docs = render_docs()
    rng = np.random.default_rng(1)
    a = rng.normal(0, 1, 300)
    mean, low, high = docs.paired_bootstrap(a, a + rng.normal(0, 0.01, 300))
    assert low <= mean <= high and docs.verdict(low, high) == "tie"
    mean, low, high = docs.paired_bootstrap(a, a + 1.0)  # the first is lower by 1 on every row
    assert high < 0 and docs.verdict(low, high) == "first better"
    assert docs.verdict(0.2, 0.5) == "second better" and docs.verdict(-0.1, 0.3) == "tie"


def test_readme_is_one_screen_and_a_half_with_the_two_commands_first() -> None:
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 100
    first_block = readme.split("```bash\n", 1)[1].split("```", 1)[0]
    assert [line.split("#")[0].strip() for line in first_block.splitlines()] == ["make demo", "make test"]
    makefile = (REPO_ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^demo: ", makefile, re.M) and re.search(r"^test: ", makefile, re.M)
    assert (REPO_ROOT / "CITATION.cff").is_file() and "MIT" in readme


@pytest.mark.parametrize("path", DOC_FILES, ids=lambda p: str(p.relative_to(REPO_ROOT)))
def test_no_page_names_a_numbered_issue_or_a_commit(path: Path) -> None:
    """Readers outside the project cannot open an issue number or a commit of the development history."""
    text = path.read_text(encoding="utf-8")
    issues = re.findall(r"\b(?:issues?|PR|pull request) ?#?\d+|(?<![\w/&])#\d+\b", text, flags=re.IGNORECASE)
    assert not issues, f"{path.name}: {issues[:5]}"
    commits = [commit for line in text.splitlines()
               for before, commit in re.findall(r"(.*?)\b(?:commit|at) `?([0-9a-f]{7,40})`?\b", line)
               if re.search(r"[0-9]", commit) and not re.search(r"\b[\w.-]+/[\w.-]+\b", before)]
    assert not commits, f"{path.name}: names commits {commits[:5]} (another repository's commit: name it, owner/repo)"
