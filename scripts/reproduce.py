#!/usr/bin/env python
"""Reproduce the package's source studies, one sub-command each; result files under docs/results/reproductions/.

    python scripts/reproduce.py generalized [--ranks 3 4 5 6 7 8 9] [--count 10] [--limit 2]
    python scripts/reproduce.py human       [--count 10] [--limit 5] [--solvers human13 human63 backtracking]
    python scripts/reproduce.py preprocess  [--count 10] [--limit 5] [--seed 0]
    python scripts/reproduce.py ltn
    python scripts/reproduce.py page        # only render docs/reproductions.md from the result files

generalized: plain backtracking (its backtrack counter), Dancing Links on the study's matrix (its link updates) and
the package's portfolio on the first puzzles of each size of the study's set, under a per-puzzle CPU limit, beside
the study's recorded counts and times (data/generalized/paper_times/). human: the technique engine with the
human-strategies study's 13 techniques and with all 63 (both falling back to search when stuck) against plain
backtracking, per QQWing level. preprocess: the pre-processing study's six techniques, then the genetic algorithm on
what they leave (and on the raw puzzle), beside the exact solver. ltn: the LTN system's worked example boards,
recounted. Each writes its CSV files and a JSON of command, date, machine and peak memory, then renders
docs/reproductions.md (scripts/_reproductions_page.py; scripts/render_docs.py checks it). Times are CPU seconds
(time.process_time) of this process; progress goes to stderr, one line per puzzle.
"""

from __future__ import annotations

import argparse
import csv
import datetime
import os
import re
import sys
import time
from pathlib import Path
from typing import Any, Callable, Sequence

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


sys.path.insert(0, str(ROOT / "scripts"))  # its page module (also when this file is loaded as a module by the tests)
import _reproductions_page as page  # noqa: E402
from _machine import cpu_name, peak_rss_mb  # noqa: E402

from ltn_sudoku.board import Board  # noqa: E402
from ltn_sudoku.candidates import CandidateGrid  # noqa: E402
from ltn_sudoku.exact import backtracking, count_solutions, dlx, solve_within  # noqa: E402
from ltn_sudoku.genetic import GeneticConfig, GeneticResult  # noqa: E402
from ltn_sudoku.genetic import solve as genetic_solve  # noqa: E402
from ltn_sudoku.io import atomic_write_text, read_boards  # noqa: E402
from ltn_sudoku.io.strict_json import dumps  # noqa: E402
from ltn_sudoku.paths import DATA_DIR, DataNotFound, data_file  # noqa: E402
from ltn_sudoku.questions.engine import SEARCH_TECHNIQUE, Engine  # noqa: E402
from ltn_sudoku.questions.preprocess import PREPROCESSING_TECHNIQUES, preprocess  # noqa: E402
from ltn_sudoku.questions.tiers import singles_loop  # noqa: E402
from ltn_sudoku.techniques.registry import resolve  # noqa: E402

OUT = ROOT / "docs" / "results" / "reproductions"
PAGE = ROOT / "docs" / "reproductions.md"
GENERALIZED_SOLVERS = ("backtracking", "dlx", "portfolio")
# The human-strategies study's 13 techniques, as this package names them: singles, the naked and hidden subsets,
# both kinds of locked candidates, the two smallest fish and the Y-Wing (docs/reproductions.md says how they were
# chosen).
STUDY_13: tuple[str, ...] = (
    "Naked Single", "Hidden Single", "Naked Pair", "Naked Triple", "Naked Quadruple", "Hidden Pair", "Hidden Triple",
    "Hidden Quadruple", "Locked Candidates Type 1 (Pointing)", "Locked Candidates Type 2 (Claiming)", "X-Wing",
    "Swordfish", "XY-Wing")
HUMAN_SOLVERS = ("human13", "human63", "backtracking")
QQWING_LEVELS = ("simple", "easy", "intermediate", "expert")
PREPROCESS_SETS = ("qqwing_simple", "qqwing_easy", "qqwing_intermediate", "qqwing_expert", "top95")
# The LTN system's worked examples: the seed's (as the package names them) and a public LTN repository's, byte for byte
LTN_EXAMPLES: dict[str, str] = {
    "seed_4x4": "examples/seed_4x4.csv", "seed_9x9": "examples/seed_9x9.csv",
    **{f"repo_{name}": f"examples/sudoku-ltn-torch/exemplo_{name}.csv"
       for name in ("4x4_aberto_valido", "9x9_aberto_valido", "9x9_aberto_invalido", "4x4_fechado_valido",
                    "9x9_fechado_valido")}}


