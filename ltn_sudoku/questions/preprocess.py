"""Pre-processing before a search: the pre-processing study's six techniques to their fixpoint, as one call.

The study (a genetic-algorithm solver with a pre-processing stage: Naked Single, Hidden Single, Naked Pairs, Naked
Triples, Naked Quads and X-Wings, looped until none makes progress) hands the board it leaves to its GA. `preprocess`
does the same with this package's finders of those six techniques (the engine without its search fallback, so it
stops where they stop) and reports the processed board and the cells it filled; `ltn_sudoku.genetic.solve` is the GA
to run on what is left. Sound eliminations reach one fixpoint whatever the order, so the processed board is the
study's, not only a board like it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from ltn_sudoku.board import Board
from ltn_sudoku.candidates import Step
from ltn_sudoku.io import parse_board_text, read_boards
from ltn_sudoku.questions.engine import Engine

PREPROCESSING_TECHNIQUES: tuple[str, ...] = (
    "Naked Single", "Hidden Single", "Naked Pair", "Naked Triple", "Naked Quadruple", "X-Wing")


@dataclass(frozen=True)
class Preprocessed:
    """The board before and after, the cells filled (in the order they were), the steps, and why it stopped early
    when it did (a board without a solution: nothing is filled)."""

    original: Board
    board: Board
    filled: tuple[int, ...]
    steps: tuple[Step, ...]
    reason: str | None = None

    @property
    def cells_filled(self) -> int:
        return len(self.filled)

    @property
    def solved(self) -> bool:
        return self.board.is_closed and self.board.is_valid_solution


def load_board(source: Board | str | os.PathLike[str]) -> Board:
    """A Board as given; a path (a Path, or a string naming an existing file) read with the package's readers
    (its first board); any other string parsed as board text. Bad input raises FormatError with the reason."""
    if isinstance(source, Board):
        return source
    if isinstance(source, os.PathLike) or os.path.isfile(source):
        boards = read_boards(Path(source))
        if not boards:
            raise ValueError(f"{source}: no board in the file")
        return boards[0]
    return parse_board_text(source)


def preprocess(source: Board | str | os.PathLike[str],
               techniques: Sequence[str] = PREPROCESSING_TECHNIQUES) -> Preprocessed:
    """Load the board and apply the techniques (the study's six by default) until none makes progress."""
    board = load_board(source)
    result = Engine(list(techniques), uniqueness=False, fallback=False).solve(board)
    final = result.final or board
    filled = tuple(cell for step in result.steps for cell, _ in step.placements)
    return Preprocessed(board, final, filled, tuple(result.steps),
                        None if result.reason in (None, "no technique of the pipeline applies") else result.reason)
