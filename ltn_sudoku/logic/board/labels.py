"""Which techniques apply to a board: the labels recommendsHeuristic learns, with the technique finders as oracle.

A technique applies when its finder returns at least one step that makes progress on the board's basic-rule
candidate grid. The list of techniques is configurable (model.techniques) and resolved by name through the
technique registry, so any family that lands there can be labelled without changing this module.
"""

from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np

from ltn_sudoku.board import Board
from ltn_sudoku.candidates import CandidateGrid, Contradiction
from ltn_sudoku.techniques.base import Technique
from ltn_sudoku.techniques.registry import resolve

DEFAULT_TECHNIQUES: tuple[str, ...] = (
    "Full House", "Naked Single", "Hidden Single",
    "Locked Candidates Type 1 (Pointing)", "Locked Candidates Type 2 (Claiming)",
    "Naked Pair", "Hidden Pair",
)


def resolve_techniques(names: Iterable[str], size: int) -> list[Technique]:
    """The named techniques (registry spelling), refusing names that are unknown or undefined for this side."""
    names = list(names)
    chosen = resolve(names)
    too_small = [t.name for t in chosen if size < t.min_n]
    if too_small:
        raise ValueError(f"techniques undefined for {size}x{size} boards: {', '.join(too_small)}")
    return chosen


def applies(technique: Technique, grid: CandidateGrid) -> bool:
    """True when the finder makes progress on the grid."""
    return any(step.progress for step in technique.finder(grid))


def technique_labels(boards: Sequence[Board], techniques: Sequence[Technique]) -> np.ndarray:
    """(boards, techniques) bool: which techniques apply to each board now (all False for inconsistent givens)."""
    out = np.zeros((len(boards), len(techniques)), dtype=bool)
    for i, board in enumerate(boards):
        try:
            grid = CandidateGrid.from_board(board)
        except Contradiction:
            continue
        for j, technique in enumerate(techniques):
            out[i, j] = applies(technique, grid)
    return out
