"""The dense-first curriculum: which boards each epoch trains on, and that leaving boards out keeps the batch order
a resumed run replays."""

from __future__ import annotations

import torch
from omegaconf import OmegaConf

from ltn_sudoku.logic.board import data
from ltn_sudoku.logic.board.task import curriculum_floor


def test_floor_falls_linearly_to_every_board() -> None:
    cfg = OmegaConf.create({"train": {"curriculum": {"epochs": 3, "start_givens": 30}}})
    assert [curriculum_floor(cfg, e) for e in range(5)] == [30, 20, 10, None, None]
    assert curriculum_floor(OmegaConf.create({"train": {"curriculum": {"epochs": 0, "start_givens": 30}}}), 0) is None
    assert curriculum_floor(OmegaConf.create({"train": {}}), 0) is None


def test_kept_boards_follow_the_full_shuffle_and_the_generator_advances_alike() -> None:
    boards = data.generated(4, "open_solvable", 40, seed=1)
    keep = (boards.puzzles > 0).sum(-1) >= 7
    first, second = torch.Generator().manual_seed(3), torch.Generator().manual_seed(3)
    batches = list(boards.batches(8, first, keep))
    assert all(len(b) for b in batches) and len(batches) == -(-int(keep.sum()) // 8)
    kept = torch.cat([b.puzzles for b in batches])
    everything = torch.cat([b.puzzles for b in boards.batches(8, second)])
    assert torch.equal(kept, everything[(everything > 0).sum(-1) >= 7])
    assert torch.equal(torch.randperm(5, generator=first), torch.randperm(5, generator=second))


def test_selecting_no_board_gives_an_empty_set_not_an_index_error() -> None:
    """Evaluation drops held-out boards seen in training; dropping all of them used to raise an IndexError."""
    boards = data.generated(4, "closed_valid", 3, seed=0)
    empty = boards.select([])
    assert len(empty.puzzles) == 0 and empty.origins == () and empty.n == 4
    assert boards.select([2, 0]).origins == (boards.origins[2], boards.origins[0])
