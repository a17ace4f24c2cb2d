"""Benchmark: CPU ms per board of classify-board's answers on real Kaggle rows (the shipped data/kaggle/ sample), with
and without the LTN answers; the LTN answers board by board (the baseline) against many boards per batch, in the same
process, on the same boards; the batched answers checked against the board-by-board ones (same decisions, numbers
within TOLERANCE: float32 rounding differs between a batch of one and larger batches, and 48 refinement steps amplify
it; the script prints that floor, one board answered alone against the same board twice in one batch).

    .venv/bin/python scripts/bench_classify_ltn.py [--boards 400] [--dead-end-boards 6] [--no-command | --command-only]
    .venv/bin/python scripts/bench_classify_ltn.py --complete-only [--complete-sizes kaggle_3m_test=100,top1465=50]
    .venv/bin/python scripts/bench_classify_ltn.py --settle-only [--boards 1536]
    .venv/bin/python scripts/bench_classify_ltn.py --profile-only [--boards 1536]
    .venv/bin/python scripts/bench_classify_ltn.py --blocks-only [--boards 1536]

Parts: the symbolic default answers (Q1/Q2 with every move's exact dead-end flag, and Q3: techniques and the solving
path), classify() per board; the LTN answers (isCorrect / hasSolution, hasValue after refinement, move confidences,
recommendsHeuristic) without the per-move dead-end probabilities, board by board and LtnAnswers.sections; the same on
torch's default thread count; the per-move LTN dead-end probabilities (--ltn-dead-ends) on a few boards; and the whole
`python -m ltn_sudoku classify FILE --json` command on the same boards (CPU time of the child process, start-up
included). Peak memory is the process's maximum resident set size.

The complete-solver section (--ltn-complete; alone with --complete-only): per set (held-out 3M Kaggle rows of the
test split and a seeded sample of top1465, drawn as scripts/bench_guidance.py draws them) and checkpoint, CPU ms per
board of the LTN section without the complete solver (the baseline), with it to the first solution (limit 1) and
with the uniqueness proof (limit 2), as ratios; the solver's mean wrong guesses, nodes and model calls beside the
ascending and fewest-places orders' on the same boards (the same solver without a model); every answer checked
against the exact solver's solution.

The profile section (alone with --profile-only): per Kaggle set, the default LTN section's CPU ms per board and how
much of it each part takes (the refinement until settled, hasSolution's features and head, the validity of the
decoded board, recommendsHeuristic), each part's calls timed where they run; the rest is the difference.

The settle section (in the default run; alone with --settle-only): per Kaggle set, the LTN section with every board refined for
all of the checkpoint's eval_steps (tolerance 0, the old answer) beside the default, where each board stops once a step
moves none of its truths by more than SETTLE_TOLERANCE; the same boards, interleaved passes (best of 3), the steps the
boards ran, whether every decision is the same and the largest difference of any answer number.

The blocks section (alone with --blocks-only): per Kaggle set, the refinement until settled (the evidence model's
`settle`, 64 boards a batch as classify-board answers them) with answering's MLP in blocks of MLP_BLOCK_NODES nodes
(today's) against the same MLP over the whole batch (as training runs it), in one process on the same boards,
interleaved passes (best of 5); whether the assignments and steps are equal to the bit.
"""

from __future__ import annotations

import argparse
import itertools
import math
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this tree's ltn_sudoku, whatever is installed

from ltn_sudoku.board import Board  # noqa: E402
from ltn_sudoku.branching.orders import Ascending, FewestPlaces  # noqa: E402
from ltn_sudoku.branching.solver import solve  # noqa: E402
from ltn_sudoku.cli.allocator import prepare_answering_process  # noqa: E402
from ltn_sudoku.exact import solve as exact_solve  # noqa: E402
from ltn_sudoku.io.kaggle import read_kaggle  # noqa: E402
from ltn_sudoku.logic.board.predict import BATCH_BOARDS, SETTLE_TOLERANCE, LtnAnswers, torch_threads  # noqa: E402
from ltn_sudoku.logic.groundings.grounding import encode_boards, one_hot_givens  # noqa: E402
from ltn_sudoku.paths import DATA_DIR, REPO_ROOT  # noqa: E402
from ltn_sudoku.questions.engine import Engine  # noqa: E402
from ltn_sudoku.questions.report import classify  # noqa: E402
from scripts._machine import machine_line  # noqa: E402

