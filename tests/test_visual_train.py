"""The visual trainer end to end on a few boards, its config checks, and the no-digit-label guarantee."""

from __future__ import annotations

import dataclasses
import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from omegaconf import DictConfig

from ltn_sudoku.logic.checkpoints import load_checkpoint, save_checkpoint
from ltn_sudoku.logic.commands.check import check_command_line, check_config
from ltn_sudoku.logic.config.schema import compose_config
from ltn_sudoku.logic.kinds import load_model, train
from ltn_sudoku.logic.visual.boards import VisualBoards
from ltn_sudoku.logic.visual.data import VisualData, build_data
from ltn_sudoku.logic.visual.decode import CLIP
from ltn_sudoku.logic.visual.train import shifted, warped
from ltn_sudoku.paths import DATA_DIR, REPO_ROOT

TINY = ["data.train_boards=8", "data.val_boards=8", "data.test_boards=8", "train.decode_time_limit=0.05", "train.epochs=2", "train.progress=false",
        f"data.mnist_path={DATA_DIR / 'mnist_sample'}"]


def config(run_dir: Path, *overrides: str) -> DictConfig:
    return compose_config(["model=visual_4x4", f"run_dir={run_dir}", *TINY, *overrides])


def test_train_entry_point_trains_a_visual_model(tmp_path: Path) -> None:
    cfg = config(tmp_path)
    check_config(cfg, "train")  # passes: exits otherwise
    metrics = train(cfg)  # ltn_sudoku.train hands model.kind=visual to the visual trainer
    assert 0 <= metrics["test/board_accuracy"] <= 1 and 0.25 <= metrics["test/digit_accuracy"] <= 1
    assert json.loads((tmp_path / "metrics.json").read_text())["test/boards"] == 8
    payload = load_checkpoint(tmp_path / "best.pt", 4)
    assert payload["config"]["model"]["kind"] == "visual" and "epoch" in payload["extra"]
    assert sorted(payload["extra"]["digit_names"]) == [0, 1, 2, 3]
    assert any((tmp_path / "tb").iterdir())
    model, _, _ = load_model(tmp_path / "best.pt", kind="visual")
    assert model.read(torch.zeros(1, 16, 28, 28, dtype=torch.uint8)).shape == (1, 16)


def _scrambled(boards: VisualBoards, rng: np.random.Generator) -> VisualBoards:
    return dataclasses.replace(boards, digits=rng.integers(1, 5, size=boards.digits.shape))


@pytest.mark.parametrize("overrides", [("train.epochs=1",),
                                       ("train.epochs=2", "train.abduce_weight=1", "train.abduce_from_epoch=2")],
                         ids=["rules", "abduction"])
def test_training_never_reads_a_digit_label(tmp_path: Path, overrides: tuple[str, ...]) -> None:
    cfg = config(tmp_path / "a", *overrides)
    data = build_data(4, cfg.data, int(cfg.seed))
    rng = np.random.default_rng(0)
    scrambled = VisualData(_scrambled(data.train, rng), _scrambled(data.val, rng), data.test)
    assert not np.array_equal(scrambled.train.digits, data.train.digits)
    train(cfg, data)
    train(config(tmp_path / "b", *overrides), scrambled)
    for name in ("last.pt", "best.pt"):
        a = load_checkpoint(tmp_path / "a" / name)["state_dict"]
        b = load_checkpoint(tmp_path / "b" / name)["state_dict"]
        assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


