"""`ltn-sudoku classify` (also `classify-board`): the symbolic Q1/Q2/Q3 answers (and the LTN's) for every board of a
file, of standard input (`-`) or of a board string (`--board`), as readable reports, JSON Lines (`--json`) or a
results file (`--out`).

The input is streamed: boards are read, answered and written a chunk at a time, so memory stays flat for any number
of boards; `--jobs N` answers the chunks in N processes (at most one per usable CPU, and no more than there are
chunks: one chunk is answered here) and writes them in input order. `--out` is written under a lock (OUT.lock:
a second run on the same output is refused) and never over the input file.
"""

from __future__ import annotations

import argparse
import gc
import itertools
import sys
from collections import Counter, deque
from contextlib import nullcontext
from dataclasses import dataclass, field
from multiprocessing import get_context
from multiprocessing.pool import AsyncResult
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Sequence, TextIO

from ltn_sudoku.board import Board
from ltn_sudoku.cli import UsageError
from ltn_sudoku.cli.allocator import keep_large_arrays_in_heap
from ltn_sudoku.cli.common import (
    add_device_argument,
    add_engine_arguments,
    add_input_arguments,
    capped_jobs,
    engine_from_args,
    iter_input,
    out_format,
    output_lock,
    progress_bar,
    refuse_writing_over_input,
)
from ltn_sudoku.cli.results import ResultsFile, csv_columns, csv_header, csv_lines, json_line
from ltn_sudoku.exact import BACKENDS
from ltn_sudoku.io import BoardRecord
from ltn_sudoku.questions.engine import build
from ltn_sudoku.questions.q3 import Survey
from ltn_sudoku.questions.report import Report, ReportSection, SectionSource, classify_boards
from ltn_sudoku.questions.text import render_report

if TYPE_CHECKING:
    from ltn_sudoku.logic.predict import LtnAnswers
    from ltn_sudoku.questions.engine import Engine

CHUNK_CELLS = 40_000  # cells per chunk of boards answered together: about 500 9x9 boards, 6 81x81 boards
WINDOW_PER_JOB = 3  # chunks in flight per process: enough to keep every process busy, few enough for flat memory


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "classify",
        help="Q1-Q3 for every board: validity, conflicts, solutions, dead-end moves, techniques; and the LTN's answers",
        description="Classify boards exactly: a closed board is valid or not (with every conflict); an open board "
                    "has consistent givens or not, 0, 1 or at least 2 solutions, and each basic-rule move is "
                    "marked when it leads to a dead end; Q3 adds the techniques that apply and the explained "
                    "solving path. The shipped LTN model of the board's size answers beside them (--no-ltn skips). "
                    "Input is streamed: any number of boards in flat memory.",
    )
    add_input_arguments(p)
    p.add_argument("--json", action="store_true", help="print one JSON object per board (JSON Lines)")
    p.add_argument("--out", type=Path, metavar="FILE",
                   help="write the results to FILE (.csv or .jsonl) as they come, renamed into place at the end; "
                        "print only a summary")
    p.add_argument("--jobs", type=int, default=1, metavar="N",
                   help="answer in N processes (results stay in input order; default 1; at most one per CPU this "
                        "process may use: more is capped, with a note)")
    p.add_argument("--backend", choices=BACKENDS, default="auto", help="exact solver backend (default: fastest)")
    p.add_argument("--no-heuristics", action="store_true",
                   help="skip Q3 (techniques that apply, recommendation, explained solving path)")
    p.add_argument("--full-analysis", action="store_true",
                   help="no budget: decide every move's dead end, use every technique on every size and survey "
                        "them all (default: answers that would take more than a few seconds are limited, and say so)")
    p.add_argument("--full-survey", action="store_true",
                   help="Q3 tries every technique on the opening grid (default: easiest first, up to the first "
                        "family that applies; the recommendation is the same)")
    p.add_argument("--dask", nargs="?", const="local", metavar="SCHEDULER",
                   help="answer on a Dask cluster: a LocalCluster of --jobs workers, or the scheduler at this "
                        "address (e.g. tcp://host:8786); needs --out, and a stopped run resumes where it stopped "
                        "(pip install ltn-sudoku[dask]; docs/cli.md); progress: a bar on a terminal, otherwise a "
                        "line per finished partition on stderr")
    p.add_argument("--no-ltn", action="store_true",
                   help="skip the LTN model's answers (the JSON key `ltn`; also saves loading torch)")
    p.add_argument("--checkpoint", type=Path, metavar="PT",
                   help="LTN checkpoint to answer with (default: the shipped checkpoints/<n>x<n>.pt of each size)")
    p.add_argument("--ltn-dead-ends", action="store_true",
                   help="also the LTN's dead-end probability of every move (one model run per move: slow)")
    p.add_argument("--ltn-search", type=int, default=0, metavar="NODES",
                   help="also the LTN-guided search's verdict on each open board (solved / refuted / exhausted), "
                        "refining at most NODES boards; reported beside hasSolution, never mixed into it")
    p.add_argument("--ltn-complete", type=int, default=0, metavar="LIMIT",
                   help="also the complete LTN-guided solver's answer on each open board: the knowledge base's "
                        "crisp rules propagate, hasValue orders the digits; it stops at LIMIT solutions (2 tells a "
                        "unique solution from several) or proves there is none, and reports nodes, wrong guesses "
                        "and model calls, in all and at the first solution (JSON key ltn.complete_solver; default 0: "
                        "off)")
    p.add_argument("--visual-checkpoint", type=Path, metavar="PT",
                   help="PATH is a .npz of handwritten cell images (`images`, (n*n, 28, 28) uint8, row-major; "
                        "docs/visual.md): this visual model reads the digits and answers isCorrect, then Q1-Q3 run "
                        "on the read board")
    add_device_argument(p)
    add_engine_arguments(p)
    return p


