"""The LTN's answers for classify-board: the JSON value of the `ltn` key, for many boards at once.

For the CLI (classify-board, streaming in chunks): `LtnAnswers(checkpoint, dead_ends=False).sections(boards)` returns
the LTN section of every board of a chunk, computed with the boards as the batch dimension; a future `--ltn-dead-ends`
flag maps to `dead_ends=True` (one hasValue run per move: about 140x the cost, so off by default; the answer says so).

    predictor = LtnPredictor.for_size(board.n)        # the shipped checkpoint, or None for sizes without a model
    answers = predictor.answers(boards)               # one LtnAnswer per board (logic/board/answer.py)
    values = predictor.answer_batch(boards)           # their JSON values (LtnAnswer.ltn_dict())

An answer holds isCorrect (closed boards; null for open ones) or hasSolution (open boards; null for closed ones) as
{"truth", "decision"} with the calibrated threshold applied; for open boards also hasValue's solution after
refinement, every basic-rule candidate move with its confidence (hasValue) and, when asked for, its dead-end
probability (1 - hasSolution after the move; all moves of one board in one batch), `dead_ends` saying whether they
were computed, recommendsHeuristic per technique; and the checkpoint that answered. The model runs on `threads` CPU
threads (default 1: on classify's small batches more threads spend more CPU time than they save).

`complete=k` > 0 (classify-board --ltn-complete k) adds `complete_solver` to each open board's answer: the complete
solver of ltn_sudoku/branching steered by this model's hasValue (logic/board/model_order.py), run to k solutions or a proof
of none; its verdict is exact (the KB's crisp rules and branching decide it, the model only orders the digits), and
what the order cost is reported beside it: nodes, wrong guesses, model calls, CPU seconds. Without the option the key
is absent, so the default answer is unchanged.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Sequence

import torch

from ltn_sudoku.board import Board, geometry
from ltn_sudoku.branching.solver import solve as solve_complete
from ltn_sudoku.logic.board.answer import LtnAnswer, LtnMove, Truth
from ltn_sudoku.logic.board.inference import (
    candidate_moves,
    dead_end_probabilities,
    decoded,
    is_correct_truth,
    is_valid_assignment,
    reach,
)
from ltn_sudoku.logic.board.model import LtnSudoku, load_board_model
from ltn_sudoku.logic.board.model_order import ModelOrder
from ltn_sudoku.logic.board.search import guided_search
from ltn_sudoku.logic.checkpoints import shipped_checkpoint
from ltn_sudoku.logic.device import device_of, to_list, to_numpy
from ltn_sudoku.logic.groundings.grounding import encode_boards, one_hot_givens
from ltn_sudoku.logic.kb.operators import Operators
from ltn_sudoku.paths import CHECKPOINTS_DIR

BATCH_BOARDS = 64  # boards per model pass in LtnAnswers.sections: bounded memory, full batches
SETTLE_TOLERANCE = 1e-4  # a board's refinement stops once a step moves none of its truths by more than this: on
# 1,536 real Kaggle rows the same decisions as all 48 steps, truths within 3e-4, 27.6 steps on 1M rows (3M rows run
# all 48) (tests/test_ltn_settle.py, scripts/bench_classify_ltn.py --settle-only); 0 runs every step


@contextmanager
def torch_threads(threads: int | None) -> Iterator[None]:
    """Run the block on `threads` CPU threads (None: as set), restoring the process setting afterwards."""
    before = torch.get_num_threads()
    if threads:
        torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.set_num_threads(before)


class LtnPredictor:
    """A loaded checkpoint that answers for boards of its size."""

    def __init__(self, model: LtnSudoku, ops: Operators, path: Path, threads: int | None = 1,
                 tolerance: float = SETTLE_TOLERANCE) -> None:
        self.model = model.eval()
        for module in model.modules():  # answering only: ReLU in place saves a tensor per layer, same values
            if isinstance(module, torch.nn.ReLU):
                module.inplace = True
        self.ops = ops
        self.path = path
        self.threads = threads
        self.tolerance = tolerance  # refinement stops per board (SETTLE_TOLERANCE); 0: every board every step
        self._order: ModelOrder | None = None

    @classmethod
    def load(cls, path: str | os.PathLike[str], size: int | None = None, device: str = "cpu") -> LtnPredictor:
        """A checkpoint file, answering on `device` (cpu | cuda | auto); CheckpointError when it is missing,
        corrupted or for another size than `size`."""
        model, ops, _ = load_board_model(path, size, device)
        return cls(model, ops, Path(path))

    @classmethod
    def for_size(cls, size: int, device: str = "cpu") -> LtnPredictor | None:
        """The shipped model for a board side, or None when no model exists for that size."""
        path = shipped_checkpoint(size)
        return cls.load(path, size, device) if path.is_file() else None

    @staticmethod
    def unavailable_reason(size: int) -> str:
        """Why boards of this size get no LTN answer."""
        return (f"no LTN model for {size}x{size} boards (models: "
                f"{', '.join(p.stem for p in sorted(CHECKPOINTS_DIR.glob('*.pt'))) or 'none'})")

    @property
    def size(self) -> int:
        return self.model.n

    def _checkpoint_name(self) -> str:
        """checkpoints/<name>.pt for a shipped model, from a checkout or an installed wheel alike (the folder that
        holds checkpoints/: the checkout's root, or the installed package); else the path as given."""
        try:
            return str(self.path.resolve().relative_to(CHECKPOINTS_DIR.resolve().parent))
        except ValueError:
            return str(self.path)

    @property
    def order(self) -> ModelOrder:
        """This model's hasValue as the complete solver's value order (and the one hasValue table of a board)."""
        if self._order is None:
            self._order = ModelOrder(self.model, "hasValue", self.path)
        return self._order

    def complete_solver(self, board: Board, limit: int = 1) -> dict[str, Any]:
        """The complete solver's answer on one open board, steered by this model's hasValue: up to `limit` solutions
        or a proof of none ("solved" with a limit of 2 or more means unique)."""
        return solve_complete(board, self.order, limit=limit).as_dict()

    def answer(self, board: Board) -> dict[str, Any]:
        """The `ltn` JSON value for one board."""
        return self.answer_batch([board])[0]

    def answer_batch(self, boards: Sequence[Board], dead_ends: bool = True,
                     search_budget: int = 0, complete: int = 0) -> list[dict[str, Any]]:
        """The `ltn` JSON values of `answers` (the same arguments)."""
        return [a.ltn_dict() for a in self.answers(boards, dead_ends, search_budget, complete)]

    def answers(self, boards: Sequence[Board], dead_ends: bool = True,
                search_budget: int = 0, complete: int = 0) -> list[LtnAnswer]:
        """The LTN's answers on boards of this predictor's size, computed as one batch; `dead_ends`: also every
        move's dead-end probability (one batch of moves per board); `search_budget` > 0: also the LTN-guided search's
        verdict on each open board (logic/board/search.py), reported beside hasSolution, never mixed into it;
        `complete` > 0: also the complete solver's answer up to that many solutions (`complete_solver`, one board at
        a time). A board of another size is a ValueError."""
        if not boards:
            return []
        wrong = [b.n for b in boards if b.n != self.size]
        if wrong:
            raise ValueError(f"a {wrong[0]}x{wrong[0]} board given to the {self.size}x{self.size} model {self.path}")
        model, ops, n = self.model, self.ops, self.size
        geo = geometry(n)
        with torch.inference_mode(), torch_threads(self.threads):  # no autograd bookkeeping at all
            values = encode_boards(boards, n, device_of(model))
            # isCorrect is read for closed boards only: a batch without any (a puzzle file) skips it
            correct = is_correct_truth(model, ops, values) if any(b.is_closed for b in boards) else None
            reached = reach(model, ops, values, tolerance=self.tolerance)
            givens = one_hot_givens(values, n)
            valid = is_valid_assignment(model, givens, reached.final)
            recommends = model.recommends(givens)
            open_rows = [i for i, b in enumerate(boards) if not b.is_closed]
            if dead_ends:
                found = [dead_end_probabilities(model, ops, values[i:i + 1], chunk=n ** 3) for i in open_rows]
                board_idx = torch.cat([torch.full_like(f[0], k) for k, f in enumerate(found)]) if found else None
                cell, digit, dead = (torch.cat([f[j] for f in found]) if found else None for j in (1, 2, 3))
            else:
                board_idx, cell, digit = candidate_moves(model.grounding, values[open_rows])
                dead = None
        threshold_correct = float(model.is_correct_threshold)
        threshold_solution = float(model.has_solution_threshold)
        correct_truths = [] if correct is None else to_list(correct)
        has_solution, valid = to_list(reached.has_solution), to_list(valid)
        recommends, final = to_list(recommends), to_numpy(reached.final)
        solutions = to_list(decoded(reached.final))
        moves: list[list[LtnMove]] = [[] for _ in boards]
        if board_idx is not None:
            assert cell is not None and digit is not None  # None together with board_idx
            dead_list = None if dead is None else to_list(dead)
            rows_of_moves = [open_rows[b] for b in to_list(board_idx)]
            cells, digits = to_list(cell), to_list(digit)
            confidence = final[rows_of_moves, cells, [d - 1 for d in digits]].tolist()  # one gather, not one per move
            for k, (i, c, d) in enumerate(zip(rows_of_moves, cells, digits)):
                moves[i].append(LtnMove(geo.row[c], geo.col[c], d, round(confidence[k], 6),
                                        None if dead_list is None else round(float(dead_list[k]), 6),
                                        None if dead_list is None else bool(dead_list[k] > 1 - threshold_solution)))
        checkpoint = self._checkpoint_name()
        answers: list[LtnAnswer] = []
        for i, board in enumerate(boards):
            closed = board.is_closed
            answers.append(LtnAnswer(
                board, checkpoint=checkpoint,
                is_correct=Truth.at(correct_truths[i], threshold_correct) if closed else None,
                has_solution=None if closed else Truth.at(has_solution[i], threshold_solution),
                solution=None if closed else Board(solutions[i], n),
                solution_valid=None if closed else bool(valid[i]),
                moves=tuple(moves[i]),
                dead_ends_computed=None if closed else dead_ends,
                recommends=None if closed else {name: Truth.at(recommends[i][j], 0.5)
                                                for j, name in enumerate(model.config.techniques)},
                search=(guided_search(model, board, budget=search_budget).as_dict()
                        if search_budget > 0 and not closed else None),
                complete_solver=self.complete_solver(board, complete) if complete > 0 and not closed else None,
                complete_asked=complete > 0,
                truths=final[i],
            ))
        return answers


class LtnAnswers:
    """The LTN section of boards of any size: one model per size, loaded on first use (the shipped checkpoint of the
    size, or the one `checkpoint` file for every size), and a section saying why when there is none."""

    def __init__(self, checkpoint: str | os.PathLike[str] | None = None, dead_ends: bool = False,
                 threads: int | None = 1, search_budget: int = 0, device: str = "cpu", complete: int = 0,
                 tolerance: float = SETTLE_TOLERANCE) -> None:
        self.checkpoint = Path(checkpoint) if checkpoint is not None else None
        self.device = device
        self.dead_ends = dead_ends
        self.search_budget = search_budget
        self.complete = complete
        self.threads = threads
        self.tolerance = tolerance
        self.predictors: dict[int, LtnPredictor | None] = {}

    def predictor(self, size: int) -> LtnPredictor | None:
        """The model that answers boards of this size; CheckpointError for a missing or corrupted file."""
        if size not in self.predictors:
            predictor = (LtnPredictor.load(self.checkpoint, device=self.device) if self.checkpoint is not None
                         else LtnPredictor.for_size(size, self.device))
            if predictor is not None:
                predictor.threads, predictor.tolerance = self.threads, self.tolerance
            self.predictors[size] = predictor
        return self.predictors[size]

    def section(self, board: Board) -> LtnAnswer:
        """The `ltn` section for one board."""
        return self.sections([board])[0]

    def sections(self, boards: Sequence[Board], batch: int = BATCH_BOARDS) -> list[LtnAnswer]:
        """The LTN's answers on many boards, in their order: the boards of each size answered `batch` at a time; a
        size without a model (or another size than the one `checkpoint`'s) gets an answer that says so."""
        answers: list[LtnAnswer | None] = [None] * len(boards)
        for n in sorted({b.n for b in boards}):
            positions = [i for i, b in enumerate(boards) if b.n == n]
            predictor = self.predictor(n)
            if predictor is None or predictor.size != n:
                reason = (LtnPredictor.unavailable_reason(n) if predictor is None else
                          f"{self.checkpoint} is a {predictor.size}x{predictor.size} model, the board is {n}x{n}")
                for i in positions:
                    answers[i] = LtnAnswer.unavailable(boards[i], reason)
                continue
            for start in range(0, len(positions), batch):
                part = positions[start:start + batch]
                for i, answer in zip(part, predictor.answers([boards[i] for i in part], self.dead_ends,
                                                             self.search_budget, self.complete)):
                    answers[i] = answer
        return [a for a in answers if a is not None]