@pytest.mark.parametrize("override, message", [
    ("data.mnist_path=/nonexistent/mnist", "MNIST idx files not found"),
    ("model.size=16", "visual boards are 4x4 or 9x9"),
    ("data.train_boards=0", "data.train_boards=0"),
    ("train.rules_weight=-1", "train.rules_weight=-1"),
    ("train.abduce_weight=-0.5", "train.abduce_weight=-0.5"),
    ("train.abduce_from_epoch=0", "train.abduce_from_epoch=0"),
    ("train.abduce_bound=0", "train.abduce_bound=0"),
    ("model.pool=3", "model.pool=3"),
    ("train.self_train_confident=1.5", "train.self_train_confident=1.5"),
    ("train.monitor=val/loss", "train.monitor=val/loss"),
    ("model.pool=true", "model.pool=true"),
    ("model.axioms=[row,nonsense]", "model.axioms"),
    ("train.rotate=-5", "train.rotate=-5"),
    ("train.scale=1.0", "train.scale=1.0"),
    ("train.warp_once_explained=maybe", "train.warp_once_explained=maybe"),
])
def test_bad_visual_configs_are_refused(tmp_path: Path, override: str, message: str,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:  # the command line, composed against the schema, then checked
        check_command_line(["model=visual_4x4", f"run_dir={tmp_path}", *TINY, override], "train")
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and message in err and err.count("\n") == 1


def test_sweep_axes_override_the_visual_defaults(tmp_path: Path) -> None:
    """model=visual_* selects data=visual, train=visual, logic=visual; a sweep's logic=... and data.* still win."""
    cfg = config(tmp_path)
    assert (cfg.logic.family, cfg.data.train_boards) == ("stable_product", 8)
    assert (cfg.train.monitor, cfg.train.abduce_from_epoch) == ("val/map_decoding/board_accuracy", 10)
    cfg = config(tmp_path, "logic=lukasiewicz", "data.train_boards=50")
    assert (cfg.logic.family, cfg.data.train_boards) == ("lukasiewicz", 50)
    check_config(cfg, "train")


def _principal_axis_degrees(image: torch.Tensor) -> float:
    """Angle of the image's ink from the vertical, by the second moments of its mass (degrees)."""
    ys, xs = torch.meshgrid(torch.arange(28.0), torch.arange(28.0), indexing="ij")
    w = image / image.sum()
    my, mx = (w * ys).sum(), (w * xs).sum()
    cyy, cxx, cxy = (w * (ys - my) ** 2).sum(), (w * (xs - mx) ** 2).sum(), (w * (ys - my) * (xs - mx)).sum()
    return float(torch.rad2deg(0.5 * torch.atan2(2 * cxy, cyy - cxx)).abs())


def test_warped_keeps_each_digit_a_digit() -> None:
    bar = torch.zeros(200, 28, 28, dtype=torch.uint8)
    bar[:, 6:22, 13:15] = 255  # a vertical stroke, like a 1
    out = warped(bar, 2, 15.0, 0.1, torch.Generator().manual_seed(0))
    assert out.shape == bar.shape and out.dtype == torch.float32 and 0 <= out.min() and out.max() <= 1
    angles = [_principal_axis_degrees(img) for img in out]
    assert max(angles) <= 16 and np.mean(angles) > 3  # rotated, never by more than 15°(+ resampling)
    mass = out.sum(dim=(1, 2)) / (bar[0].float() / 255).sum()
    assert 0.75 < float(mass.min()) and float(mass.max()) < 1.3  # scaled by 1 ± 0.1: mass within (0.9², 1.1²)
    # without rotation and scaling it is the integer shift, draw for draw
    a = shifted(bar[:5], 2, torch.Generator().manual_seed(3))
    b = warped(bar[:5], 2, 0.0, 0.0, torch.Generator().manual_seed(3))
    assert torch.equal(a, b)


@pytest.mark.parametrize("gated, degrees", [(False, 15.0), (True, 0.0)])
def test_rotation_waits_for_abduction_when_asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, gated: bool,
                                                 degrees: float) -> None:
    """With train.warp_once_explained and no board explained (abduction off here) training sees shifts only."""
    import ltn_sudoku.logic.visual.train as visual_train

    seen: list[float] = []

    def recording(images: torch.Tensor, pixels: int, deg: float, scale: float, generator: torch.Generator
                  ) -> torch.Tensor:
        seen.append(deg)
        return warped(images, pixels, deg, scale, generator)

    monkeypatch.setattr(visual_train, "warped", recording)
    cfg = config(tmp_path, "train.epochs=2", "train.abduce_weight=0", f"train.warp_once_explained={gated}")
    train(cfg)
    assert seen and set(seen) == {degrees}


