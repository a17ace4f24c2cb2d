"""One streaming reader for the public Kaggle 9x9 Sudoku CSVs, every row verified.

Layouts (columns found by header name, case-insensitive; other columns are ignored):
- 1M "1 Million Sudoku Games" (bryanpark):          ``quizzes,solutions``, ``0`` empty;
- 9M "9 Million Sudoku Puzzles and Solutions" (rohanrao): ``puzzle,solution``, ``0`` empty;
- 3M "3 million Sudoku puzzles with ratings" (radcliffe): ``id,puzzle,solution,clues,difficulty``, ``.`` empty
  (a copy without ratings: ``puzzle,solution,blanks``).
Quiz column: ``quizzes`` or ``puzzle``; solution column: ``solutions`` or ``solution``; optional ``id``,
``difficulty`` (kept), ``clues`` / ``blanks`` (checked against the quiz). ``0`` or ``.`` is an empty cell.

A path is a ``.csv`` or ``.csv.gz`` file (gzip recognised by its magic bytes) or a folder: every ``*.csv`` and
``*.csv.gz`` in it, sorted by name. Files are read as a stream, a chunk of rows at a time, and each chunk is checked
with numpy: both strings 81 characters, the quiz of 1-9 and the empty symbol, the solution a valid complete grid that
keeps every given. A bad row raises FormatError naming file:line, or with ``skip_bad=True`` is skipped, counted and
logged. Memory stays flat in the file's size.

Set names (``KaggleRow.set_name``, ``set_name_of``): a file whose name holds the token ``1m``, ``9m`` or ``3m``
(split at non-alphanumeric characters, e.g. ``kaggle_3m_first1000.csv.gz``, ``sudoku-3m.csv``) belongs to the set
"1M", "9M" or "3M"; any other file is named by its name without ``.csv`` / ``.csv.gz``.
"""

from __future__ import annotations

import csv
import gzip
import io
import logging
import os
import re
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Iterator, Sequence

import numpy as np

from ltn_sudoku.board import Board, geometry
from ltn_sudoku.io.records import BoardRecord, FormatError

LOG = logging.getLogger(__name__)

CELLS = 81
QUIZ_COLUMNS = ("quizzes", "puzzle")
SOLUTION_COLUMNS = ("solutions", "solution")
SET_TOKENS = {"1m": "1M", "9m": "9M", "3m": "3M"}
KAGGLE_HEADERS = {  # the layouts of the real Kaggle files (and their copies), routed here by ltn_sudoku.io.readers
    ("quizzes", "solutions"), ("puzzle", "solution"), ("id", "puzzle", "solution", "clues", "difficulty"),
    ("puzzle", "solution", "blanks")}
CHUNK_ROWS = 4096
KEPT_ERRORS = 10  # the first skipped rows' errors are kept on the reader (all are counted)

_QUIZ_TABLE = np.full(256, -1, dtype=np.int8)
_QUIZ_TABLE[[ord("0"), ord(".")]] = 0
_QUIZ_TABLE[[ord(str(d)) for d in range(1, 10)]] = np.arange(1, 10, dtype=np.int8)
_SOLUTION_TABLE = np.where(_QUIZ_TABLE > 0, _QUIZ_TABLE, -1).astype(np.int8)
_UNITS = np.array(geometry(9).units, dtype=np.intp)  # (27, 9)
_GZIP_MAGIC = b"\x1f\x8b"


def set_name_of(path: str | os.PathLike[str]) -> str:
    """The Kaggle set a file belongs to ("1M", "9M", "3M"), or its name without .csv/.csv.gz."""
    name = Path(path).name
    for token in re.split(r"[^0-9a-z]+", name.lower()):
        if token in SET_TOKENS:
            return SET_TOKENS[token]
    return re.sub(r"\.csv(\.gz)?$", "", name, flags=re.IGNORECASE)


def kaggle_files(path: str | os.PathLike[str]) -> list[Path]:
    """The files a path stands for: itself, or every *.csv / *.csv.gz of a folder sorted by name."""
    p = Path(path)
    if p.is_dir():
        files = sorted(f for f in p.iterdir() if f.is_file() and re.search(r"\.csv(\.gz)?$", f.name, re.IGNORECASE))
        if not files:
            raise FormatError("folder holds no *.csv or *.csv.gz file: expected Kaggle CSVs", p)
        return files
    if not p.is_file():
        raise FormatError("no such file or folder: expected a Kaggle CSV (.csv or .csv.gz) or a folder of them", p)
    return [p]


