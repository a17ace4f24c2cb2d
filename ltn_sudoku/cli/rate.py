"""`ltn-sudoku rate`: level and score of every puzzle (HoDoKu's scale), one line each, and the level distribution."""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from ltn_sudoku.cli.common import (
    add_engine_arguments,
    add_input_arguments,
    engine_from_args,
    out_format,
    progress,
    read_input,
    write_results,
)
from ltn_sudoku.questions.engine import LEVELS


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "rate",
        help="difficulty level and score of every puzzle",
        description="Rate puzzles by the techniques a person needs: level (Easy, Medium, Hard, Unfair, Extreme) "
                    "and score, in the spirit of HoDoKu; 'guessed' marks puzzles that needed search.",
    )
    add_input_arguments(p)
    add_engine_arguments(p)
    p.add_argument("--out", type=Path, metavar="FILE", help="write puzzle,level,score,guessed to FILE (.csv/.jsonl)")
    return p


def run(args: argparse.Namespace) -> int:
    out_kind = out_format(args.out) if args.out is not None else None
    engine = engine_from_args(args)
    name, records = read_input(args)
    rows: list[dict[str, object]] = []
    levels: Counter[str] = Counter()
    for record in progress(records, writing_file=True):
        result = engine.solve(record.board)
        level = result.level or "unsolvable"
        levels[level] += 1
        row = {"puzzle": record.board.to_line(), "level": level, "score": result.score, "guessed": result.guessed}
        rows.append(row)
        if out_kind is None:
            print(f"{row['puzzle']}  {level:<10} {result.score:>6}{'  guessed' if result.guessed else ''}", flush=True)
    if out_kind is not None:
        write_results(args.out, out_kind, rows)
    order = [lv for lv in (*LEVELS, "unsolvable") if levels[lv]]
    print(f"{name}: " + ", ".join(f"{levels[lv]} {lv}" for lv in order))
    return 0
