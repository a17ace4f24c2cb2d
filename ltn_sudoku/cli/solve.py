"""`ltn-sudoku solve`: solve boards with human techniques, explained step by step (`--explain`), with the search
fallback reported as such, a level and score per puzzle, and the memory tracker's statistics (`--stats`)."""

from __future__ import annotations

import argparse
from contextlib import nullcontext
from pathlib import Path
from typing import Sequence, cast

from ltn_sudoku.candidates import CandidateGrid
from ltn_sudoku.cli import UsageError
from ltn_sudoku.cli.common import (
    AUTO_SYMBOLS,
    add_device_argument,
    add_engine_arguments,
    add_input_arguments,
    check_html_out,
    engine_from_args,
    out_format,
    output_symbols,
    progress,
    read_input,
    write_results,
)
from ltn_sudoku.io import BoardRecord, parse_board_text, strict_json
from ltn_sudoku.io.writers import atomic_write_text
from ltn_sudoku.questions.engine import Engine, SolveResult
from ltn_sudoku.questions.memory import MemoryTracker
from ltn_sudoku.render import step_svg
from ltn_sudoku.render.report import HtmlReport, step_pictures


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "solve",
        help="Q3: solve with human techniques, explained step by step",
        description="Solve boards the way a person would: the easiest technique that makes progress, restarting "
                    "from the easiest after each step. When no technique applies, one cell is taken from exact "
                    "search and the path is marked 'guessed'. Prints the level and score (HoDoKu's scale).",
    )
    add_input_arguments(p)
    add_engine_arguments(p)
    p.add_argument("--explain", action="store_true", help="print every step of the solving path")
    p.add_argument("--json", action="store_true", help="print one JSON object per board (JSON Lines)")
    p.add_argument("--svg", type=Path, metavar="DIR",
                   help="--explain: also draw every step as DIR/board<B>_step<S>.svg (HoDoKu's colours)")
    p.add_argument("--html", type=Path, metavar="REPORT.html",
                   help="--explain: also write one self-contained HTML page (opens from disk, no network) with each "
                        "board's solving path to step through (buttons, arrow keys), every step drawn")
    p.add_argument("--no-fallback", action="store_true", help="stop when no technique applies instead of searching")
    p.add_argument("--stats", action="store_true", help="print the per-technique statistics at the end")
    p.add_argument("--stats-out", type=Path, metavar="FILE", help="write the statistics to FILE (.csv or .json)")
    p.add_argument("--out", type=Path, metavar="FILE", help="write the results to FILE (.csv or .jsonl)")
    p.add_argument("--ltn", action="store_true",
                   help="solve with LTN-guided search instead: the shipped model's hasValue refines and orders the "
                        "branches, contradictions come from the rule axioms; never the exact solver or the engine")
    p.add_argument("--budget", type=int, default=256, metavar="NODES",
                   help="--ltn: boards the search may refine before it gives up (default: 256)")
    p.add_argument("--checkpoint", type=Path, metavar="PT", help="--ltn: a model checkpoint (default: the shipped one)")
    p.add_argument("--complete", action="store_true",
                   help="--ltn: the complete solver instead (ltn_sudoku/branching): the KB's crisp rules propagate, "
                        "hasValue orders the digits; ends with the solution or a proof of none, no budget")
    add_device_argument(p)
    return p


def result_dict(index: int, record: BoardRecord, result: SolveResult,
                symbols: str = AUTO_SYMBOLS) -> dict[str, object]:
    """JSON-ready result of one board: steps with 0-based [row, col, digit] triples; boards above 9x9 written in
    `symbols` (--symbols: as the board was read by default)."""
    geo = record.board.geometry
    written = output_symbols(symbols, record)
    return {
        "index": index,
        "line": record.line,
        "size": record.board.n,
        "board": record.board.to_line(written),
        "solutions": result.solutions,
        "solved": result.solved,
        "guessed": result.guessed,
        "level": result.level,
        "score": result.score,
        "solution": result.final.to_line(written) if result.solved and result.final is not None else None,
        "reason": result.reason,
        "candidates": {"start": result.start.as_dict() if result.start else None,
                       "end": result.end.as_dict() if result.end else None},
        "steps": [s.as_dict(geo) for s in result.steps],
    }


