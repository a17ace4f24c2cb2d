"""A learned value order as cheap as a hand-made one: a weighted sum of the hand-made orders' own signals.

    order = LinearOrder.load("orders/linear_kaggle_3m_teacher.json")
    solve(board, order)

Each open (cell, digit) of a state gets a few crisp features, read off the same tables the hand-made orders read
(`FEATURES`); the score is their weighted sum, so one call costs a few small numpy operations, like FewestPlaces.
The weights are fitted by scripts/distill_order.py on one set's branch states: to the LTN's hasValue on those
states (distillation: the student keeps what of the teacher's ranking these features can express) or, as a
reference, to the exact solver's solutions. Weights (-1, 0, ...) on `fewest_places` give FewestPlaces' ranking,
on `open_peers` LeastConstraining's. Every feature is symmetric under digit relabelling: no digit is preferred for
its label. No torch here: the fit lives in the script, the order in the symbolic half.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np

from ltn_sudoku.board import Board
from ltn_sudoku.branching.propagate import Crisp, tables

FEATURES: tuple[str, ...] = (
    "fewest_places",  # min over the cell's 3 units of the digit's possible places there, / n (FewestPlaces)
    "mean_places",  # the mean of the same 3 counts, / n
    "open_peers",  # open peers that could take the digit, / 3n (LeastConstraining)
    "pair_units",  # units of the cell where the digit has exactly 2 places, / 3 (a guess there is a coin toss)
    "digit_placed",  # how often the digit is already on the board, / n
    "cell_candidates",  # the cell's possible digits, / n (moves only the tie-break between cells)
)


def candidate_features(state: Crisp) -> np.ndarray:
    """(N, n, F) the `FEATURES` of every (cell, digit); rows of impossible digits are 0."""
    n = state.possible.shape[1]
    t = tables(n)
    places = state.places[t.cell_units].astype(np.float32)  # (N, 3, n)
    possible = state.possible.astype(np.float32)
    placed = (state.values[:, None] == t.digits[None, :]).sum(0).astype(np.float32)  # (n,)
    out = np.stack([places.min(1) / n, places.mean(1) / n, (t.peers @ possible) / (3 * n),
                    (places == 2).sum(1) / 3.0, np.broadcast_to(placed / n, possible.shape),
                    np.broadcast_to(possible.sum(1, keepdims=True) / n, possible.shape)], axis=-1)
    return out * possible[:, :, None]


class LinearOrder:
    """Scores = candidate_features(state) @ weights; fitted weights come from a JSON file (scripts/distill_order.py)."""

    def __init__(self, weights: np.ndarray | list[float], name: str = "learned linear",
                 info: dict[str, Any] | None = None) -> None:
        self.weights = np.asarray(weights, dtype=np.float32)
        if self.weights.shape != (len(FEATURES),):
            raise ValueError(f"{len(self.weights)} weights for {len(FEATURES)} features ({', '.join(FEATURES)})")
        self.name = name
        self.info = info or {}

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> LinearOrder:
        """A weights file (ValueError when it does not name the same features in the same order)."""
        data = json.loads(Path(path).read_text())
        if not isinstance(data, dict) or tuple(data.get("features", ())) != FEATURES or "weights" not in data:
            found = data.get("features") if isinstance(data, dict) else None
            raise ValueError(f"{path}: not a weights file of this version's features {list(FEATURES)} (features: "
                             f"{found})")
        return cls(data["weights"], f"learned {Path(path).stem}", data)

    def begin(self, board: Board) -> None:
        pass

    def scores(self, state: Crisp) -> np.ndarray:
        return candidate_features(state) @ self.weights
