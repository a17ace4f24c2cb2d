"""`ltn-sudoku classify` (also `classify-board`): the symbolic Q1/Q2/Q3 answers (and the LTN's) for every board of a
file, of standard input (`-`) or of a board string (`--board`), as readable reports, JSON Lines (`--json`) or a
results file (`--out`).

The input is streamed: boards are read, answered and written a chunk at a time by the answering pipeline
(ltn_sudoku/answering.py), so memory stays flat for any number of boards; `--jobs N` answers the chunks in N processes
(at most one per usable CPU, and no more than there are chunks: one chunk is answered here) and writes them in input
order. `--out` is written under a lock (OUT.lock: a second run on the same output is refused) and never over the
input file. This module parses the options, picks the writer (cli/results.py) and turns the pipeline's errors into
usage errors.
"""

from __future__ import annotations

import argparse
import itertools
import sys
from collections import Counter
from contextlib import nullcontext
from pathlib import Path
from typing import Callable, Iterator, TextIO

from ltn_sudoku.answering import Answerer, AnswerError, Chunk, Writer, chunks, written
from ltn_sudoku.cli import UsageError
from ltn_sudoku.cli.allocator import prepare_answering_process
from ltn_sudoku.cli.common import (
    HTML_FORMATS,
    OUT_FORMATS,
    add_device_argument,
    add_engine_arguments,
    add_input_arguments,
    capped_jobs,
    check_html_out,
    engine_from_args,
    iter_input,
    out_format,
    output_lock,
    progress_bar,
    refuse_writing_over_input,
)
from ltn_sudoku.cli.results import CsvWriter, HtmlWriter, JsonLinesWriter, ResultsFile, TextWriter, csv_columns
from ltn_sudoku.exact import BACKENDS


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
                   help="write the results to FILE (.csv, .jsonl or .html) as they come, renamed into place at the end; "
                        "print only a summary")
    p.add_argument("--html", type=Path, metavar="REPORT.html",
                   help="write one self-contained HTML page (opens from disk, no network): per board the answers, "
                        "the solving path to step through (buttons, arrow keys) and the LTN's picture; the same as "
                        "--out REPORT.html")
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
    p.add_argument("--ltn-tolerance", type=float, default=None, metavar="T",
                   help="each board's hasValue refinement stops once a step moves none of its truths by more than T "
                        "(default 1e-4: on real Kaggle rows the same decisions as every step, truths within 3e-4; "
                        "0: every board runs every step, the numbers of the model as trained to answer)")
    p.add_argument("--visual-checkpoint", type=Path, metavar="PT",
                   help="PATH is a .npz of handwritten cell images (`images`, (n*n, 28, 28) uint8, row-major; "
                        "docs/visual.md): this visual model reads the digits and answers isCorrect, then Q1-Q3 run "
                        "on the read board")
    add_device_argument(p)
    add_engine_arguments(p)
    return p


def _summary(name: str, kinds: Counter[str], out: Path) -> str:
    return (f"{name}: {sum(kinds.values())} boards; closed: {kinds['valid']} valid, {kinds['invalid']} invalid; "
            f"open: {kinds['unique']} unique, {kinds['multiple']} with several solutions, "
            f"{kinds['impossible']} impossible -> {out}")


def _write(sink: ResultsFile | TextIO, text: str) -> None:
    if not text:
        return
    if isinstance(sink, ResultsFile):
        sink.write([text])
    else:
        sink.write(text)
        sink.flush()


def _run_stream(answerer: Answerer, writer: Writer, chunked: Iterator[Chunk], jobs: int, sink: ResultsFile | TextIO,
                show: Callable[[int], None]) -> Counter[str]:
    """Head, every chunk as it is written (in input order), tail; the count of each kind of board."""
    kinds: Counter[str] = Counter()
    _write(sink, writer.head())
    for chunk in written(answerer, writer, chunked, jobs, setup=prepare_answering_process):
        _write(sink, chunk.text)
        kinds.update(chunk.kinds)
        show(chunk.boards)
    _write(sink, writer.tail(sum(kinds.values())))
    return kinds


def _writer(args: argparse.Namespace, out_kind: str | None, name: str, single: bool) -> Writer:
    """The writer of the output asked for: --out's kind (csv, jsonl), --json, or readable text."""
    if out_kind == "csv":
        return CsvWriter(csv_columns(not args.no_heuristics, not args.no_ltn, args.ltn_search > 0,
                                     args.ltn_complete > 0), args.symbols)
    if out_kind == "html":
        return HtmlWriter(f"ltn-sudoku: {name}", symbols=args.symbols)
    if out_kind == "jsonl" or args.json:
        return JsonLinesWriter(args.symbols)
    return TextWriter(name, single, args.symbols)


def run(args: argparse.Namespace) -> int:
    if args.html is not None:
        if args.out is not None:
            raise UsageError("--html and --out: one output file at a time (--out REPORT.html is --html)")
        args.out, args.html = check_html_out(args.html), None  # one output, named once (refuse_shared_outputs)
    out_kind = out_format(args.out, {**OUT_FORMATS, **HTML_FORMATS}) if args.out is not None else None
    if args.jobs < 1:
        raise UsageError(f"--jobs {args.jobs}: expected at least 1")
    if args.ltn_search < 0:
        raise UsageError(f"--ltn-search {args.ltn_search}: expected a number of boards, 0 for no search")
    if args.ltn_complete < 0:
        raise UsageError(f"--ltn-complete {args.ltn_complete}: expected a number of solutions, 0 for no solver")
    if args.ltn_tolerance is not None and not 0 <= args.ltn_tolerance < 1:
        raise UsageError(f"--ltn-tolerance {args.ltn_tolerance}: expected a truth change in [0, 1)")
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
    answerer = Answerer(backend=args.backend, heuristics=not args.no_heuristics, full=args.full_analysis,
                        techniques=args.techniques, no_uniqueness=args.no_uniqueness,
                        survey="complete" if args.full_survey else "tiered", ltn=not args.no_ltn,
                        checkpoint=args.checkpoint, ltn_dead_ends=args.ltn_dead_ends, ltn_search=args.ltn_search,
                        ltn_complete=args.ltn_complete, ltn_tolerance=args.ltn_tolerance, device=args.device,
                        visual=visual)
    writer = _writer(args, out_kind, name, single=len(first) == 1)
    prepare_answering_process()  # batch tensors kept in the heap, start-up objects frozen (cli/allocator.py)
    try:
        with output_lock(args.out) if args.out is not None else nullcontext(), \
                progress_bar(writing_file=out_kind is not None) as bar:
            if args.dask is not None:
                from ltn_sudoku.cli.dask_runner import run_on_dask

                assert out_kind is not None and args.path is not None  # checked above
                kinds = run_on_dask(answerer, writer, args.path, chunks(records), args.out, out_kind, args.dask,
                                    jobs, bar.update, None if sys.stderr.isatty() else sys.stderr)
                print(_summary(name, kinds, args.out))
                return 0
            if out_kind is None:
                _run_stream(answerer, writer, chunks(records), jobs, sys.stdout, bar.update)
                return 0
            with ResultsFile(args.out) as results:
                kinds = _run_stream(answerer, writer, chunks(records), jobs, results, bar.update)
                results.commit()
    except AnswerError as e:  # an LTN checkpoint that cannot be used: the user's error (exit 2)
        raise UsageError(str(e)) from None
    print(_summary(name, kinds, args.out))
    return 0
