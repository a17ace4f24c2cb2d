"""Data-parallel training (ltn_sudoku/logic/training/distributed.py): 2 gloo processes under torchrun against the single-process run
on the same global batches, rank-0-only writes, the run folder agreed by the ranks, resume, the submitit launcher."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import torch
from torch import nn

from ltn_sudoku.logic.board.data import build_splits
from ltn_sudoku.logic.board.model import LtnSudoku, ModelConfig
from ltn_sudoku.logic.board.objective import objective
from ltn_sudoku.logic.board.task import board_step
from ltn_sudoku.logic.checkpoints import load_checkpoint
from ltn_sudoku.logic.kb.operators import build_operators
from ltn_sudoku.logic.kinds import train
from ltn_sudoku.logic.training import distributed
from ltn_sudoku.logic.training.runtime import configure_torch
from ltn_sudoku.paths import REPO_ROOT
from scripts.gpu_check import tensorboard_losses
from tests.test_train import TINY, config

DATA = "data.train.solvable=21"  # with TINY's 8 impossible boards: 29 training boards, batches of 4
ENV = {**os.environ, "PYTHONWARNINGS": "ignore", "OMP_NUM_THREADS": "1"}


def batch_size_leaving_one(tmp_path: Path) -> str:
    """A batch size (override) whose epoch ends on a 1-board batch, whose shard on rank 1 is empty."""
    cfg = config(tmp_path, DATA)
    boards = len(build_splits(cfg, ModelConfig.from_cfg(cfg.model)).train)
    return f"train.batch_size={next(size for size in range(4, 9) if boards % size == 1)}"


def torchrun(*overrides: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2",
               "-m", "ltn_sudoku.train", "model=4x4", *TINY, *overrides]
    done = subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True, env=ENV, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return done


losses = tensorboard_losses  # (boards seen, loss) of every training batch, as TensorBoard holds them


def assert_same_curve(first: list[tuple[int, float]], second: list[tuple[int, float]]) -> None:
    """Losses after the same boards (steps equal), equal within float32 tolerance."""
    assert [step for step, _ in first] == [step for step, _ in second]
    assert torch.allclose(torch.tensor([v for _, v in first]), torch.tensor([v for _, v in second]), rtol=1e-5,
                          atol=1e-6)


def assert_same_weights(a: Path, b: Path) -> None:
    first, second = load_checkpoint(a)["state_dict"], load_checkpoint(b)["state_dict"]
    assert first.keys() == second.keys()
    for key in first:
        # float32 sums in another order (DDP's mean of two gradients), which Adam's normalisation amplifies where a
        # gradient is near 0: a few 1e-6 on most machines, 3.4e-5 on one bias on a 2-core x86 machine (2026-11-26);
        # tolerance 1e-4, 3 % of one Adam step (lr 3e-3): a wrong gradient moves weights by whole steps
        assert torch.allclose(first[key].float(), second[key].float(), rtol=1e-4, atol=1e-4), key


@dataclass
class Runs:
    root: Path
    batch_size: str  # the override
    single: Path  # one process
    ddp: Path  # two processes: rank 0's Hydra folder
    other: Path  # rank 1's Hydra folder


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Runs:
    """One epoch in one process (this one) and in two gloo processes under torchrun, same config and seed; the
    ranks' Hydra folders differ on purpose (h0, h1) and no run_dir is given: rank 0's folder must be the run's."""
    root = tmp_path_factory.mktemp("ddp")
    size = batch_size_leaving_one(root)
    train(config(root / "single", "train.epochs=1", DATA, size))
    torchrun("train.epochs=1", DATA, size, f"hydra.run.dir={root}/h" + "${oc.env:RANK}")
    return Runs(root, size, root / "single", root / "h0", root / "h1")


def test_two_processes_reproduce_the_single_process_loss_curve(runs: Runs) -> None:
    single, ddp = losses(runs.single), losses(runs.ddp)
    assert len(single) >= 4
    assert_same_curve(single, ddp)
    assert_same_weights(runs.single / "last.pt", runs.ddp / "last.pt")
    one, two = (json.loads((run / "metrics.json").read_text()) for run in (runs.single, runs.ddp))
    assert one["train/boards_seen"] == two["train/boards_seen"]
    assert (one["train/processes"], two["train/processes"]) == (1, 2)
    assert one["val/loss"] == pytest.approx(two["val/loss"], rel=1e-5)


def test_rank_zero_alone_writes_into_its_run_folder(runs: Runs) -> None:
    ddp, other = runs.ddp, runs.other
    assert {"last.pt", "best.pt", "metrics.json", "tb"} <= {p.name for p in ddp.iterdir()}
    assert not {"last.pt", "best.pt", "metrics.json", "tb"} & {p.name for p in other.iterdir()}  # rank 1's Hydra folder
    files = sorted(p.parent.name for p in (ddp / "tb").rglob("events.out.tfevents.*"))
    assert files == sorted(p.parent.name for p in (runs.single / "tb").rglob("events.out.tfevents.*"))
    logs = [line for log in (ddp, other) for line in (log / "train.log").read_text().splitlines()]
    assert sum("epoch 1/1" in line for line in logs) == 1  # rank 0 logs, rank 1 only warnings


