"""`ltn-sudoku generate`: labelled boards of one class (or all four, --mixed) written to a CSV file, atomically.

Example: ltn-sudoku generate --size 9 --kind open_impossible --subkind subtle --count 500 --givens 30-36 --out b.csv
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from ltn_sudoku.cli import UsageError
from ltn_sudoku.cli.common import capped_jobs
from ltn_sudoku.generate import CLASSES, GenerationError, LabelledBoard, generate, generate_mixed, write_csv
from ltn_sudoku.generate.solver import SOLVER_BACKENDS


def _givens_range(text: str) -> tuple[int, int]:
    """'30-36' or '30' as an inclusive (low, high) range."""
    low, sep, high = text.partition("-")
    try:
        bounds = (int(low), int(high) if sep else int(low))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected LOW-HIGH (e.g. 30-36) or one number") from None
    return bounds


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "generate",
        help="labelled boards of the four classes (training data), checked by the exact solver",
        description="Generate boards of one class (--kind) or of all four in equal shares (--mixed), every label "
                    "checked by the exact solver, and write them as CSV (puzzle, solution, label, kind, size, "
                    "givens). The same options and seed give the same file.",
    )
    p.add_argument("--size", type=int, default=9, help="board side n: 4, 9, 16, 25, ... (default 9)")
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--kind", metavar="CLASS", help=f"class of the boards: {', '.join(CLASSES)}")
    what.add_argument("--mixed", action="store_true", help="the four classes in equal shares, kinds mixed")
    p.add_argument("--subkind", metavar="KIND",
                   help="kind within the class (default: all its kinds in equal shares), e.g. swap, subtle")
    p.add_argument("--count", type=int, required=True, help="number of boards")
    p.add_argument("--out", type=Path, required=True, metavar="FILE", help="CSV file to write")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--givens", type=_givens_range, metavar="LOW-HIGH",
                   help="givens count of open boards, inclusive (default depends on the size: 24-40 for 9x9)")
    p.add_argument("--no-unique", dest="unique", action="store_false",
                   help="open_solvable: mix puzzles with one and with several solutions (default: unique only); "
                        "half the open_impossible boards then start from random subsets alike")
    p.add_argument("--workers", type=int, default=1, help="processes that make the boards (default 1)")
    p.add_argument("--backend", choices=SOLVER_BACKENDS, default="auto",
                   help="exact solver: auto (compiled kernel) or python (reference search)")
    return p


def _make(args: argparse.Namespace) -> list[LabelledBoard]:
    progress = sys.stderr.isatty()
    if args.workers >= 1:  # below 1 the generator's own check says so
        args.workers = capped_jobs(args.workers, "--workers")
    if args.mixed:
        if args.subkind is not None:
            raise UsageError("--subkind needs --kind: --mixed mixes every kind")
        return generate_mixed(args.size, args.count, args.seed, unique=args.unique, givens=args.givens,
                              progress=progress, backend=args.backend, workers=args.workers)
    return generate(args.size, args.kind, args.count, args.seed, kind=args.subkind, unique=args.unique,
                    givens=args.givens, progress=progress, backend=args.backend, workers=args.workers)


def run(args: argparse.Namespace) -> int:
    if args.out.is_dir():
        raise UsageError(f"--out {args.out}: is a directory: expected a file name")
    try:
        records = _make(args)
    except GenerationError as e:  # bad option values, unreachable givens ranges
        raise UsageError(str(e)) from None
    write_csv(args.out, records)
    kinds = Counter(f"{r.label}/{r.kind}" for r in records)
    print(f"{len(records)} boards ({', '.join(f'{k}: {v}' for k, v in sorted(kinds.items()))}) -> {args.out}")
    return 0