def outcome(result: SolveResult) -> str:
    """One phrase for how the board ended."""
    if result.solved:
        how = "with search (guessed)" if result.guessed else "by logic"
        return f"solved {how}: level {result.level}, score {result.score}, {len(result.steps)} steps"
    left = f"; left: {result.end}" if result.end is not None and result.end.unresolved else ""
    return f"not solved: {result.reason}{left}"


def _text(name: str, result: SolveResult, explain: bool, symbols: str) -> str:
    lines = [f"{name}: {outcome(result)}"]
    if result.start is not None:
        lines.append(f"  candidates at the start: {result.start}")
    if explain:
        width = len(str(len(result.steps)))
        lines += [f"  {i:>{width}}. {s.text}" for i, s in enumerate(result.steps, 1)]
    if result.final is not None:
        lines.append(result.final.draw(symbols=symbols))
    return "\n".join(lines)


def check_svg_folder(directory: Path) -> None:
    """--svg DIR before any work: a folder, new or without step pictures, so that no file this command did not make
    is ever replaced (an earlier run's board1_step1.svg is the user's now)."""
    if directory.exists() and not directory.is_dir():
        raise UsageError(f"--svg {directory}: not a folder")
    earlier = sorted(directory.glob("board*_step*.svg")) if directory.is_dir() else []
    if earlier:
        raise UsageError(f"--svg {directory}: holds {len(earlier)} step picture(s) already ({earlier[0].name}, ...); "
                         "nothing is replaced: choose a new folder or remove them")


def write_step_svgs(directory: Path, board_number: int, result: SolveResult) -> int:
    """Every step of the path drawn on the grid it was found in (the path replayed from the puzzle); the count. A
    board whose givens clash has no path: nothing to draw."""
    directory.mkdir(parents=True, exist_ok=True)
    if not result.steps:
        return 0
    grid = CandidateGrid.from_board(result.puzzle)
    width = len(str(len(result.steps)))
    for i, step in enumerate(result.steps, 1):
        atomic_write_text(directory / f"board{board_number}_step{i:0{width}}.svg", step_svg(grid, step))
        grid.apply(step)
    return len(result.steps)


def _stats_out(path: Path) -> str:
    kind = {".csv": "csv", ".json": "json"}.get(path.suffix.lower())
    if kind is None or path.is_dir():
        raise UsageError(f"--stats-out {path}: expected a .csv or .json file name")
    return kind


def run_ltn(args: argparse.Namespace) -> int:
    """`solve --ltn`: LTN-guided search per board; the verdict, the board found and what it cost."""
    from ltn_sudoku.logic.board.answer import complete_solver_line
    from ltn_sudoku.logic.board.predict import LtnPredictor
    from ltn_sudoku.logic.board.search import guided_search
    from ltn_sudoku.logic.checkpoints import CheckpointError

    if args.budget < 1:
        raise UsageError(f"--budget {args.budget}: expected a positive number of boards")
    out_kind = out_format(args.out) if args.out is not None else None
    name, records = read_input(args)
    models: dict[int, LtnPredictor | None] = {}
    results = []
    for index, record in enumerate(progress(records, writing_file=out_kind is not None)):
        n = record.board.n
        if n not in models:
            try:
                models[n] = (LtnPredictor.load(args.checkpoint, n, args.device) if args.checkpoint
                             else LtnPredictor.for_size(n, args.device))
            except CheckpointError as e:
                raise UsageError(str(e)) from None
        predictor = models[n]
        data: dict[str, object] = {"index": index, "line": record.line, "size": n,
                                   "board": record.board.to_line(output_symbols(args.symbols, record))}
        if predictor is None:
            data.update(available=False, reason=LtnPredictor.unavailable_reason(n))
        elif args.complete:
            data.update(predictor.complete_solver(record.board))  # classify-board's ltn.complete_solver
        else:
            data.update(guided_search(predictor.model, record.board, budget=args.budget).as_dict())
        if out_kind is not None:
            results.append(data)
        elif args.json:
            print(strict_json.dumps(data), flush=True)
        else:
            title = name if len(records) == 1 else f"{name}, board {index + 1} (line {record.line})"
            if "verdict" not in data:
                print(f"{title}: {data['reason']}\n", flush=True)
                continue
            found = (cast(list, data["solutions"]) or [None])[0] if args.complete else data["solution"]
            line = (f"{title}: {complete_solver_line(data)}" if args.complete else
                    f"{title}: LTN-guided search {data['verdict']} after {data['nodes']} refined boards "
                    f"({data['branches']} branchings, {data['cpu_seconds']} CPU s)")
            print(line + (f"\n{parse_board_text(str(found)).draw()}" if found else "") + "\n", flush=True)
    if out_kind is not None:
        write_results(args.out, out_kind, results)
        solved = sum(r.get("verdict") == "solved" for r in results)
        print(f"{name}: {len(results)} boards, {solved} solved by LTN-guided search -> {args.out}")
    return 0