@dataclass(frozen=True)
class KaggleRow:
    """One verified row: quiz and solution as 81 digits (0 = empty), where it came from, and its 3M rating."""

    quiz: tuple[int, ...]
    solution: tuple[int, ...]
    path: str
    line: int  # 1-based line of the file
    set_name: str
    id: str | None
    difficulty: float | None

    @property
    def board(self) -> Board:
        return Board(self.quiz, 9)

    @property
    def solution_board(self) -> Board:
        return Board(self.solution, 9)

    @property
    def givens(self) -> int:
        return CELLS - self.quiz.count(0)


@dataclass(frozen=True)
class KaggleChunk:
    """Verified rows of one file as arrays: what vectorised consumers (data.kaggle) read."""

    path: str
    set_name: str
    lines: np.ndarray  # (M,) int64, 1-based
    quizzes: np.ndarray  # (M, 81) int8, 0 = empty
    solutions: np.ndarray  # (M, 81) int8
    ids: tuple[str, ...] | None
    difficulty: np.ndarray  # (M,) float64, NaN where the file has no rating

    def __len__(self) -> int:
        return len(self.lines)

    def rows(self) -> Iterator[KaggleRow]:
        quizzes, solutions = self.quizzes.tolist(), self.solutions.tolist()
        for i, line in enumerate(self.lines.tolist()):
            rating = float(self.difficulty[i])
            yield KaggleRow(tuple(quizzes[i]), tuple(solutions[i]), self.path, line, self.set_name,
                            self.ids[i] if self.ids is not None else None, None if np.isnan(rating) else rating)


@dataclass(frozen=True)
class _Header:
    quiz: int
    solution: int
    width: int
    id: int | None
    difficulty: int | None
    clues: int | None
    blanks: int | None

    @classmethod
    def parse(cls, names: list[str], path: str, line: int) -> _Header:
        header = [h.strip().lower().lstrip("\ufeff") for h in names]

        def find(*wanted: str) -> int | None:
            return next((header.index(w) for w in wanted if w in header), None)

        quiz, solution = find(*QUIZ_COLUMNS), find(*SOLUTION_COLUMNS)
        if quiz is None or solution is None:
            raise FormatError(f"header {','.join(names)!r} lacks a quiz column ({' or '.join(QUIZ_COLUMNS)}) or a "
                              f"solution column ({' or '.join(SOLUTION_COLUMNS)}): expected a Kaggle Sudoku CSV",
                              path, line)
        return cls(quiz, solution, len(header), find("id"), find("difficulty"), find("clues"), find("blanks"))


def _open_text(path: Path) -> IO[str]:
    raw = open(path, "rb")
    try:
        gzipped = raw.read(2) == _GZIP_MAGIC
        raw.seek(0)
        stream = gzip.GzipFile(fileobj=raw, mode="rb") if gzipped else raw
        return io.TextIOWrapper(stream, encoding="utf-8", newline="")
    except BaseException:
        raw.close()
        raise


def _not_utf8(path: Path) -> FormatError:
    """The first byte of a file (plain or gzip) that is not UTF-8, located at its line and column (the text reader
    only knows its place in a read-ahead buffer)."""
    try:
        with open(path, "rb") as raw:
            gzipped = raw.read(2) == _GZIP_MAGIC
            raw.seek(0)
            stream = gzip.GzipFile(fileobj=raw, mode="rb") if gzipped else raw
            for number, line in enumerate(stream, 1):  # lines end at b"\n", as the rows of a Kaggle CSV do
                try:
                    line.decode("utf-8")
                except UnicodeDecodeError as e:
                    return FormatError(f"not UTF-8 text (byte {line[e.start]:#04x}): expected a Kaggle CSV, plain "
                                       "or gzip", path, number, e.start + 1)
    except (OSError, EOFError, zlib.error):
        pass
    return FormatError("not UTF-8 text: expected a Kaggle CSV, plain or gzip", path)


def _cells(texts: list[str], table: np.ndarray) -> np.ndarray:
    """(M, 81) values of 81-character strings through a byte lookup table (-1 = not allowed)."""
    data = "".join(texts).encode("latin-1", errors="replace")  # one byte per character; others become '?'
    return table[np.frombuffer(data, dtype=np.uint8)].reshape(len(texts), CELLS)


def _valid_grids(solutions: np.ndarray) -> np.ndarray:
    """(M,) bool: every row, column and box holds 1..9 (the OR of the digits' bits is 511)."""
    bits = np.left_shift(np.int32(1), solutions.astype(np.int32) - 1)
    return (np.bitwise_or.reduce(bits[:, _UNITS], axis=2) == 511).all(axis=1)


