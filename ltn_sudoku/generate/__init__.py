"""Labelled boards of the four classes at any size: the training data of the LTN models and the fixtures of many tests.

Classes and kinds (every label checked by the exact solver before a board is returned):
- closed_valid / valid: random complete valid grids.
- closed_invalid / random, swap, change, latin_blocks: a valid grid with 2..n cells changed, two different digits
  swapped, one cell changed, or rows/columns permuted across bands (a Latin square that breaks boxes).
- open_solvable / unique, multiple: a dug puzzle with exactly one solution, or a random subset of a grid with two or
  more (unique=False mixes both).
- open_impossible / obvious, subtle: a unique puzzle (unique=False: half of them a random subset of a grid) plus one
  wrong but basic-rule-consistent digit; obvious when the basic rule then shows a dead end (CandidateGrid.dead_end()),
  subtle when it does not.
Output is reproducible: the same arguments and seed give the same boards in any process. Work is done in batches
(numpy plus the exact solver's batch entry points); see docs/generators.md for distributions and throughput.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import Iterable, Protocol, Sequence, cast

import numpy as np
import pandas as pd

from ltn_sudoku.board import DECIMAL, SUPPORTED_SIZES, Board
from ltn_sudoku.generate.run import IMPOSSIBLE_BASES, GenerationError, Stream, run_streams
from ltn_sudoku.generate.solver import SOLVER_BACKENDS
from ltn_sudoku.io import FormatError, atomic_write_text, encode_cells, read_records

CLASSES: tuple[str, ...] = ("closed_valid", "closed_invalid", "open_solvable", "open_impossible")
INVALID_KINDS: tuple[str, ...] = ("random", "swap", "change", "latin_blocks")
IMPOSSIBLE_KINDS: tuple[str, ...] = ("obvious", "subtle")
SOLVABLE_KINDS: tuple[str, ...] = ("unique", "multiple")
KINDS: dict[str, tuple[str, ...]] = {
    "closed_valid": ("valid",),
    "closed_invalid": INVALID_KINDS,
    "open_solvable": SOLVABLE_KINDS,
    "open_impossible": IMPOSSIBLE_KINDS,
}
OPEN_CLASSES: tuple[str, ...] = ("open_solvable", "open_impossible")
CSV_COLUMNS: tuple[str, ...] = ("puzzle", "solution", "label", "kind", "size", "givens")
# Fewest givens a puzzle with a unique solution can have (4x4 and 9x9 are known; n-1 holds for every n: with two
# digits missing they could be swapped in any solution).
MIN_UNIQUE_GIVENS: dict[int, int] = {4: 4, 9: 17}
__all__ = ["CLASSES", "INVALID_KINDS", "IMPOSSIBLE_KINDS", "SOLVABLE_KINDS", "KINDS", "CSV_COLUMNS", "GenerationError",
           "LabelledBoard", "default_givens", "generate", "generate_mixed", "to_frame", "write_csv", "read_csv"]


class ProgressBar(Protocol):
    def update(self, n: int = 1) -> object: ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class LabelledBoard:
    """A board, its class label, the kind within the class, and its solution (None when it has none)."""

    board: Board
    label: str
    kind: str
    solution: Board | None


# ---- options ---------------------------------------------------------------------------------------------------------
def default_givens(size: int) -> tuple[int, int]:
    """The givens range of open boards when none is asked for: 4x4 4-10, 9x9 24-40, larger 50%-70% of the cells
    (fewer givens make the exact counts of 25x25 boards, and so their generation, very slow)."""
    if size == 4:
        return (4, 10)
    if size == 9:
        return (24, 40)
    cells = size * size
    return (round(0.5 * cells), round(0.7 * cells))


def _check_size(size: int) -> None:
    if size not in SUPPORTED_SIZES:
        raise GenerationError(f"unsupported size {size}: expected one of {', '.join(map(str, SUPPORTED_SIZES))}")


def _check_givens(size: int, label: str, kinds: Sequence[str], givens: tuple[int, int]) -> None:
    lo, hi = givens
    cells = size * size
    if label not in OPEN_CLASSES:
        raise GenerationError(f"a givens range applies to open boards only, not to {label}")
    if not 0 <= lo <= hi <= cells - 1:
        raise GenerationError(f"givens range {lo}-{hi} is impossible for {size}x{size}: expected 0 <= low <= high <= "
                              f"{cells - 1} (an open board has an empty cell)")
    needs_unique = label == "open_impossible" or "unique" in kinds
    fewest = MIN_UNIQUE_GIVENS.get(size, size - 1) + (label == "open_impossible")
    if needs_unique and hi < fewest:
        what = "an impossible board (a unique puzzle plus one digit)" if label == "open_impossible" else \
            "a unique puzzle"
        raise GenerationError(f"givens range {lo}-{hi} is impossible: {what} of size {size}x{size} needs at least "
                              f"{fewest} givens")


def _kinds(label: str, kind: str | None, unique: bool) -> tuple[str, ...]:
    if label not in CLASSES:
        raise GenerationError(f"unknown class {label!r}: expected one of {', '.join(CLASSES)}")
    allowed = KINDS[label]
    if label == "open_solvable" and unique:
        allowed = ("unique",)
    if kind is None:
        return allowed
    if kind not in allowed:
        why = " (unique=True allows only 'unique')" if label == "open_solvable" and kind in KINDS[label] else ""
        raise GenerationError(f"unknown kind {kind!r} for {label}{why}: expected one of {', '.join(allowed)}")
    return (kind,)


# ---- production ------------------------------------------------------------------------------------------------------
def _to_records(size: int, label: str, kind: str, puzzles: np.ndarray,
                solutions: np.ndarray) -> list[LabelledBoard]:
    has_solution = np.asarray(solutions.any(axis=1))  # an array: numpy's stub allows a scalar
    return [
        LabelledBoard(Board(p.tolist(), size), label, kind, Board(s.tolist(), size) if ok else None)
        for p, s, ok in zip(puzzles, solutions, has_solution)
    ]


def _split(count: int, parts: int) -> list[int]:
    """`count` spread over `parts` as evenly as possible, the first parts taking the remainder."""
    return [count // parts + (i < count % parts) for i in range(parts)]


def _streams(size: int, label: str, count: int, seed: int, kind: str | None, unique: bool,
             givens: tuple[int, int] | None, backend: str) -> list[Stream]:
    """The streams (one per kind, equal shares) that make `count` boards of one class; validates every option."""
    _check_size(size)
    if backend not in SOLVER_BACKENDS:
        raise GenerationError(f"unknown backend {backend!r}: expected one of {', '.join(SOLVER_BACKENDS)}")
    if count < 0:
        raise GenerationError(f"count must be >= 0, got {count}")
    if seed < 0:
        raise GenerationError(f"seed must be >= 0, got {seed}")
    kinds = _kinds(label, kind, unique)
    if givens is not None:
        _check_givens(size, label, kinds, givens)
    open_givens = givens if givens is not None else default_givens(size)
    # With unique=False the solvable class has random-subset puzzles beside dug ones; half the impossible boards then
    # start from random subsets too, so that no class can be told by how its boards were built.
    bases = IMPOSSIBLE_BASES if label == "open_impossible" and not unique else IMPOSSIBLE_BASES[:1]
    parts = [(k, b) for b in bases for k in kinds]
    return [
        Stream(size, kind_name, part_count,
               (seed, size, CLASSES.index(label), KINDS[label].index(kind_name), IMPOSSIBLE_BASES.index(base)),
               open_givens, backend, base)
        for (kind_name, base), part_count in zip(parts, _split(count, len(parts)))
    ]


def _class_records(label: str, streams: list[Stream], made: list[tuple[np.ndarray, np.ndarray]],
                   seed: int) -> list[LabelledBoard]:
    """One class's boards; from several streams, shuffled so that position says nothing about the kind."""
    records = [r for s, (p, sol) in zip(streams, made) for r in _to_records(s.size, label, s.kind, p, sol)]
    if len(streams) > 1:
        order = np.random.default_rng([seed, streams[0].size, CLASSES.index(label), 99]).permutation(len(records))
        records = [records[i] for i in order]
    return records