# ---- shared -----------------------------------------------------------------------------------------------------------
def machine() -> str:
    """The CPU model and count, for the result files."""
    return f"{cpu_name()}, {os.cpu_count()} CPUs"


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def write_csv(path: Path, rows: Sequence[dict[str, Any]], fields: Sequence[str]) -> None:
    lines = [",".join(fields)]
    for row in rows:
        lines.append(",".join(_csv_value(row[f]) for f in fields))
    atomic_write_text(path, "\n".join(lines) + "\n")


def _csv_value(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.6f}"
    text = str(value)
    return f'"{text}"' if ("," in text or '"' in text) else text


def record(args: argparse.Namespace, study: str, files: dict[str, tuple[Sequence[dict[str, Any]], Sequence[str]]],
           settings: dict[str, Any]) -> None:
    """The study's CSV files and its JSON (command, date, machine, peak memory, settings), then the page."""
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for name, (rows, fields) in files.items():
        write_csv(out / name, rows, fields)
    meta = {"command": "python scripts/reproduce.py " + " ".join(args.argv),
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "machine": machine(), "peak_rss_mib": round(peak_rss_mb()), "files": sorted(files), **settings}
    atomic_write_text(out / f"{study}.json", dumps(meta, indent=2) + "\n")
    say(f"[{study}] wrote {', '.join(str(out / f) for f in sorted(files))} and {study}.json "
        f"(peak memory {meta['peak_rss_mib']} MiB)")
    render(args)


def render(args: argparse.Namespace) -> None:
    atomic_write_text(Path(args.page), page.render(Path(args.out)))
    say(f"rendered {args.page}")


def keeps_givens(solution: Board, puzzle: Board) -> bool:
    return all(g == 0 or g == s for g, s in zip(puzzle.values, solution.values))


def is_answer(solution: Board | None, puzzle: Board) -> bool:
    return solution is not None and solution.is_valid_solution and keeps_givens(solution, puzzle)


# ---- generalized Sudoku -----------------------------------------------------------------------------------------------
def _backtracking(board: Board, limit: float) -> tuple[Board | None, int, bool]:
    got = backtracking.run(board, 1, deadline=time.process_time() + limit)
    return got.solution, got.backtracks, got.complete


def _dancing_links(board: Board, limit: float) -> tuple[Board | None, int, bool]:
    """The study's matrix and column rule, searched on past the first solution as the study's solver is (to two)."""
    got = dlx.run(board, 2, faithful=True, deadline=time.process_time() + limit)
    return got.solution, got.updates, got.complete


def _portfolio(board: Board, limit: float) -> tuple[Board | None, int, bool]:
    """The package's default exact solver; its work units (kernel dead ends, CaDiCaL conflicts) as iterations."""
    solution, work = solve_within(board, None)
    return solution, work, True


GENERALIZED: dict[str, Callable[[Board, float], tuple[Board | None, int, bool]]] = {
    "backtracking": _backtracking, "dlx": _dancing_links, "portfolio": _portfolio}
STUDY_FILES = {"backtracking": "SudokuBackTrackingSolver", "dlx": "SudokuExactCoverSolver"}


def study_runs(rank: int, solver: str) -> list[dict[str, str]]:
    """The study's recorded rows for a size and solver (data/generalized/paper_times/: the data home's full file,
    else the shipped one or its first-10 sample); [] when it recorded none."""
    stem = f"generalized/paper_times/sudoku_rank_{rank}_{STUDY_FILES[solver]}"
    for relative in (f"{stem}.csv", f"{stem}_first10.csv"):
        try:
            path = data_file(relative)
        except DataNotFound:
            continue
        with open(path, newline="", encoding="utf-8") as f:
            return list(csv.DictReader(f))
    return []


