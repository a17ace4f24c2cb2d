"""The LTN's answers for classify-board: the JSON value of the `ltn` key, one board or a batch at a time.

    predictor = LtnPredictor.for_size(board.n)        # the shipped checkpoint, or None for sizes without a model
    answer = predictor.answer(board) if predictor else LtnPredictor.unavailable(board.n)

An answer holds isCorrect (closed boards; null for open ones) or hasSolution (open boards; null for closed ones) as
{"truth", "decision"} with the calibrated threshold applied; for open boards also hasValue's solution after
refinement, every basic-rule candidate move with its confidence (hasValue) and dead-end probability
(1 - hasSolution after the move) and recommendsHeuristic per technique; and the checkpoint that answered.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Sequence

import torch

from ltn_sudoku.board import Board, geometry
from ltn_sudoku.logic.checkpoint import CheckpointError, load_checkpoint
from ltn_sudoku.logic.grounding import encode_boards, one_hot_givens
from ltn_sudoku.logic.inference import dead_end_probabilities, decoded, is_correct_truth, is_valid_assignment, reach
from ltn_sudoku.logic.model import LtnSudoku, ModelConfig
from ltn_sudoku.logic.operators import Operators, build_operators
from ltn_sudoku.paths import CHECKPOINTS_DIR, REPO_ROOT


def shipped_checkpoint(size: int) -> Path:
    """Where the shipped model of a board size lives (checkpoints/<n>x<n>.pt)."""
    return CHECKPOINTS_DIR / f"{size}x{size}.pt"


def _truth(value: float, threshold: float) -> dict[str, Any]:
    return {"truth": round(float(value), 6), "decision": bool(value >= threshold)}


class LtnPredictor:
    """A loaded checkpoint that answers for boards of its size."""

    def __init__(self, model: LtnSudoku, ops: Operators, path: Path) -> None:
        self.model = model.eval()
        self.ops = ops
        self.path = path

    @classmethod
    def load(cls, path: str | os.PathLike[str], size: int | None = None) -> LtnPredictor:
        """A checkpoint file; CheckpointError when it is missing, corrupted or for another size than `size`."""
        payload = load_checkpoint(path, size)
        config = payload["config"]
        try:
            model = LtnSudoku(ModelConfig.from_cfg(config["model"]))
            model.load_state_dict(payload["state_dict"])
            ops = build_operators(config["logic"])
        except (KeyError, TypeError, ValueError, RuntimeError) as e:
            raise CheckpointError(f"{path}: checkpoint does not match this code's model ({e})") from None
        return cls(model, ops, Path(path))

    @classmethod
    def for_size(cls, size: int) -> LtnPredictor | None:
        """The shipped model for a board side, or None when no model exists for that size."""
        path = shipped_checkpoint(size)
        return cls.load(path, size) if path.is_file() else None

    @staticmethod
    def unavailable(size: int) -> dict[str, Any]:
        """The `ltn` value for a size without a model."""
        return {"available": False, "reason": f"no LTN model for {size}x{size} boards (models: "
                f"{', '.join(p.stem for p in sorted(CHECKPOINTS_DIR.glob('*.pt'))) or 'none'})"}

    @property
    def size(self) -> int:
        return self.model.n

    def _checkpoint_name(self) -> str:
        try:
            return str(self.path.resolve().relative_to(REPO_ROOT))
        except ValueError:
            return str(self.path)

    def answer(self, board: Board) -> dict[str, Any]:
        """The `ltn` JSON value for one board."""
        return self.answer_batch([board])[0]

    def answer_batch(self, boards: Sequence[Board]) -> list[dict[str, Any]]:
        """The `ltn` JSON values for boards of this predictor's size, computed as one batch."""
        if not boards:
            return []
        wrong = [b.n for b in boards if b.n != self.size]
        if wrong:
            raise ValueError(f"a {wrong[0]}x{wrong[0]} board given to the {self.size}x{self.size} model {self.path}")
        model, ops, n = self.model, self.ops, self.size
        geo = geometry(n)
        with torch.no_grad():
            values = encode_boards(boards, n)
            correct = is_correct_truth(model, ops, values)
            reached = reach(model, ops, values)
            givens = one_hot_givens(values, n)
            valid = is_valid_assignment(model, givens, reached.final)
            recommends = model.recommends(givens)
            open_rows = [i for i, b in enumerate(boards) if not b.is_closed]
            board_idx, cell, digit, dead = dead_end_probabilities(model, ops, values[open_rows])
        threshold_correct = float(model.is_correct_threshold)
        threshold_solution = float(model.has_solution_threshold)
        answers: list[dict[str, Any]] = []
        for i, board in enumerate(boards):
            closed = board.is_closed
            answers.append({
                "available": True,
                "checkpoint": self._checkpoint_name(),
                "isCorrect": _truth(correct[i], threshold_correct) if closed else None,
                "hasSolution": None if closed else _truth(reached.has_solution[i], threshold_solution),
                "solution": None if closed else {
                    "board": Board(decoded(reached.final[i]).tolist(), n).to_line(), "valid": bool(valid[i])},
                "moves": [],
                "recommendsHeuristic": None if closed else {
                    name: _truth(recommends[i, j], 0.5) for j, name in enumerate(model.config.techniques)},
            })
        for k in range(len(board_idx)):
            i = open_rows[int(board_idx[k])]
            c, d = int(cell[k]), int(digit[k])
            answers[i]["moves"].append({
                "row": geo.row[c], "col": geo.col[c], "digit": d,
                "confidence": round(float(reached.final[i, c, d - 1]), 6),
                "dead_end": {"probability": round(float(dead[k]), 6),
                             "decision": bool(dead[k] > 1 - threshold_solution)},
            })
        return answers


