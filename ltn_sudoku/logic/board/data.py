"""Training and evaluation data as tensors: labelled boards from the generators and Kaggle-format CSVs.

A BoardSet holds whole datasets as a few tensors (puzzles, solutions, class labels, technique labels), so that a batch
is an index into them, never a Python list of boards. Sources:
- the generators (ltn_sudoku.generate): the four classes, reproducible by seed;
- the public Kaggle CSVs (a file or a folder) read and verified by ltn_sudoku.io.kaggle: open solvable puzzles with their
  solutions, `origins` = the Kaggle set ("1M", "9M", "3M"; a generated board's origin is the generator's `kind`), `difficulty` = the 3M rating;
- a board file of any format ltn_sudoku.io reads (`data.train.boards_path`), e.g. the complete solver's branch states
  that scripts/make_branch_states.py writes: solvable puzzles whose origin the config states (`boards_origin`,
  "generated" by default), never called Kaggle rows;
- solving states for recommendsHeuristic: puzzles, the same puzzles after every single has been placed, and puzzles
  with part of their solution filled in, so that each technique both applies and does not apply often enough to learn.
`build_splits` draws a run's training and validation sets from the `data` config (training builds them; evaluation
rebuilds them to hold the checkpoint's boards out).
"""

from __future__ import annotations

import itertools
import logging
import os
from contextlib import contextmanager
from dataclasses import dataclass, field, fields
from typing import Any, Iterator, Sequence, cast

import numpy as np
import torch
from omegaconf import DictConfig, OmegaConf

from ltn_sudoku.board import Board
from ltn_sudoku.exact import solve
from ltn_sudoku.generate import CLASSES, LabelledBoard, generate
from ltn_sudoku.io import FormatError, iter_records
from ltn_sudoku.io.kaggle import KaggleReader
from ltn_sudoku.io.split import DEFAULT_FRACTIONS, SPLITS, splits_of
from ltn_sudoku.logic.board.labels import resolve_techniques, technique_labels
from ltn_sudoku.logic.board.model import ModelConfig
from ltn_sudoku.logic.device import to_list, to_numpy
from ltn_sudoku.logic.errors import DataError  # defined at the bottom, raised (and imported) here
from ltn_sudoku.questions.engine import Engine
from ltn_sudoku.techniques.base import Technique

CLASS_INDEX: dict[str, int] = {label: i for i, label in enumerate(CLASSES)}
SOLVABLE = CLASS_INDEX["open_solvable"]
IMPOSSIBLE = CLASS_INDEX["open_impossible"]
CLOSED_VALID = CLASS_INDEX["closed_valid"]
CLOSED_INVALID = CLASS_INDEX["closed_invalid"]
SINGLES: tuple[str, ...] = ("Full House", "Naked Single", "Hidden Single")
AFTER_SINGLES = "after_singles"  # kind of a solving state where every single has been placed
PARTLY_FILLED = "partly_filled"
LOG = logging.getLogger(__name__)


