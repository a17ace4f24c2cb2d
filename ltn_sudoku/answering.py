"""The chunked answering pipeline of classify-board: board records read a chunk at a time, each board answered in
full (Q1/Q2 by the exact portfolio, Q3 by the technique engine, the LTN section by the learned package, a visual
model's reading when the board came from images), and handed to a writer in input order.

One chunk of records (`chunks`: about CHUNK_CELLS cells) is answered by an `Answerer` into one `Answered` per board:
the board's record, its whole `Report` and, apart, its LTN section. A writer turns a chunk's `Answered` into text:

    class Writer(Protocol):
        def head(self) -> str        # written once before the first chunk (a CSV header, an HTML page's top)
        def __call__(self, answers: Sequence[Answered]) -> str   # one chunk's rows, in order
        def tail(self, boards: int) -> str   # written once after the last chunk (boards: how many were written)

The writer runs where the chunk was answered (`write_chunk`), so a worker process (`written` with jobs > 1) or a
Dask worker (cli/dask_runner.py) sends back text, not reports: answerer and writer must be picklable. The command
layer (cli/classify.py) picks a writer (text, JSON Lines, CSV: cli/results.py) and writes head, chunks, tail.

Memory stays flat for any number of boards: chunks are read as they are answered, and a pool holds at most
WINDOW_PER_JOB chunks per process in flight. The engine and the LTN models are built on first use in each process;
torch is imported only when the LTN answers. An LTN checkpoint that cannot be used is an AnswerError (the command
turns it into a usage error).
"""

from __future__ import annotations

import itertools
from collections import Counter, deque
from dataclasses import dataclass, field
from multiprocessing import get_context
from multiprocessing.pool import AsyncResult
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Protocol, Sequence

from ltn_sudoku.board import Board
from ltn_sudoku.io import BoardRecord
from ltn_sudoku.questions.engine import build
from ltn_sudoku.questions.q3 import Survey
from ltn_sudoku.questions.report import Report, ReportSection, SectionSource, classify_boards

if TYPE_CHECKING:
    from ltn_sudoku.logic.board.predict import LtnAnswers
    from ltn_sudoku.questions.engine import Engine

CHUNK_CELLS = 40_000  # cells per chunk of boards answered together: about 500 9x9 boards, 6 81x81 boards
WINDOW_PER_JOB = 3  # chunks in flight per process: enough to keep every process busy, few enough for flat memory
Chunk = list[tuple[int, BoardRecord]]  # numbered records (0-based index in the input)


class AnswerError(ValueError):
    """The LTN section cannot be answered with the checkpoint asked for (missing, corrupted, another kind)."""


def chunks(records: Iterable[BoardRecord]) -> Iterator[Chunk]:
    """Numbered records in chunks of about CHUNK_CELLS cells (every board of an input has the same size)."""
    chunk: Chunk = []
    cells = 0
    for index, record in enumerate(records):
        chunk.append((index, record))
        cells += record.board.n ** 2
        if cells >= CHUNK_CELLS:
            yield chunk
            chunk, cells = [], 0
    if chunk:
        yield chunk


@dataclass(frozen=True)
class Answered:
    """One board's answers, as every writer reads them: its place in the input, its whole report (Q1-Q3 and every
    section, the LTN's included: report.as_dict() is the JSON object) and the LTN section alone (None with --no-ltn)."""

    index: int
    record: BoardRecord
    report: Report
    ltn: ReportSection | None = None

    @property
    def kind(self) -> str:
        """The board's class in one word (the command's summary line counts them)."""
        report = self.report
        if report.closed:
            return "valid" if report.valid else "invalid"
        return {0: "impossible", 1: "unique"}.get(report.solution_count, "multiple")


class Writer(Protocol):
    """Answers as text: a head, then each chunk's rows in input order, then a tail (see the module docstring)."""

    def head(self) -> str: ...

    def __call__(self, answers: Sequence[Answered]) -> str: ...

    def tail(self, boards: int) -> str: ...


@dataclass(frozen=True)
class Written:
    """A chunk as a writer wrote it: its text, the count of each kind of board, and its number of boards."""

    text: str
    kinds: Counter[str]
    boards: int


@dataclass(frozen=True)
class SameSection:
    """One section for every board (the visual model's reading of the one board given as images)."""

    section: ReportSection

    def sections(self, boards: Sequence[Board]) -> list[ReportSection]:
        return [self.section] * len(boards)


