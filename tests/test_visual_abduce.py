"""Abduction (ltn_sudoku/logic/visual/abduce.py) against the truth: the abduced grid of a valid board read with a few
unsure mistakes is the board's true grid; invalid boards get none; its axiom's loss is torch's cross-entropy."""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from ltn_sudoku.board import Board
from ltn_sudoku.exact import random_solutions
from ltn_sudoku.logic.kb.operators import build_operators
from ltn_sudoku.logic.visual.abduce import NO_GRID, abduced_grids
from ltn_sudoku.logic.visual.boards import BoardImages
from ltn_sudoku.logic.visual.objective import abduced_satisfaction


class PixelReader(nn.Module):
    """A stand-in reader: an image's top-left pixel holds its digit d (1..n); it is read as d with probability
    `sure`, except on images whose pixel (0, 1) is set, which are read as digit `(d mod n) + 1` with probability 0.6
    (an unsure misread)."""

    def __init__(self, n: int, sure: float = 0.999) -> None:
        super().__init__()
        self.n, self.sure = n, sure
        self.unused = nn.Parameter(torch.zeros(1))  # read_probabilities asks for the reader's device

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        digit = images[..., 0, 0].long() - 1
        misread = images[..., 0, 1] > 0
        shown = torch.where(misread, (digit + 1) % self.n, digit)
        top = torch.where(misread, torch.tensor(0.6), torch.tensor(self.sure))
        probs = ((1 - top) / (self.n - 1))[..., None].expand(*digit.shape, self.n).clone()
        probs.scatter_(-1, shown[..., None], top[..., None])
        return probs


def _images(grids: np.ndarray, misread: list[tuple[int, int]]) -> np.ndarray:
    images = np.zeros((*grids.shape, 28, 28), dtype=np.uint8)
    images[..., 0, 0] = grids
    for board, cell in misread:
        images[board, cell, 0, 1] = 1
    return images


def test_valid_boards_abduce_their_true_grid_and_invalid_boards_none() -> None:
    n = 9
    grids = random_solutions(n, 3, seed=5).astype(np.int64)
    invalid = grids[2].copy()
    invalid[0] = invalid[1]  # a clash in the first row
    grids[2] = invalid
    assert not Board(grids[2].tolist(), n).is_valid_solution
    misread = [(0, 0), (0, 40), (1, 80)]
    boards = BoardImages(_images(grids, misread), np.array([True, True, False]))
    reader = PixelReader(n)
    read = reader(torch.from_numpy(boards.images)).argmax(-1).numpy() + 1
    assert (read != grids).sum() == len(misread)  # the reading is wrong on exactly the misread cells
    targets = abduced_grids(reader, boards, bound=60.0)
    assert np.array_equal(targets[:2] + 1, grids[:2])  # the true grids, misreads repaired
    assert (targets[2] == NO_GRID).all()


def test_a_valid_board_beyond_the_bound_gets_no_grid() -> None:
    n = 4
    grid = random_solutions(n, 1, seed=1)[0].astype(np.int64)
    block_only = grid.reshape(4, 4)[[0, 2, 1, 3]].reshape(1, 16)  # rows swapped across bands: columns stay valid
    assert not Board(block_only[0].tolist(), n).is_valid_solution
    boards = BoardImages(_images(block_only, []), np.array([True]))  # labelled valid, read confidently invalid
    assert (abduced_grids(PixelReader(n, sure=0.99), boards, bound=10.0) == NO_GRID).all()
    assert (abduced_grids(PixelReader(n, sure=0.99), boards, bound=60.0) != NO_GRID).all()


def test_the_abduced_axiom_is_the_readers_cross_entropy_on_the_grids() -> None:
    torch.manual_seed(0)
    logits = torch.randn(3, 16, 4, requires_grad=True)
    targets = torch.randint(0, 4, (3, 16))
    targets[1] = NO_GRID  # an invalid board: left out
    ops = build_operators({"family": "stable_product", "p_forall": 4, "p_exists": 4})
    truth = abduced_satisfaction(torch.softmax(logits, -1), targets, ops)
    assert truth is not None
    loss = -torch.log(truth)
    known = targets != NO_GRID
    reference = nn.functional.cross_entropy(logits[known], targets[known])
    assert torch.allclose(loss, reference, atol=1e-5)
    assert abduced_satisfaction(torch.softmax(logits, -1), torch.full((3, 16), NO_GRID), ops) is None


def test_self_training_keeps_the_sure_readings_of_invalid_boards_only() -> None:
    n = 4
    grids = random_solutions(n, 2, seed=3).astype(np.int64)
    grids[1, 0] = grids[1, 1]  # invalid: a clash in the first row
    boards = BoardImages(_images(grids, [(1, 5)]), np.array([True, False]))  # cell 5 of the invalid board: unsure
    targets = abduced_grids(PixelReader(n), boards, bound=60.0, confident=0.99)
    assert np.array_equal(targets[0] + 1, grids[0])
    sure = np.arange(16) != 5
    assert np.array_equal(targets[1, sure] + 1, grids[1, sure]) and targets[1, 5] == NO_GRID
    assert (abduced_grids(PixelReader(n), boards, bound=60.0)[1] == NO_GRID).all()  # off by default


def test_no_self_training_while_the_rules_reject_the_reader() -> None:
    """Sure readings of invalid boards are taught only once most valid boards have a valid grid within the bound."""
    n = 4
    grid = random_solutions(n, 1, seed=1)[0].astype(np.int64)
    block_only = grid.reshape(4, 4)[[0, 2, 1, 3]].reshape(1, 16)  # labelled valid below, read confidently invalid
    invalid = grid.copy()[None]
    invalid[0, 0] = invalid[0, 1]
    boards = BoardImages(_images(np.concatenate([block_only, invalid]), []), np.array([True, False]))
    targets = abduced_grids(PixelReader(n, sure=0.999), boards, bound=10.0, confident=0.99)
    assert (targets == NO_GRID).all()  # the valid board is beyond the bound: nothing is taught