@dataclass(frozen=True)
class BoardSet:
    """Boards of one side n as tensors; `solutions` are 0 where unknown or nonexistent; `difficulty` is the Kaggle 3M
    rating of a real row, NaN for every other board."""

    n: int
    puzzles: torch.Tensor  # (M, N) long, 0 = empty
    solutions: torch.Tensor  # (M, N) long
    labels: torch.Tensor  # (M,) long, index into generate.CLASSES
    origins: tuple[str, ...]
    techniques: torch.Tensor  # (M, H) float: technique labels (H = 0 when not labelled)
    difficulty: torch.Tensor = field(default=None)  # type: ignore[assignment]  # (M,) float64; None -> all NaN

    def __post_init__(self) -> None:
        if self.difficulty is None:
            nan = torch.full((len(self),), float("nan"), dtype=torch.float64)  # host: the difficulty stays there
            object.__setattr__(self, "difficulty", nan)

    def __len__(self) -> int:
        return int(self.puzzles.shape[0])

    def select(self, index: torch.Tensor | np.ndarray | Sequence[int]) -> BoardSet:
        """The boards at these positions (or where a bool mask is true)."""
        if isinstance(index, torch.Tensor):
            idx = index.to(self.puzzles.device)
        else:
            array = np.asarray(index)
            idx = torch.as_tensor(array if array.size else array.astype(np.int64), device=self.puzzles.device)
        if idx.dtype == torch.bool:  # [] above is a float64 array, hence the astype
            idx = idx.nonzero().flatten()
        positions = to_list(idx)
        return BoardSet(self.n, self.puzzles[idx], self.solutions[idx], self.labels[idx],
                        tuple(self.origins[i] for i in positions), self.techniques[idx],
                        self.difficulty[idx.to(self.difficulty.device)])

    def of_class(self, *labels: int) -> BoardSet:
        mask = torch.zeros(len(self), dtype=torch.bool, device=self.labels.device)
        for label in labels:
            mask |= self.labels == label
        return self.select(mask)

    def practice_mask(self) -> torch.Tensor:
        """Solvable boards the solver practises on: puzzles as given and partly filled, not stuck states."""
        not_stuck = torch.tensor([origin != AFTER_SINGLES for origin in self.origins], dtype=torch.bool,
                                 device=self.labels.device)
        return (self.labels == SOLVABLE) & not_stuck

    def batches(self, size: int, generator: torch.Generator | None = None,
                keep: torch.Tensor | None = None) -> Iterator[BoardSet]:
        """Consecutive batches, shuffled when a generator is given; `keep` (bool per board) leaves boards out after
        shuffling, so the generator advances the same whatever is kept (a resumed run replays the same order)."""
        order = (torch.randperm(len(self), generator=generator) if generator is not None  # host: an index
                 else torch.arange(len(self)))  # host
        if keep is not None:
            order = order[keep.to(order.device)[order]]
        for start in range(0, len(order), size):
            yield self.select(order[start:start + size])

    def boards(self) -> list[Board]:
        return [Board(row, self.n) for row in to_list(self.puzzles)]

    def to(self, device: torch.device | str) -> BoardSet:
        """The set on `device` (the Kaggle difficulty stays on the host: only evaluation tables read it)."""
        return BoardSet(self.n, self.puzzles.to(device), self.solutions.to(device), self.labels.to(device), self.origins,
                        self.techniques.to(device), self.difficulty)

    @staticmethod
    def concat(sets: Sequence[BoardSet]) -> BoardSet:
        if not sets:
            raise ValueError("nothing to concatenate")
        sizes = {s.n for s in sets}
        if len(sizes) != 1:
            raise ValueError(f"boards of different sizes: {sorted(sizes)}")
        columns: list[Any] = [torch.cat([getattr(s, f.name) for s in sets]) if f.name != "origins"
                              else tuple(k for s in sets for k in s.origins) for f in fields(BoardSet) if f.name != "n"]
        return BoardSet(sets[0].n, *columns)

    def with_techniques(self, labels: np.ndarray) -> BoardSet:
        return BoardSet(self.n, self.puzzles, self.solutions, self.labels, self.origins,
                        torch.as_tensor(labels, dtype=torch.float32, device=self.puzzles.device).reshape(len(self), -1),
                        self.difficulty)


def from_boards(n: int, boards: Sequence[Board], solutions: Sequence[Board | None], labels: Sequence[str],
                origins: Sequence[str]) -> BoardSet:
    """A BoardSet from Board objects."""
    cells = n * n
    puzzles = np.array([b.values for b in boards], dtype=np.int64).reshape(len(boards), cells)
    sols = np.array([s.values if s is not None else (0,) * cells for s in solutions], dtype=np.int64)
    return BoardSet(n, torch.from_numpy(puzzles), torch.from_numpy(sols.reshape(len(boards), cells)),
                    torch.tensor([CLASS_INDEX[label] for label in labels], dtype=torch.long),  # host
                    tuple(origins), torch.zeros(len(boards), 0))  # host: data sets are built on the host


def from_records(n: int, records: Sequence[LabelledBoard]) -> BoardSet:
    return from_boards(n, [r.board for r in records], [r.solution for r in records], [r.label for r in records],
                       [r.kind for r in records])