def _run(plan: list[tuple[str, list[Stream]]], seed: int, workers: int, progress: bool) -> list[list[LabelledBoard]]:
    """Make every class of the plan (label, streams) in one run, so worker processes share all the work."""
    if workers < 1:
        raise GenerationError(f"workers must be >= 1, got {workers}")
    streams = [s for _, class_streams in plan for s in class_streams]
    bar = _progress_bar(sum(s.count for s in streams), progress)
    try:
        made = run_streams(streams, workers, bar.update if bar is not None else None)
    finally:
        if bar is not None:
            bar.close()
    out = []
    start = 0
    for label, class_streams in plan:
        out.append(_class_records(label, class_streams, made[start:start + len(class_streams)], seed))
        start += len(class_streams)
    return out


def _progress_bar(total: int, enabled: bool) -> ProgressBar | None:
    if not enabled:
        return None
    from ltn_sudoku.io.progress import progress

    return progress(total=total, unit="board", file=sys.stderr, dynamic_ncols=True)


def generate(size: int, label: str, count: int, seed: int = 0, *, kind: str | None = None, unique: bool = True,
             givens: tuple[int, int] | None = None, progress: bool = False, backend: str = "auto",
             workers: int = 1) -> list[LabelledBoard]:
    """`count` boards of one class (`label`), all of `kind` or, when kind is None, the class's kinds in equal shares.

    `givens` (low, high), inclusive, bounds the givens count of open boards (default: default_givens(size)).
    `unique`: open_solvable puzzles have exactly one solution; False mixes unique and multiple-solution puzzles, and
    builds half the open_impossible boards from random subsets of grids as the multiple-solution puzzles are.
    `backend`: "auto" (the exact solver's batch entry points) or "python" (the pure-Python reference search).
    `workers`: processes that make the batches; the boards are the same for any number.
    Raises GenerationError (a ValueError) for bad options and for boards that turn out to be unreachable.
    """
    streams = _streams(size, label, count, seed, kind, unique, givens, backend)
    return _run([(label, streams)], seed, workers, progress)[0]