@dataclass(frozen=True)
class CliLtn:
    """The LTN's answers as a questions.SectionSource: a checkpoint that cannot be used is the user's error (exit 2)."""

    ltn: LtnAnswers

    def sections(self, boards: Sequence[Board]) -> list[ReportSection]:
        from ltn_sudoku.logic.checkpoint import CheckpointError

        try:
            return list(self.ltn.sections(boards))
        except CheckpointError as e:
            raise UsageError(str(e)) from None


@dataclass(frozen=True)
class SameSection:
    """One section for every board (the visual model's reading of the one board given as images)."""

    section: ReportSection

    def sections(self, boards: Sequence[Board]) -> list[ReportSection]:
        return [self.section] * len(boards)


def _kind(report: Report) -> str:
    """The board's class in one word, for the summary line."""
    if report.closed:
        return "valid" if report.valid else "invalid"
    return {0: "impossible", 1: "unique"}.get(report.solution_count, "multiple")


def _summary(name: str, kinds: Counter[str], out: Path) -> str:
    return (f"{name}: {sum(kinds.values())} boards; closed: {kinds['valid']} valid, {kinds['invalid']} invalid; "
            f"open: {kinds['unique']} unique, {kinds['multiple']} with several solutions, "
            f"{kinds['impossible']} impossible -> {out}")


