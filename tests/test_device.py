"""Every learned entry point on the device the suite is told to use (`pytest --device cuda`; the CPU by default).

Each test runs an entry point in a tiny configuration under `host_transfer_guard()`: a tensor converted to numpy or
a list anywhere but ltn_sudoku.logic.device raises, so the CPU run already finds the conversions a GPU crashes on
(`Tensor.numpy()` on a CUDA tensor). On a GPU the same tests find what only a GPU shows: tensors of two devices
meeting, nccl, bf16 and compile on CUDA, checkpoints crossing between devices. Two static checks cover the rest
without running anything: no `.numpy()` outside the helper, and no tensor factory without the device it will meet.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import torch
from omegaconf import DictConfig

from ltn_sudoku.cli import main as cli_main
from ltn_sudoku.io import parse_board_text
from ltn_sudoku.logic.board.evaluate import evaluate
from ltn_sudoku.logic.board.predict import LtnPredictor
from ltn_sudoku.logic.config.schema import compose_config
from ltn_sudoku.logic.device import HostTransferError, host_transfer_guard, to_numpy
from ltn_sudoku.logic.kinds import load_model, train
from ltn_sudoku.paths import DATA_DIR, REPO_ROOT
from tests.test_train import TINY, TINY_EVAL

LEARNED = [REPO_ROOT / "ltn_sudoku" / p for p in ("logic", "branching", "train.py", "evaluate.py")]
TINY_9 = ["data.train.solvable=12", "data.train.impossible=4", "data.val.solvable=4", "data.val.impossible=4",
          "data.val.closed_valid=2", "data.val.closed_invalid=2"]
TINY_VISUAL = ["data.train_boards=8", "data.val_boards=8", "data.test_boards=8", "train.decode_time_limit=0.05",
               "train.epochs=1",
               "train.progress=false", f"data.mnist_path={DATA_DIR / 'mnist_sample'}"]
SEED_4 = "1.34341.21434.21"
SEED_9 = "2.14.....4...7358..5....6....9.2.8.1.23.1..5...8354..97..28.....15..93.6.6....74."
ENV = {**os.environ, "PYTHONWARNINGS": "ignore", "OMP_NUM_THREADS": "1"}


def config(run_dir: Path, model: str, device: str, *overrides: str) -> DictConfig:
    tiny = TINY_VISUAL if model.startswith("visual") else TINY
    return compose_config([f"model={model}", f"run_dir={run_dir}", f"device={device}", *tiny,
                           *overrides])


@pytest.fixture
def guarded() -> Iterator[None]:
    with host_transfer_guard():
        yield


@pytest.fixture(scope="module")
def run_4x4(tmp_path_factory: pytest.TempPathFactory, device: str) -> Path:
    """A tiny 4x4 evidence model trained one epoch on the device (under the guard)."""
    run = tmp_path_factory.mktemp(f"run_4x4_{device}")
    with host_transfer_guard():
        train(config(run, "4x4", device, "train.epochs=1"))
    return run


# ---- static checks -------------------------------------------------------------------------------------------------
def _sources(*roots: Path) -> Iterator[Path]:
    for root in roots:
        yield from ([root] if root.is_file() else sorted(root.rglob("*.py")))


def test_no_tensor_becomes_numpy_outside_the_device_helper() -> None:
    """`.numpy()` is a tensor method only (numpy arrays have none): every call is a tensor -> host conversion."""
    found = [f"{path.relative_to(REPO_ROOT)}:{node.lineno}"
             for path in _sources(REPO_ROOT / "ltn_sudoku", REPO_ROOT / "scripts")
             if path.name != "device.py"
             for node in ast.walk(ast.parse(path.read_text()))
             if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "numpy"]
    assert not found, f"convert with ltn_sudoku.logic.device.to_numpy: {found}"


FACTORIES = frozenset({"zeros", "ones", "full", "empty", "arange", "tensor", "eye", "rand", "randn", "randint",
                       "randperm", "linspace", "as_tensor"})


def _factory_calls_without_device(tree: ast.AST, lines: list[str]) -> Iterator[int]:
    """Line numbers of torch factory calls that name no device, outside module constructors (their tensors move with
    the module), not moved by a `.to(...)` at once, and not marked `# host` (data built on the host on purpose)."""
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "torch"
                and node.func.attr in FACTORIES):
            continue
        if any(k.arg == "device" for k in node.keywords):
            continue
        parent, scope = parents.get(node), node
        if isinstance(parent, ast.Attribute) and parent.attr == "to":
            continue
        while scope in parents and not isinstance(scope, ast.FunctionDef):
            scope = parents[scope]
        if isinstance(scope, ast.FunctionDef) and scope.name == "__init__":
            continue
        if "# host" in lines[node.lineno - 1] or "# host" in lines[getattr(node, "end_lineno", node.lineno) - 1]:
            continue
        yield node.lineno


def test_no_tensor_is_created_without_the_device_it_will_meet() -> None:
    found = []
    for path in _sources(*LEARNED):
        text = path.read_text()
        found += [f"{path.relative_to(REPO_ROOT)}:{line}"
                  for line in _factory_calls_without_device(ast.parse(text), text.splitlines())]
    assert not found, f"pass device=..., or mark a deliberate host tensor with a '# host: why' comment: {found}"


def test_the_guard_catches_conversions_in_package_code() -> None:
    planted = REPO_ROOT / "ltn_sudoku" / "logic" / "planted.py"  # a file name inside the package; never written
    tensor = torch.ones(3)
    for code in ("tensor.numpy()", "tensor.tolist()", "np.asarray(tensor)", "tensor.cpu().numpy()"):
        with host_transfer_guard(), pytest.raises(HostTransferError):
            eval(compile(code, str(planted), "eval"), {"tensor": tensor, "np": np})
    with host_transfer_guard():
        assert to_numpy(tensor).tolist() == [1.0, 1.0, 1.0]
        eval(compile("tensor.tolist()", "elsewhere.py", "eval"), {"tensor": tensor})  # another library's business


# ---- training ------------------------------------------------------------------------------------------------------
def test_training_validates_and_checkpoints_on_the_device(run_4x4: Path) -> None:
    metrics = json.loads((run_4x4 / "metrics.json").read_text())
    assert 0 <= metrics["val/solve/board_accuracy"] <= 1 and metrics["train/epoch"] == 1
    state = torch.load(run_4x4 / "best.pt", map_location="cpu", weights_only=True)["state_dict"]
    assert all(t.device.type == "cpu" for t in state.values())  # checkpoints hold host tensors: any machine loads them


@pytest.mark.parametrize("model,overrides", [
    ("4x4_mp", ("logic=product_mp",)),
    ("9x9", tuple(TINY_9)),
    ("9x9_mp", ("logic=product_mp", *TINY_9)),
    ("4x4", ("train.amp=true",)),
])
def test_every_model_trains_on_the_device(tmp_path: Path, device: str, guarded: None, model: str,
                                          overrides: tuple[str, ...]) -> None:
    metrics = train(config(tmp_path, model, device, "train.epochs=1", *overrides))
    assert np.isfinite(metrics["val/loss"]) and (tmp_path / "best.pt").is_file()


@pytest.mark.slow  # torch.compile: about 40 CPU s on the CPU
def test_compiled_training_on_the_device(tmp_path: Path, device: str) -> None:
    """train.compile (in bf16) with the per-axiom gradient norms on every batch: a backward with retain_graph, which a
    compiled backward with donated buffers refuses (the default grad_every=50 crashed the first batch of the debug
    experiment's run; TINY's smaller run did not meet it)."""
    metrics = train(compose_config(["model=4x4_mp", "logic=product_mp", "+experiment=debug", f"run_dir={tmp_path}",
                                    f"device={device}", "train.amp=true", "train.compile=true", "train.grad_every=1"]))
    assert np.isfinite(metrics["val/loss"])


def test_resume_and_warm_start_on_the_device(tmp_path: Path, device: str, guarded: None, run_4x4: Path) -> None:
    resumed = train(config(tmp_path / "resumed", "4x4", device, "train.epochs=2", f"train.resume={run_4x4 / 'last.pt'}"))
    assert resumed["train/epoch"] == 2
    warm = train(config(tmp_path / "warm", "4x4", device, "train.epochs=1", f"train.init_from={run_4x4 / 'best.pt'}"))
    assert warm["train/epoch"] == 1


@pytest.mark.parametrize("model", ["visual_4x4", pytest.param("visual_9x9", marks=pytest.mark.slow)])
def test_visual_models_train_on_the_device(tmp_path: Path, device: str, guarded: None, model: str) -> None:
    metrics = train(config(tmp_path, model, device))
    assert 0 <= metrics["test/board_accuracy"] <= 1


def test_one_process_under_torchrun_trains_on_the_device(tmp_path: Path, device: str) -> None:
    """DDP with one process: nccl on CUDA, gloo on the CPU (more processes: tests/test_distributed.py)."""
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=1", "-m",
               "ltn_sudoku.train", "model=4x4", f"device={device}", *TINY, "train.epochs=1", f"run_dir={tmp_path}"]
    done = subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True, env=ENV, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads((tmp_path / "metrics.json").read_text())["train/processes"] == 1


# ---- evaluation, prediction, the CLI -------------------------------------------------------------------------------
def test_evaluation_runs_every_section_on_the_device(tmp_path: Path, device: str, guarded: None,
                                                     run_4x4: Path) -> None:
    metrics = evaluate(config(tmp_path, "4x4", device, f"checkpoint={run_4x4 / 'best.pt'}", *TINY_EVAL))
    for key in ("q1_is_correct/accuracy", "q2_has_solution/accuracy", "solve/board_accuracy", "dead_end/accuracy",
                "heuristics/macro_f1", "search/solved", "cost/inference_boards_per_cpu_second"):
        assert key in metrics, key


@pytest.mark.slow  # a 9x9 model, the tier labels of Kaggle rows and public puzzles: about 40 CPU s
def test_9x9_evaluation_with_kaggle_rows_and_public_sets_on_the_device(tmp_path: Path, device: str,
                                                                      guarded: None) -> None:
    train(config(tmp_path / "run", "9x9", device, "train.epochs=1", *TINY_9))
    public = [f"evaluate.public.{name}=0" for name in ("seventeen_clue", "qqwing_simple", "qqwing_easy",
                                                       "qqwing_intermediate", "qqwing_expert", "top95")]
    metrics = evaluate(config(tmp_path / "eval", "9x9", device, f"checkpoint={tmp_path / 'run' / 'best.pt'}",
                              *TINY_EVAL, *public, "evaluate.public.top1465=3",
                              f"evaluate.kaggle_path={DATA_DIR / 'kaggle'}", "evaluate.kaggle_limit=3"))
    assert any(key.startswith("source_kaggle") for key in metrics)


def test_a_checkpoint_gives_the_same_answers_on_the_cpu_and_the_device(device: str, run_4x4: Path) -> None:
    """A checkpoint written on the device loads on the CPU (and the reverse); answers agree within 1e-4."""
    boards = [parse_board_text(SEED_4), parse_board_text("1234341221434321"), parse_board_text("1..4....2..3....")]
    on_cpu = LtnPredictor.load(run_4x4 / "best.pt", 4, "cpu").answer_batch(boards, search_budget=8)
    with host_transfer_guard():
        on_device = LtnPredictor.load(run_4x4 / "best.pt", 4, device).answer_batch(boards, search_budget=8)
    for a, b in zip(on_cpu, on_device, strict=True):
        for key in ("isCorrect", "hasSolution"):  # decisions follow from the truths (a tie at the threshold aside)
            assert (a[key] is None) == (b[key] is None)
            assert a[key] is None or abs(a[key]["truth"] - b[key]["truth"]) < 1e-4
        assert a["solution"] == b["solution"]
        if a["search"] is not None:
            assert {**a["search"], "cpu_seconds": 0} == {**b["search"], "cpu_seconds": 0}
        assert [(m["row"], m["col"], m["digit"]) for m in a["moves"]] == [(m["row"], m["col"], m["digit"])
                                                                          for m in b["moves"]]
        for m, k in zip(a["moves"], b["moves"]):
            assert abs(m["confidence"] - k["confidence"]) < 1e-4
            assert abs(m["dead_end"]["probability"] - k["dead_end"]["probability"]) < 1e-4


def test_models_answer_where_they_are_whatever_ltntorchs_global_device(monkeypatch: pytest.MonkeyPatch,
                                                                       run_4x4: Path, tmp_path: Path) -> None:
    """LTNtorch puts every variable on its process-wide `ltn.device` (CUDA whenever a GPU is present): a CPU model on
    a GPU machine (classify-board's default) crashed on the GPU check. Here `ltn.device` is another device (meta) while
    the model answers and trains on the CPU."""
    import ltn

    monkeypatch.setattr(ltn, "device", torch.device("meta"))
    answers = LtnPredictor.load(run_4x4 / "best.pt", 4, "cpu").answer_batch([parse_board_text(SEED_4)],
                                                                           search_budget=4)
    assert answers[0]["hasSolution"] is not None
    cfg = config(tmp_path, "4x4", "cpu", "train.epochs=1")
    from ltn_sudoku.logic.training import loop as trainer

    monkeypatch.setattr(trainer, "configure_torch", _configure_keeping_ltn_device(trainer.configure_torch))
    assert np.isfinite(train(cfg)["val/loss"])


def _configure_keeping_ltn_device(configure):  # noqa: ANN001, ANN202 - a test double of runtime.configure_torch
    import ltn

    def wrapped(cfg: DictConfig) -> None:
        kept = ltn.device
        configure(cfg)
        ltn.device = kept  # the trainer's own setting undone: the model must not need it

    return wrapped


def test_shipped_checkpoints_load_on_the_device(device: str, guarded: None) -> None:
    model, _, _ = load_model(REPO_ROOT / "checkpoints" / "9x9.pt", 9, device)
    assert next(model.parameters()).device.type == device


def test_classify_board_answers_with_the_model_on_the_device(device: str, guarded: None, run_4x4: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["classify", "--board", SEED_4, "--json", "--device", device, "--checkpoint",
                     str(run_4x4 / "best.pt"), "--ltn-dead-ends", "--ltn-search", "8"]) == 0
    ltn = json.loads(capsys.readouterr().out)["ltn"]
    assert ltn["available"] and ltn["dead_ends"]["computed"] and ltn["search"]["verdict"] in ("solved", "exhausted")
    assert cli_main(["classify", "--board", SEED_9, "--json", "--device", device]) == 0  # the shipped 9x9 model
    assert json.loads(capsys.readouterr().out)["ltn"]["available"]


def test_solve_ltn_on_the_device(device: str, guarded: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["solve", "--ltn", "--board", SEED_9, "--json", "--device", device, "--budget", "32"]) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["verdict"] == "solved" and parse_board_text(row["solution"]).is_valid_solution


def test_classify_board_reads_a_visual_board_on_the_device(tmp_path: Path, device: str, guarded: None,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    from ltn_sudoku.logic.visual.data import build_data

    train(config(tmp_path / "run", "visual_4x4", device))
    cfg = compose_config(["model=visual_4x4", *TINY_VISUAL])
    images = build_data(4, cfg.data, 0).test.boards.images[0]
    np.savez(tmp_path / "cells.npz", images=images)
    assert cli_main(["classify", str(tmp_path / "cells.npz"), "--visual-checkpoint", str(tmp_path / "run" / "best.pt"),
                     "--json", "--no-ltn", "--device", device]) == 0
    assert parse_board_text(json.loads(capsys.readouterr().out)["visual"]["read"]).n == 4


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a CUDA device")
def test_asking_for_cuda_without_a_gpu_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    for command in (["classify", "--board", SEED_4], ["solve", "--ltn", "--board", SEED_4]):
        with pytest.raises(SystemExit) as exit_info:
            cli_main([*command, "--device", "cuda"])
        assert exit_info.value.code == 2 and "no CUDA device is available" in capsys.readouterr().err
