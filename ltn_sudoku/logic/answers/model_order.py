"""A checkpoint's hasValue as the value order of the complete solver (ltn_sudoku/branching): the one learned order,
kept on the learned side so that branching stays symbolic (no torch) and logic/answers/predict.py may call it.

    order = ModelOrder.load("checkpoints/9x9.pt")
    probabilities = order.probabilities(states)    # (B, N) digits, 0 = open  ->  (B, N, n) hasValue

One model call per branch node: the node's digits (givens, propagated and guessed digits) are the facts hasValue is
refined on, and its probabilities are the preference; the cell a tie goes to is the one whose best possible digit is
most probable (the model's surest). The model runs on one CPU thread (the benchmark's CPU seconds are per process).
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import numpy as np
import torch

from ltn_sudoku.board import Board
from ltn_sudoku.branching.propagate import Crisp
from ltn_sudoku.logic.device import device_of, to_numpy
from ltn_sudoku.logic.groundings.grounding import one_hot_givens
from ltn_sudoku.logic.groundings.model import LtnSudoku, describe_inputs
from ltn_sudoku.logic.kinds import load_model


def default_name(path: Path) -> str:
    """An order's name: the checkpoint's stem, or for a run's best.pt / last.pt its run folders (two runs' best.pt
    must not share a name in one benchmark)."""
    if path.stem in ("best", "last"):
        return f"hasValue {path.parent.parent.name}/{path.parent.name}"
    return f"hasValue {path.stem}"


class ModelOrder:
    """hasValue of a loaded checkpoint, most probable digit first; counts its calls and their CPU seconds."""

    def __init__(self, model: LtnSudoku, name: str, path: Path, boards_seen: int | None = None) -> None:
        self.model = model.eval()
        self.name = name
        self.path = path
        self.boards_seen = boards_seen  # training boards the checkpoint saw (its own record), when known
        self.calls = 0
        self.cpu_seconds = 0.0

    @classmethod
    def load(cls, path: str | os.PathLike[str], name: str | None = None) -> ModelOrder:
        """A checkpoint file (CheckpointError, a ValueError, when it is missing, damaged or unsafe)."""
        model, _, payload = load_model(path, kind="board")
        extra = payload.get("extra", {})
        seen = extra.get("boards_seen", extra.get("metrics", {}).get("train/boards_seen"))
        return cls(model, name or default_name(Path(path)), Path(path), None if seen is None else int(seen))

    @property
    def n(self) -> int:
        return self.model.n

    def inputs(self) -> dict[str, object]:
        """What the model reads and how it was trained: its grounding's inputs, and metrics.json's commands."""
        out: dict[str, object] = {"checkpoint": str(self.path), "eval_steps": self.model.config.eval_steps,
                                  "hasValue": describe_inputs(self.model.config)["hasValue"]}
        metrics = self.path.with_suffix(".metrics.json")
        if metrics.is_file():
            recorded = json.loads(metrics.read_text())
            out["train_command"] = recorded.get("train_command")
            out["boards_seen"] = recorded.get("training", {}).get("train/boards_seen")
        return out

    def probabilities(self, states: np.ndarray) -> np.ndarray:
        """(B, N, n) hasValue after refinement on each state (B, N) taken as facts."""
        started = time.process_time()
        before = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            with torch.no_grad():
                values = torch.as_tensor(np.asarray(states, dtype=np.int64), device=device_of(self.model))
                out = to_numpy(self.model.refine(one_hot_givens(values, self.n))[-1])
        finally:
            torch.set_num_threads(before)
        self.calls += 1
        self.cpu_seconds += time.process_time() - started
        return out

    def solves(self, boards: list[Board]) -> np.ndarray:
        """(B,) bool: hasValue's most probable digits (givens kept) are the board's solution, without search."""
        values = np.array([b.values for b in boards])
        decoded = np.where(values > 0, values, self.probabilities(values).argmax(-1) + 1)
        return np.array([Board(row.tolist(), self.n).is_valid_solution for row in decoded])

    def begin(self, board: Board) -> None:
        if board.n != self.n:
            raise ValueError(f"a {board.n}x{board.n} board given to the {self.n}x{self.n} model {self.path}")

    def scores(self, state: Crisp) -> np.ndarray:
        return self.probabilities(state.values[None])[0]
