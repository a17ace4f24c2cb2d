"""Issue 40's orders trained where they are tested: split samples of a set, branch states of its train split, a
learning-curve point of an order_* experiment, and linear orders distilled from the LTN, each against truth (the
split function, the exact solver, the checkpoint the point started from, the hand-made orders)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch

from ltn_sudoku.branching.linear import FEATURES, LinearOrder
from ltn_sudoku.branching.orders import FewestPlaces, LeastConstraining
from ltn_sudoku.branching.solver import solve
from ltn_sudoku.exact import solve_batch
from ltn_sudoku.io import iter_records
from ltn_sudoku.io.split import split_of
from ltn_sudoku.paths import DATA_DIR, DATA_HOME_VARIABLE

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

from bench_guidance import puzzles  # noqa: E402

SAMPLE = DATA_DIR / "9x9" / "17clue_sample1000.txt"


@pytest.fixture
def seventeen_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A data home whose 17-clue list is the shipped 1,000-puzzle sample."""
    home = tmp_path / "home"
    (home / "9x9").mkdir(parents=True)
    shutil.copy(SAMPLE, home / "9x9" / "17clue_49158.txt")
    monkeypatch.setenv(DATA_HOME_VARIABLE, str(home))
    return home


def test_a_split_sample_holds_that_split_only_and_the_whole_file_sample_is_unchanged(seventeen_home: Path) -> None:
    everything = [r.board for r in iter_records(SAMPLE)]
    test = puzzles("seventeen_clue", 40, 5, split="test")
    train = puzzles("seventeen_clue", 40, 5, split="train")
    assert len(test) == len(train) == 40 and all(b in everything for b in test + train)
    assert {split_of(b) for b in test} == {"test"} and {split_of(b) for b in train} == {"train"}
    assert not {b.values for b in test} & {b.values for b in train}
    # without a split: the seeded sample of earlier runs (the committed results were drawn so)
    picks = set(np.random.default_rng([5, len(everything)]).choice(len(everything), size=40, replace=False).tolist())
    assert puzzles("seventeen_clue", 40, 5) == [b for i, b in enumerate(everything) if i in picks]


