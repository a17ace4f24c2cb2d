"""`ltn-sudoku classify` (also `classify-board`): the symbolic Q1/Q2 answers for every board of a file, of standard
input (`-`) or of a board string (`--board`), as readable reports, JSON Lines (`--json`) or a results file (`--out`)."""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Iterable

from tqdm import tqdm

from ltn_sudoku.cli import UsageError
from ltn_sudoku.exact import BACKENDS
from ltn_sudoku.io import (
    FORMATS,
    STDIN_NAME,
    BoardRecord,
    atomic_write_text,
    parse_board_text,
    read_records,
    read_stream_records,
)
from ltn_sudoku.questions import Report, classify
from ltn_sudoku.report_text import render_report

OUT_FORMATS = {".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl"}
BOARD_NAME = "<board>"


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "classify",
        help="Q1/Q2: validity, conflicts, solutions and dead-end moves of every board",
        description="Classify boards exactly: a closed board is valid or not (with every conflict); an open board "
                    "has consistent givens or not, 0, 1 or at least 2 solutions, and each basic-rule move is "
                    "marked when it leads to a dead end.",
    )
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("path", nargs="?", help="board file (line .txt/.sdm, grid CSV, Kaggle CSV, table CSV); "
                                                "'-' reads standard input")
    source.add_argument("--board", metavar="TEXT", help="one board given as text, e.g. '1.34 34.2 2143 432.'")
    p.add_argument("--format", choices=("auto", *FORMATS), default="auto",
                   help="input format of the file (default: detected from its first line)")
    p.add_argument("--json", action="store_true", help="print one JSON object per board (JSON Lines)")
    p.add_argument("--out", type=Path, metavar="FILE",
                   help="write the results to FILE (.csv or .jsonl), atomically, and print only a summary")
    p.add_argument("--backend", choices=BACKENDS, default="auto", help="exact solver backend (default: fastest)")
    return p


def _out_format(out: Path) -> str:
    """The results format of --out, checked before any work so that a bad name costs nothing."""
    if out.is_dir():
        raise UsageError(f"--out {out}: is a directory: expected a file name")
    kind = OUT_FORMATS.get(out.suffix.lower())
    if kind is None:
        raise UsageError(f"--out {out}: unknown extension {out.suffix!r}: expected one of {', '.join(OUT_FORMATS)}")
    return kind


def _read_input(args: argparse.Namespace) -> tuple[str, list[BoardRecord]]:
    """(name for messages, every record); the whole input is validated before any board is classified."""
    if args.board is not None:
        if args.format != "auto":
            raise UsageError("--format applies to files; --board text is always detected")
        return BOARD_NAME, [BoardRecord(parse_board_text(args.board, BOARD_NAME), 1)]
    if args.path == "-":
        return STDIN_NAME, read_stream_records(sys.stdin.buffer, STDIN_NAME, args.format)
    return args.path, read_records(args.path, args.format)


def _progress(records: list[BoardRecord], writing_file: bool) -> Iterable[BoardRecord]:
    """A progress bar on stderr for multi-board inputs, only when a person watches it and the reports do not go to
    the same terminal."""
    show = len(records) > 1 and sys.stderr.isatty() and (writing_file or not sys.stdout.isatty())
    return tqdm(records, unit="board", disable=not show, file=sys.stderr)


def _json_object(index: int, record: BoardRecord, report: Report) -> dict[str, object]:
    return {"index": index, "line": record.line, **report.as_dict()}


def _results_text(kind: str, results: list[dict[str, object]]) -> str:
    if kind == "jsonl":
        return "".join(json.dumps(r) + "\n" for r in results)
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(results[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(results)
    return buf.getvalue()


def _kind(report: Report) -> str:
    """The board's class in one word, for the summary line."""
    if report.closed:
        return "valid" if report.valid else "invalid"
    return {0: "impossible", 1: "unique"}.get(report.solution_count, "multiple")


def _summary(name: str, kinds: Counter[str], out: Path) -> str:
    return (f"{name}: {sum(kinds.values())} boards; closed: {kinds['valid']} valid, {kinds['invalid']} invalid; "
            f"open: {kinds['unique']} unique, {kinds['multiple']} with several solutions, "
            f"{kinds['impossible']} impossible -> {out}")


def run(args: argparse.Namespace) -> int:
    out_kind = _out_format(args.out) if args.out is not None else None
    name, records = _read_input(args)
    results: list[dict[str, object]] = []
    kinds: Counter[str] = Counter()
    for index, record in enumerate(_progress(records, writing_file=out_kind is not None)):
        report = classify(record.board, backend=args.backend)
        kinds[_kind(report)] += 1
        if out_kind == "jsonl":
            results.append(_json_object(index, record, report))
        elif out_kind == "csv":
            results.append({"index": index, "line": record.line, **report.as_row()})
        elif args.json:
            print(json.dumps(_json_object(index, record, report)), flush=True)
        else:
            title = name if len(records) == 1 else f"{name}, board {index + 1} (line {record.line})"
            print(render_report(report, title) + "\n", flush=True)
    if out_kind is not None:
        try:
            atomic_write_text(args.out, _results_text(out_kind, results))
        except OSError as e:
            raise UsageError(f"--out {args.out}: cannot write ({e.strerror or e})") from None
        print(_summary(name, kinds, args.out))
    return 0
