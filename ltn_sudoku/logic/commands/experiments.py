"""Experiments: `conf/experiment/<name>.yaml` is the whole recipe of a shipped checkpoint, so
`python -m ltn_sudoku.train +experiment=<name>` trains it again (docs/ltn.md, "Shipped checkpoints").

An experiment may start from another one's weights (`experiment.warm_start: <name>`): the checkpoint is then a chain
of runs, and `train_experiment` trains the earlier stages first, each in `<run_dir>/stages/<name>`, every stage
starting from the best.pt of the one before (`train.init_from`). A stage whose folder already holds metrics.json is
finished and is not trained again, and a stage stopped part way goes on from its last.pt (`train.resume`), so an
interrupted chain goes on where it stopped; the final stage, in the run folder itself, is resumed as any run is
(`train.resume=RUN/last.pt`: a run folder that holds another run is refused, ltn_sudoku/logic/training/runtime.py). The command line's other
overrides apply to every stage (a smaller `train.epochs` for a quick look, `device`, `threads`).

A user's experiment lives in their own config folder (`DIR/experiment/<name>.yaml`) and is used as a shipped one:
`python -m ltn_sudoku.train --config-dir DIR +experiment=<name>`; it may warm-start from a shipped experiment or another
of theirs (the stages are composed with the running app's search path, and its hydra.searchpath override).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, OmegaConf

from ltn_sudoku.logic.commands.check import config_problem
from ltn_sudoku.logic.config.schema import compose_config
from ltn_sudoku.logic.errors import ConfigError
from ltn_sudoku.paths import CONF_DIR

LOG = logging.getLogger(__name__)
EXPERIMENT_DIR = CONF_DIR / "experiment"
STAGES_DIR = "stages"
# overrides that name the stage or its place, not the recipe: never carried from the command line to a stage
_STAGE_OWN = ("+experiment=", "experiment=", "++experiment=", "run_dir=", "train.init_from=", "train.resume=")


def experiment_names(config_dirs: Iterable[Path] = ()) -> list[str]:
    """Every experiment by name: the shipped ones (conf/experiment), and those of the user's config folders
    `config_dirs` (each folder's experiment/, as `--config-dir` adds it)."""
    folders = [EXPERIMENT_DIR, *(Path(d) / "experiment" for d in config_dirs)]
    return sorted({path.stem for folder in folders for path in folder.glob("*.yaml")})


def experiment_record(config: Mapping[str, Any]) -> dict[str, str]:
    """What a shipped checkpoint's metrics.json says of the experiment its run was (a checkpoint's recorded config;
    empty for a run trained without `+experiment=`)."""
    name = (config.get("experiment") or {}).get("name")
    return {"experiment": name, "experiment_command": f"python -m ltn_sudoku.train +experiment={name}"} if name else {}


def carried(overrides: Sequence[str]) -> list[str]:
    """The command line's overrides that every stage of a chain takes too."""
    return [o for o in overrides if not o.startswith(_STAGE_OWN)]


def stage_configs(cfg: DictConfig, overrides: Sequence[str]) -> list[tuple[str, DictConfig]]:
    """The earlier stages of `cfg`'s experiment, earliest first, each composed with the carried overrides and checked
    (ConfigError: a stage the command line breaks). Empty when `cfg` warm-starts from nothing, or when the command
    line already names where it starts (train.init_from, train.resume)."""
    stages: list[tuple[str, DictConfig]] = []
    experiment = cfg.get("experiment")
    if experiment is None or cfg.train.get("init_from") or cfg.train.get("resume"):
        return stages
    seen = {str(experiment.name)}
    parent = experiment.get("warm_start")
    while parent:
        if parent in seen:
            raise ConfigError(f"experiment.warm_start={parent}: a warm-start chain that loops ({', '.join(seen)})")
        seen.add(parent)
        stage = compose_config([f"+experiment={parent}", *carried(overrides)])
        problem = config_problem(stage, "train")
        if problem is not None:
            raise ConfigError(f"stage {parent} of experiment {experiment.name}: {problem}")
        stages.insert(0, (str(parent), stage))
        parent = stage.experiment.get("warm_start")
    return stages


def train_experiment(cfg: DictConfig, stages: Sequence[tuple[str, DictConfig]], run_dir: Path,
                     train: Callable[[DictConfig], dict[str, float]]) -> dict[str, float]:
    """Train the earlier `stages` (from `stage_configs`), then `cfg` into `run_dir`; returns the last run's metrics."""
    init_from: Path | None = None
    for name, stage in stages:
        folder = run_dir / STAGES_DIR / name
        OmegaConf.update(stage, "run_dir", str(folder))
        if init_from is not None:
            OmegaConf.update(stage, "train.init_from", str(init_from))
        if (folder / "metrics.json").is_file() and (folder / "best.pt").is_file():
            LOG.info("stage %s: finished before (%s), not trained again", name, folder)
        elif (folder / "last.pt").is_file():  # stopped part way: the stage goes on from its last epoch
            LOG.info("stage %s of experiment %s: going on from %s", name, cfg.experiment.name, folder / "last.pt")
            OmegaConf.update(stage, "train.resume", str(folder / "last.pt"))
            train(stage)
        else:
            LOG.info("stage %s of experiment %s: training into %s", name, cfg.experiment.name, folder)
            train(stage)
        init_from = folder / "best.pt"
    if init_from is not None:
        OmegaConf.update(cfg, "train.init_from", str(init_from))
    OmegaConf.update(cfg, "run_dir", str(run_dir))
    return train(cfg)