@dataclass
class Answerer:
    """Everything needed to answer a chunk of boards and render the answers, picklable for worker processes (the
    engine and the LTN models are built on first use in each process)."""

    output: str  # "text", "json" (stdout), or the --out kind "jsonl" / "csv"
    name: str
    single: bool
    backend: str
    heuristics: bool
    full: bool
    techniques: str | None
    no_uniqueness: bool
    ltn: bool
    checkpoint: Path | None
    columns: list[str] = field(default_factory=list)
    survey: Survey = "tiered"
    ltn_dead_ends: bool = False
    ltn_search: int = 0
    ltn_complete: int = 0
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
            from ltn_sudoku.logic.predict import LtnAnswers  # torch is imported only when the LTN answers

            self._ltn = LtnAnswers(self.checkpoint, dead_ends=self.ltn_dead_ends, search_budget=self.ltn_search,
                                   device=self.device, complete=self.ltn_complete)
        return self._ltn

    def reports(self, boards: list[Board]) -> list[Report]:
        """The boards' whole reports (questions.classify_boards): Q1/Q2, Q3, the visual model's and the LTN's."""
        sources: list[SectionSource] = [SameSection(self.visual)] if self.visual is not None else []
        ltn = self.ltn_answers()
        if ltn is not None:
            sources.append(CliLtn(ltn))
        return classify_boards(boards, self.backend, self.heuristics, self.engine(), self.full, self.survey, sources)

    def render(self, chunk: list[tuple[int, BoardRecord]], reports: list[Report]) -> str:
        if self.output == "text":
            return "".join(render_report(report, self.name if self.single else
                                         f"{self.name}, board {index + 1} (line {record.line})") + "\n\n"
                           for (index, record), report in zip(chunk, reports, strict=True))
        answers = ({"index": index, "line": record.line, "id": record.fields.get("id"),
                    **report.as_dict(moves=self.output != "csv")}
                   for (index, record), report in zip(chunk, reports, strict=True))
        return csv_lines(self.columns, answers) if self.output == "csv" else "".join(map(json_line, answers))

    def __call__(self, chunk: list[tuple[int, BoardRecord]]) -> tuple[str, Counter[str]]:
        """A chunk's rendered answers, in order, and the count of each kind of board."""
        reports = self.reports([record.board for _, record in chunk])
        return self.render(chunk, reports), Counter(map(_kind, reports))


def _chunks(records: Iterable[BoardRecord]) -> Iterator[list[tuple[int, BoardRecord]]]:
    """Numbered records in chunks of about CHUNK_CELLS cells (every board of an input has the same size)."""
    chunk: list[tuple[int, BoardRecord]] = []
    cells = 0
    for index, record in enumerate(records):
        chunk.append((index, record))
        cells += record.board.n ** 2
        if cells >= CHUNK_CELLS:
            yield chunk
            chunk, cells = [], 0
    if chunk:
        yield chunk


_WORKER: Answerer | None = None


def _init_worker(answerer: Answerer) -> None:
    keep_large_arrays_in_heap()
    global _WORKER
    _WORKER = answerer


def _answer_in_worker(chunk: list[tuple[int, BoardRecord]]) -> tuple[str, Counter[str], int]:
    assert _WORKER is not None
    text, kinds = _WORKER(chunk)
    return text, kinds, len(chunk)


def answered(answerer: Answerer, chunks: Iterator[list[tuple[int, BoardRecord]]],
             jobs: int) -> Iterator[tuple[str, Counter[str], int]]:
    """(rendered text, kinds, boards) per chunk, in input order; with jobs > 1 answered by a process pool that holds
    at most WINDOW_PER_JOB chunks per process in flight, so reading never runs far ahead of writing. The pool is
    started once the first `jobs` chunks are read, with no more processes than chunks (none for a single chunk)."""
    head = list(itertools.islice(chunks, jobs)) if jobs > 1 else []
    if len(head) <= 1:
        for chunk in itertools.chain(head, chunks):
            yield (*answerer(chunk), len(chunk))
        return
    # spawned, not forked: a fork of a process that already runs threads (torch, BLAS) can deadlock in the child
    with get_context("spawn").Pool(len(head), initializer=_init_worker, initargs=(answerer,)) as pool:
        pending: deque[AsyncResult[tuple[str, Counter[str], int]]] = deque()
        for chunk in itertools.chain(head, chunks):
            pending.append(pool.apply_async(_answer_in_worker, (chunk,)))
            if len(pending) >= len(head) * WINDOW_PER_JOB:
                yield pending.popleft().get()
        while pending:
            yield pending.popleft().get()