def run_generalized(args: argparse.Namespace) -> None:
    rows: list[dict[str, Any]] = []
    study: list[dict[str, Any]] = []
    study_rows: dict[str, int] = {}  # the study's recorded runs read per size and solver (the data home may hold all)
    for rank in args.ranks:
        n = rank * rank
        boards = read_boards(data_file(f"generalized/sudoku_rank_{rank}.csv"))[:args.count]
        for solver in STUDY_FILES:
            recorded_runs = study_runs(rank, solver)
            if recorded_runs:
                study_rows[f"{n}x{n} {solver}"] = min(len(recorded_runs), len(boards))
            for i, recorded in enumerate(recorded_runs[:len(boards)]):
                study.append({"size": n, "puzzle": i, "solver": solver, "iterations": int(recorded["num_updates"]),
                              "seconds": float(recorded["time_taken"]), "valid": recorded["is_valid"] == "True"})
        if boards and "portfolio" in args.solvers:
            _portfolio(boards[0], args.limit)  # untimed: numba loads the kernel's compiled code on its first call
        for i, board in enumerate(boards):
            for solver in args.solvers:
                start = time.process_time()
                solution, iterations, complete = GENERALIZED[solver](board, args.limit)
                seconds = time.process_time() - start
                solved = complete and solution is not None
                rows.append({"size": n, "puzzle": i, "solver": solver, "iterations": iterations, "seconds": seconds,
                             "solved": solved, "valid": is_answer(solution, board)})
                say(f"[generalized] {n}x{n} #{i} {solver}: {iterations:,} iterations, {seconds:.3f} s, "
                    f"{'solved' if solved else 'stopped at the limit'}")
    record(args, args.name, {
        f"{args.name}.csv": (rows, ("size", "puzzle", "solver", "iterations", "seconds", "solved", "valid")),
        f"{args.name}_study.csv": (study, ("size", "puzzle", "solver", "iterations", "seconds", "valid"))},
        {"limit_s": args.limit, "count": args.count, "ranks": args.ranks, "solvers": args.solvers,
         "study_rows": study_rows})


# ---- human strategies -------------------------------------------------------------------------------------------------
def _human(techniques: Sequence[str] | None) -> Callable[[Board, float], dict[str, Any]]:
    engine = Engine(list(techniques) if techniques else None, fallback=True)

    def run(board: Board, limit: float) -> dict[str, Any]:
        start = time.process_time()
        result = engine.solve(board)
        seconds = time.process_time() - start
        searched = sum(1 for s in result.steps if s.technique == SEARCH_TECHNIQUE)
        return {"seconds": seconds, "solved": result.solved and seconds <= limit and is_answer(result.final, board),
                "iterations": len(result.steps), "search_steps": searched, "needs_search": result.guessed,
                "level": result.level or "", "steps": [s.technique for s in result.steps]}
    return run


def _human_backtracking(board: Board, limit: float) -> dict[str, Any]:
    start = time.process_time()
    got = backtracking.run(board, 1, deadline=start + limit)
    return {"seconds": time.process_time() - start, "solved": got.complete and is_answer(got.solution, board),
            "iterations": got.backtracks, "search_steps": 0, "needs_search": True, "level": "", "steps": []}


def run_human(args: argparse.Namespace) -> None:
    solvers = {"human13": _human(STUDY_13), "human63": _human(None), "backtracking": _human_backtracking}
    rows: list[dict[str, Any]] = []
    shares: dict[tuple[str, str, str], list[int]] = {}  # (level, solver, technique) -> [steps, puzzles]
    for level in args.levels:
        boards = read_boards(data_file(f"9x9/qqwing_{level}.txt"))[:args.count]
        if level == args.levels[0]:
            for solver in args.solvers:  # untimed: the first call loads compiled code and caches
                solvers[solver](boards[0], args.limit)
        for i, board in enumerate(boards):
            for solver in args.solvers:
                got = solvers[solver](board, args.limit)
                rows.append({"difficulty": level, "puzzle": i, "solver": solver,
                             **{k: got[k] for k in ("iterations", "seconds", "solved", "needs_search",
                                                    "search_steps", "level")}})
                for technique in set(got["steps"]):
                    entry = shares.setdefault((level, solver, technique), [0, 0])
                    entry[0] += got["steps"].count(technique)
                    entry[1] += 1
                say(f"[human] {level} #{i} {solver}: {got['seconds']:.3f} s, {got['iterations']} "
                    f"{'backtracks' if solver == 'backtracking' else 'steps'}"
                    f"{', needs search' if got['needs_search'] and solver != 'backtracking' else ''}")
    technique_rows = [{"difficulty": lv, "solver": s, "technique": t, "steps": v[0], "puzzles": v[1]}
                      for (lv, s, t), v in sorted(shares.items())]
    record(args, "human", {
        "human.csv": (rows, ("difficulty", "puzzle", "solver", "iterations", "seconds", "solved", "needs_search",
                             "search_steps", "level")),
        "human_techniques.csv": (technique_rows, ("difficulty", "solver", "technique", "steps", "puzzles"))},
        {"limit_s": args.limit, "count": args.count, "levels": args.levels, "solvers": args.solvers,
         "study_13": list(STUDY_13)})