SAMPLE = DATA_DIR / "kaggle"
TOLERANCE = 1e-4
DEFAULT_THREADS_BOARDS = 64  # torch's default thread count is measured on fewer boards: it is slow on a busy machine
COMPLETE_SIZES = "kaggle_3m_test=100,top1465=50"
COMPLETE_CHECKPOINTS = "checkpoints/9x9.pt,checkpoints/9x9_message_passing.pt"
COMPLETE_SEED = 2026


def real_boards(count: int) -> list[Board]:
    """`count` quizzes of the shipped sample, an equal share of each Kaggle set, in file order."""
    return [b for boards in real_boards_by_set(count).values() for b in boards][:count]


def real_boards_by_set(count: int) -> dict[str, list[Board]]:
    """An equal share of `count` quizzes from each shipped Kaggle sample, by file name, in file order."""
    files = sorted(SAMPLE.glob("*.csv.gz"))
    share = math.ceil(count / len(files))
    return {f.name.split("_sample")[0]: [r.board for r in itertools.islice(read_kaggle(f), share)] for f in files}


def settle_section(count: int, repeats: int = 3) -> None:
    """The LTN section refining every board all the way (tolerance 0) beside the default, each board stopping once
    settled, on the same real rows; exits 1 when a decision differs."""
    prepare_answering_process()  # as classify-board does (cli/allocator.py): heap kept, start-up objects frozen
    full, settled = LtnAnswers(tolerance=0.0), LtnAnswers()
    print(f"  settle: the LTN section with every board refined all the way (tolerance 0) against the default "
          f"(a board stops once a step moves none of its truths by more than {SETTLE_TOLERANCE:g}); CPU ms per board, "
          f"best of {repeats} interleaved passes")
    print(f"  {'set':<12} {'boards':>6} {'all steps':>10} {'settled':>8} {'ratio':>6} {'steps ran':>12} "
          f"{'same decisions':>15} {'largest difference':>19}")
    same_everywhere = True
    for name, boards in real_boards_by_set(count).items():
        full.sections(boards[:2])
        settled.sections(boards[:2])
        times: dict[str, list[float]] = {"full": [], "settled": []}
        answers: dict[str, list[dict[str, Any]]] = {}
        for _ in range(repeats):
            for key, ltn in (("full", full), ("settled", settled)):
                out: list[dict[str, Any]] = []
                times[key].append(cpu_ms_per_board(lambda: out.extend(a.ltn_dict() for a in ltn.sections(boards)),
                                                   len(boards)))
                answers[key] = out
        predictor = settled.predictor(9)
        assert predictor is not None
        with torch.inference_mode():
            givens = one_hot_givens(encode_boards(boards, 9, "cpu"), 9)
            _, ran = predictor.model.settle(givens, tolerance=SETTLE_TOLERANCE)
        same = all(decided(a) == decided(b) for a, b in zip(answers["full"], answers["settled"]))
        same_everywhere &= same
        worst = max(largest_difference(a, b) for a, b in zip(answers["full"], answers["settled"]))
        fast, slow = min(times["settled"]), min(times["full"])
        steps = f"{ran.float().mean():.1f} of {predictor.model.config.eval_steps}"
        print(f"  {name:<12} {len(boards):>6} {slow:>10.2f} {fast:>8.2f} {slow / fast:>5.2f}x {steps:>12} "
              f"{str(same):>15} {worst:>19.1e}")
    if not same_everywhere:
        raise SystemExit("a settled LTN answer decides differently from the fully refined one")


