"""Abduction: the exact MAP grid of each valid training board, as facts that teach the reader.

A board labelled valid holds *some* valid grid; which one is not said. Given the reader's current probabilities,
the most likely valid grid under the rules (ltn_sudoku.logic.visual.decode, exact weighted MaxSAT) is the knowledge
base's best explanation of the board: abduction in the sense of abductive learning (Dai et al., NeurIPS 2019). The
trainer then adds the axiom

    ∀b:valid(b) ∀c hasValue(c, g*_b(c) | b)

over the abduced grids g*, with the log-product ∀ (its loss is the cross-entropy of the reader against g*). The
grids are recomputed from the current reader at the start of every epoch, so they follow it as it improves.

Only board labels and the rules are used: the grids are in the reader's own digit names (the rules cannot tell
digits apart, so neither can the grids), and no digit label is read (tests/test_visual_train.py scrambles them).
Invalid boards have no valid grid to abduce: their best valid grid is by definition not what they show. Their
images are still digits, though; with `confident` > 0 each of their cells read with probability ≥ `confident` is
kept as its own reading (self-training on the reader's sure readings, Lee 2013), others get no target; this only
once abduction explains at least SELF_TRAIN_FROM of the valid boards.
"""

from __future__ import annotations

import numpy as np
import torch

from ltn_sudoku.logic.visual.baselines import read_probabilities
from ltn_sudoku.logic.visual.boards import BoardImages
from ltn_sudoku.logic.visual.decode import decode

NO_GRID = -1  # the target of a cell without an abduced digit (invalid boards; valid boards beyond the bound)
TIME_LIMIT = 0.25  # CPU seconds per board: an early, near-uniform reader's boards are skipped rather than solved
# Self-training starts once the rules accept the reader: this share of the valid boards has a valid grid within the
# bound. Without it a 9x9 reader that explained no valid board at the first abduction taught itself its own wrong
# sure readings and never explained one afterwards (docs/visual.md, what was tried).
SELF_TRAIN_FROM = 0.5


def abduced_grids(reader: torch.nn.Module, boards: BoardImages, bound: float, confident: float = 0.0) -> np.ndarray:
    """(boards, n*n) int64: each valid board's MAP grid under `reader`, digits 0..n-1 in the reader's names;
    NO_GRID for every cell of a valid board with no valid grid within `bound` nats, and for every cell of an invalid
    board except, with `confident` > 0 and at least SELF_TRAIN_FROM of the valid boards explained, the cells read
    with at least that probability (their reading)."""
    targets = np.full(boards.images.shape[:2], NO_GRID, dtype=np.int64)
    if len(boards) == 0:
        return targets
    was_training = reader.training
    reader.eval()
    probs = read_probabilities(reader, boards)  # type: ignore[arg-type]
    reader.train(was_training)
    valid_rows = np.flatnonzero(boards.valid)
    for row in valid_rows:
        decoding = decode(probs[row], bound, TIME_LIMIT)
        if decoding.grid is not None:
            targets[row] = decoding.grid - 1
    explained = (targets[valid_rows, 0] != NO_GRID).mean() if valid_rows.size else 0.0
    if confident > 0 and explained >= SELF_TRAIN_FROM:
        invalid = ~boards.valid
        sure = (probs.max(-1) >= confident) & invalid[:, None]
        targets[sure] = probs.argmax(-1)[sure]
    return targets