def test_bench_rescore_reproduces_a_runs_figure_and_compares_clips(tmp_path: Path) -> None:
    """scripts/bench_visual.py --rescore-runs end to end: with the decoder's own clip on the run's own test boards it
    reproduces the MAP accuracy the run recorded; other clips and fresh test boards print a row each."""
    run = tmp_path / "run"
    metrics = train(config(run))
    done = subprocess.run([sys.executable, "scripts/bench_visual.py", "--size", "4", "--rescore-runs", str(run),
                           "--clips", str(CLIP), "1e-6"], cwd=REPO_ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    rows = [line.split("|") for line in done.stdout.splitlines() if line.startswith(str(run))]
    assert [float(r[3]) for r in rows] == [CLIP, 1e-6]
    recorded = 100 * metrics["test/map_decoding/board_accuracy"]
    assert float(rows[0][1]) == pytest.approx(recorded, abs=0.05) and float(rows[0][4]) == pytest.approx(recorded,
                                                                                                         abs=0.05)
    fresh = subprocess.run([sys.executable, "scripts/bench_visual.py", "--size", "4", "--rescore-runs", str(run),
                            "--test-seed", "4321"], cwd=REPO_ROOT, capture_output=True, text=True, timeout=300)
    assert fresh.returncode == 0, fresh.stderr
    assert sum(line.startswith(str(run)) for line in fresh.stdout.splitlines()) == 1


@pytest.mark.slow  # four tiny visual runs: about 70 CPU s
def test_a_resumed_visual_run_ends_where_an_uninterrupted_one_does(tmp_path: Path) -> None:
    """train.resume=last.pt: one epoch, then the second from the checkpoint (optimizer, the seeded generator of the
    batches and augmentation, best, stale) gives the weights of two epochs in one go, also from a last.pt of the visual
    trainer before the loop was shared; a best.pt is refused."""
    from ltn_sudoku.logic.checkpoints import CheckpointError

    train(config(tmp_path / "whole"))
    train(config(tmp_path / "first", "train.epochs=1"))
    train(config(tmp_path / "second", f"train.resume={tmp_path / 'first' / 'last.pt'}"))
    whole = load_checkpoint(tmp_path / "whole" / "last.pt")
    resumed = load_checkpoint(tmp_path / "second" / "last.pt")
    assert resumed["extra"]["epoch"] == whole["extra"]["epoch"] == 1
    assert resumed["extra"]["boards_seen"] == whole["extra"]["boards_seen"] == 16
    assert all(torch.equal(whole["state_dict"][k], resumed["state_dict"][k]) for k in whole["state_dict"])
    assert (tmp_path / "second" / "best.pt").is_file() and (tmp_path / "second" / "metrics.json").is_file()
    # a last.pt of the visual trainer before the loop was shared: the best epoch's figures as `best`, no loop state
    first = load_checkpoint(tmp_path / "first" / "last.pt")
    old = {k: v for k, v in first["extra"].items() if k not in ("best_metrics", "scheduler", "train_wall_seconds",
                                                                 "lineage")}
    save_checkpoint(tmp_path / "old" / "last.pt", 4, first["config"], first["state_dict"],
                    {**old, "best": first["extra"]["best_metrics"]})
    shutil.copyfile(tmp_path / "first" / "best.pt", tmp_path / "old" / "best.pt")
    train(config(tmp_path / "from_old", f"train.resume={tmp_path / 'old' / 'last.pt'}"))
    from_old = load_checkpoint(tmp_path / "from_old" / "last.pt")["state_dict"]
    assert all(torch.equal(whole["state_dict"][k], from_old[k]) for k in whole["state_dict"])
    with pytest.raises(CheckpointError, match="resume from last.pt"):
        train(config(tmp_path / "third", f"train.resume={tmp_path / 'first' / 'best.pt'}"))