def blocks_section(count: int, repeats: int = 5) -> None:
    """Answering's evidence MLP in blocks (EvidenceHasValue._mlp_in_blocks) against the whole-batch MLP, on the
    refinement alone (the part it changes)."""
    from ltn_sudoku.logic.groundings.hasvalue.evidence import MLP_BLOCK_NODES, EvidenceHasValue

    prepare_answering_process()
    predictor = LtnAnswers().predictor(9)
    assert predictor is not None
    model, blocks = predictor.model, EvidenceHasValue._mlp_in_blocks
    print(f"  blocks: the refinement until settled, answering's MLP in blocks of {MLP_BLOCK_NODES} nodes against "
          f"the whole batch at once; CPU ms per board, best of {repeats} interleaved passes, batches of {BATCH_BOARDS}")
    print(f"  {'set':<12} {'boards':>6} {'whole batch':>12} {'blocks':>8} {'ratio':>6} {'the same bits':>14}")

    def refine(givens: torch.Tensor) -> list[tuple[torch.Tensor, torch.Tensor]]:
        with torch.inference_mode(), torch_threads(predictor.threads):  # as LtnPredictor.answers runs (1 thread)
            return [model.settle(part, tolerance=SETTLE_TOLERANCE) for part in givens.split(BATCH_BOARDS)]

    try:
        for name, boards in real_boards_by_set(count).items():
            givens = one_hot_givens(encode_boards(boards, 9, "cpu"), 9)
            times: dict[str, list[float]] = {"whole": [], "blocks": []}
            found: dict[str, list[tuple[torch.Tensor, torch.Tensor]]] = {}
            for _ in range(repeats):
                for side in ("whole", "blocks"):
                    EvidenceHasValue._mlp_in_blocks = blocks if side == "blocks" else EvidenceHasValue._mlp
                    times[side].append(cpu_ms_per_board(lambda: found.__setitem__(side, refine(givens)), len(boards)))
            same = all(torch.equal(a[0], b[0]) and torch.equal(a[1], b[1])
                       for a, b in zip(found["whole"], found["blocks"]))
            whole, block = min(times["whole"]), min(times["blocks"])
            print(f"  {name:<12} {len(boards):>6} {whole:>12.2f} {block:>8.2f} {whole / block:>5.2f}x {str(same):>14}")
    finally:
        EvidenceHasValue._mlp_in_blocks = blocks


def profile_section(count: int) -> None:
    """Where the default LTN section's CPU goes, per Kaggle set: each part's CPU ms per board (its calls timed in
    place), the rest (answer objects, encoding, the moves' confidences) the difference to the whole."""
    from ltn_sudoku.logic.board import inference, predict
    from ltn_sudoku.logic.board.model import HasSolutionNet, LtnSudoku, RecommendsHeuristicNet

    prepare_answering_process()  # as classify-board does (cli/allocator.py)

    parts = {"refinement (settle)": (LtnSudoku, "settle"),
             "hasSolution features": (inference, "solution_features"),
             "hasSolution head": (HasSolutionNet, "forward"),
             "valid decoded board": (predict, "is_valid_assignment"),
             "recommendsHeuristic": (RecommendsHeuristicNet, "forward")}
    spent = dict.fromkeys(parts, 0.0)

    def timed(name: str, call: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any, **kwargs: Any) -> Any:
            start = time.process_time()
            try:
                return call(*args, **kwargs)
            finally:
                spent[name] += time.process_time() - start
        return run

    ltn = LtnAnswers()
    print("  profile: the default LTN section's parts, CPU ms per board (each part's calls timed where they run)")
    print(f"  {'set':<12} {'boards':>6} {'whole':>7} " + " ".join(f"{name:>20}" for name in parts)
          + f" {'rest':>6}")
    for name, boards in real_boards_by_set(count).items():
        ltn.sections(boards[:2])
        originals = {part: getattr(owner, attribute) for part, (owner, attribute) in parts.items()}
        try:
            for part, (owner, attribute) in parts.items():
                setattr(owner, attribute, timed(part, originals[part]))
            for part in spent:
                spent[part] = 0.0
            whole = cpu_ms_per_board(lambda: ltn.sections(boards), len(boards))
        finally:
            for part, (owner, attribute) in parts.items():
                setattr(owner, attribute, originals[part])
        each = {part: seconds * 1000 / len(boards) for part, seconds in spent.items()}
        print(f"  {name:<12} {len(boards):>6} {whole:>7.2f} " + " ".join(f"{v:>20.2f}" for v in each.values())
              + f" {whole - sum(each.values()):>6.2f}")


