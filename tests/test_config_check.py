"""Up-front config checks of the Hydra entry points (issue 9, item 13; the schema of issue 28): a bad value is one
line on stderr, exit 2, before any data is generated; and the checkpoint hardening of items 11, 12 and 15."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from omegaconf import DictConfig, OmegaConf
from test_train import config

from ltn_sudoku.logic.checkpoints import CheckpointError, load_checkpoint, save_checkpoint
from ltn_sudoku.logic.commands.check import check_command_line, check_config
from ltn_sudoku.logic.config.schema import EvidenceModelConfig, TrainConfig, compose_config, rule_violations
from ltn_sudoku.logic.kinds import train
from ltn_sudoku.paths import REPO_ROOT


def composed(*overrides: str) -> DictConfig:
    return compose_config(list(overrides))


def refusal(capsys: pytest.CaptureFixture[str], overrides: list[str], entry: str = "train") -> str:
    """The one line a command line is refused with (exit status 2)."""
    with pytest.raises(SystemExit) as info:
        check_command_line(overrides, entry)
    err = capsys.readouterr().err
    assert info.value.code == 2 and err.startswith("error: ") and err.count("\n") == 1, err
    return err


@pytest.mark.parametrize(("entry", "override", "message"), [
    ("train", "train.epochs=abc", "train.epochs=abc: Value 'abc' of type 'str' could not be converted to Integer"),
    ("train", "train.epochs=-1", "train.epochs=-1: expected an integer >= 1"),
    ("train", "train.batch_size=0", "train.batch_size=0: expected an integer >= 1"),
    ("train", "train.lr=-1", "train.lr=-1.0: expected a number > 0"),
    ("train", "train.lr_schedule=linear", "expected one of constant, cosine"),
    ("train", "train.resume=/nonexistent.pt", "train.resume=/nonexistent.pt: no such file"),
    ("evaluate", "checkpoint=/nonexistent.pt", "checkpoint=/nonexistent.pt: no such file"),
    ("evaluate", "seed=x", "seed=x: Value 'x' of type 'str' could not be converted to Integer"),
    ("evaluate", "evaluate.open=0", "evaluate.open=0: expected an integer >= 1"),
    ("train", "model.nokey=1", "Could not override 'model.nokey': Key 'nokey' not in 'EvidenceModelConfig'"),
    ("train", "model.digit_dim=0", "Key 'digit_dim' not in 'EvidenceModelConfig'"),  # a retired knob
    # a grounding's fields belong to its own schema: the evidence grounding has no messages
    ("train", "model.message_dim=4", "Key 'message_dim' not in 'EvidenceModelConfig'"),
    ("train", "model.hasvalue=message_passing", "model.hasvalue=message_passing: expected one of evidence"),
    ("train", "train.supervised=maybe", "train.supervised=maybe: Value 'maybe' is not a valid bool"),
    ("train", "model=nonexistent", "Could not find 'model/nonexistent'"),
    ("evaluate", "model=visual_4x4", "model=visual_4x4: visual models are trained and scored by"),
])
def test_bad_values_exit_2_with_one_line(capsys: pytest.CaptureFixture[str], entry: str, override: str,
                                         message: str) -> None:
    assert message in refusal(capsys, [override], entry)


def test_the_defaults_pass() -> None:
    for entry in ("train", "evaluate"):
        check_config(composed(), entry)
        check_command_line([], entry)


def test_every_value_of_a_sweep_is_checked(capsys: pytest.CaptureFixture[str]) -> None:
    check_command_line(["-m", "train.epochs=1,2", "logic=product,goedel"], "train")
    assert "train.epochs=0: expected an integer >= 1" in refusal(capsys, ["-m", "logic=product,goedel",
                                                                          "train.epochs=1,0"])


def test_the_schema_types_every_group_and_its_rules_name_the_key() -> None:
    cfg = composed()
    assert {group: type(OmegaConf.get_type(cfg[group])).__name__ for group in ("model", "logic", "data", "train")}
    assert OmegaConf.get_type(cfg.model) is EvidenceModelConfig and OmegaConf.get_type(cfg.train) is TrainConfig
    visual = composed("model=visual_9x9", "model.pool=3", "train.scale=1")
    assert list(rule_violations(visual)) == ["model.pool=3: expected 1 (28x28 input) or 2 (14x14)",
                                             "train.scale=1.0: expected a fraction in [0, 1) (0 = off)"]


@pytest.mark.parametrize(("module", "override"), [("ltn_sudoku.train", "train.epochs=abc"),
                                                  ("ltn_sudoku.evaluate", "checkpoint=/nonexistent.pt")])
def test_entry_points_refuse_before_any_work(tmp_path: Path, module: str, override: str) -> None:
    done = subprocess.run([sys.executable, "-m", module, override, f"run_dir={tmp_path / 'run'}"], cwd=REPO_ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip().count("\n") == 0 and done.stderr.startswith("error: ")
    assert not (tmp_path / "run").exists()  # nothing generated, nothing written


# ---- item 11 and 12: a checkpoint is data ---------------------------------------------------------------------------
def test_a_checkpoint_with_an_interpolation_is_refused_without_resolving_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LTN_TEST_SECRET", "hunter2")
    path = tmp_path / "crafted.pt"
    save_checkpoint(path, 4, {"data": {"kaggle_path": "${oc.env:LTN_TEST_SECRET}"}, "model": {}}, {})
    with pytest.raises(CheckpointError) as info:
        load_checkpoint(path)
    assert "config.data.kaggle_path holds an interpolation" in str(info.value) and "hunter2" not in str(info.value)
    nested = tmp_path / "nested.pt"
    save_checkpoint(nested, 4, {"model": {"techniques": ["Naked Single", "${oc.env:LTN_TEST_SECRET}"]}}, {})
    with pytest.raises(CheckpointError, match=r"config.model.techniques.1 holds an interpolation"):
        load_checkpoint(nested)


def test_a_pickled_object_is_refused_as_not_a_checkpoint(tmp_path: Path) -> None:
    path = tmp_path / "objects.pt"
    torch.save({"when": Path("/tmp")}, path)  # any Python object beyond tensors and plain values
    with pytest.raises(CheckpointError) as info:
        load_checkpoint(path)
    message = str(info.value)
    assert "not an ltn-sudoku checkpoint, or an unsafe file" in message and "python -m ltn_sudoku.train" in message
    assert "weights_only" not in message


# ---- item 15: resuming ---------------------------------------------------------------------------------------------
def _steps(tb: Path, tag: str) -> list[int]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(str(tb))
    acc.Reload()
    return [e.step for e in acc.Scalars(tag)]


def test_resume_into_the_same_folder_keeps_steps_unique_and_a_finished_run_says_so(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    first = tmp_path / "first"
    train(config(first, "train.epochs=1"))
    run = tmp_path / "run"
    train(config(run, "train.epochs=2", "train.patience=5"))  # a run whose 2nd epoch we pretend was interrupted
    shutil.copy(first / "last.pt", tmp_path / "epoch1.pt")
    train(config(run, "train.epochs=2", "train.patience=5", f"train.resume={tmp_path / 'epoch1.pt'}"))
    steps = _steps(run / "tb", "train/loss")
    assert len(steps) == len(set(steps)) and steps == sorted(steps)
    before = (run / "metrics.json").read_text()
    with caplog.at_level("WARNING"):
        metrics = train(config(run, "train.epochs=2", "train.patience=5", f"train.resume={run / 'last.pt'}"))
    assert "already finished" in caplog.text and "raise train.epochs" in caplog.text
    assert (run / "metrics.json").read_text() == before and metrics.items() <= json.loads(before).items()


@pytest.mark.parametrize("override", ["model.size=0", "model.size=10", "logic.labelled_forall=0", "logic.family=x",
                                      "model.steps=0", "logic.p_exists=null", "logic.p_forall=null",
                                      "logic.p_forall=0.5", "model.techniques=0", "model.techniques=[Foo]",
                                      "model.clamp_threshold=2", "+model.exists_last=maybe", "+model.detach_every=-1",
                                      "+logic.schedule.p_exists_end=x"])
def test_model_and_logic_values_found_by_fuzzing_are_refused_up_front(capsys: pytest.CaptureFixture[str],
                                                                      override: str) -> None:
    key = override.split("=")[0].lstrip("+")
    err = refusal(capsys, [override])
    assert key in err or (key.count(".") > 1 and f"{key.rsplit('.', 1)[0]}:" in err), err  # a retired group


@pytest.mark.parametrize("override", ["model=[1,2]", "logic={a: 1}", "+data=[x]"])
def test_a_list_for_a_config_group_is_one_line_not_hydras_traceback(capsys: pytest.CaptureFixture[str],
                                                                   override: str) -> None:
    from ltn_sudoku.logic.commands.check import check_group_overrides

    check_group_overrides(["model=9x9", "logic=product,goedel", "model.techniques=[Naked Single]"])  # all fine
    with pytest.raises(SystemExit) as info:
        check_group_overrides([override])
    err = capsys.readouterr().err
    assert info.value.code == 2 and err.startswith(f"error: {override}: a config group") and err.count("\n") == 1


def test_train_compile_without_a_cpp_compiler_is_refused_up_front(capsys: pytest.CaptureFixture[str],
                                                                  monkeypatch: pytest.MonkeyPatch,
                                                                  tmp_path: Path) -> None:
    """torch.compile's inductor builds kernels with a C++ compiler: none on PATH is one line before any work."""
    monkeypatch.delenv("CXX", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty folder: no g++
    err = refusal(capsys, ["model=4x4_mp", "train.compile=true"])
    assert "train.compile=true: torch.compile needs a C++ compiler" in err and "train.compile=false" in err
    check_command_line(["model=4x4_mp"], "train")  # without compile nothing is asked for
    fake = tmp_path / "my-c++"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    monkeypatch.setenv("CXX", "my-c++")  # the compiler CXX names, as inductor reads it
    check_command_line(["model=4x4_mp", "train.compile=true"], "train")
