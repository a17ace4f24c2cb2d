"""Training entry point: ``python -m ltn_sudoku.train model=4x4`` or ``+experiment=9x9_mp`` (Hydra; sweeps with -m).

The command line is composed and checked first, and a run folder it names (run_dir=PATH, hydra.run.dir=PATH) is
checked before Hydra writes into it; then an experiment's earlier stages run (ltn_sudoku/logic/commands/experiments.py) and the
trainer (ltn_sudoku/logic/training/loop.py) trains the configured model. Every error a user can cause (a bad value, a
checkpoint to resume or warm-start from that cannot be used, a changed config on resume, a run folder another run
holds, a data file that cannot be read) is one line on stderr and exit status 2.
"""

from __future__ import annotations

import sys

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig

from ltn_sudoku.logic.checkpoints import CheckpointError, load_checkpoint
from ltn_sudoku.logic.commands.check import SEARCHPATH_KEY, check_config, checked_configs, refuse
from ltn_sudoku.logic.commands.experiments import stage_configs, train_experiment
from ltn_sudoku.logic.errors import USER_ERRORS, ConfigError
from ltn_sudoku.logic.kinds import train
from ltn_sudoku.logic.training import distributed
from ltn_sudoku.logic.training.runtime import check_resume, explicit_run_folder, run_directory, run_folder_problem
from ltn_sudoku.logic.training.sweep_names import export_swept_keys
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
        folder = distributed.from_main(run_directory(cfg), process)
        if process.is_main:
            print(f"run folder: {folder}", flush=True)
        try:
            metrics = train_experiment(cfg, stages, folder, train)
        except USER_ERRORS as e:  # train.resume / train.init_from, the run folder, the data files
            refuse(str(e))
        if process.is_main:
            print(f"run folder: {folder} (metrics.json, best.pt, last.pt; curves: tensorboard --logdir {folder})",
                  flush=True)
    return float(metrics.get(str(cfg.train.monitor), float("nan")))


def check_run_folder(argv: list[str]) -> None:
    """Before Hydra writes its files (.hydra/, train.log) into a folder the command line names: one line and exit 2
    when another run holds it (ltn_sudoku.logic.training.runtime.run_folder_problem). Sweeps and the ranks of a distributed
    run are left to the trainer (their folders are the jobs', or rank 0's)."""
    configs = checked_configs(argv, "train")
    if len(configs) != 1 or {"-m", "--multirun"} & set(argv) or distributed.launched_world_size() > 1:
        return
    cfg = configs[0]
    if cfg.train.get("resume"):
        try:  # a changed config names its key before the folder is looked at
            check_resume(cfg, load_checkpoint(str(cfg.train.resume))["config"], str(cfg.train.resume))
        except (CheckpointError, ConfigError) as e:
            refuse(str(e))
    folder = explicit_run_folder(argv, cfg)
    problem = run_folder_problem(folder, cfg) if folder is not None else None
    if problem is not None:
        refuse(problem)


if __name__ == "__main__":
    check_run_folder(sys.argv[1:])
    export_swept_keys(sys.argv[1:])  # a sweep's job folders name what it varies, in launcher processes too
    main()
