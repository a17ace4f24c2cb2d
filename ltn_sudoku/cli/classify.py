"""`ltn-sudoku classify` (also `classify-board`): the symbolic Q1/Q2 answers for every board of a file, of standard
input (`-`) or of a board string (`--board`), as readable reports, JSON Lines (`--json`) or a results file (`--out`)."""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

from ltn_sudoku.board import Board
from ltn_sudoku.cli import UsageError
from ltn_sudoku.cli.common import add_input_arguments, out_format, progress, read_input, write_results
from ltn_sudoku.cli.solve import add_engine_arguments, engine_from_args
from ltn_sudoku.exact import BACKENDS
from ltn_sudoku.io import BoardRecord
from ltn_sudoku.questions import Report, ReportSection, classify
from ltn_sudoku.report_text import render_report

if TYPE_CHECKING:
    from ltn_sudoku.logic.predict import LtnAnswers


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "classify",
        help="Q1-Q3 for every board: validity, conflicts, solutions, dead-end moves, techniques; and the LTN's answers",
        description="Classify boards exactly: a closed board is valid or not (with every conflict); an open board "
                    "has consistent givens or not, 0, 1 or at least 2 solutions, and each basic-rule move is "
                    "marked when it leads to a dead end; Q3 adds the techniques that apply and the explained "
                    "solving path. The shipped LTN model of the board's size answers beside them (--no-ltn skips).",
    )
    add_input_arguments(p)
    p.add_argument("--json", action="store_true", help="print one JSON object per board (JSON Lines)")
    p.add_argument("--out", type=Path, metavar="FILE",
                   help="write the results to FILE (.csv or .jsonl), atomically, and print only a summary")
    p.add_argument("--backend", choices=BACKENDS, default="auto", help="exact solver backend (default: fastest)")
    p.add_argument("--no-heuristics", action="store_true",
                   help="skip Q3 (techniques that apply, recommendation, explained solving path)")
    p.add_argument("--no-ltn", action="store_true",
                   help="skip the LTN model's answers (the JSON key `ltn`; also saves loading torch)")
    p.add_argument("--checkpoint", type=Path, metavar="PT",
                   help="LTN checkpoint to answer with (default: the shipped checkpoints/<n>x<n>.pt of each size)")
    add_engine_arguments(p)
    return p


def ltn_section(ltn: LtnAnswers, board: Board) -> ReportSection:
    """The LTN's section of a board's report; a checkpoint that cannot be used is the user's error (exit 2)."""
    from ltn_sudoku.logic.checkpoint import CheckpointError

    try:
        return ltn.section(board)
    except CheckpointError as e:
        raise UsageError(str(e)) from None


def _json_object(index: int, record: BoardRecord, report: Report) -> dict[str, object]:
    return {"index": index, "line": record.line, **report.as_dict()}


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
    out_kind = out_format(args.out) if args.out is not None else None
    engine = None if args.no_heuristics else engine_from_args(args)
    ltn = None
    if not args.no_ltn:
        from ltn_sudoku.logic.predict import LtnAnswers  # torch is imported only when the LTN answers

        ltn = LtnAnswers(args.checkpoint)
    name, records = read_input(args)
    results: list[dict[str, object]] = []
    kinds: Counter[str] = Counter()
    for index, record in enumerate(progress(records, writing_file=out_kind is not None)):
        report = classify(record.board, backend=args.backend, heuristics=engine is not None, engine=engine)
        if ltn is not None:
            report = report.with_section(ltn_section(ltn, record.board))
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
        write_results(args.out, out_kind, results)
        print(_summary(name, kinds, args.out))
    return 0
