"""A checkpoint's hasValue as the value order of the complete solver (ltn_sudoku/branching): the one learned order,
kept on the learned side so that branching stays symbolic (no torch) and logic/board/predict.py may call it.

    order = ModelOrder.load("checkpoints/9x9.pt")
    probabilities = order.probabilities(states)    # (B, N) digits, 0 = open  ->  (B, N, n) hasValue

`ModelOrder` makes one model call per branch node: the node's digits (givens, propagated and guessed digits) are the
facts hasValue is refined on, and its probabilities are the preference; the cell a tie goes to is the one whose best
possible digit is most probable (the model's surest). The model runs on one CPU thread (the benchmark's CPU seconds are
per process).

A call per node costs tens of solves of a hand-made order, so the cheap variant `CachedModelOrder` reuses one call's
ranking down the tree: the model is asked at the root's branch node (after propagation) and again only below a node
where `refresh` digits or more were placed since the state it last saw on the current path (never, with the default:
one call per puzzle); with `after`, a hand-made order answers until the search has left `after` refuted branches
behind, so that easy puzzles cost no model call at all; `prefetch` answers many puzzles' root states in one batched
call ahead of their searches. `ModelOrder.with_steps` gives the same model answering after fewer refinement steps.
Every variant only ranks the digits the crisp rules leave possible, so the solver stays complete and exact whatever it
says. Their wrong guesses and wall time beside the hand-made orders': scripts/bench_guidance.py (`--variants`), figures
in docs/results/guidance/cheap_orders*.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Sequence

import numpy as np
import torch

from ltn_sudoku.board import Board
from ltn_sudoku.branching.orders import ValueOrder
from ltn_sudoku.branching.propagate import OPEN, Crisp, propagate
from ltn_sudoku.logic.board.model import LtnSudoku, describe_inputs, load_board_model
from ltn_sudoku.logic.device import device_of, to_numpy
from ltn_sudoku.logic.groundings.grounding import one_hot_givens


def default_name(path: Path) -> str:
    """An order's name: the checkpoint's stem, or for a run's best.pt / last.pt its run folders (two runs' best.pt
    must not share a name in one benchmark)."""
    if path.stem in ("best", "last"):
        return f"hasValue {path.parent.parent.name}/{path.parent.name}"
    return f"hasValue {path.stem}"


class ModelOrder:
    """hasValue of a loaded checkpoint, most probable digit first; counts its calls and their CPU seconds."""

    def __init__(self, model: LtnSudoku, name: str, path: Path, boards_seen: int | None = None,
                 steps: int | None = None) -> None:
        self.model = model.eval()
        self.name = name
        self.path = path
        self.boards_seen = boards_seen  # training boards the checkpoint saw (its own record), when known
        self.steps = steps  # refinement steps per call (None: the checkpoint's eval_steps)
        self.calls = 0
        self.cpu_seconds = 0.0

    def with_steps(self, steps: int) -> ModelOrder:
        """The same model answering after `steps` refinement steps (a cheaper call), named so."""
        if steps < 1:
            raise ValueError(f"steps={steps}: a model call needs at least 1 refinement step")
        return ModelOrder(self.model, f"{self.name} {steps} steps", self.path, self.boards_seen, steps)

    @classmethod
    def load(cls, path: str | os.PathLike[str], name: str | None = None) -> ModelOrder:
        """A checkpoint file (CheckpointError, a ValueError, when it is missing, damaged or unsafe)."""
        model, _, payload = load_board_model(path)
        extra = payload.get("extra", {})
        seen = extra.get("boards_seen", extra.get("metrics", {}).get("train/boards_seen"))
        return cls(model, name or default_name(Path(path)), Path(path), None if seen is None else int(seen))

    @property
    def n(self) -> int:
        return self.model.n

    def inputs(self) -> dict[str, object]:
        """What the model reads and how it was trained: its grounding's inputs, and metrics.json's commands."""
        out: dict[str, object] = {"checkpoint": str(self.path),
                                  "eval_steps": self.steps or self.model.config.eval_steps,
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
                out = to_numpy(self.model.refine(one_hot_givens(values, self.n), self.steps)[-1])
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


def _extends(values: np.ndarray, earlier: np.ndarray) -> bool:
    """`values` holds every digit of `earlier`: a state below it in the search tree (or itself)."""
    return bool(np.array_equal(np.where(earlier > 0, values, 0), earlier))


class CachedModelOrder:
    """A model order's ranking reused down the search tree: a model call at the first branch node of a puzzle, and
    again only where `refresh` digits or more were placed since the nearest state on the current path that the model
    saw (None: never), or where the search left the subtree of every state it saw. Cheap because most nodes cost a
    comparison instead of a model pass. With `after` > 0 the `fallback` order answers until the search has moved on
    from `after` refuted branches (a puzzle shown not to be easy); the model's ranking of the root state takes over from