class LtnSection:
    """The LTN's answer as a classify Report section: JSON key `ltn`, and readable lines beside the symbolic ones."""

    title = "LTN model"

    def __init__(self, answer: dict[str, Any]) -> None:
        self.answer = answer

    def as_dict(self) -> dict[str, object]:
        return {"ltn": self.answer}

    def describe(self) -> list[str]:
        a = self.answer
        if not a.get("available"):
            return [str(a.get("reason", "not available"))]
        lines = [f"checkpoint: {a['checkpoint']}"]
        for key, label in (("isCorrect", "isCorrect"), ("hasSolution", "hasSolution")):
            if a.get(key) is not None:
                lines.append(f"{label}: {'yes' if a[key]['decision'] else 'no'} (truth {a[key]['truth']:.6f})")
        if a.get("solution") is not None:
            state = "a solution" if a["solution"]["valid"] else "not a solution"
            lines.append(f"hasValue after refinement: {a['solution']['board']} ({state})")
        dead = [f"r{m['row'] + 1}c{m['col'] + 1}={m['digit']}" for m in a.get("moves", [])
                if m["dead_end"]["decision"]]
        if a.get("moves"):
            lines.append(f"moves: {len(a['moves'])}, predicted dead ends: {len(dead)}"
                         + (f" ({', '.join(dead[:12])}{', ...' if len(dead) > 12 else ''})" if dead else ""))
        if a.get("recommendsHeuristic"):
            chosen = [name for name, t in a["recommendsHeuristic"].items() if t["decision"]]
            lines.append(f"recommendsHeuristic: {', '.join(chosen) if chosen else 'none'}")
        return lines


class LtnAnswers:
    """The LTN section of boards of any size: one model per size, loaded on first use (the shipped checkpoint of the
    size, or the one `checkpoint` file for every size), and a section saying why when there is none."""

    def __init__(self, checkpoint: str | os.PathLike[str] | None = None) -> None:
        self.checkpoint = Path(checkpoint) if checkpoint is not None else None
        self.predictors: dict[int, LtnPredictor | None] = {}

    def predictor(self, size: int) -> LtnPredictor | None:
        """The model that answers boards of this size; CheckpointError for a missing or corrupted file."""
        if size not in self.predictors:
            self.predictors[size] = (LtnPredictor.load(self.checkpoint) if self.checkpoint is not None
                                     else LtnPredictor.for_size(size))
        return self.predictors[size]

    def section(self, board: Board) -> LtnSection:
        """The `ltn` section for one board."""
        n = board.n
        predictor = self.predictor(n)
        if predictor is None:
            return LtnSection(LtnPredictor.unavailable(n))
        if predictor.size != n:
            return LtnSection({"available": False, "reason": f"{self.checkpoint} is a {predictor.size}x"
                               f"{predictor.size} model, the board is {n}x{n}"})
        return LtnSection(predictor.answer(board))