def _extras(fields: list[str], h: _Header, givens: int) -> tuple[float, str | None]:
    """(difficulty or NaN, problem or None) of the optional columns: clues = givens, blanks = empty cells, difficulty
    a number."""
    checks = ((h.clues, "clues", givens), (h.blanks, "blanks", CELLS - givens))
    for column, name, expected in checks:
        if column is not None and fields[column].strip() != str(expected):
            return np.nan, f"{name} is {fields[column]!r}: expected {expected} (the quiz has {givens} givens)"
    text = fields[h.difficulty].strip() if h.difficulty is not None else ""
    try:
        return (float(text) if text else np.nan), None
    except ValueError:
        return np.nan, f"difficulty is {text!r}: expected a number"


def _problem(fields: list[str], h: _Header) -> str:
    """What is wrong with a row that failed the vectorised checks (worked out only for bad rows)."""
    if len(fields) != h.width:
        return f"{len(fields)} fields: expected {h.width} as in the header"
    for what, column, allowed, chars in (("quiz", h.quiz, "1-9, '0' or '.'", "0.123456789"),
                                         ("solution", h.solution, "1-9", "123456789")):
        text = fields[column].strip()
        if len(text) != CELLS:
            return f"{what} has {len(text)} characters: expected {CELLS}"
        bad = next((j for j, ch in enumerate(text) if ch not in chars), None)
        if bad is not None:
            return f"{what} character {bad + 1} is {text[bad]!r}: expected {allowed}"
    quiz = Board([int(ch) if ch != "." else 0 for ch in fields[h.quiz].strip()], 9)
    solution = Board([int(ch) for ch in fields[h.solution].strip()], 9)
    if not solution.is_valid_solution:
        return f"solution is not a valid grid: {solution.conflicts()[0].describe()}"
    cell = next(c for c in range(CELLS) if quiz.values[c] not in (0, solution.values[c]))
    return (f"solution does not complete the quiz: {geometry(9).cell_name(cell)} is {quiz.values[cell]} in the "
            f"quiz, {solution.values[cell]} in the solution")


