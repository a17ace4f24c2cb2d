"""scripts/bench_guidance.py end to end on a tiny setting: every order and a model on two puzzles per set."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_bench_guidance_smoke(tmp_path: Path, kaggle_data_home: Path) -> None:
    """The 3M rows come from the test's data home (conftest.kaggle_data_home: the shipped 3M sample)."""
    out = tmp_path / "bench"
    done = subprocess.run([sys.executable, str(ROOT / "scripts/bench_guidance.py"), "--sets", "top1465,kaggle_3m_test",
                           "--limit", "2", "--checkpoints", "checkpoints/9x9.pt", "--random-seeds", "0",
                           "--out-dir", str(out), "--record", str(tmp_path / "rec"), "--machine", "test machine"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    solver = pd.read_csv(out / "solver.csv")
    learned = {"hasValue 9x9", "hasValue 9x9 root call", "hasValue 9x9 root call batched"}
    hand = {"ascending", "random (seed 0)", "least constraining", "fewest places in units"}
    assert set(solver.order) == hand | learned | {"oracle (solution's digit first)"}
    assert (solver.correct == 1).all() and (solver.puzzles == 2).all()
    assert (solver[solver.order.str.startswith("oracle")]["wrong_guesses mean"] == 0).all()
    cadical = pd.read_csv(out / "cadical.csv")
    assert (cadical.correct == 1).all() and len(set(cadical.order)) == 3
    summary = json.loads((out / "summary.json").read_text())
    assert summary["sizes"] == {"top1465": 2, "kaggle_3m_test": 2} and summary["models"][0]["train_command"]
    assert (out / "wrong_guesses.png").stat().st_size > 0 and len(pd.read_csv(out / "rows.csv")) == 2 * 2 * (8 + 3)
    assert "== top1465: 2 puzzles ==" in done.stdout and "learned against hand-made orders" in done.stdout
    rows = pd.read_csv(out / "rows.csv").query("kind == 'solver'")
    calls = rows.groupby("order").model_calls.max()
    assert calls["ascending"] == 0 and calls["hasValue 9x9 root call"] <= 1 and calls["hasValue 9x9 root call batched"] == 0
    paired = pd.read_csv(out / "paired.csv")
    assert len(paired) == 2 * len(learned) * len(hand) and set(paired.learned) == learned
    assert set(paired["hand-made"]) == hand and (paired.groupby(["set", "learned"])["best hand-made"].sum() == 1).all()
    assert ((paired.low <= paired.difference + 1e-9) & (paired.difference <= paired.high + 1e-9)).all()
    assert set(paired.verdict) <= {"tie", "learned better", "learned worse"} and (paired["ascending wall_s"] > 0).all()
    meta = json.loads((tmp_path / "rec.json").read_text())
    assert meta["machine"] == "test machine" and meta["date"] and meta["command"].startswith("python ")
    assert meta["files"] == [f"{tmp_path / 'rec'}_{part}" for part in ("rows.csv.gz", "paired.csv", "solver.csv")]
    recorded = pd.read_csv(tmp_path / "rec_rows.csv.gz")
    assert set(recorded.columns) == {"set", "puzzle", "order", "wrong_guesses", "nodes", "model_calls", "wall_s"}
    assert recorded.wrong_guesses.tolist() == rows.wrong_guesses.tolist()


def test_paired_table_judges_each_learned_order_against_each_hand_made_one() -> None:
    """A learned order one wrong guess below ascending on every puzzle is better with the interval [-1, -1]; equal to
    another hand-made order, a tie; the worse share, the best hand-made order and the wall ratio as constructed."""
    from scripts.bench_guidance import paired_table

    puzzles = range(30)
    frame = pd.DataFrame([{"set": "s", "puzzle": p, "kind": "solver", "order": order, "wrong_guesses": guesses,
                           "wall_s": wall}
                          for p in puzzles for order, guesses, wall in
                          (("ascending", 2 + p % 3, 0.01), ("fewest places in units", 1 + p % 3, 0.01),
                           ("hasValue m root call", 1 + p % 3, 0.015), ("oracle (solution's digit first)", 0, 0.01))])
    paired = paired_table(frame).set_index("hand-made")
    assert set(paired.index) == {"ascending", "fewest places in units"}  # the oracle is no hand-made order
    ascending, fewest = paired.loc["ascending"], paired.loc["fewest places in units"]
    assert ascending.verdict == "learned better" and ascending.difference == pytest.approx(-1.0)
    assert (ascending.low, ascending.high) == (pytest.approx(-1.0), pytest.approx(-1.0))
    assert fewest.verdict == "tie" and fewest["learned worse share"] == 0 and fewest["best hand-made"]
    assert not ascending["best hand-made"] and ascending["learned better share"] == 1
    assert ascending["learned wall / ascending"] == pytest.approx(1.5)
    assert ascending["learned p95"] == pytest.approx(np.percentile([1 + p % 3 for p in puzzles], 95))


def test_bench_guidance_rejects_a_bad_variant() -> None:
    done = subprocess.run([sys.executable, str(ROOT / "scripts/bench_guidance.py"), "--sets", "top1465",
                           "--variants", "root,leaf@4"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "--variants item 'leaf@4'" in done.stderr


def test_bench_guidance_rejects_unknown_sets() -> None:
    done = subprocess.run([sys.executable, str(ROOT / "scripts/bench_guidance.py"), "--sets", "nope"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "unknown set nope" in done.stderr


def test_bench_guidance_shards_merge_to_the_whole_run(tmp_path: Path) -> None:
    """Two shards (with different orders) merged by --from-rows: each puzzle once, under its index in the whole
    sample, with the same wrong guesses as an unsharded run; a puzzle an order lacks is dropped."""
    def run(*extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, str(ROOT / "scripts/bench_guidance.py"), "--sets", "top1465",
                               "--limit", "3", "--checkpoints", "", "--random-seeds", "", *extra], cwd=ROOT,
                              capture_output=True, text=True, timeout=300)

    for shard in ("0/2", "1/2"):
        assert run("--shard", shard, "--out-dir", str(tmp_path / shard[0])).returncode == 0
    assert run("--out-dir", str(tmp_path / "whole")).returncode == 0
    halves = [pd.read_csv(tmp_path / k / "rows.csv") for k in "01"]
    assert sorted(halves[0].puzzle.unique()) == [0, 2] and sorted(halves[1].puzzle.unique()) == [1]
    merged = run("--from-rows", str(tmp_path / "0/rows.csv"), str(tmp_path / "1/rows.csv"), str(tmp_path / "0/rows.csv"),
                 "--out-dir", str(tmp_path / "merged"))
    assert merged.returncode == 0, merged.stderr[-2000:]
    columns = ["puzzle", "order", "wrong_guesses", "nodes"]
    whole = pd.read_csv(tmp_path / "whole/rows.csv").query("kind == 'solver'")[columns]
    joined = pd.concat(halves).query("kind == 'solver'")[columns]
    assert joined.sort_values(columns).to_numpy().tolist() == whole.sort_values(columns).to_numpy().tolist()
    assert (pd.read_csv(tmp_path / "merged/solver.csv").puzzles == 3).all()
    shard_only = halves[0][halves[0].order != "ascending"]  # puzzle rows of an order missing from one file
    shard_only.to_csv(tmp_path / "partial.csv", index=False)
    partial = run("--from-rows", str(tmp_path / "partial.csv"), str(tmp_path / "1/rows.csv"),
                  "--out-dir", str(tmp_path / "partial"))
    assert partial.returncode == 0 and (pd.read_csv(tmp_path / "partial/solver.csv").puzzles == 1).all()


def test_bench_guidance_rejects_a_bad_shard(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(ROOT / "scripts/bench_guidance.py"), "--sets", "top1465", "--shard",
                           "3/2", "--out-dir", str(tmp_path / "out")], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2 and "--shard '3/2'" in done.stderr and not (tmp_path / "out").exists()
