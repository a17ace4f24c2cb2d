"""Runs you can find and compare: a training prints its run folder when it starts and when it ends, a sweep's job
folders are named by what the sweep varies (short and distinct, also as TensorBoard's run names), and one override
(+experiment=debug, or debug=enabled) shrinks any run to a smoke test."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ltn_sudoku.logic.training.sweep_names import MAX_NAME, job_name, swept_keys

ROOT = Path(__file__).resolve().parents[1]
LONG = ["model=4x4", "logic=lukasiewicz,product", "train.epochs=1", "train.patience=100", "data.train.solvable=40",
        "data.train.impossible=10", "data.val.solvable=8", "data.val.impossible=8", "train.progress=false",
        "seed=range(0,3)", "data.kaggle_path=/data/home/kaggle/sudoku-3m.csv.gz"]


def test_a_job_is_named_by_the_swept_keys_only() -> None:
    assert swept_keys(LONG) == ["logic", "seed"]
    job = ["model=4x4", "logic=product", "train.epochs=1", "seed=2", "data.kaggle_path=/data/home/k/x.csv.gz"]
    assert job_name(job, ["logic", "seed"]) == "logic=product_seed=2"
    # no sweep known (a job started some other way): every override, each key by its last part, paths by file name
    assert job_name(job, []) == "model=4x4_logic=product_epochs=1_seed=2_kaggle_path=x.csv.gz"
    long = job_name([f"train.key{i}={'v' * 40}" for i in range(10)], [])
    assert len(long) == MAX_NAME and long != job_name([f"train.key{i}={'w' * 40}" for i in range(10)], [])
    assert swept_keys(["model=4x4", "train.epochs=1"]) == [] and swept_keys(["bad=[unclosed"]) == []


def _train(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ltn_sudoku.train", *args, "threads=1"], cwd=cwd,
                          capture_output=True, text=True, timeout=600,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})


@pytest.mark.slow
def test_a_two_job_debug_sweep_has_short_distinct_folders_that_tensorboard_tells_apart(tmp_path: Path) -> None:
    from tensorboard.backend.event_processing.event_multiplexer import EventMultiplexer

    sweep = tmp_path / "sweep"
    done = _train("-m", "model=4x4", "+experiment=debug", "logic=lukasiewicz,product", f"hydra.sweep.dir={sweep}",
                  cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    jobs = sorted(p.name for p in sweep.iterdir() if p.is_dir())
    assert jobs == ["0_logic=lukasiewicz", "1_logic=product"]
    for job in jobs:  # printed when it starts and when it ends
        assert done.stdout.count(f"run folder: {sweep / job}") == 2
    runs = EventMultiplexer().AddRunsFromDirectory(str(sweep)).Runs()
    assert {"0_logic=lukasiewicz/tb", "1_logic=product/tb"} <= set(runs)  # (+ each job's tb/hparams)
    assert {run.split("/")[0] for run in runs} == set(jobs)


@pytest.mark.slow
def test_debug_shrinks_a_9x9_run_to_one_small_epoch(tmp_path: Path) -> None:
    done = _train("model=9x9", "+experiment=debug", f"run_dir={tmp_path / 'run'}", cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "epoch 1/1:" in done.stderr + done.stdout and (tmp_path / "run" / "best.pt").is_file()