class KaggleReader:
    """Streams the verified rows of a Kaggle CSV, a gzipped one or a folder of them.

    `skip_bad`: skip (and count, and log) rows that fail verification instead of raising FormatError.
    After iterating, `skipped` counts the rows skipped and `errors` holds the first few of their errors.
    """

    def __init__(self, path: str | os.PathLike[str], skip_bad: bool = False, chunk_rows: int = CHUNK_ROWS) -> None:
        self.files = kaggle_files(path)
        self.skip_bad = skip_bad
        self.chunk_rows = chunk_rows
        self.skipped = 0
        self.errors: list[FormatError] = []

    def __iter__(self) -> Iterator[KaggleRow]:
        for chunk in self.chunks():
            yield from chunk.rows()

    def chunks(self) -> Iterator[KaggleChunk]:
        """Verified rows, at most `chunk_rows` at a time, file by file."""
        for path in self.files:
            yield from self._file_chunks(path)

    def _file_chunks(self, path: Path) -> Iterator[KaggleChunk]:
        name, set_name = str(path), set_name_of(path)
        skipped_before, errors_before = self.skipped, len(self.errors)
        reader = None
        try:
            with _open_text(path) as text:
                reader = csv.reader(text)
                header: _Header | None = None
                pending: list[tuple[int, list[str]]] = []
                for fields in reader:
                    if not fields or (len(fields) == 1 and not fields[0].strip()):
                        continue
                    if header is None:
                        header = _Header.parse(fields, name, reader.line_num)
                        continue
                    pending.append((reader.line_num, fields))
                    if len(pending) >= self.chunk_rows:
                        yield self._verify(pending, header, name, set_name)
                        pending = []
                if header is None:
                    raise FormatError("empty file: expected a header and rows of quiz and solution", name)
                if pending:
                    yield self._verify(pending, header, name, set_name)
        except UnicodeDecodeError:
            raise _not_utf8(path) from None
        except csv.Error as e:  # e.g. a NUL byte: on the line the reader was reading
            raise FormatError(f"{e}: expected a Kaggle CSV, plain or gzip", name,
                              reader.line_num if reader is not None else None) from None
        except (OSError, EOFError, zlib.error) as e:  # a damaged gzip stream, or the file cannot be read
            read = reader.line_num if reader is not None else 0
            what = "not a valid gzip file" if isinstance(e, (gzip.BadGzipFile, EOFError, zlib.error)) else "cannot read"
            after = f", after line {read} (the last one read)" if read else ""
            raise FormatError(f"{what} ({e}){after}: expected a Kaggle CSV, plain or gzip", name) from None
        if self.skipped > skipped_before:
            LOG.warning("%s: skipped %d bad rows (first: %s)", name, self.skipped - skipped_before,
                        self.errors[errors_before] if len(self.errors) > errors_before else "")

    def _verify(self, pending: list[tuple[int, list[str]]], h: _Header, path: str, set_name: str) -> KaggleChunk:
        """The chunk's rows that pass every check; a bad row raises (or is skipped and counted)."""
        count = len(pending)
        lines = np.array([line for line, _ in pending], dtype=np.int64)
        shaped = np.array([len(f) == h.width and len(f[h.quiz].strip()) == CELLS
                           and len(f[h.solution].strip()) == CELLS for _, f in pending], dtype=bool)
        blank = "1" * CELLS  # stands in for a misshapen row's strings, which is rejected anyway
        quizzes = _cells([f[h.quiz].strip() if ok else blank for ok, (_, f) in zip(shaped, pending)], _QUIZ_TABLE)
        solutions = _cells([f[h.solution].strip() if ok else blank for ok, (_, f) in zip(shaped, pending)],
                           _SOLUTION_TABLE)
        good = shaped & (quizzes >= 0).all(axis=1) & (solutions > 0).all(axis=1)
        good &= _valid_grids(np.where(good[:, None], solutions, 1))
        good &= ((quizzes == 0) | (quizzes == solutions)).all(axis=1)
        givens = (quizzes > 0).sum(axis=1)
        difficulty = np.full(count, np.nan)
        extra_problems: dict[int, str] = {}
        if h.clues is not None or h.blanks is not None or h.difficulty is not None:
            for i in np.flatnonzero(good).tolist():
                rating, problem = _extras(pending[i][1], h, int(givens[i]))
                difficulty[i] = rating
                if problem is not None:
                    good[i] = False
                    extra_problems[i] = problem
        for i in np.flatnonzero(~good).tolist():
            problem = extra_problems.get(i) or _problem(pending[i][1], h)
            self._reject(FormatError(problem, path, int(lines[i])))
        keep = np.flatnonzero(good)
        ids = tuple(pending[i][1][h.id].strip() for i in keep.tolist()) if h.id is not None else None
        return KaggleChunk(path, set_name, lines[keep], quizzes[keep], solutions[keep], ids, difficulty[keep])

    def _reject(self, error: FormatError) -> None:
        if not self.skip_bad:
            raise error
        self.skipped += 1
        if len(self.errors) < KEPT_ERRORS:
            self.errors.append(error)


def read_kaggle(path: str | os.PathLike[str], skip_bad: bool = False) -> Iterator[KaggleRow]:
    """Every verified row of a Kaggle CSV or folder (see KaggleReader)."""
    return iter(KaggleReader(path, skip_bad))


def is_kaggle_layout(head: Sequence[str]) -> bool:
    """True when a file's first two lines are a real Kaggle header (KAGGLE_HEADERS) and a row with an 81-character
    quiz and solution: such a file is read by this module, every row verified. Other CSVs with these column names
    (2-digit cells, rows without a solution) stay with the general readers of ltn_sudoku.io.readers."""
    if len(head) < 2:
        return False
    header = [h.strip().lower().lstrip("\ufeff") for h in head[0].split(",")]
    if tuple(header) not in KAGGLE_HEADERS:
        return False
    row = head[1].strip().split(",")
    quiz = next(header.index(h) for h in QUIZ_COLUMNS if h in header)
    solution = next(header.index(h) for h in SOLUTION_COLUMNS if h in header)
    return len(row) == len(header) and len(row[quiz].strip()) == CELLS == len(row[solution].strip())


def kaggle_records(path: str | os.PathLike[str]) -> Iterator[BoardRecord]:
    """The verified rows of a Kaggle CSV as ltn_sudoku.io records (what classify-board reads): the quiz as the board,
    the solution, set name, id and difficulty as fields."""
    for row in KaggleReader(path):
        fields = {"solution": "".join(map(str, row.solution)), "set": row.set_name}
        if row.id is not None:
            fields["id"] = row.id
        if row.difficulty is not None:
            fields["difficulty"] = str(row.difficulty)
        yield BoardRecord(row.board, row.line, fields)
