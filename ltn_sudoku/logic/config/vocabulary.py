"""The value sets of config fields: what the schema (schema.py) accepts and the code that reads the field imports
from here, so that checking a config loads no training code (the tables used to live beside their readers, which
made the schema import the training loop, both training tasks and torch)."""

from __future__ import annotations

DEVICES: tuple[str, ...] = ("auto", "cpu", "cuda")  # device
LOGIC_FAMILIES: tuple[str, ...] = ("product", "stable_product", "lukasiewicz", "goedel")  # logic.family (kb/operators.py)
LR_SCHEDULES: tuple[str, ...] = ("constant", "cosine")  # train.lr_schedule (training/loop.py: lr_scheduler)
# train.monitor of a board model (board/task.py) and of a visual model (visual/train.py)
BOARD_MONITORS: tuple[str, ...] = ("val/score", "val/solve/board_accuracy", "val/has_solution/accuracy",
                                   "val/heuristics/macro_f1", "val/loss")
VISUAL_MONITORS: tuple[str, ...] = ("val/board_accuracy", "val/map_decoding/board_accuracy")
# model.solution_inputs -> how many features hasSolution reads (board/inference.solution_features): `reached` = only
# what hasValue reached, as soft truths; `symbolic` = the first checkpoints' inputs, which add crisp symbolic verdicts
# (the decoded board's validity, the rule axioms on the decoded board, and the seed's NoSolution on the givens) that
# decide some classes by construction.
SOLUTION_INPUTS: dict[str, int] = {"reached": 8, "symbolic": 12}
# model.axioms of a visual model: the rule axioms but `givens` (kb/axioms.RULE_AXIOMS without it; a test checks that)
VISUAL_AXIOMS: tuple[str, ...] = ("cell_has_value", "one_value_per_cell", "row", "col", "block", "unit_has_digit")