def test_branch_states_of_a_set_come_from_its_train_split_and_agree_with_the_solutions(seventeen_home: Path) -> None:
    done = subprocess.run([sys.executable, str(ROOT / "scripts/make_branch_states.py"), "--set", "seventeen_clue",
                           "--puzzles", "30", "--seed", "3"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    path = seventeen_home / "branch_states" / "seventeen_clue_train.csv"  # where conf/experiment/order_* read it
    rows = [line.split(",") for line in path.read_text().splitlines()[1:]]
    assert rows and str(len(rows)) in done.stdout
    states = np.array([[int(c) for c in s] for s, _ in rows])
    solutions = np.array([[int(c) for c in t] for _, t in rows])
    assert ((states == 0) | (states == solutions)).all() and ((states > 0).sum(1) >= 17).all()
    counts, exact = solve_batch(states, 2)
    assert (counts == 1).all() and (exact == solutions).all()  # each state has one solution: its puzzle's
    train = {tuple(solve_batch(np.array([b.values]), 1)[1][0]) for b in puzzles("seventeen_clue", 30, 3, split="train")}
    assert {tuple(s) for s in solutions} <= train  # every state is a state of a train-split puzzle
    test = puzzles("seventeen_clue", 100, 0, split="test")
    assert not {tuple(s) for s in solutions} & {tuple(solve_batch(np.array([b.values]), 1)[1][0]) for b in test}


def test_an_order_experiment_point_fine_tunes_the_shipped_model_on_branch_states(tmp_path: Path,
                                                                                 seventeen_home: Path) -> None:
    made = subprocess.run([sys.executable, str(ROOT / "scripts/make_branch_states.py"), "--set", "seventeen_clue",
                           "--puzzles", "40", "--states", "16"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert made.returncode == 0, made.stderr[-2000:]
    out = tmp_path / "curve"
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts/learning_curve.py"), "--experiment", "order_seventeen_clue",
         "--variants", "rules_only", "--min-boards", "16", "--max-boards", "16", "--eval-sets", "seventeen_clue",
         "--eval-split", "test", "--eval-order", "root", "--eval-puzzles", "3", "--device", "cpu",
         "--out-dir", str(out), "model.steps=2", "model.eval_steps=2", "data.val.solvable=8", "data.val.impossible=8",
         "data.val.closed_valid=4", "data.val.closed_invalid=4", "threads=1"],
        cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    start = json.loads((out / "rules_only/b0/point.json").read_text())
    point = json.loads((out / "rules_only/b16/point.json").read_text())
    assert start["checkpoint"] == "checkpoints/9x9_message_passing.pt" and start["train_wall_s"] == 0
    assert point["boards_seen"] == 16 + 4 and point["eval_split"] == "test" and point["eval_order"] == "root"
    for p in (start, point):  # the same puzzles: the hand-made baselines agree across points
        assert p["seventeen_clue wrong guesses ascending"] == start["seventeen_clue wrong guesses ascending"] >= 0
    command = json.loads((out / "rules_only/b16/command.json").read_text())["command"]
    assert "+experiment=order_seventeen_clue" in command and "data.train.boards_limit=16" in command
    metrics = json.loads((out / "rules_only/b16/metrics.json").read_text())
    assert any(o.startswith("branch states of the 17-clue") for o in metrics["data/train_origins"])
    payload = torch.load(out / "rules_only/b16/best.pt", map_location="cpu", weights_only=True)
    assert payload["config"]["experiment"]["name"] == "order_seventeen_clue"
    assert len(payload["extra"]["lineage"]) == 3  # the shipped model's chain (B, D, E), then this run
    assert (out / "curve.csv").is_file() and (out / "curve.png").stat().st_size > 0


@pytest.mark.parametrize(("feature", "hand"), [("fewest_places", FewestPlaces), ("open_peers", LeastConstraining)])
def test_a_linear_order_on_one_feature_is_that_hand_made_order(feature: str, hand: type) -> None:
    """Weight -1 on a feature reproduces the hand-made order it was read from, search for search."""
    weights = -np.eye(len(FEATURES))[FEATURES.index(feature)]
    for board in [r.board for r in iter_records(DATA_DIR / "9x9" / "top1465.txt")][:12]:
        ours, theirs = solve(board, LinearOrder(weights)), solve(board, hand())
        assert (ours.wrong_guesses, ours.nodes) == (theirs.wrong_guesses, theirs.nodes)
        assert ours.solutions == theirs.solutions


def test_a_distilled_order_is_fitted_loaded_and_benchmarked_against_the_hand_made_ones(tmp_path: Path,
                                                                                       seventeen_home: Path) -> None:
    made = subprocess.run([sys.executable, str(ROOT / "scripts/make_branch_states.py"), "--set", "seventeen_clue",
                           "--puzzles", "60", "--states", "40"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert made.returncode == 0, made.stderr[-2000:]
    files = []
    for target in ("solution", "teacher"):
        out = tmp_path / f"linear_{target}.json"
        done = subprocess.run([sys.executable, str(ROOT / "scripts/distill_order.py"), "--set", "seventeen_clue",
                               "--target", target, "--states", "24", "--out", str(out)],
                              cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        info = json.loads(out.read_text())
        assert info["features"] == list(FEATURES) and info["states"] == 24 and info["examples"] >= 24
        assert 0 <= info["top1_solution"] <= 1 and (target == "solution") == (info["teacher"] is None)
        files.append(str(out))
    order = LinearOrder.load(files[1])
    assert order.name == "learned linear_teacher" and order.weights.shape == (len(FEATURES),)
    bench = subprocess.run([sys.executable, str(ROOT / "scripts/bench_guidance.py"), "--sets", "seventeen_clue",
                            "--split", "test", "--limit", "3", "--checkpoints", "", "--linear", ",".join(files),
                            "--random-seeds", "0", "--no-cadical", "--out-dir", str(tmp_path / "bench")],
                           cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert bench.returncode == 0, bench.stderr[-2000:]
    paired = pd.read_csv(tmp_path / "bench" / "paired.csv")
    assert set(paired.learned) == {"learned linear_solution", "learned linear_teacher"}
    solver = pd.read_csv(tmp_path / "bench" / "solver.csv")
    assert (solver.correct == 1).all()
    assert json.loads((tmp_path / "bench" / "summary.json").read_text())["split"] == "test"
    missing = subprocess.run([sys.executable, str(ROOT / "scripts/distill_order.py"), "--set", "kaggle_3m"],
                             cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert missing.returncode == 2 and "make_branch_states.py --set kaggle_3m_test" in missing.stderr
