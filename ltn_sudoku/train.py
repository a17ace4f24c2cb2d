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
from ltn_sudoku.logic.config_check import ConfigError, check_command_line, check_config, refuse
from ltn_sudoku.logic.experiments import stage_configs, train_experiment
from ltn_sudoku.logic.runtime import run_directory
from ltn_sudoku.logic.train import train


@hydra.main(version_base="1.3", config_path="../conf", config_name="config")
def main(cfg: DictConfig) -> float:
    """Hydra entry point; returns the monitored metric (for sweepers)."""
    check_config(cfg, "train")
    try:
        stages = stage_configs(cfg, HydraConfig.get().overrides.task)
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
