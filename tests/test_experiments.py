"""Every shipped checkpoint is an experiment (conf/experiment/*.yaml): composing `+experiment=<name>` gives the config
the checkpoint records it was trained with (every stage of a warm-start chain against the checkpoint's lineage), its
metrics.json names the experiment, and `python -m ltn_sudoku.train +experiment=<name>` trains the chain in order."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import torch
from omegaconf import DictConfig, OmegaConf

from ltn_sudoku.logic.commands.experiments import experiment_names, stage_configs, train_experiment
from ltn_sudoku.logic.config.schema import compose_config
from ltn_sudoku.logic.retired import IGNORED, RETIRED
from ltn_sudoku.paths import CHECKPOINTS_DIR, REPO_ROOT, portable

# what a recorded config holds that is not the recipe: where and on what the run happened, and how it started
NOT_RECIPE = ("run_dir", "checkpoint", "device", "device_resolved", "threads", "evaluate.", "experiment", "hydra.",
              "train.progress", "train.resume", "train.init_from", "train.grad_every")  # grad_every: logging only
# knobs retired from the schema, at the value they had in every shipped checkpoint (their code path was off)
RETIRED_KEYS: dict[str, Any] = {f"{group}.{key}": value for group, keys in RETIRED.items()
                                 for key, value in keys.items()}
IGNORED_KEYS: tuple[str, ...] = tuple(f"{group}.{key}" for group, keys in IGNORED.items() for key in keys)
# keys added after a checkpoint was trained, at the value the code used while they were absent
ADDED_LATER: dict[str, Any] = {
    "model.hasvalue": "evidence", "model.solution_inputs": "symbolic", "model.message_dim": 16,
    "model.unit_axiom": False, "model.detach_every": 0, "model.exists_last": False, "model.exists_axioms": True,
    "train.curriculum.epochs": 0,
    "train.curriculum.start_givens": 30, "train.amp": False, "train.compile": False,
    "data.kaggle_rows.train": 3000, "data.kaggle_rows.val": 150, "train.warp_once_explained": False,
    "data.train.boards_path": None, "data.train.boards_limit": 0, "data.train.boards_origin": "generated",
    "train.decode_time_limit": 1.0}


def flat(tree: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in tree.items():
        if isinstance(value, dict) and value:
            out.update(flat(value, f"{prefix}{key}."))
        elif not f"{prefix}{key}".startswith(NOT_RECIPE) and f"{prefix}{key}" not in IGNORED_KEYS:
            out[f"{prefix}{key}"] = portable(value) if isinstance(value, str) else value  # data paths: <data home>/...
    return out


def recipe_differences(composed: DictConfig, recorded: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    """(composed, recorded) for every recipe key where they disagree, after retired and later-added keys."""
    ours = flat(OmegaConf.to_container(composed, resolve=True))  # type: ignore[arg-type]
    theirs = flat(recorded)
    differences = {}
    for key in sorted(set(ours) | set(theirs)):
        if key not in ours and key in RETIRED_KEYS:
            expected, actual = RETIRED_KEYS[key], theirs[key]
        elif key not in theirs and key in ADDED_LATER:
            expected, actual = ours[key], ADDED_LATER[key]
        else:
            expected, actual = ours.get(key, "<absent>"), theirs.get(key, "<absent>")
        if expected != actual:
            differences[key] = (expected, actual)
    return differences


def shipped() -> list[str]:
    return [name for name in experiment_names() if compose_config([f"+experiment={name}"]).experiment.checkpoint]


def test_every_checkpoint_has_exactly_one_experiment_named_in_its_metrics() -> None:
    checkpoints = {path.name for path in CHECKPOINTS_DIR.glob("*.pt")}
    owners: dict[str, str] = {}
    for name in experiment_names():
        experiment = compose_config([f"+experiment={name}"]).experiment
        assert experiment.name == name  # the name a checkpoint records is the file's
        if experiment.checkpoint:
            path = REPO_ROOT / experiment.checkpoint
            assert path.parent == CHECKPOINTS_DIR and path.name not in owners, name
            owners[path.name] = name
            assert json.loads(path.with_suffix(".metrics.json").read_text())["experiment"] == name
    assert set(owners) == checkpoints


@pytest.mark.parametrize("name", shipped())
def test_an_experiment_composes_the_config_its_checkpoint_was_trained_with(name: str) -> None:
    final = compose_config([f"+experiment={name}"])
    payload = torch.load(REPO_ROOT / final.experiment.checkpoint, map_location="cpu", weights_only=True)
    recorded = [payload["config"], *payload["extra"].get("lineage", [])]  # the run, its parent, the parent's parent
    chain = [final, *reversed([stage for _, stage in stage_configs(final, [])])]
    assert len(chain) == len(recorded)
    for composed, config in zip(chain, recorded):
        assert recipe_differences(composed, config) == {}, composed.experiment.name


def test_a_changed_recipe_is_a_difference() -> None:
    payload = torch.load(CHECKPOINTS_DIR / "4x4.pt", map_location="cpu", weights_only=True)
    changed = compose_config(["+experiment=4x4_mp", "train.lr=0.001", "logic.p_exists=2"])
    assert recipe_differences(changed, payload["config"]) == {"logic.p_exists": (2.0, 4), "train.lr": (0.001, 0.003)}


def test_a_chain_trains_its_stages_in_order_each_from_the_last_best(tmp_path: Path) -> None:
    final = compose_config(["+experiment=9x9_mp", "train.epochs=1"])
    stages = stage_configs(final, ["+experiment=9x9_mp", "train.epochs=1", f"run_dir={tmp_path / 'elsewhere'}"])
    assert [name for name, _ in stages] == ["9x9_mp_b", "9x9_mp_d"]
    assert all(stage.train.epochs == 1 for _, stage in stages)  # the command line's overrides reach every stage
    trained: list[tuple[str, str | None, str]] = []

    def fake_train(cfg: DictConfig) -> dict[str, float]:
        trained.append((cfg.experiment.name, cfg.train.init_from, cfg.run_dir))
        Path(cfg.run_dir).mkdir(parents=True, exist_ok=True)
        for name in ("best.pt", "metrics.json"):
            (Path(cfg.run_dir) / name).write_text("{}")
        return {"val/score": 0.5}

    assert train_experiment(final, stages, tmp_path, fake_train) == {"val/score": 0.5}
    b, d = tmp_path / "stages" / "9x9_mp_b", tmp_path / "stages" / "9x9_mp_d"
    assert trained == [("9x9_mp_b", None, str(b)), ("9x9_mp_d", str(b / "best.pt"), str(d)),
                       ("9x9_mp", str(d / "best.pt"), str(tmp_path))]
    trained.clear()
    again = compose_config(["+experiment=9x9_mp", "train.epochs=1"])
    train_experiment(again, stage_configs(again, []), tmp_path, fake_train)  # the same folder, run again
    assert [name for name, _, _ in trained] == ["9x9_mp"]  # every stage is there already: not trained again
    assert stage_configs(compose_config(["+experiment=9x9_mp", f"train.init_from={b / 'best.pt'}"]), []) == []


def test_a_chain_the_command_line_breaks_is_refused_before_any_work(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "ltn_sudoku.train", "+experiment=9x9_mp", "model.steps=0",
                           f"run_dir={tmp_path / 'run'}"], cwd=REPO_ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and done.stderr == "error: model.steps=0: expected an integer >= 1\n"
    assert not (tmp_path / "run").exists()


def test_the_entry_point_trains_a_chain_stage_by_stage(tmp_path: Path) -> None:
    """`python -m ltn_sudoku.train +experiment=9x9_mp`, shrunk by overrides that reach every stage: B, then D from B's
    best.pt, then E from D's; the shipped stage's checkpoint records the chain as its lineage."""
    tiny = ["data.kaggle_path=null", "model.hidden=8", "model.message_dim=4", "model.steps=2", "model.eval_steps=2",
            "model.kb_every=1", "model.detach_every=0", "model.solution_hidden=4", "model.heuristic_hidden=4",
            "model.techniques=[Naked Single,Hidden Single]", "data.train.solvable=8", "data.train.impossible=4",
            "data.val.solvable=4", "data.val.impossible=4", "data.val.closed_valid=2", "data.val.closed_invalid=2",
            "train.epochs=1", "train.progress=false"]
    done = subprocess.run([sys.executable, "-m", "ltn_sudoku.train", "+experiment=9x9_mp", *tiny,
                           f"run_dir={tmp_path}"], cwd=REPO_ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    payload = torch.load(tmp_path / "best.pt", map_location="cpu", weights_only=True)
    assert payload["config"]["experiment"]["name"] == "9x9_mp" and payload["config"]["seed"] == 1
    assert payload["config"]["train"]["init_from"] == str(tmp_path / "stages" / "9x9_mp_d" / "best.pt")
    assert [config["experiment"]["name"] for config in payload["extra"]["lineage"]] == ["9x9_mp_d", "9x9_mp_b"]


@pytest.mark.parametrize("size, per_class", [(4, 20000), (9, 500)])
def test_the_original_system_composes_as_an_experiment(size: int, per_class: int) -> None:
    """conf/experiment/original_{4x4,9x9}.yaml: 20 epochs run whole, the four board classes at the original's count
    (open ones to train, closed ones to validation), the default model of that size; no shipped checkpoint."""
    cfg = compose_config([f"+experiment=original_{size}x{size}"])
    assert cfg.experiment.name == f"original_{size}x{size}" and cfg.experiment.checkpoint is None
    assert cfg.model.size == size and cfg.train.epochs == 20 and cfg.train.patience >= 20
    assert [cfg.data.train.solvable, cfg.data.train.impossible, cfg.data.val.closed_valid,
            cfg.data.val.closed_invalid] == [per_class] * 4
    assert f"original_{size}x{size}" in experiment_names() and f"original_{size}x{size}" not in shipped()
