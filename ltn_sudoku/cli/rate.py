"""`ltn-sudoku rate`: level, score, hardest technique and steps per technique of every puzzle (HoDoKu's scale), one
line each, filtered on them on request, and the level distribution."""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from ltn_sudoku.cli.common import (
    add_engine_arguments,
    add_input_arguments,
    engine_from_args,
    out_format,
    output_symbols,
    progress,
    read_input,
    technique_names,
    write_results,
)
from ltn_sudoku.questions.engine import LEVELS, SolveResult

UNSOLVABLE = "unsolvable"
COLUMNS = ("puzzle", "level", "score", "guessed", "hardest", "steps")


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "rate",
        help="difficulty level, score and hardest technique of every puzzle",
        description="Rate puzzles by the techniques a person needs: level (Easy, Medium, Hard, Unfair, Extreme), "
                    "score (in the spirit of HoDoKu), the hardest technique of the engine's solving path and its steps "
                    "per technique; 'guessed' marks puzzles that needed search. --hardest, --uses and --level keep "
                    "only the puzzles that match (technique names or aliases: docs/reference/techniques.md).",
    )
    add_input_arguments(p)
    add_engine_arguments(p)
    p.add_argument("--out", type=Path, metavar="FILE",
                   help="write puzzle,level,score,guessed,hardest,steps to FILE (.csv/.jsonl; steps per technique: "
                        "'name=count; ...' in CSV, an object in JSON Lines)")
    p.add_argument("--hardest", metavar="NAMES",
                   help="keep the puzzles whose hardest technique is one of NAMES (comma-separated; 'Brute Force' for "
                        "those that needed search)")
    p.add_argument("--uses", metavar="NAMES", help="keep the puzzles whose path uses every technique of NAMES")
    p.add_argument("--level", choices=(*LEVELS, UNSOLVABLE), help="keep the puzzles of this level")
    p.add_argument("--steps", action="store_true",
                   help="print each puzzle's steps per technique under its line (--out files always hold them)")
    return p


def _matches(args: argparse.Namespace, result: SolveResult, hardest: set[str] | None, uses: set[str]) -> bool:
    level = result.level or UNSOLVABLE
    return ((hardest is None or result.hardest in hardest) and uses <= result.technique_counts.keys()
            and (args.level is None or level == args.level))


def _steps_text(counts: dict[str, int]) -> str:
    return "; ".join(f"{name}={count}" for name, count in counts.items())


def run(args: argparse.Namespace) -> int:
    out_kind = out_format(args.out) if args.out is not None else None
    engine = engine_from_args(args)
    hardest = set(technique_names(args.hardest, "--hardest")) if args.hardest is not None else None
    uses = set(technique_names(args.uses, "--uses")) if args.uses is not None else set()
    name, records = read_input(args)
    rows: list[dict[str, object]] = []
    levels: Counter[str] = Counter()
    for record in progress(records, writing_file=True):
        result = engine.solve(record.board)
        if not _matches(args, result, hardest, uses):
            continue
        level = result.level or UNSOLVABLE
        levels[level] += 1
        counts = result.technique_counts
        row = {"puzzle": record.board.to_line(output_symbols(args.symbols, record)), "level": level,
               "score": result.score, "guessed": result.guessed, "hardest": result.hardest,
               "steps": counts if out_kind == "jsonl" else _steps_text(counts)}
        rows.append(row)
        if out_kind is None:
            steps = f"\n  steps: {_steps_text(counts)}" if args.steps else ""
            print(f"{row['puzzle']}  {level:<10} {result.score:>6}  {result.hardest or '-'}"
                  f"{'  guessed' if result.guessed else ''}{steps}", flush=True)
    if out_kind is not None:
        write_results(args.out, out_kind, rows, columns=COLUMNS)
    order = [lv for lv in (*LEVELS, UNSOLVABLE) if levels[lv]]
    matched = "" if len(rows) == len(records) else f"{len(rows)} of {len(records)} puzzles match: "
    print(f"{name}: {matched}" + (", ".join(f"{levels[lv]} {lv}" for lv in order) or "none"))
    return 0
