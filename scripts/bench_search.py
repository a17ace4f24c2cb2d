"""LTN-guided search against the node budget, beside the exact solver's own search on the same puzzles.

    python scripts/bench_search.py --checkpoint checkpoints/9x9.pt --puzzles 200 --budget 256

For each puzzle set (seeded samples of public files in the data home's 9x9/, and generated sparse impossible boards) it
runs ltn_sudoku.logic.board.search.guided_search once with the largest budget and records the nodes it refined; the
search is deterministic, so a puzzle counts as solved within budget b when it was solved with at most b nodes (a
lower bound: the cut batch at b could also hold the solution). Printed per set: solved share per budget, median and
95th-percentile CPU seconds and nodes of the solved puzzles, refutations (impossible boards), wrong "solved" boards
(checked against the exact solver) and false refutations of solvable puzzles. Beside it, in the same process: the
exact solver's node count on the same puzzles, from the pure-Python reference search (ltn_sudoku/exact/search.py:
naked and hidden singles plus box-line reduction at every node, branching on a cell with fewest candidates), counted
until its first solution; and the singles loop's solved share. Peak memory: the process's maximum resident set.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ltn_sudoku.board import Board  # noqa: E402
from ltn_sudoku.exact import count_solutions  # noqa: E402
from ltn_sudoku.exact import search as reference  # noqa: E402
from ltn_sudoku.generate import generate  # noqa: E402
from ltn_sudoku.io import read_boards  # noqa: E402
from ltn_sudoku.logic.board.evaluate import PUBLIC_SETS, sample_public  # noqa: E402
from ltn_sudoku.logic.board.search import guided_search  # noqa: E402
from ltn_sudoku.logic.kinds import load_model  # noqa: E402
from ltn_sudoku.paths import data_file  # noqa: E402
from ltn_sudoku.questions.tiers import singles_loop_batch  # noqa: E402
from scripts._machine import machine_line  # noqa: E402

BUDGETS = (1, 4, 16, 64, 256, 1024)


def reference_nodes(board: Board) -> int:
    """Search nodes of the pure-Python exact solver until its first solution (every call of its recursion)."""
    calls = 0
    original = reference._search

    def counted(*args: object) -> int:
        nonlocal calls
        calls += 1
        return original(*args)  # type: ignore[arg-type]

    reference._search = counted  # type: ignore[assignment]
    try:
        reference.solutions(board, 1)
    finally:
        reference._search = original  # type: ignore[assignment]
    return calls


def run_set(name: str, boards: list[Board], model: torch.nn.Module, budget: int, rule: str) -> dict[str, object]:
    rows = []
    for board in boards:
        result = guided_search(model, board, budget=budget, branch_on=rule)
        truth = count_solutions(board, 2)
        solution = reference.solve(board) if truth else None
        rows.append({"verdict": result.verdict, "nodes": result.nodes, "cpu": result.cpu_seconds, "truth": truth,
                     "wrong": result.verdict == "solved" and result.board != solution,
                     "false_refutation": result.verdict == "refuted" and truth > 0,
                     "exact_nodes": reference_nodes(board) if truth else np.nan})
    frame = pd.DataFrame(rows)
    solvable = frame[frame.truth > 0]
    solved = solvable[solvable.verdict == "solved"]
    out: dict[str, object] = {"set": name, "puzzles": len(frame)}
    if len(solvable):
        puzzles = np.array([b.values for b, t in zip(boards, frame.truth) if t > 0])
        out["singles loop"] = float((singles_loop_batch(puzzles, boards[0].n) > 0).all(1).mean())
        for b in BUDGETS:
            if b <= budget:
                out[f"solved@{b}"] = float(((solvable.verdict == "solved") & (solvable.nodes <= b)).mean())
        out["median CPU s"] = float(solved.cpu.median()) if len(solved) else np.nan
        out["p95 CPU s"] = float(solved.cpu.quantile(0.95)) if len(solved) else np.nan
        out["median nodes"] = float(solved.nodes.median()) if len(solved) else np.nan
        out["p95 nodes"] = float(solved.nodes.quantile(0.95)) if len(solved) else np.nan
        out["exact median nodes"] = float(solvable.exact_nodes.median())
        out["exact p95 nodes"] = float(solvable.exact_nodes.quantile(0.95))
    impossible = frame[frame.truth == 0]
    if len(impossible):
        out["refuted"] = float((impossible.verdict == "refuted").mean())
    out["wrong solved"] = int(frame.wrong.sum())
    out["false refutations"] = int(frame.false_refutation.sum())
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkpoint", default="checkpoints/9x9.pt")
    parser.add_argument("--puzzles", type=int, default=200, help="puzzles per set (seeded sample)")
    parser.add_argument("--budget", type=int, default=256, help="largest node budget")
    parser.add_argument("--sets", default="seventeen_clue,top1465,forum_hardest",
                        help=f"public sets, comma-separated, of: {', '.join(PUBLIC_SETS)}")
    parser.add_argument("--impossible", type=int, default=100, help="generated sparse subtle impossible boards")
    parser.add_argument("--branch-on", default="fewest_digits", choices=("fewest_digits", "least_sure"))
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    torch.set_num_threads(1)
    print(machine_line())
    model = load_model(args.checkpoint, 9)[0]
    started = time.process_time()
    rows = []
    for name in [s for s in args.sets.split(",") if s]:
        boards = sample_public(read_boards(data_file(PUBLIC_SETS[name])), args.puzzles, args.seed)
        rows.append(run_set(name, boards, model, args.budget, args.branch_on))
        print(f"{name}: done ({time.process_time() - started:.0f} CPU s)", file=sys.stderr)
    if args.impossible:
        boards = [r.board for r in generate(9, "open_impossible", args.impossible, args.seed, kind="subtle",
                                            givens=(17, 29))]
        rows.append(run_set("generated subtle impossible 17-29", boards, model, args.budget, args.branch_on))
    table = pd.DataFrame(rows).set_index("set")
    print(f"checkpoint {args.checkpoint}, branch on {args.branch_on}, budget up to {args.budget} refined boards")
    print(table.T.to_string(float_format=lambda x: f"{x:.3f}"))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"total CPU {time.process_time() - started:.0f} s, peak memory {peak:.0f} MB")


if __name__ == "__main__":
    main()
