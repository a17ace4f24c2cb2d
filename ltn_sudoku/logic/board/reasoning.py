"""hasValue's solving measured against the symbolic baselines on the same puzzles: by reasoning tier and by givens.

For every puzzle (with exactly one solution) one row: its source, givens count and reasoning tier (ltn_sudoku.questions.tiers:
the smallest family tier whose engine solves it), whether hasValue's decoded board after refinement is the solution
and which share of the empty cells it got right, and the same for the plain singles loop and for the technique
engine limited to each tier. "Solved" is judged by the symbolic side: the decoded board equals the exact solver's
solution (never by the model's own knowledge base). Tables group the rows by tier and by givens bin; every learned
figure stands beside the baselines computed on the same rows.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np
import pandas as pd
import torch

from ltn_sudoku.board import Board
from ltn_sudoku.logic.board.inference import decoded
from ltn_sudoku.logic.board.model import LtnSudoku
from ltn_sudoku.logic.device import device_of, to_numpy
from ltn_sudoku.logic.groundings.grounding import one_hot_givens
from ltn_sudoku.questions.tiers import LOGIC_TIERS, TIER_NAMES, run_tiers, singles_loop_batch

CHUNK = 128
ENGINE_COLUMNS: tuple[str, ...] = tuple(f"engine_T{k}" for k in LOGIC_TIERS)


def model_boards(model: LtnSudoku, puzzles: np.ndarray, steps: int | None = None) -> np.ndarray:
    """(m, N) hasValue's decoded boards after refinement (the answering steps unless `steps`)."""
    out = []
    with torch.no_grad():
        device = device_of(model)
        for start in range(0, len(puzzles), CHUNK):
            values = torch.as_tensor(puzzles[start:start + CHUNK], dtype=torch.long, device=device)
            final = model.refine(one_hot_givens(values, model.n), steps)[-1]
            out.append(to_numpy(decoded(final)))
    return np.concatenate(out) if out else np.zeros((0, model.n * model.n), dtype=np.int64)


def _cells(reached: np.ndarray, solutions: np.ndarray, puzzles: np.ndarray) -> np.ndarray:
    empty = puzzles == 0
    return ((reached == solutions) & empty).sum(1) / np.maximum(empty.sum(1), 1)


def solving_rows(model: LtnSudoku, source: str, boards: Sequence[Board], steps: int | None = None,
                 progress: bool = False, extra: Mapping[str, np.ndarray] | None = None) -> pd.DataFrame:
    """One row per puzzle of `boards` that has exactly one solution (others are dropped and not counted); `extra`
    adds per-puzzle columns (e.g. the Kaggle 3M difficulty)."""
    if not boards:
        return pd.DataFrame()
    run = run_tiers(list(boards), progress=progress)
    unique = run.counts == 1
    puzzles, solutions = run.puzzles[unique], run.solutions[unique]
    learned = model_boards(model, puzzles, steps)
    singles = singles_loop_batch(puzzles, run.n)
    frame = pd.DataFrame({
        "source": source,
        "givens": (puzzles > 0).sum(1),
        "tier": run.tiers[unique],
        "model_solved": (learned == solutions).all(1),
        "model_cells": _cells(learned, solutions, puzzles),
        "singles_solved": (singles == solutions).all(1),
        "singles_cells": _cells(singles, solutions, puzzles),
    })
    for k in LOGIC_TIERS:
        frame[f"engine_T{k}"] = run.solved(k)[unique]
    for name, column in (extra or {}).items():
        frame[name] = np.asarray(column)[unique]
    return frame


def _summary(groups: pd.core.groupby.DataFrameGroupBy) -> pd.DataFrame:
    table = groups.agg(puzzles=("model_solved", "size"), model=("model_solved", "mean"),
                       singles=("singles_solved", "mean"), model_cells=("model_cells", "mean"),
                       singles_cells=("singles_cells", "mean"),
                       **{c.replace("engine_", "engine_≤"): (c, "mean") for c in ENGINE_COLUMNS})
    return table


def by_tier(rows: pd.DataFrame) -> pd.DataFrame:
    """Solved share (board, cell) per tier: hasValue beside the singles loop and the tier-limited engines."""
    table = _summary(rows.groupby("tier"))
    table.index = [TIER_NAMES[int(t)] for t in table.index]
    return table


def by_source(rows: pd.DataFrame) -> pd.DataFrame:
    """Solved share per origin of the puzzles (generated, each public file, each Kaggle set)."""
    return _summary(rows.groupby("source"))


DIFFICULTY_BANDS: tuple[tuple[str, float, float], ...] = (("0", -1.0, 0.0), ("(0,2]", 0.0, 2.0),
                                                         ("(2,4]", 2.0, 4.0), (">4", 4.0, float("inf")))


def by_difficulty(rows: pd.DataFrame) -> pd.DataFrame:
    """Solved share per Kaggle 3M difficulty band (rows without a rating are left out)."""
    rated = rows.dropna(subset=["difficulty"])
    band = pd.Series([None] * len(rated), index=rated.index, dtype=object)
    for label, low, high in DIFFICULTY_BANDS:
        band[(rated["difficulty"] > low) & (rated["difficulty"] <= high)] = label
    table = _summary(rated.assign(band=band).dropna(subset=["band"]).groupby("band"))
    return table.reindex([b[0] for b in DIFFICULTY_BANDS if b[0] in table.index])


def givens_bin(givens: pd.Series, bins: Sequence[tuple[int, int]]) -> pd.Series:
    """The 'low-high' label of each givens count's bin (None outside every bin)."""
    labels = pd.Series([None] * len(givens), index=givens.index, dtype=object)
    for low, high in bins:
        labels[(givens >= low) & (givens <= high)] = f"{low}-{high}"
    return labels


def by_givens(rows: pd.DataFrame, bins: Sequence[tuple[int, int]]) -> pd.DataFrame:
    """Solved share (board, cell) per givens bin, beside the same baselines."""
    labelled = rows.assign(bin=givens_bin(rows["givens"], bins)).dropna(subset=["bin"])
    order = [f"{low}-{high}" for low, high in bins]
    table = _summary(labelled.groupby("bin"))
    return table.reindex([o for o in order if o in table.index])


def flat(prefix: str, table: pd.DataFrame) -> dict[str, float]:
    """metrics.json / TensorBoard scalars of a table: {prefix}_{row}/{column}."""
    out: dict[str, float] = {}
    for label, row in table.iterrows():
        key = str(label).split(" ")[0]
        for column, value in row.items():
            out[f"{prefix}_{key}/{column}"] = float(value)
    return out
