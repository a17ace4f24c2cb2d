"""`ltn-sudoku generate`: labelled boards of one class (or all four, --mixed) written to a CSV file, atomically; or
puzzles made to order (--hardest TECHNIQUE, --level NAME, --tier N) with their solving paths (JSON Lines or CSV, and
the HTML report with --html).

Examples: ltn-sudoku generate --size 9 --kind open_impossible --subkind subtle --count 500 --givens 30-36 --out b.csv
          ltn-sudoku generate --hardest X-Wing --count 5 --out xwing.jsonl --html xwing.html
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from ltn_sudoku.board import DECIMAL, SYMBOLS
from ltn_sudoku.cli import UsageError
from ltn_sudoku.cli.common import capped_jobs, check_html_out, out_format, technique_names, write_results
from ltn_sudoku.cli.solve import result_dict
from ltn_sudoku.generate import CLASSES, GenerationError, LabelledBoard, generate, generate_mixed, write_csv
from ltn_sudoku.generate.solver import SOLVER_BACKENDS
from ltn_sudoku.io import BoardRecord
from ltn_sudoku.questions.engine import LEVELS
from ltn_sudoku.questions.made_to_order import FAMILY_CAP, NEIGHBOUR_BATCH, MadePuzzle, Maker, Order, collect
from ltn_sudoku.questions.tiers import TIER_FAMILIES
from ltn_sudoku.render.report import HtmlReport, step_pictures


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
                    "givens). Or make puzzles to order: unique puzzles whose hardest step in the engine's solve is "
                    "exactly --hardest TECHNIQUE (a name or alias, or 'Brute Force'), whose level is --level or whose "
                    "tier is --tier, each with its solving path: JSON Lines (.jsonl, every step) or CSV (.csv, steps "
                    "per technique), and the HTML report with --html. The same options and seed give the same file.",
    )
    p.add_argument("--size", type=int, default=9, help="board side n: 4, 9, 16, 25, ... (default 9)")
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--kind", metavar="CLASS", help=f"class of the boards: {', '.join(CLASSES)}")
    what.add_argument("--mixed", action="store_true", help="the four classes in equal shares, kinds mixed")
    what.add_argument("--hardest", metavar="TECHNIQUE",
                      help="made to order: unique puzzles whose hardest step in the engine's solve is TECHNIQUE")
    what.add_argument("--level", choices=LEVELS, help="made to order: unique puzzles of this level (HoDoKu's scale)")
    what.add_argument("--tier", type=int, choices=sorted(TIER_FAMILIES),
                      help="made to order: unique puzzles of this reasoning tier (docs/tiers.md)")
    p.add_argument("--subkind", metavar="KIND",
                   help="kind within the class (default: all its kinds in equal shares), e.g. swap, subtle")
    p.add_argument("--count", type=int, required=True, help="number of boards")
    p.add_argument("--out", type=Path, required=True, metavar="FILE",
                   help="CSV file to write (made to order: .jsonl with the solving paths, or .csv)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--givens", type=_givens_range, metavar="LOW-HIGH",
                   help="givens count of open boards, inclusive (default depends on the size: 24-40 for 9x9)")
    p.add_argument("--no-unique", dest="unique", action="store_false",
                   help="open_solvable: mix puzzles with one and with several solutions (default: unique only); "
                        "half the open_impossible boards then start from random subsets alike")
    p.add_argument("--workers", type=int, default=1, help="processes that make the boards (default 1)")
    p.add_argument("--symbols", choices=SYMBOLS, default=DECIMAL,
                   help="how boards above 9x9 are written: decimal (two digits per cell), digits-letters (1-9 then "
                        "A-G for 16x16, A-P for 25x25) or letters (A-P, A-Y)")
    p.add_argument("--backend", choices=SOLVER_BACKENDS, default="auto",
                   help="exact solver: auto (compiled kernel) or python (reference search)")
    p.add_argument("--neighbours", type=int, default=NEIGHBOUR_BATCH, metavar="K",
                   help="made to order: variants tried around each accepted puzzle (one given moved, removed or "
                        "added; they share its solution grid); 0 makes every puzzle from a fresh grid "
                        f"(default {NEIGHBOUR_BATCH})")
    p.add_argument("--per-grid", type=int, default=FAMILY_CAP, metavar="K",
                   help="made to order: puzzles at most per solution grid (a fresh grid or an exemplar's, with the "
                        f"neighbours grown from it; default {FAMILY_CAP})")
    p.add_argument("--no-exemplars", dest="exemplars", action="store_false",
                   help="made to order: do not grow puzzles from HoDoKu's exemplars of the technique (under a random "
                        "symmetry; the exemplars themselves are never written): only from fresh grids")
    p.add_argument("--time-limit", type=float, metavar="SECONDS",
                   help="made to order: stop after SECONDS of wall time with the puzzles found (exit status 1 when "
                        "they are fewer than --count); Ctrl-C also writes them (exit 130). Default: no limit")
    p.add_argument("--html", type=Path, metavar="REPORT.html",
                   help="made to order: also write the HTML report, every puzzle's solving path drawn step by step")
    return p


MADE_TO_ORDER_COLUMNS = ("index", "puzzle", "solution", "givens", "hardest", "level", "score", "origin", "family",
                         "steps")


def _order(args: argparse.Namespace) -> Order:
    """The order of --hardest / --level / --tier; the options of labelled boards are refused beside it."""
    for option, default in (("subkind", None), ("unique", True), ("workers", 1), ("backend", "auto")):
        if getattr(args, option) != default:
            flag = {"unique": "--no-unique"}.get(option, "--" + option)
            raise UsageError(f"{flag} is an option of labelled boards (--kind, --mixed), not of puzzles made to order")
    if args.neighbours < 0:
        raise UsageError(f"--neighbours {args.neighbours}: expected 0 or more")
    hardest = technique_names(args.hardest, "--hardest") if args.hardest is not None else None
    if hardest is not None and len(hardest) != 1:
        raise UsageError(f"--hardest {args.hardest}: expected one technique")
    return Order(hardest=hardest[0] if hardest else None, level=args.level, tier=args.tier)


def _made_row(index: int, made: MadePuzzle, kind: str, symbols: str) -> dict[str, object]:
    """One puzzle's row: the solve's JSON (cli/solve.py result_dict: every step) in JSON Lines, steps per technique
    in CSV."""
    result = made.result
    counts = result.technique_counts
    row: dict[str, object] = {
        "index": index, "puzzle": made.puzzle.to_line(symbols), "solution": made.solution.to_line(symbols),
        "givens": made.puzzle.givens, "hardest": result.hardest, "level": result.level, "score": result.score,
        "origin": made.origin, "family": made.family}
    if kind == "csv":
        return {**row, "steps": "; ".join(f"{name}={count}" for name, count in counts.items())}
    path = result_dict(index, BoardRecord(made.puzzle, index + 1), result, symbols)
    return {**row, "technique_steps": counts, "steps": path["steps"]}


def run_to_order(args: argparse.Namespace) -> int:
    """`generate --hardest/--level/--tier`: puzzles made to order, written with their solving paths."""
    kind = out_format(args.out)
    html = check_html_out(args.html) if args.html is not None else None
    order = _order(args)
    if args.count < 1:
        raise UsageError(f"--count {args.count}: expected a positive number of puzzles")
    if args.time_limit is not None and args.time_limit <= 0:
        raise UsageError(f"--time-limit {args.time_limit}: expected a positive number of seconds")
    try:
        maker = Maker(order, args.size, args.seed, neighbours=args.neighbours, givens=args.givens,
                      exemplars=args.exemplars, family_cap=args.per_grid)
    except ValueError as e:  # a size, givens range or cap the generator cannot use
        raise UsageError(str(e)) from None
    made: list[MadePuzzle] = []
    interrupted = False
    try:
        collect(maker, args.count, made, args.time_limit, progress=sys.stderr.isatty())
    except KeyboardInterrupt:  # the puzzles found so far are written all the same
        interrupted = True
    rows = [_made_row(i, m, kind, args.symbols) for i, m in enumerate(made)]
    write_results(args.out, kind, rows, columns=MADE_TO_ORDER_COLUMNS)
    if html is not None:
        try:
            with HtmlReport(html, title=f"ltn-sudoku generate: {order}") as report:
                for i, m in enumerate(made):
                    data = result_dict(i, BoardRecord(m.puzzle, i + 1), m.result, args.symbols)
                    report.add(data, step_pictures(m.result.puzzle, m.result.steps))
        except OSError as e:
            raise UsageError(f"--html {html}: cannot write ({e.strerror or e})") from None
    origins = ", ".join(f"{k}: {v}" for k, v in sorted(Counter(m.origin for m in made).items()))
    print(f"{len(made)} puzzles, {order}{f' ({origins})' if origins else ''} -> {args.out}"
          + (f", {html}" if html is not None else ""))
    if interrupted or len(made) < args.count:
        why = "interrupted" if interrupted else f"--time-limit {args.time_limit:g} s reached"
        print(f"note: {why}: {len(made)} of {args.count} puzzles written", file=sys.stderr)
        return 130 if interrupted else 1
    return 0


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
    if args.hardest is not None or args.level is not None or args.tier is not None:
        return run_to_order(args)
    for flag, given in (("--html", args.html is not None), ("--neighbours", args.neighbours != NEIGHBOUR_BATCH),
                        ("--no-exemplars", not args.exemplars), ("--per-grid", args.per_grid != FAMILY_CAP),
                        ("--time-limit", args.time_limit is not None)):
        if given:
            raise UsageError(f"{flag} goes with puzzles made to order (--hardest, --level, --tier)")
    if args.out.is_dir():
        raise UsageError(f"--out {args.out}: is a directory: expected a file name")
    try:
        records = _make(args)
    except GenerationError as e:  # bad option values, unreachable givens ranges
        raise UsageError(str(e)) from None
    write_csv(args.out, records, args.symbols)
    kinds = Counter(f"{r.label}/{r.kind}" for r in records)
    print(f"{len(records)} boards ({', '.join(f'{k}: {v}' for k, v in sorted(kinds.items()))}) -> {args.out}")
    return 0
