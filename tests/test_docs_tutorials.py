"""Every command of every tutorial (docs/tutorials/*.md) runs, in a tiny setting, so that the tutorials cannot rot.

Each tutorial's ```bash and ```python blocks become one bash script, in page order, run in a scratch folder that
sees the repository's data/ and scripts/. Training and evaluation commands get the tiny overrides of the training
tests appended (Hydra takes the last value of a key); benchmark scripts get small sizes. A command the test does not
know how to run small fails the test, so a new tutorial command needs a line here. Skipped: `tensorboard` (a server;
the runs' event files are checked instead).
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from ltn_sudoku.paths import REPO_ROOT
from tests.test_train import TINY, TINY_EVAL
from tests.test_visual_train import TINY as VISUAL_TRAIN_TINY

TUTORIALS = REPO_ROOT / "docs" / "tutorials"
BLOCK = re.compile(r"^```(bash|python)\n(.*?)^```", re.MULTILINE | re.DOTALL)
VISUAL_TINY = [*VISUAL_TRAIN_TINY, "train.epochs=1"]  # the visual trainer's tiny settings, one epoch
SKIPPED = ("tensorboard ",)
RUN_AS_GIVEN = ("classify-board ", "ltn-sudoku solve ", "python scripts/aggregate_sweep.py ", "RUN=$(")
# the tutorials' benchmark commands, each with the arguments that make it small
SMALL = {
    "python scripts/bench_techniques.py soundness": ["--limit", "2", "--survey", "0"],
    "python scripts/bench_visual.py": ["data.val_boards=8", "data.test_boards=8", "train.epochs=1"],
}


def blocks(page: Path, only: str | None = None, without: str | None = None) -> list[tuple[str, str]]:
    """(language, text) of each fenced bash / python block, in page order; `only` / `without`: the blocks of the
    `## ` section with that title only, or all but them (a long tutorial is run in two tests)."""
    sections = re.split(r"^## ", page.read_text(encoding="utf-8"), flags=re.MULTILINE)
    kept = [text for text in sections if (only is None or text.startswith(only))
            and (without is None or not text.startswith(without))]
    return [(m.group(1), m.group(2)) for text in kept for m in BLOCK.finditer(text)]


def commands(text: str) -> list[str]:
    """The commands of a bash block: continuation lines joined, comments and blank lines dropped."""
    joined = re.sub(r"\\\n\s*", "", text)
    return [line.split("   #")[0].strip() for line in joined.splitlines() if line.strip() and not line.startswith("#")]


def small(command: str) -> str | None:
    """The command as the test runs it (None: skipped); AssertionError for a command the test does not know."""
    if command.startswith(SKIPPED):
        return None
    if command.startswith(RUN_AS_GIVEN):
        return command
    for prefix, extra in SMALL.items():
        if command.startswith(prefix):
            return f"{command} {shlex.join(extra)}"
    hydra = re.match(r"python -m ltn_sudoku\.(train|evaluate)\b", command)
    assert hydra, f"a tutorial command the test cannot run small: {command!r} (add it to tests/test_docs_tutorials.py)"
    tiny = VISUAL_TINY if "model=visual" in command else [*TINY, "train.epochs=1"]
    if hydra.group(1) == "evaluate":
        tiny = [*tiny, *TINY_EVAL]
    if "-m" in command.split()[3:4]:  # `python -m ltn_sudoku.train -m ...`: a sweep: short job folders (the tiny overrides would make too long a name)
        tiny = [*tiny, "hydra.sweep.subdir=${hydra.job.num}"]
    return f"{command} {shlex.join(tiny)}"


def script(page: Path, only: str | None = None, without: str | None = None) -> str:
    """The tutorial as one bash script: bash lines made small, python blocks as heredocs, in page order."""
    lines = ["set -euo pipefail"]
    for language, text in blocks(page, only, without):
        if language == "python":
            lines += ["python - <<'PYTHON_BLOCK'", text.rstrip("\n"), "PYTHON_BLOCK"]
            continue
        lines += [c for c in map(small, commands(text)) if c is not None]
    return "\n".join(lines) + "\n"


def run_tutorial(name: str, tmp_path: Path, only: str | None = None, without: str | None = None) -> Path:
    """Run docs/tutorials/<name>.md's script (or the part `only` / `without` select) in tmp_path, which sees data/
    and scripts/; returns tmp_path."""
    for folder in ("data", "scripts"):
        (tmp_path / folder).symlink_to(REPO_ROOT / folder)
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
           "PYTHONPATH": str(REPO_ROOT), "PYTHONWARNINGS": "ignore", "MPLBACKEND": "Agg"}
    done = subprocess.run(["bash", "-c", script(TUTORIALS / f"{name}.md", only, without)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"tutorial {name} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return tmp_path


def test_every_tutorial_command_is_known_and_the_pages_are_listed() -> None:
    pages = sorted(p.stem for p in TUTORIALS.glob("*.md"))
    assert pages == sorted(TUTORIAL_TESTS), "a tutorial page without its test below (or a test without its page)"
    for name in pages:
        text = script(TUTORIALS / f"{name}.md")  # raises on a command the test cannot run small
        assert "python" in text or "classify-board" in text


def test_small_appends_the_tiny_settings_and_refuses_unknown_commands() -> None:
    line = small("python -m ltn_sudoku.train model=9x9 train.epochs=3")
    assert line is not None and line.endswith("train.epochs=1") and "model.hidden=8" in line
    sweep = small("python -m ltn_sudoku.train -m model=9x9 logic=product,goedel")
    assert sweep is not None and "hydra.sweep.subdir" in sweep and "hydra.sweep.subdir" not in line
    assert small("tensorboard --logdir outputs") is None
    with pytest.raises(AssertionError, match="cannot run small"):
        small("python scripts/bench_everything.py")


@pytest.mark.slow
def test_first_answers(tmp_path: Path) -> None:
    run_tutorial("first-answers", tmp_path)
    import pandas as pd

    answers = pd.read_csv(tmp_path / "answers.csv")
    assert len(answers) > 0 and (answers["solutions"] == 0).all()


@pytest.mark.slow
def test_first_training(tmp_path: Path) -> None:
    run_tutorial("first-training", tmp_path)
    runs = list((tmp_path / "outputs").glob("*/*_train_4x4_*"))
    assert len(runs) == 1 and (runs[0] / "best.pt").is_file() and (runs[0] / "metrics.json").is_file()
    assert list((runs[0] / "tb").rglob("events.out.tfevents.*"))  # what `tensorboard --logdir outputs` reads


@pytest.mark.slow
def test_tnorm_sweep(tmp_path: Path) -> None:
    run_tutorial("tnorm-sweep", tmp_path)
    import pandas as pd

    table = pd.read_csv(tmp_path / "tnorm_9x9.csv")
    assert sorted(table["logic.family"]) == ["goedel", "lukasiewicz", "product"]
    assert (tmp_path / "tnorm_9x9.png").stat().st_size > 0


@pytest.mark.slow
def test_add_axiom(tmp_path: Path) -> None:
    run_tutorial("add-axiom", tmp_path)
    for run in ("no_unit_axiom", "unit_axiom"):
        assert (tmp_path / "outputs" / run / "metrics.json").is_file()
    tags = EventAccumulator(str(tmp_path / "outputs" / "unit_axiom" / "tb")).Reload().Tags()["scalars"]
    assert {"sat/unit_has_digit", "grad/unit_has_digit", "construction/givens"} <= set(tags)


@pytest.mark.slow
def test_add_technique(tmp_path: Path) -> None:
    run_tutorial("add-technique", tmp_path)


VISUAL_BASELINES = "Beside the baselines"  # the visual tutorial's benchmark section, run by a test of its own


@pytest.mark.slow
def test_visual_sudoku(tmp_path: Path) -> None:
    run_tutorial("visual-sudoku", tmp_path, without=VISUAL_BASELINES)
    assert (tmp_path / "outputs" / "visual_4x4" / "best.pt").is_file() and (tmp_path / "cells.npz").is_file()


@pytest.mark.slow
def test_visual_sudoku_baselines(tmp_path: Path) -> None:
    assert blocks(TUTORIALS / "visual-sudoku.md", only=VISUAL_BASELINES)  # the section is still there
    run_tutorial("visual-sudoku", tmp_path, only=VISUAL_BASELINES)


TUTORIAL_TESTS = {"first-answers": test_first_answers, "first-training": test_first_training,
                  "tnorm-sweep": test_tnorm_sweep, "add-axiom": test_add_axiom, "add-technique": test_add_technique,
                  "visual-sudoku": test_visual_sudoku}
