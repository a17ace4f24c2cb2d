"""The learned models as a Python API: `ltn_sudoku.load_model(name_or_path)`.

    import ltn_sudoku
    m = ltn_sudoku.load_model("9x9")                  # a shipped model by name, or any checkpoint file
    board = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"  # or a Board
    m.has_value(board)                                 # (81, 9) numpy: hasValue(cell, digit) after refinement
    m.has_value_frame(board)                           # the same as a pandas DataFrame (rows r1c1.., columns 1..9)
    m.has_solution(board), m.recommends(board)         # Truth(truth, decision); {technique: Truth}
    m.dead_ends(board)                                 # every candidate move with its dead-end probability
    m.solve(board, limit=2)                            # the complete solver in hasValue's order (exact verdict)
    ltn_sudoku.classify(m.board(board), model=m).as_dict()["ltn"]   # the LTN section beside the engine's answers

Everything is answered by what classify-board runs (logic/board/predict.py's LtnPredictor, the complete solver's
ModelOrder): this module only names the models, checks that a board fits, and hands back typed answers
(logic/board/answer.py). A visual model (`"visual_9x9"`) reads cell images instead of boards: `has_value(images)`,
`is_correct(images)`, `read(images)`. A board of another size, or a question the model's kind does not answer, is one
`ModelMismatchError` that says which model fits.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

import numpy as np
import torch

from ltn_sudoku.board import Board
from ltn_sudoku.branching.solver import SolveResult
from ltn_sudoku.branching.solver import solve as solve_complete
from ltn_sudoku.io.readers import parse_board_text
from ltn_sudoku.logic.board.answer import LtnAnswer, LtnMove, Truth
from ltn_sudoku.logic.board.predict import LtnPredictor
from ltn_sudoku.logic.checkpoints import CheckpointError, model_kind
from ltn_sudoku.logic.device import device_of, to_list, to_numpy
from ltn_sudoku.logic.kinds import load_model as load_checkpoint_model
from ltn_sudoku.logic.visual.answer import read_visual_board
from ltn_sudoku.paths import CHECKPOINTS_DIR

if TYPE_CHECKING:
    import pandas

    from ltn_sudoku.logic.kb.operators import Operators
    from ltn_sudoku.logic.visual.model import VisualLtn

ALIASES = {"9x9_mp": "9x9_message_passing"}  # short names of shipped checkpoints (checkpoints/<name>.pt)


class ModelMismatchError(ValueError):
    """A board or input the model cannot answer: another size, or a question of the other model kind."""


def shipped_models() -> list[str]:
    """The names load_model takes for the shipped checkpoints (checkpoints/*.pt), aliases included."""
    stems = sorted(p.stem for p in CHECKPOINTS_DIR.glob("*.pt"))
    return stems + [alias for alias, stem in ALIASES.items() if stem in stems]


def checkpoint_path(name_or_path: str | os.PathLike[str]) -> Path:
    """A shipped model's file by name (`"9x9"`, `"9x9_mp"`, `"visual_9x9"`), else the path as given."""
    name = str(name_or_path)
    shipped = CHECKPOINTS_DIR / f"{ALIASES.get(name, name)}.pt"
    if shipped.is_file() and os.sep not in name and not name.endswith(".pt"):
        return shipped
    path = Path(name_or_path)
    if not path.is_file():
        raise CheckpointError(f"{name}: neither a shipped model ({', '.join(shipped_models())}) nor a checkpoint file")
    return path


def as_board(board: Board | str) -> Board:
    """A Board as given, or read from text (a line string, rows, a drawn grid: io.parse_board_text)."""
    return board if isinstance(board, Board) else parse_board_text(board)


class BoardModel:
    """A board model (kind `board`): hasValue, hasSolution, isCorrect, recommendsHeuristic and the complete solver
    on boards of its size."""

    kind = "board"

    def __init__(self, predictor: LtnPredictor, name: str) -> None:
        self.predictor = predictor
        self.name = name

    def __repr__(self) -> str:
        return f"BoardModel({self.name!r}, {self.n}x{self.n}, {self.path})"

    @property
    def n(self) -> int:
        return self.predictor.size

    @property
    def path(self) -> Path:
        return self.predictor.path

    @property
    def techniques(self) -> tuple[str, ...]:
        """The techniques recommendsHeuristic is defined for, in the model's order."""
        return tuple(self.predictor.model.config.techniques)

    def board(self, board: Board | str) -> Board:
        """The board as a Board (text is parsed), checked to fit this model."""
        return self._fits(board)

    def _fits(self, board: Board | str) -> Board:
        b = as_board(board)
        if b.n != self.n:
            fits = [m for m in shipped_models() if m == f"{b.n}x{b.n}"]
            raise ModelMismatchError(f"a {b.n}x{b.n} board given to the {self.n}x{self.n} model {self.name}"
                                     + (f": load_model({fits[0]!r}) answers it" if fits else ""))
        return b

    def answer(self, board: Board | str, dead_ends: bool = False, complete: int = 0) -> LtnAnswer:
        """Everything the model says about the board (classify-board's LTN section, typed)."""
        return self.predictor.answers([self._fits(board)], dead_ends=dead_ends, complete=complete)[0]

    def sections(self, boards: Sequence[Board]) -> list[LtnAnswer]:
        """The LTN section of each board (what `classify(board, model=...)` adds to its report)."""
        return self.predictor.answers([self._fits(b) for b in boards], dead_ends=False)

    def has_value(self, board: Board | str) -> np.ndarray:
        """(n*n, n) hasValue(cell, digit) after refinement, the board's digits taken as facts."""
        b = self._fits(board)
        return self.predictor.order.probabilities(np.array([b.values]))[0]

    def has_value_frame(self, board: Board | str) -> pandas.DataFrame:
        """has_value as a DataFrame: one row per cell (r1c1, r1c2, ...), one column per digit."""
        import pandas

        n = self.n
        return pandas.DataFrame(self.has_value(board), columns=list(range(1, n + 1)),
                                index=[f"r{c // n + 1}c{c % n + 1}" for c in range(n * n)])

    def has_solution(self, board: Board | str) -> Truth:
        """hasSolution(board) for an open board, at the calibrated threshold."""
        b = self._fits(board)
        if b.is_closed:
            raise ModelMismatchError("hasSolution is asked of open boards; this board is closed: use is_correct")
        answer = self.answer(b)
        assert answer.has_solution is not None
        return answer.has_solution

    def is_correct(self, board: Board | str) -> Truth:
        """isCorrect(board) for a closed board, at the calibrated threshold."""
        b = self._fits(board)
        if not b.is_closed:
            raise ModelMismatchError(f"isCorrect is asked of closed boards; this board has {len(b.empty_cells)} "
                                     "empty cells: use has_solution")
        answer = self.answer(b)
        assert answer.is_correct is not None
        return answer.is_correct

    def recommends(self, board: Board | str) -> dict[str, Truth]:
        """recommendsHeuristic(board, technique) for every technique of the model (open boards)."""
        b = self._fits(board)
        if b.is_closed:
            raise ModelMismatchError("recommendsHeuristic is asked of open boards; this board is closed")
        return dict(self.answer(b).recommends or {})

    def dead_ends(self, board: Board | str) -> list[LtnMove]:
        """Every basic-rule candidate move with hasValue's confidence and its dead-end probability
        (1 - hasSolution after the move; one model run per move)."""
        return list(self.answer(board, dead_ends=True).moves)

    def solve(self, board: Board | str, limit: int = 1) -> SolveResult:
        """The complete solver steered by hasValue: up to `limit` solutions or a proof of none (exact: the crisp
        rules and branching decide, the model only orders the digits)."""
        return solve_complete(self._fits(board), self.predictor.order, limit=limit)


class VisualModel:
    """A visual model (kind `visual`): hasValue read from (n*n, 28, 28) uint8 cell images, and isCorrect."""

    kind = "visual"

    def __init__(self, model: VisualLtn, ops: Operators, path: Path, name: str, device: str = "cpu") -> None:
        self.model, self.ops = model, ops
        self.path = path
        self.name = name
        self.device = device

    def __repr__(self) -> str:
        return f"VisualModel({self.name!r}, {self.n}x{self.n}, {self.path})"

    @property
    def n(self) -> int:
        return int(self.model.n)

    def _images(self, images: np.ndarray) -> torch.Tensor:
        if isinstance(images, (Board, str)):
            raise ModelMismatchError(f"{self.name} is a visual model: it reads ({self.n * self.n}, 28, 28) cell "
                                     f"images, not a board (load_model('{self.n}x{self.n}') answers boards)")
        array = np.asarray(images)
        if array.shape != (self.n * self.n, 28, 28):
            raise ModelMismatchError(f"images of shape {array.shape} given to the {self.n}x{self.n} visual model "
                                     f"{self.name}: expected ({self.n * self.n}, 28, 28)")
        return torch.from_numpy(array.astype(np.uint8)).to(device_of(self.model))[None]

    def has_value(self, images: np.ndarray) -> np.ndarray:
        """(n*n, n) hasValue(cell, digit): the reader's probabilities, in its own digit names."""
        with torch.no_grad():
            return to_numpy(self.model.has_value(self._images(images))[0])

    def is_correct(self, images: np.ndarray) -> Truth:
        """isCorrect of the board the images show (a closed board's predicate), decided at 0.5."""
        with torch.no_grad():
            truth = to_list(self.model.is_correct(self.ops, self.model.has_value(self._images(images))))[0]
        return Truth.at(truth, 0.5)

    def read(self, images: np.ndarray) -> Board:
        """The board the images show, as the reader reads it (empty cells stay empty)."""
        self._images(images)
        return read_visual_board(np.asarray(images, dtype=np.uint8), self.path, self.device)[0]

    def _board_only(self, question: str) -> ModelMismatchError:
        return ModelMismatchError(f"{question} is a board model's predicate; {self.name} is a visual model "
                                  f"(load_model('{self.n}x{self.n}') answers it)")

    def has_solution(self, board: object) -> Truth:
        raise self._board_only("hasSolution")

    def recommends(self, board: object) -> dict[str, Truth]:
        raise self._board_only("recommendsHeuristic")

    def dead_ends(self, board: object) -> list[LtnMove]:
        raise self._board_only("a move's dead end")

    def solve(self, board: object, limit: int = 1) -> SolveResult:
        raise self._board_only("the complete solver's order")

    def sections(self, boards: Sequence[Board]) -> list[LtnAnswer]:
        """classify(board, model=...) takes a board model: a visual one reads images (classify-board's
        --visual-checkpoint answers a board given as images)."""
        raise self._board_only("classify's LTN section")


def load_model(name_or_path: str | os.PathLike[str], device: str = "cpu") -> BoardModel | VisualModel:
    """A shipped model by name (`shipped_models()`: "9x9", "9x9_mp", "visual_9x9", ...) or any
    checkpoint file, answering on `device` (cpu | cuda | auto). CheckpointError when it cannot be loaded."""
    path = checkpoint_path(name_or_path)
    name = str(name_or_path) if Path(name_or_path) != path else path.stem
    model, ops, payload = load_checkpoint_model(path, device=device)
    if model_kind(payload["config"]) == "visual":
        return VisualModel(model, ops, path, name, device)
    # one CPU thread, as classify-board answers (on one board's batch more threads cost more than they save)
    return BoardModel(LtnPredictor(model, ops, path, threads=1), name)