@dataclass
class Answerer:
    """What to answer and how (classify-board's options), picklable for worker processes: the engine and the LTN
    models are built on first use in each process."""

    backend: str = "auto"
    heuristics: bool = True  # Q3
    full: bool = False  # no budget (--full-analysis)
    techniques: str | None = None  # the engine's techniques by name (None: all, in HoDoKu's order)
    no_uniqueness: bool = False
    survey: Survey = "tiered"
    ltn: bool = True
    checkpoint: Path | None = None  # None: the shipped checkpoint of each board size
    ltn_dead_ends: bool = False
    ltn_search: int = 0
    ltn_complete: int = 0
    ltn_tolerance: float | None = None  # None: the predictor's SETTLE_TOLERANCE; 0: every refinement step
    device: str = "cpu"
    visual: ReportSection | None = None  # the visual model's answers on a board read from images
    _engine: Engine | None = field(default=None, repr=False)
    _ltn: LtnAnswers | None = field(default=None, repr=False)

    def __getstate__(self) -> dict[str, object]:
        return {**self.__dict__, "_engine": None, "_ltn": None}

    def engine(self) -> Engine | None:
        if self.heuristics and self._engine is None:
            self._engine = build(self.techniques, not self.no_uniqueness)
        return self._engine

    def ltn_answers(self) -> LtnAnswers | None:
        if self.ltn and self._ltn is None:
            from ltn_sudoku.logic.board.predict import LtnAnswers  # torch is imported only when the LTN answers

            self._ltn = LtnAnswers(self.checkpoint, dead_ends=self.ltn_dead_ends, search_budget=self.ltn_search,
                                   device=self.device, complete=self.ltn_complete)
            if self.ltn_tolerance is not None:
                self._ltn.tolerance = self.ltn_tolerance
        return self._ltn

    def ltn_sections(self, boards: Sequence[Board]) -> list[ReportSection] | None:
        """The LTN section of each board (None with ltn off); AnswerError for a checkpoint that cannot be used."""
        ltn = self.ltn_answers()
        if ltn is None:
            return None
        from ltn_sudoku.logic.checkpoints import CheckpointError

        try:
            return list(ltn.sections(boards))
        except CheckpointError as e:
            raise AnswerError(str(e)) from None

    def answer(self, chunk: Chunk) -> list[Answered]:
        """Each record's board answered in full (questions.report.classify_boards, then the LTN section), in order."""
        boards = [record.board for _, record in chunk]
        sources: list[SectionSource] = [SameSection(self.visual)] if self.visual is not None else []
        reports = classify_boards(boards, self.backend, self.heuristics, self.engine(), self.full, self.survey,
                                  sources)
        ltn = self.ltn_sections(boards)
        if ltn is None:
            return [Answered(index, record, report) for (index, record), report in zip(chunk, reports, strict=True)]
        return [Answered(index, record, report.with_section(section), section)
                for (index, record), report, section in zip(chunk, reports, ltn, strict=True)]


def write_chunk(answerer: Answerer, writer: Writer, chunk: Chunk) -> Written:
    """One chunk answered and written where it is called (this process, a pool's worker, a Dask worker)."""
    answers = answerer.answer(chunk)
    return Written(writer(answers), Counter(a.kind for a in answers), len(chunk))


_WORKER: tuple[Answerer, Writer] | None = None


def _init_worker(answerer: Answerer, writer: Writer, setup: Callable[[], object] | None) -> None:
    if setup is not None:
        setup()
    global _WORKER
    _WORKER = answerer, writer


def _write_in_worker(chunk: Chunk) -> Written:
    assert _WORKER is not None
    return write_chunk(*_WORKER, chunk)


def written(answerer: Answerer, writer: Writer, chunks: Iterator[Chunk], jobs: int,
            setup: Callable[[], object] | None = None) -> Iterator[Written]:
    """Each chunk answered and written, in input order; with jobs > 1 by a process pool that holds at most
    WINDOW_PER_JOB chunks per process in flight, so reading never runs far ahead of writing. The pool is started once
    the first `jobs` chunks are read, with no more processes than chunks (none for a single chunk); `setup` runs in
    each of its processes first (a picklable function: the command's allocator setting)."""
    head = list(itertools.islice(chunks, jobs)) if jobs > 1 else []
    if len(head) <= 1:
        for chunk in itertools.chain(head, chunks):
            yield write_chunk(answerer, writer, chunk)
        return
    # spawned, not forked: a fork of a process that already runs threads (torch, BLAS) can deadlock in the child
    with get_context("spawn").Pool(len(head), initializer=_init_worker, initargs=(answerer, writer, setup)) as pool:
        pending: deque[AsyncResult[Written]] = deque()
        for chunk in itertools.chain(head, chunks):
            pending.append(pool.apply_async(_write_in_worker, (chunk,)))
            if len(pending) >= len(head) * WINDOW_PER_JOB:
                yield pending.popleft().get()
        while pending:
            yield pending.popleft().get()