def _solve_all(args: argparse.Namespace, engine: Engine, name: str, records: Sequence[BoardRecord],
               out_kind: str | None, html: HtmlReport | None) -> list[dict[str, object]]:
    """Solve each board; print it (text or JSON), draw it (--svg, --html) or keep its row for --out."""
    results = []
    for index, record in enumerate(progress(records, writing_file=out_kind is not None)):
        result = engine.solve(record.board)
        data = result_dict(index, record, result, args.symbols)
        if args.svg is not None:
            write_step_svgs(args.svg, index + 1, result)
        if html is not None:
            html.add(data, step_pictures(result.puzzle, result.steps))
        if out_kind is not None:
            results.append(data if out_kind == "jsonl" else {**data, "steps": len(result.steps)})
        elif args.json:
            print(strict_json.dumps(data), flush=True)
        else:
            title = name if len(records) == 1 else f"{name}, board {index + 1} (line {record.line})"
            print(_text(title, result, args.explain, output_symbols(args.symbols, record)) + "\n", flush=True)
    return results


def run(args: argparse.Namespace) -> int:
    if args.complete and not args.ltn:
        raise UsageError("--complete goes with --ltn (the complete LTN-guided solver)")
    for option in ("svg", "html"):
        if getattr(args, option) is not None and (args.ltn or not args.explain):
            raise UsageError(f"--{option} goes with --explain (and not with --ltn)")
    if args.html is not None:
        check_html_out(args.html)
    if args.svg is not None:
        check_svg_folder(args.svg)
    if args.ltn:
        return run_ltn(args)
    out_kind = out_format(args.out) if args.out is not None else None
    stats_kind = _stats_out(args.stats_out) if args.stats_out is not None else None
    tracker = MemoryTracker()
    engine = engine_from_args(args, tracker, fallback=not args.no_fallback)
    name, records = read_input(args)
    try:
        with HtmlReport(args.html, title=f"ltn-sudoku solve: {name}") if args.html is not None else nullcontext() \
                as html:
            results = _solve_all(args, engine, name, records, out_kind, html)
    except OSError as e:  # --html or --svg cannot be written: the page is left out (AtomicFile), nothing half-written
        option = f"--svg {args.svg}" if args.svg is not None and args.html is None else f"--html {args.html}"
        raise UsageError(f"{option}: cannot write ({e.strerror or e})") from None
    if args.html is not None:
        print(f"{name}: {len(records)} boards, every step drawn -> {args.html}")
    if out_kind is not None:
        write_results(args.out, out_kind, results)
        solved = sum(bool(r["solved"]) for r in results)
        print(f"{name}: {len(results)} boards, {solved} solved -> {args.out}")
    if args.stats:
        print(tracker.summary())
    if stats_kind == "csv":
        tracker.to_csv(args.stats_out)
    elif stats_kind == "json":
        tracker.to_json(args.stats_out)
    return 0