there (still one call per puzzle without `refresh`)."""

    def __init__(self, model: ModelOrder, refresh: int | None = None, name: str | None = None, after: int = 0,
                 fallback: ValueOrder | None = None) -> None:
        if refresh is not None and refresh < 1:
            raise ValueError(f"refresh={refresh}: expected None (root call only) or at least 1 placed digit")
        if after < 0 or (after > 0) != (fallback is not None):
            raise ValueError(f"after={after}: expected 0 without a fallback order, or more with one")
        self.model = model
        self.refresh = refresh
        self.after = after
        self.fallback = fallback
        default = f"{model.name} root call" if refresh is None else f"{model.name} refresh {refresh}"
        if fallback is not None:
            default = f"{model.name} after {after} refuted ({fallback.name} before)"
        self.name = name or default
        self._seen: list[tuple[np.ndarray, np.ndarray]] = []  # (state, probabilities) of the calls on the path
        self._ahead: dict[bytes, np.ndarray] = {}  # root state -> probabilities, from prefetch
        self._last: np.ndarray | None = None  # the state of the previous branch node
        self._root: np.ndarray | None = None  # the state of the puzzle's first branch node
        self._refuted = 0  # times the search left the previous branch node's subtree (this puzzle)

    @property
    def calls(self) -> int:
        """Model calls so far (all puzzles)."""
        return self.model.calls

    def inputs(self) -> dict[str, object]:
        """The wrapped model's inputs, and when it is called."""
        return {**self.model.inputs(), "refresh": self.refresh, "after": self.after,
                "fallback": None if self.fallback is None else self.fallback.name}

    def prefetch(self, boards: Sequence[Board], batch: int = 256) -> int:
        """Answer the root states of `boards` ahead in batched calls (`batch` boards a pass): each puzzle's root call
        is then a look-up, and a pass over many boards costs far less per board than one pass per board (whoever
        times the searches charges each puzzle its share). Returns the root states answered (puzzles that
        propagation alone closes have none)."""
        roots = [p.values for p in (propagate(np.array(b.values, dtype=np.int16)) for b in boards) if p.status == OPEN]
        for start in range(0, len(roots), batch):
            chunk = np.array(roots[start:start + batch])
            for values, probabilities in zip(chunk, self.model.probabilities(chunk)):
                self._ahead[values.tobytes()] = probabilities
        return len(roots)

    def begin(self, board: Board) -> None:
        self.model.begin(board)
        if self.fallback is not None:
            self.fallback.begin(board)
        self._seen, self._last, self._root, self._refuted = [], None, None, 0

    def scores(self, state: Crisp) -> np.ndarray:
        values = state.values
        if self._root is None:
            self._root = values.copy()
        if self.fallback is not None and self._refuted < self.after:
            if self._last is not None and not _extends(values, self._last):
                self._refuted += 1
            self._last = values.copy()
            if self._refuted < self.after:
                return self.fallback.scores(state)
        # A seen state whose digits are not all in this one lies on a refuted branch: the search has left it.
        while self._seen and not _extends(values, self._seen[-1][0]):
            self._seen.pop()
        if self._seen:
            placed = int((values > 0).sum() - (self._seen[-1][0] > 0).sum())
            if self.refresh is None or placed < self.refresh:
                return self._seen[-1][1]
        if not self._seen:  # the first call of the puzzle (or the lazy order's): at the root, an ancestor of every node
            values = self._root
        ahead = self._ahead.pop(values.tobytes(), None) if not self._seen else None
        probabilities = self.model.probabilities(values[None])[0] if ahead is None else ahead
        self._seen.append((values.copy(), probabilities))
        return probabilities