def print_peak_memory() -> None:
    print(f"peak memory (max RSS of this process): {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")


def cpu_ms_per_board(work: Callable[[], Any], boards: int) -> float:
    start = time.process_time()
    work()
    return (time.process_time() - start) * 1000 / boards


def largest_difference(a: dict[str, Any], b: dict[str, Any]) -> float:
    """The largest difference between two `ltn` answers' numbers; inf when their structure differs."""
    def numbers(x: Any) -> list[Any]:
        if isinstance(x, dict):
            return [k for k in sorted(x)] + [v for k in sorted(x) for v in numbers(x[k])]
        if isinstance(x, list):
            return [len(x)] + [v for item in x for v in numbers(item)]
        return [x]

    left, right = numbers(a), numbers(b)
    if len(left) != len(right):
        return math.inf
    worst = 0.0
    for u, v in zip(left, right):
        if isinstance(u, float) and isinstance(v, float):
            worst = max(worst, abs(u - v))
        elif u != v:
            return math.inf
    return worst


def decided(answer: dict[str, Any]) -> list[Any]:
    """The yes/no parts of an answer, the decoded board and the moves: what must not change with batching."""
    truths = [answer[k]["decision"] for k in ("isCorrect", "hasSolution") if answer.get(k)]
    recommended = [t["decision"] for t in (answer.get("recommendsHeuristic") or {}).values()]
    moves = [(m["row"], m["col"], m["digit"], m["dead_end"] and m["dead_end"]["decision"]) for m in answer["moves"]]
    return [truths, recommended, answer.get("solution"), moves]


def command_ms_per_board(boards: Sequence[Board]) -> float:
    """CPU time of the whole default command (a child process) on these boards, per board."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "real_rows.txt"
        path.write_text("".join(b.to_line() + "\n" for b in boards))
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([sys.executable, "-m", "ltn_sudoku", "classify", str(path), "--json"], check=True,
                       stdout=subprocess.DEVNULL, cwd=REPO_ROOT)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu * 1000 / len(boards)


COMPLETE_HEADER = ("order", "section ms", "/ base", "solver ms", "wrong 1st", "wrong all", "nodes 1st", "nodes all",
                   "calls")


def complete_row(label: str, section: tuple[float, float] | None, results: Sequence[dict[str, Any]]) -> str:
    """One printed row: the LTN section's CPU ms per board and its ratio to the baseline (none for a hand-made order),
    then the solver's own CPU ms, wrong guesses and nodes (to the first solution and in all) and order calls, means."""
    def mean(key: str) -> float:
        return float(np.mean([r[key] for r in results]))

    cost = ("-", "-") if section is None else (f"{section[0]:.1f}", f"{section[0] / section[1]:.1f}x")
    cells = (label, *cost, f"{mean('cpu_seconds') * 1000:.1f}", f"{mean('first_solution_wrong_guesses'):.2f}",
             f"{mean('wrong_guesses'):.2f}", f"{mean('first_solution_nodes'):.1f}", f"{mean('nodes'):.1f}",
             f"{mean('order_calls'):.1f}")
    return f"  {cells[0]:<44}" + "".join(f"{c:>11}" for c in cells[1:])


