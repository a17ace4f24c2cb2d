"""Evaluation is held out: every board the checkpoint was trained or validated on is removed from the evaluation
boards (evaluate._without, evaluate.training_boards), checked on hand-made sets and end to end on a 4x4 checkpoint
whose validation boards are bound to recur among the evaluation's closed boards (there are only 288 valid 4x4 grids).
"""

from __future__ import annotations

from pathlib import Path

import torch
from omegaconf import DictConfig, OmegaConf

from ltn_sudoku.io import parse_board_text
from ltn_sudoku.logic.board import data
from ltn_sudoku.logic.board.data import build_splits
from ltn_sudoku.logic.board.evaluate import _without, evaluate, training_boards
from ltn_sudoku.logic.board.model import LtnSudoku, ModelConfig
from ltn_sudoku.logic.checkpoints import save_checkpoint
from ltn_sudoku.logic.config.schema import compose_config

TINY = ["model=4x4", "model.hidden=8", "model.steps=2", "model.eval_steps=2", "model.solution_hidden=4",
        "model.heuristic_hidden=4", "model.techniques=[Naked Single,Hidden Single]", "data.train.solvable=12",
        "data.train.impossible=4", "data.val.solvable=4", "data.val.impossible=4", "data.val.closed_valid=60",
        "data.val.closed_invalid=60"]


def config(*overrides: str) -> DictConfig:
    return compose_config([*TINY, *overrides])


def test_without_removes_exactly_the_seen_boards() -> None:
    rows = ["1.3....2.1......", "12..............", "1234341221434321", "....3412........"]
    boards = data.from_boards(4, [parse_board_text(r) for r in rows], [None] * 4,
                              ["open_solvable", "open_solvable", "closed_valid", "open_impossible"],
                              ["a", "b", "c", "d"])
    seen = {tuple(parse_board_text(rows[i]).values) for i in (1, 2)} | {(0,) * 16}
    kept = _without(boards, seen)
    assert [tuple(r) for r in kept.puzzles.tolist()] == [tuple(parse_board_text(rows[i]).values) for i in (0, 3)]
    assert kept.origins == ("a", "d") and kept.labels.tolist() == [boards.labels[0], boards.labels[3]]
    assert len(_without(boards, set())) == 4


def test_training_boards_are_every_board_of_the_run() -> None:
    cfg = config()
    seen = training_boards(OmegaConf.to_container(cfg, resolve=True))
    splits = build_splits(cfg, ModelConfig.from_cfg(cfg.model))
    for split in (splits.train, splits.val_open, splits.val_closed):
        assert len(split) and all(tuple(row) in seen for row in split.puzzles.tolist())
    # the generators' boards for the same seeds are there, e.g. the closed validation boards
    assert 0 < len(seen) <= len(splits.train) + len(splits.val_open) + len(splits.val_closed)


def test_evaluation_drops_the_boards_the_checkpoint_has_seen(tmp_path: Path) -> None:
    train_cfg = config()
    torch.manual_seed(0)
    model = LtnSudoku(ModelConfig.from_cfg(train_cfg.model))
    checkpoint = tmp_path / "model.pt"
    save_checkpoint(checkpoint, 4, OmegaConf.to_container(train_cfg, resolve=True), model.state_dict(), {})
    seen = training_boards(OmegaConf.to_container(train_cfg, resolve=True))
    closed_seen = {b for b in seen if 0 not in b}
    metrics = evaluate(config(f"checkpoint={checkpoint}", f"run_dir={tmp_path / 'eval'}", "evaluate.closed=400",
                              "evaluate.open=16", "evaluate.solving=8", "evaluate.dead_end_puzzles=2"))
    assert len(closed_seen) >= 50 and metrics["heldout/removed_seen_boards"] > 0
    assert metrics["q1_is_correct/count"] < 400  # some of the 400 closed boards were validation boards