def _write(sink: ResultsFile | TextIO, text: str) -> None:
    if isinstance(sink, ResultsFile):
        sink.write([text])
    else:
        sink.write(text)
        sink.flush()


def _run_stream(answerer: Answerer, records: Iterator[BoardRecord], jobs: int, sink: ResultsFile | TextIO,
                show: Callable[[int], None]) -> Counter[str]:
    kinds: Counter[str] = Counter()
    for text, chunk_kinds, count in answered(answerer, _chunks(records), jobs):
        _write(sink, text)
        kinds.update(chunk_kinds)
        show(count)
    return kinds


def run(args: argparse.Namespace) -> int:
    out_kind = out_format(args.out) if args.out is not None else None
    if args.jobs < 1:
        raise UsageError(f"--jobs {args.jobs}: expected at least 1")
    if args.ltn_search < 0:
        raise UsageError(f"--ltn-search {args.ltn_search}: expected a number of boards, 0 for no search")
    if args.ltn_complete < 0:
        raise UsageError(f"--ltn-complete {args.ltn_complete}: expected a number of solutions, 0 for no solver")
    if args.no_ltn and (args.ltn_search or args.ltn_complete):
        raise UsageError("--ltn-search and --ltn-complete add to the LTN section, which --no-ltn skips")
    if args.dask is not None and (args.out is None or args.path in (None, "-") or args.visual_checkpoint):
        raise UsageError("--dask answers a board file into --out FILE (not standard input, --board or images)")
    if not args.no_heuristics:
        engine_from_args(args)  # an unknown technique name is a usage error before any work
    refuse_writing_over_input(args)  # before anything is written (the lock included)
    from ltn_sudoku.cli.dask_runner import LOCAL  # a light module: Dask itself is imported by --dask alone

    jobs = capped_jobs(args.jobs) if args.dask in (None, LOCAL) else args.jobs  # --jobs local processes
    visual = None
    if args.visual_checkpoint is not None:
        from ltn_sudoku.cli.visual import visual_input

        name, records, visual = visual_input(args)
    else:
        name, records = iter_input(args)
    first = list(itertools.islice(records, 2))
    records = itertools.chain(first, records)
    heuristics, ltn = not args.no_heuristics, not args.no_ltn
    answerer = Answerer(output=out_kind or ("json" if args.json else "text"), name=name, single=len(first) == 1,
                        backend=args.backend, heuristics=heuristics, full=args.full_analysis,
                        techniques=args.techniques, no_uniqueness=args.no_uniqueness, ltn=ltn,
                        survey="complete" if args.full_survey else "tiered",
                        checkpoint=args.checkpoint,
                        columns=csv_columns(heuristics, ltn, args.ltn_search > 0, args.ltn_complete > 0),
                        ltn_dead_ends=args.ltn_dead_ends, ltn_search=args.ltn_search,
                        ltn_complete=args.ltn_complete, device=args.device,
                        visual=visual)
    gc.freeze()  # the imported modules' objects: the collector need not walk them again for every chunk
    keep_large_arrays_in_heap()  # the LTN's batch tensors reused, not mapped afresh per batch (cli/allocator.py)
    with output_lock(args.out) if args.out is not None else nullcontext(), \
            progress_bar(writing_file=out_kind is not None) as bar:
        if args.dask is not None:
            from ltn_sudoku.cli.dask_runner import run_on_dask

            assert out_kind is not None and args.path is not None  # checked above
            kinds = run_on_dask(answerer, args.path, _chunks(records), args.out, out_kind, args.dask, jobs,
                                bar.update, None if sys.stderr.isatty() else sys.stderr)
            print(_summary(name, kinds, args.out))
            return 0
        if out_kind is None:
            _run_stream(answerer, records, jobs, sys.stdout, bar.update)
            return 0
        with ResultsFile(args.out) as results:
            if out_kind == "csv":
                results.write([csv_header(answerer.columns)])
            kinds = _run_stream(answerer, records, jobs, results, bar.update)
            results.commit()
    print(_summary(name, kinds, args.out))
    return 0