def complete_solver_section(sizes: str, checkpoints: str) -> None:
    """CPU per board of the LTN section with and without the complete solver, per set and checkpoint; the learned
    order's wrong guesses beside two hand-made orders' on the same boards; answers checked against the exact solver."""
    from bench_guidance import parse_sizes, puzzles  # scripts/ is this script's folder: the sets drawn the same way

    counts = parse_sizes(sizes)
    for name in dict.fromkeys(item.partition("=")[0] for item in sizes.split(",") if item):  # the order given
        boards = puzzles(name, counts[name], COMPLETE_SEED)
        truth = [exact_solve(b).to_line() for b in boards]
        print(f"{name}: {len(boards)} puzzles (seed {COMPLETE_SEED}); CPU ms per board; means per board; 1st = to "
              "the first solution (= limit 1), all = the whole search to the limit")
        print(f"  {COMPLETE_HEADER[0]:<44}" + "".join(f"{c:>11}" for c in COMPLETE_HEADER[1:]))
        for order in (Ascending(), FewestPlaces()):
            for limit in (1, 2):
                results = [solve(b, order, limit=limit) for b in boards]
                if [r.solutions[0].to_line() for r in results] != truth or any(len(r.solutions) != 1 for r in results):
                    raise SystemExit(f"the {order.name} order's answers on {name} differ from the exact solver's")
                print(complete_row(f"{order.name}, limit {limit} (no model)", None, [r.as_dict() for r in results]))
        for checkpoint in filter(None, checkpoints.split(",")):
            path = REPO_ROOT / checkpoint
            plain = LtnAnswers(path)
            plain.sections(boards[:2])  # load the checkpoint, warm the kernels
            base = cpu_ms_per_board(lambda: plain.sections(boards), len(boards))
            print(f"  {path.stem + ': LTN section (baseline)':<44}{base:>11.1f}")
            for limit in (1, 2):
                solver = LtnAnswers(path, complete=limit)
                solver.sections(boards[:1])
                answers: list[dict[str, Any]] = []
                ms = cpu_ms_per_board(lambda: answers.extend(s.ltn_dict()["complete_solver"]
                                                             for s in solver.sections(boards)), len(boards))
                if [a["solutions"] for a in answers] != [[t] for t in truth]:
                    raise SystemExit(f"the complete solver's answers on {name} differ from the exact solver's")
                print(complete_row(f"  + --ltn-complete {limit}", (ms, base), answers))
        print("  answers: every solver's solution is the exact solver's; limit 2 proved each unique")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=400, help="real rows, equal shares of each set (default 400)")
    parser.add_argument("--dead-end-boards", type=int, default=6, help="boards for the per-move LTN dead ends")
    parser.add_argument("--no-command", action="store_true", help="skip timing the whole CLI command")
    parser.add_argument("--command-only", action="store_true", help="time only the whole CLI command")
    parser.add_argument("--complete-only", action="store_true", help="run only the complete-solver section")
    parser.add_argument("--settle-only", action="store_true", help="run only the settle section (--boards rows)")
    parser.add_argument("--profile-only", action="store_true",
                        help="run only the profile of the LTN section's parts (--boards rows)")
    parser.add_argument("--blocks-only", action="store_true",
                        help="run only answering's MLP in blocks against the whole batch (--boards rows)")
    parser.add_argument("--complete-sizes", default=COMPLETE_SIZES, metavar="SET=N,...",
                        help=f"sets and puzzles of the complete-solver section (default {COMPLETE_SIZES})")
    parser.add_argument("--complete-checkpoints", default=COMPLETE_CHECKPOINTS, metavar="PT,...",
                        help=f"checkpoints of the complete-solver section (default {COMPLETE_CHECKPOINTS})")
    args = parser.parse_args(argv)
    print(machine_line())
    alone = {"complete_only": lambda: complete_solver_section(args.complete_sizes, args.complete_checkpoints),
             "profile_only": lambda: profile_section(args.boards), "settle_only": lambda: settle_section(args.boards),
             "blocks_only": lambda: blocks_section(args.boards)}
    asked = [section for flag, section in alone.items() if getattr(args, flag)]
    if asked:  # one section on its own (the first asked for, in this order)
        asked[0]()
        print_peak_memory()
        return 0
    boards = real_boards(args.boards)
    count = len(boards)
    print(f"{count} real 9x9 rows of {SAMPLE.relative_to(REPO_ROOT)} (equal shares of 1M, 3M, 9M); "
          f"torch default threads {torch.get_num_threads()}; CPU ms per board")
    if args.command_only:
        print(f"  whole command `python -m ltn_sudoku classify FILE --json` (child process, start-up included): "
              f"{command_ms_per_board(boards):.1f}")
        return 0

    engine = Engine()
    classify(boards[0], engine=engine)  # warm up: numba loads its compiled code on first use
    symbolic = cpu_ms_per_board(lambda: [classify(b, engine=engine) for b in boards], count)

    ltn = LtnAnswers(tolerance=0.0)  # every board every step: batching alone is compared here (settle: below)
    ltn.sections(boards[:2])  # load the checkpoint
    one_by_one: list[dict[str, Any]] = []
    single = cpu_ms_per_board(lambda: one_by_one.extend(ltn.section(b).ltn_dict() for b in boards), count)
    batched_answers: list[dict[str, Any]] = []
    batched = cpu_ms_per_board(lambda: batched_answers.extend(s.ltn_dict() for s in ltn.sections(boards)), count)
    default_threads = LtnAnswers(threads=None)
    default_threads.sections(boards[:2])
    some = boards[:DEFAULT_THREADS_BOARDS]
    threaded = cpu_ms_per_board(lambda: default_threads.sections(some), len(some))
    differences = [largest_difference(a, b) for a, b in zip(one_by_one, batched_answers)]
    worst = max(differences)
    most = sorted(range(count), key=lambda i: -differences[i])[:5]  # the boards that differ most, answered twice
    floor = max(largest_difference(one_by_one[i], ltn.sections([boards[i], boards[i]])[0].ltn_dict()) for i in most)
    decisions = all(decided(a) == decided(b) for a, b in zip(one_by_one, batched_answers))

    dead = LtnAnswers(dead_ends=True)
    few = boards[:: max(1, count // max(1, args.dead_end_boards))][: args.dead_end_boards]
    moves = sum(len(s.ltn_dict()["moves"]) for s in ltn.sections(few))
    dead_ms = cpu_ms_per_board(lambda: dead.sections(few), len(few)) if few else math.nan

    rows = [
        ("symbolic default answers (Q1/Q2 + Q3), no LTN", symbolic),
        ("LTN answers, one board at a time (baseline)", single),
        (f"LTN answers, {min(count, 64)} boards per batch", batched),
        (f"LTN answers batched, torch default threads ({len(some)} boards)", threaded),
        ("default classify-board = symbolic + LTN batched", symbolic + batched),
        (f"LTN per-move dead ends (--ltn-dead-ends; {len(few)} boards, {moves / max(1, len(few)):.0f} moves each)",
         dead_ms),
    ]
    for name, value in rows:
        print(f"  {name:<78} {value:>9.1f}")
    print(f"  batched LTN against one board at a time: {single / batched:.1f}x less CPU; same decisions: {decisions}; "
          f"largest difference of any answer number {worst:.1e} (float32 floor: the 5 boards that differ most, alone "
          f"against themselves twice in one batch: {floor:.1e})")
    if worst > TOLERANCE or not decisions:
        raise SystemExit("batched LTN answers differ from the board-by-board ones")
    settle_section(count)
    complete_solver_section(args.complete_sizes, args.complete_checkpoints)
    if not args.no_command:
        print(f"  whole command `python -m ltn_sudoku classify FILE --json` (child process, start-up included): "
              f"{command_ms_per_board(boards):.1f}")
    print_peak_memory()
    return 0


if __name__ == "__main__":
    sys.exit(main())
