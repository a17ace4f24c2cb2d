"""The training loop's resume state is one typed object (ltn_sudoku/logic/training/runtime.py: ResumeState): last.pt's
`extra` is its `to_dict`, and `from_dict` reads it back, in today's shape and in the older ones that stopped and
shipped runs hold."""

from __future__ import annotations

from ltn_sudoku.logic.training.runtime import ResumeState

FIGURES = {"val/loss": 0.25, "val/board_accuracy": 0.5, "train/epoch": 3.0}


def state() -> ResumeState:
    return ResumeState(epoch=4, best=0.5, best_metrics=FIGURES, best_epoch=2, stale=2, boards_seen=80,
                       train_seconds=1.5, train_wall_seconds=2.5, optimizer={"state": {}}, scheduler={"last": 1},
                       metrics={"val/board_accuracy": 0.25}, lineage=[{"seed": 1}],
                       checkpoint_extra={"techniques": ["Naked Single"], "has_solution_threshold": 0.5},
                       task_state={"generator": [1, 2, 3]})


def test_to_dict_is_the_last_pt_extra_and_from_dict_reads_it_back() -> None:
    written = state().to_dict()
    assert list(written) == ["techniques", "has_solution_threshold", "epoch", "best", "best_metrics", "best_epoch",
                             "stale", "boards_seen", "train_seconds", "train_wall_seconds", "optimizer", "scheduler",
                             "metrics", "lineage", "generator"]  # the order last.pt always had
    assert ResumeState.from_dict(written, "val/board_accuracy", 1.0, ["techniques", "has_solution_threshold"]) == state()
    assert ResumeState.held_by(written) and not ResumeState.held_by({"epoch": 4, "metrics": {}})


def test_from_dict_reads_the_older_shapes() -> None:
    # a visual last.pt from before the loop was shared: the best epoch's figures as `best`, no loop extras
    old = {"epoch": 4, "best": FIGURES, "stale": 2, "boards_seen": 80, "train_seconds": 1.5,
           "optimizer": {"state": {}}, "metrics": {}, "generator": [1, 2, 3]}
    read = ResumeState.from_dict(old, "val/loss", -1.0)
    assert read.best == -0.25 and read.best_metrics == FIGURES and read.best_epoch == 2  # train/epoch 3, 0-based 2
    assert read.scheduler is None and read.train_wall_seconds == 0.0 and read.lineage == []
    assert read.task_state == {"generator": [1, 2, 3]} and read.checkpoint_extra == {}
    # a board last.pt without best_epoch: its best figures name the epoch
    board = {**state().to_dict(), "best": 0.5}
    del board["best_epoch"]
    assert ResumeState.from_dict(board, "val/board_accuracy", 1.0, ["techniques"]).best_epoch == 2
