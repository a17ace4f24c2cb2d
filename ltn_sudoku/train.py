"""Training entry point: ``python -m ltn_sudoku.train model=4x4`` or ``+experiment=9x9_mp`` (Hydra; sweeps with -m).

The command line is composed and checked first (one line and exit 2 on a bad value, as for a checkpoint to resume
or warm-start from that cannot be used); then an experiment's earlier
stages run (ltn_sudoku/logic/experiments.py) and the trainer (ltn_sudoku/logic/train.py) trains the configured model.
"""

from __future__ import annotations

import sys

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig

from ltn_sudoku.logic import distributed
from ltn_sudoku.logic.checkpoint import CheckpointError
from ltn_sudoku.logic.config_check import SEARCHPATH_KEY, ConfigError, check_command_line, check_config, refuse
from ltn_sudoku.logic.experiments import stage_configs, train_experiment
from ltn_sudoku.logic.runtime import run_directory
from ltn_sudoku.logic.train import train
from ltn_sudoku.paths import CONF_DIR


# CONF_DIR: an absolute path, the same in a checkout and an installed wheel (ltn_sudoku/paths.py)
@hydra.main(version_base="1.3", config_path=str(CONF_DIR), config_name="config")
def main(cfg: DictConfig) -> float:
    """Hydra entry point; returns the monitored metric (for sweepers)."""
    check_config(cfg, "train")
    overrides = HydraConfig.get().overrides
    # the stages of an experiment are composed with the app's search path (--config-dir is in it); a command line's
    # hydra.searchpath override (a user's config folder) is carried to them too, as the others are
    searchpath = [o for o in overrides.hydra if o.lstrip("+").startswith(f"{SEARCHPATH_KEY}=")]
    try:
        stages = stage_configs(cfg, [*searchpath, *overrides.task])
    except ConfigError as e:
        refuse(str(e))
    with distributed.process_group(cfg) as process:  # one process unless torchrun or a multi-task SLURM job
        try:
            metrics = train_experiment(cfg, stages, distributed.from_main(run_directory(cfg), process), train)
        except CheckpointError as e:  # train.resume / train.init_from: missing, damaged, a best.pt to resume, ...
            refuse(str(e))
    return float(metrics.get(str(cfg.train.monitor), float("nan")))


if __name__ == "__main__":
    check_command_line(sys.argv[1:], "train")
    main()