def generated(n: int, label: str, count: int, seed: int, givens: Sequence[Any] | None = None,
              kind: str | None = None) -> BoardSet:
    """`count` generated boards of one class (see ltn_sudoku.generate.generate); `givens` is one [low, high] range
    or a list of them (equal shares of the boards, each range with its own seed)."""
    if count <= 0:
        return from_boards(n, [], [], [], [])
    if givens is not None and len(givens) and isinstance(givens[0], Sequence):  # several ranges: equal shares
        spans = list(givens)
        shares = [count // len(spans) + (i < count % len(spans)) for i in range(len(spans))]
        return BoardSet.concat([generated(n, label, share, seed + 1000 * i, span, kind)
                                for i, (share, span) in enumerate(zip(shares, spans))])
    span = (int(givens[0]), int(givens[1])) if givens is not None else None
    return from_records(n, generate(n, label, count, seed, kind=kind, givens=span))


def kaggle(path: str | os.PathLike[str], n: int, limit: int | None = None, split: str | None = None,
           fractions: Sequence[float] = DEFAULT_FRACTIONS, skip_bad: bool = False) -> BoardSet:
    """Open solvable puzzles of the Kaggle CSVs at `path` (a file or a folder, every row verified), the first `limit`.

    `split` keeps only the rows of one fixed split ("train", "val" or "test", see ltn_sudoku.io.split). A puzzle read
    twice (the 3M copies overlap) is kept once, first file first. `origins` holds each row's Kaggle set name,
    `difficulty` its 3M rating (NaN where the file has none); `skip_bad` skips (and logs) rows that fail verification.
    """
    if n != 9:
        raise FormatError(f"Kaggle CSVs hold 9x9 boards: {n}x{n} asked", path)
    if split is not None and split not in SPLITS:
        raise ValueError(f"unknown split {split!r}: expected one of {', '.join(SPLITS)}")
    limit = limit or None  # 0 or None: every row
    parts: list[tuple[np.ndarray, np.ndarray, str, np.ndarray]] = []
    seen: set[bytes] = set()
    kept = repeated = 0
    for chunk in KaggleReader(path, skip_bad=skip_bad).chunks():
        keep = np.ones(len(chunk), dtype=bool) if split is None else splits_of(chunk.quizzes, fractions) == split
        for i in np.flatnonzero(keep).tolist():
            key = chunk.quizzes[i].tobytes()
            keep[i] = key not in seen
            repeated += not keep[i]
            seen.add(key)
        index = np.flatnonzero(keep)[: None if limit is None else max(0, limit - kept)]
        parts.append((chunk.quizzes[index], chunk.solutions[index], chunk.set_name, chunk.difficulty[index]))
        kept += len(index)
        if limit is not None and kept >= limit:
            break
    if repeated:
        LOG.info("%s: %d repeated puzzles read once", path, repeated)
    if not kept:
        raise FormatError(f"no Kaggle rows{f' in the {split} split' if split else ''}", path)
    puzzles = torch.from_numpy(np.concatenate([p[0] for p in parts]).astype(np.int64))
    solutions = torch.from_numpy(np.concatenate([p[1] for p in parts]).astype(np.int64))
    origins = tuple(name for _, _, name, rating in parts for _ in range(len(rating)))
    difficulty = torch.from_numpy(np.concatenate([p[3] for p in parts]))
    return BoardSet(n, puzzles, solutions, torch.full((kept,), SOLVABLE, dtype=torch.long), origins,  # host
                    torch.zeros(kept, 0), difficulty)  # host: data sets are built on the host


def from_file(path: str | os.PathLike[str], n: int, origin: str, limit: int = 0) -> BoardSet:
    """The first `limit` (0: every) boards of a file, streamed, as solvable puzzles of origin `origin` (their kind).

    A row's solution column is used where the file has one (a real Kaggle layout is verified row by row by
    ltn_sudoku.io.kaggle); otherwise the exact solver finds one. A board of another side, or one without a
    solution, is a FormatError at its line: training puzzles must be solvable."""
    boards: list[Board] = []
    solutions: list[Board | None] = []
    for record in itertools.islice(iter_records(path), limit or None):
        if record.board.n != n:
            raise FormatError(f"a {record.board.n}x{record.board.n} board; the model is {n}x{n}", path, record.line)
        solution = record.solution or solve(record.board)
        if solution is None:
            raise FormatError("a board without a solution: training puzzles must be solvable", path, record.line)
        boards.append(record.board)
        solutions.append(solution)
    if not boards:
        raise FormatError("no boards", path)
    return from_boards(n, boards, solutions, ["open_solvable"] * len(boards), [origin] * len(boards))


def kaggle_sample(path: str, split: str, count: int, seed: int) -> BoardSet:
    """`count` real Kaggle rows of one split, an equal share of each Kaggle set found at `path`, seeded."""
    rows = kaggle(path, 9, split=split)
    names = sorted(set(rows.origins))
    rng = np.random.default_rng([seed, 17])
    picks = []
    for i, name in enumerate(names):
        members = np.flatnonzero(np.array(rows.origins) == name)
        share = count // len(names) + (i < count % len(names))
        picks.append(rng.choice(members, size=min(share, len(members)), replace=False))
    return rows.select(np.sort(np.concatenate(picks)) if picks else [])


def solving_states(puzzles: BoardSet, seed: int) -> BoardSet:
    """A third each of: the puzzles as given, the puzzles after all singles (when that does not solve them), and
    the puzzles with a random part of their solution filled in: the states recommendsHeuristic is trained on."""
    rng = np.random.default_rng([seed, puzzles.n, 17])
    engine = Engine(list(SINGLES), fallback=False)
    boards = puzzles.boards()
    rows = puzzles.puzzles.clone()
    origins = list(puzzles.origins)
    for i, board in enumerate(boards):
        share = i % 3
        solution = puzzles.solutions[i]
        if share == 1:
            final = engine.solve(board).final
            if final is not None and not final.is_closed:
                rows[i] = torch.tensor(final.values, device=rows.device)
                origins[i] = AFTER_SINGLES
        elif share == 2 and bool((solution > 0).all()):
            empty = to_numpy((rows[i] == 0).nonzero().flatten())
            fill = rng.choice(empty, size=int(rng.integers(0, max(1, len(empty) - 1))), replace=False)
            rows[i, fill] = solution[fill]
            origins[i] = PARTLY_FILLED
    return BoardSet(puzzles.n, rows, puzzles.solutions, puzzles.labels, tuple(origins), puzzles.techniques,
                    puzzles.difficulty)


def label_techniques(boards: BoardSet, techniques: Sequence[Technique]) -> BoardSet:
    """The set with its technique labels computed by the finders."""
    return boards.with_techniques(technique_labels(boards.boards(), techniques))


@dataclass
class Splits:
    """Training boards (open, labelled) and validation boards (open for hasValue / hasSolution / heuristics,
    closed for isCorrect's threshold; the solvable validation puzzles as given, on which "solved" is counted)."""

    train: BoardSet
    val_open: BoardSet
    val_closed: BoardSet
    val_puzzles: BoardSet

    def to(self, device: str) -> Splits:
        return Splits(self.train.to(device), self.val_open.to(device), self.val_closed.to(device),
                      self.val_puzzles.to(device))


def train_origins(data_cfg: DictConfig) -> dict[str, Any]:
    """Where a run's training puzzles come from, for metrics.json: `data/train_origins` (generated, the board file's
    stated origin, real Kaggle rows) and the board file's path."""
    origins = ["generated"] if int(data_cfg.train.solvable) or int(data_cfg.train.impossible) else []
    out: dict[str, Any] = {}
    if data_cfg.train.get("boards_path"):
        origins.append(str(data_cfg.train.get("boards_origin", "generated")))
        out["data/train_boards_path"] = str(data_cfg.train.boards_path)
    if data_cfg.get("kaggle_path"):
        origins.append("kaggle")
    return {"data/train_origins": sorted(set(origins)), **out}


@contextmanager
def _named(key: str) -> Iterator[None]:
    """A FormatError of the file a config key names, as a DataError naming the key too."""
    try:
        yield
    except FormatError as e:
        raise DataError(f"{key}: {e}") from None


def build_splits(cfg: DictConfig, model_config: ModelConfig) -> Splits:
    """Generated (and Kaggle) boards for training and validation, seeded: the same config gives the same boards."""
    n = model_config.size
    d = cfg.data
    techniques = resolve_techniques(model_config.techniques, n)
    seed = int(cfg.seed)
    givens = cast("list[Any] | None", OmegaConf.to_container(d.givens) if d.givens is not None else None)
    train_solvable = generated(n, "open_solvable", int(d.train.solvable), seed, givens)
    val_solvable = generated(n, "open_solvable", int(d.val.solvable), seed + 1, givens)
    boards_path = d.train.get("boards_path")
    if boards_path:  # a board file's puzzles (generated ones, e.g. branch states) join the training puzzles
        with _named("data.train.boards_path"):
            train_solvable = BoardSet.concat([train_solvable, from_file(
                boards_path, n, str(d.train.get("boards_origin", "generated")), int(d.train.get("boards_limit", 0)))])
    if d.kaggle_path:  # real rows join the generated ones, each from its own fixed split (ltn_sudoku.io.split)
        with _named("data.kaggle_path"):
            train_solvable = BoardSet.concat(
                [train_solvable, kaggle_sample(d.kaggle_path, "train", int(d.kaggle_rows.train), seed)])
            val_solvable = BoardSet.concat(
                [val_solvable, kaggle_sample(d.kaggle_path, "val", int(d.kaggle_rows.val), seed + 1)])

    def open_set(solvable: BoardSet, impossible: int, offset: int) -> BoardSet:
        states = solving_states(solvable, seed + offset)
        others = generated(n, "open_impossible", impossible, seed + offset, givens)
        return label_techniques(BoardSet.concat([states, others]), techniques)

    closed = [generated(n, label, int(d.val[label]), seed + 1) for label in ("closed_valid", "closed_invalid")]
    return Splits(open_set(train_solvable, int(d.train.impossible), 0),
                  open_set(val_solvable, int(d.val.impossible), 1), BoardSet.concat(closed), val_solvable)