def generate_mixed(size: int, count: int, seed: int = 0, **options: object) -> list[LabelledBoard]:
    """`count` boards, the four classes in equal shares (kinds mixed within each), shuffled together.

    Options are those of `generate` except `kind` (unique, givens, progress, backend, workers); givens applies to the
    open classes only. Each class's boards are those generate(size, label, share, seed, ...) makes.
    """
    unknown = set(options) - {"unique", "givens", "progress", "backend", "workers"}
    if unknown:
        raise TypeError(f"generate_mixed got unknown option(s) {', '.join(sorted(unknown))}: it mixes the kinds of "
                        f"every class and takes unique, givens, progress, backend and workers")
    unique = bool(options.get("unique", True))
    givens = cast("tuple[int, int] | None", options.get("givens"))
    backend = str(options.get("backend", "auto"))
    plan = [
        (label, _streams(size, label, label_count, seed, None, unique, givens if label in OPEN_CLASSES else None,
                         backend))
        for label, label_count in zip(CLASSES, _split(count, len(CLASSES)))
    ]
    per_class = _run(plan, seed, cast(int, options.get("workers", 1)), bool(options.get("progress", False)))
    records = [r for class_records in per_class for r in class_records]
    order = np.random.default_rng([seed, size, len(CLASSES)]).permutation(len(records))
    return [records[i] for i in order]


# ---- tables and files ------------------------------------------------------------------------------------------------
def to_frame(records: Iterable[LabelledBoard], symbols: str = DECIMAL) -> pd.DataFrame:
    """One row per board: puzzle, solution ('' when none), label, kind, size, givens (cells as io.encode_cells, boards
    above 9x9 in `symbols`, a convention of board.SYMBOLS)."""
    rows = [
        (encode_cells(r.board, symbols=symbols),
         encode_cells(r.solution, symbols=symbols) if r.solution is not None else "",
         r.label, r.kind, r.board.n, r.board.givens)
        for r in records
    ]
    return pd.DataFrame(rows, columns=list(CSV_COLUMNS))


def write_csv(path: str | os.PathLike[str], records: Iterable[LabelledBoard], symbols: str = DECIMAL) -> None:
    """Write labelled boards as a CSV (atomically), readable by read_csv and by io.read_records' table format."""
    atomic_write_text(path, to_frame(records, symbols).to_csv(index=False, lineterminator="\n"))


def read_csv(path: str | os.PathLike[str]) -> list[LabelledBoard]:
    """Labelled boards from a CSV written by write_csv; FormatError (with the line) for a bad label or kind."""
    out = []
    for rec in read_records(path, fmt="table"):
        label = rec.fields.get("label", "")
        kind = rec.fields.get("kind", "")
        if label not in CLASSES:
            raise FormatError(f"label {label!r}: expected one of {', '.join(CLASSES)}", path, rec.line)
        if kind not in KINDS[label]:
            raise FormatError(f"kind {kind!r} for {label}: expected one of {', '.join(KINDS[label])}", path, rec.line)
        out.append(LabelledBoard(rec.board, label, kind, rec.solution))
    return out
