"""Evaluation entry point: ``python -m ltn_sudoku.evaluate model=9x9 [checkpoint=PATH]`` (Hydra).

The command line is composed and checked first (one line and exit 2 on a bad value); the evaluation itself is
ltn_sudoku/logic/board/evaluate.py. Every error a user can cause once it runs (a checkpoint missing, damaged or of another
size, a data file that cannot be read) is one line on stderr and exit status 2 too.
"""

from __future__ import annotations

import sys

import hydra
import torch
from omegaconf import DictConfig

from ltn_sudoku.logic.board.evaluate import config_problem, evaluate
from ltn_sudoku.logic.commands.check import check_command_line, check_config, refuse
from ltn_sudoku.logic.errors import USER_ERRORS
from ltn_sudoku.paths import CONF_DIR


# CONF_DIR: an absolute path, the same in a checkout and an installed wheel (ltn_sudoku/paths.py)
@hydra.main(version_base="1.3", config_path=str(CONF_DIR), config_name="config")
def main(cfg: DictConfig) -> None:
    check_config(cfg, "evaluate")
    problem = config_problem(cfg)  # the evaluation's own settings (its givens bins live with it)
    if problem is not None:
        refuse(problem)
    try:
        with torch.no_grad():
            evaluate(cfg)
    except USER_ERRORS as e:  # checkpoint=PATH missing, damaged or for another size; a data file
        refuse(str(e))


if __name__ == "__main__":
    check_command_line(sys.argv[1:], "evaluate")
    main()