# ---- pre-processing + genetic algorithm -------------------------------------------------------------------------------
def _ga_fields(prefix: str, got: GeneticResult | None) -> dict[str, Any]:
    if got is None:
        return {f"{prefix}_solved": "", f"{prefix}_generations": "", f"{prefix}_seconds": "", f"{prefix}_conflicts": ""}
    return {f"{prefix}_solved": got.solved, f"{prefix}_generations": got.generations,
            f"{prefix}_seconds": got.seconds, f"{prefix}_conflicts": got.conflicts}


def run_preprocess(args: argparse.Namespace) -> None:
    config = GeneticConfig(seed=args.seed, max_generations=args.generations)
    rows: list[dict[str, Any]] = []
    for name in args.sets:
        boards = read_boards(data_file(f"9x9/{name}.txt"))[:args.count]
        if name == args.sets[0]:  # untimed: the first calls load compiled code and caches
            solve_within(boards[0], None)
            preprocess(boards[0])
        for i, board in enumerate(boards):
            start = time.process_time()
            processed = preprocess(board)
            pre_seconds = time.process_time() - start
            start = time.process_time()
            exact, _ = solve_within(board, None)
            exact_seconds = time.process_time() - start
            after = None if processed.solved else genetic_solve(processed.board, config,
                                                                 time.process_time() + args.limit)
            raw = genetic_solve(board, config, time.process_time() + args.limit)
            rows.append({"set": name, "puzzle": i, "givens": board.givens, "filled": processed.cells_filled,
                         "left": len(processed.board.empty_cells), "pre_seconds": pre_seconds,
                         "pre_solved": processed.solved, **_ga_fields("ga", after), **_ga_fields("raw_ga", raw),
                         "exact_seconds": exact_seconds,
                         "ga_matches_exact": "" if after is None or not after.solved else after.board == exact})
            say(f"[preprocess] {name} #{i}: filled {processed.cells_filled}, "
                + ("solved by the six techniques" if after is None else
                   f"GA {'solved' if after.solved else 'failed'} after {after.generations} generations "
                   f"({after.seconds:.2f} s)")
                + f"; GA on the raw puzzle {'solved' if raw.solved else 'failed'} ({raw.seconds:.2f} s)")
    fields = ("set", "puzzle", "givens", "filled", "left", "pre_seconds", "pre_solved", "ga_solved", "ga_generations",
              "ga_seconds", "ga_conflicts", "raw_ga_solved", "raw_ga_generations", "raw_ga_seconds",
              "raw_ga_conflicts", "exact_seconds", "ga_matches_exact")
    record(args, "preprocess", {"preprocess.csv": (rows, fields)},
           {"limit_s": args.limit, "count": args.count, "sets": args.sets, "seed": args.seed,
            "generations": args.generations, "techniques": list(PREPROCESSING_TECHNIQUES),
            "ga": {k: getattr(config, k) for k in config.__dataclass_fields__}})


# ---- the LTN system's worked examples -----------------------------------------------------------------------------
def singles_counts(board: Board) -> dict[str, int]:
    """What a plain recount finds on an open board as given: the open cells, the candidates, the naked singles, the
    hidden singles (by cell, and by unit and digit: a cell can be the one place in two or three units), the cells
    either kind places, and the cells the singles loop fills before it stops."""
    grid = CandidateGrid.from_board(board)
    naked_single, hidden_single = resolve(["Naked Single", "Hidden Single"])
    naked = {p for s in naked_single.finder(grid) for p in s.placements}
    hidden = {p for s in hidden_single.finder(grid) for p in s.placements}
    by_unit = 0
    for cells in grid.geo.units:
        for digit in range(1, board.n + 1):
            if digit in (board.values[c] for c in cells):
                continue
            by_unit += sum(1 for c in cells if board.values[c] == 0 and grid.has(c, digit)) == 1
    open_cells = board.empty_cells
    after = singles_loop(board)
    return {"open cells": len(open_cells), "candidates": sum(grid.count(c) for c in open_cells),
            "naked singles": len(naked), "hidden singles (cells)": len(hidden),
            "hidden singles (unit, digit)": by_unit, "cells placed by a single": len(naked | hidden),
            "cells the singles loop fills": len(open_cells) - len(after.empty_cells),
            "solved by singles": int(after.is_closed and after.is_valid_solution)}