@pytest.mark.slow  # another torchrun pair and a 2-epoch run: about 25 CPU s
def test_a_resumed_distributed_run_ends_where_an_uninterrupted_one_does(runs: Runs) -> None:
    root, size = runs.root, runs.batch_size
    torchrun("train.epochs=2", DATA, size, f"train.resume={runs.ddp / 'last.pt'}", f"run_dir={root / 'resumed'}",
             f"hydra.run.dir={root / 'h_resumed'}")
    train(config(root / "straight", "train.epochs=2", DATA, size))
    assert load_checkpoint(root / "resumed" / "last.pt")["extra"]["epoch"] == 1
    assert_same_weights(root / "straight" / "last.pt", root / "resumed" / "last.pt")
    assert_same_curve(losses(root / "resumed"), losses(root / "straight")[len(losses(runs.single)):])  # epoch 2


@pytest.mark.slow  # 4 training processes and the launcher's: about 40 CPU s
def test_local_submitit_launcher_runs_a_two_job_sweep_of_ddp_jobs(tmp_path: Path) -> None:
    """hydra/launcher=local_submitit, as the SLURM launcher would: 2 jobs, each of 2 tasks joined in one gloo group."""
    sweep = tmp_path / "sweep"
    command = [sys.executable, "-m", "ltn_sudoku.train", "-m", "hydra/launcher=local_submitit",
               "hydra.launcher.tasks_per_node=2", "model=4x4", "logic=stable_product,goedel", "train.epochs=1", *TINY,
               f"hydra.sweep.dir={sweep}", "hydra.sweep.subdir=${hydra.job.num}"]
    done = subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True, env=ENV, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    for job, family in (("0", "stable_product"), ("1", "goedel")):
        metrics = json.loads((sweep / job / "metrics.json").read_text())
        assert metrics["train/epoch"] == 1 and metrics["train/processes"] == 2
        assert load_checkpoint(sweep / job / "last.pt")["config"]["logic"]["family"] == family
        assert (sweep / job / "train.log").read_text().count("epoch 1/1") == 1  # rank 0 alone logs
    results = list((sweep / ".submitit").rglob("*_result.pkl"))
    assert len(results) == 4  # 2 submitit jobs x 2 tasks


def test_amp_runs_the_networks_in_bfloat16_and_keeps_the_loss_close(tmp_path: Path) -> None:
    cfg = config(tmp_path, "train.amp=true")
    configure_torch(cfg)
    model = LtnSudoku(ModelConfig.from_cfg(cfg.model))
    batch = next(build_splits(cfg, model.config).train.batches(8))
    ops = build_operators(cfg.logic)
    full = objective(model, ops, batch).loss
    dtypes: set[torch.dtype] = set()
    for module in model.modules():
        if isinstance(module, nn.Linear):
            module.register_forward_hook(lambda _m, _i, out: dtypes.add(out.dtype))
    mixed = distributed.loss_function(model, cfg, distributed.Process(), board_step(ops, False))(batch).loss
    assert dtypes == {torch.bfloat16}  # every linear layer ran in bf16
    assert mixed.dtype == torch.float32 and abs(mixed.item() - full.item()) < 0.02  # bf16: ~3 significant digits
    mixed.backward()
    assert all(torch.isfinite(p.grad).all() for p in model.parameters() if p.grad is not None)


@pytest.mark.slow  # inductor compiles C++ for the CPU: a minute or more
def test_compile_gives_the_eager_loss(tmp_path: Path) -> None:
    cfg = config(tmp_path, "train.compile=true")
    configure_torch(cfg)
    model, eager = LtnSudoku(ModelConfig.from_cfg(cfg.model)), LtnSudoku(ModelConfig.from_cfg(cfg.model))
    eager.load_state_dict(model.state_dict())
    ops = build_operators(cfg.logic)
    loss_fn = distributed.loss_function(model, cfg, distributed.Process(), board_step(ops, False))
    for batch in list(build_splits(cfg, model.config).train.batches(8))[:2]:
        assert loss_fn(batch).loss.item() == pytest.approx(objective(eager, ops, batch).loss.item(),
                                                                       rel=1e-5)
    assert list(model.state_dict()) == list(eager.state_dict())  # compiled in place: checkpoint keys unchanged


@pytest.mark.slow  # a visual run in one process and under torchrun with two: about 40 CPU s
def test_two_processes_train_a_visual_model_as_one_does(tmp_path: Path) -> None:
    """The visual task through the same loop under DDP: the same batch losses and weights as one process (every
    rank draws the same batch order and augmentation, then trains on its shard of each augmented batch)."""
    from tests.test_visual_train import TINY as VISUAL_TINY
    from tests.test_visual_train import config as visual_config

    common = ["train.epochs=2", "train.batch_size=3"]  # 8 boards: batches of 3, 3, 2 (shards of 2+1, 1+1)
    train(visual_config(tmp_path / "single", *common))
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2", "-m",
               "ltn_sudoku.train", "model=visual_4x4", *VISUAL_TINY, *common, f"run_dir={tmp_path / 'ddp'}",
               f"hydra.run.dir={tmp_path}/h" + "${oc.env:RANK}"]
    done = subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True, env=ENV, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert_same_curve(losses(tmp_path / "single"), losses(tmp_path / "ddp"))
    assert_same_weights(tmp_path / "single" / "last.pt", tmp_path / "ddp" / "last.pt")
    metrics = json.loads((tmp_path / "ddp" / "metrics.json").read_text())
    assert metrics["train/processes"] == 2 and "test/board_accuracy" in metrics