def run_ltn(args: argparse.Namespace) -> None:
    boards, counts = [], []
    for name, relative in LTN_EXAMPLES.items():
        board = read_boards(DATA_DIR / relative)[0]
        solutions = count_solutions(board, 2) if board.is_consistent else 0
        boards.append({"board": name, "file": f"data/{relative}", "line": board.to_line(),
                       "givens_clash": not board.is_consistent, "solutions": solutions})
        if board.is_consistent and not board.is_closed:
            counts += [{"board": name, "figure": f, "ours": v} for f, v in singles_counts(board).items()]
        say(f"[ltn] {name}: {board.to_line()} ({solutions} solution{'s' if solutions != 1 else ''}"
            f"{', givens clash' if not board.is_consistent else ''})")
    record(args, "ltn", {"ltn_boards.csv": (boards, ("board", "file", "line", "givens_clash", "solutions")),
                         "ltn.csv": (counts, ("board", "figure", "ours"))}, {"boards": list(LTN_EXAMPLES)})


# ---- command line -----------------------------------------------------------------------------------------------------
def positive_float(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be positive, got {text}")
    return value


def positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {text}")
    return value


def run_name(text: str) -> str:
    if not re.fullmatch(r"generalized(_[a-z0-9]+)?", text) or text.endswith("_study"):
        raise argparse.ArgumentTypeError(f"expected generalized or generalized_WORD (a-z, 0-9), got {text!r}")
    return text


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="reproduce.py", description=__doc__.split("\n")[0])
    p.add_argument("--out", default=str(OUT), help="folder of the result files (default: %(default)s)")
    p.add_argument("--page", default=str(PAGE), help="the page rendered from them (default: %(default)s)")
    sub = p.add_subparsers(dest="study", required=True)
    g = sub.add_parser("generalized", help="backtracking vs Dancing Links vs the portfolio, 9x9 .. 81x81")
    g.add_argument("--ranks", type=int, nargs="+", default=list(range(3, 10)), choices=range(3, 10),
                   help="box sizes (3 = 9x9 .. 9 = 81x81; default: all)")
    g.add_argument("--count", type=positive_int, default=10, help="first puzzles of each size (default: 10)")
    g.add_argument("--limit", type=positive_float, default=2.0, help="CPU seconds per puzzle and solver (default: 2)")
    g.add_argument("--solvers", nargs="+", choices=GENERALIZED_SOLVERS, default=list(GENERALIZED_SOLVERS))
    g.add_argument("--name", type=run_name, default="generalized",
                   help="result files' stem (default: %(default)s); generalized_WORD is a further run the page shows "
                        "below the main one (other puzzles, solvers or limits)")
    h = sub.add_parser("human", help="the human solver (13 and 63 techniques) vs backtracking per QQWing level")
    h.add_argument("--levels", nargs="+", choices=QQWING_LEVELS, default=list(QQWING_LEVELS))
    h.add_argument("--count", type=positive_int, default=10, help="first puzzles of each level (default: 10)")
    h.add_argument("--limit", type=positive_float, default=5.0, help="CPU seconds per puzzle (default: 5)")
    h.add_argument("--solvers", nargs="+", choices=HUMAN_SOLVERS, default=list(HUMAN_SOLVERS))
    r = sub.add_parser("preprocess", help="the six techniques, then the genetic algorithm, beside the exact solver")
    r.add_argument("--sets", nargs="+", choices=PREPROCESS_SETS, default=list(PREPROCESS_SETS))
    r.add_argument("--count", type=positive_int, default=10, help="first puzzles of each set (default: 10)")
    r.add_argument("--limit", type=positive_float, default=5.0, help="CPU seconds per GA run (default: 5)")
    r.add_argument("--generations", type=positive_int, default=GeneticConfig().max_generations,
                   help="generations per GA run (default: %(default)s)")
    r.add_argument("--seed", type=int, default=0, help="the GA's seed (default: 0)")
    sub.add_parser("ltn", help="the LTN system's worked example boards, recounted")
    sub.add_parser("page", help="render docs/reproductions.md from the result files only")
    return p


RUNNERS: dict[str, Callable[[argparse.Namespace], None]] = {
    "generalized": run_generalized, "human": run_human, "preprocess": run_preprocess, "ltn": run_ltn,
    "page": render}


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parser().parse_args(argv)
    args.argv = argv
    try:
        RUNNERS[args.study](args)
    except (DataNotFound, ValueError, OSError) as e:
        print(f"reproduce.py: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
