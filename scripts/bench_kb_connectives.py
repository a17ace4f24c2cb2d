#!/usr/bin/env python
"""The knowledge base's connectives with LTNtorch's own Connective.__call__ beside the broadcasting one that the
package installs (ltn_sudoku.logic.kb.operators._broadcast_connective), in one process, on the same batches.

LTNtorch copies every operand of a connective into one shape before the element-wise operation; the package's call
broadcasts views instead (the same values, tested in tests/test_logic.py). Rows:

- the knowledge base alone: the board objective (grounding, closing, SatAgg) and its backward, with hasValue's
  refinement left out (its assignments are computed once per batch and fed in as leaves);
- the whole training step (train_pass of scripts/bench_train_step.py: objective, backward, Adam), eager, and with
  --compile also with `train.compile` (the compile in the warm-up pass).

The two connectives alternate pass by pass, each first in turn; the figure is CPU seconds a pass (median), the ratio
LTNtorch's over the package's. The losses of both on the same batches from the same weights are compared.

    .venv/bin/python scripts/bench_kb_connectives.py [--model message_passing|evidence] [--boards 128] [--batch 32]
        [--repeats 5] [--compile] [--compare connectives|whole_axes]

--compare whole_axes sets the other change to the knowledge base beside its old form the same way: every
TablePredicate axis gathered (the old code) against the axes that a range_variable covers whole read as they are.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Callable

import ltn
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # this tree's ltn_sudoku, whatever is installed

from ltn_sudoku.logic.board.model import LtnSudoku  # noqa: E402
from ltn_sudoku.logic.groundings import grounding  # noqa: E402
from ltn_sudoku.logic.groundings.grounding import one_hot_givens  # noqa: E402
from ltn_sudoku.logic.kb import operators  # noqa: E402
from scripts._machine import cpu_name, peak_rss_mb  # noqa: E402
from scripts.bench_train_step import MODELS, Side, side, train_pass  # noqa: E402

Setting = Callable[[], None]  # puts one side of a comparison in place


def _connective(call: Callable[..., object]) -> Setting:
    return lambda: setattr(ltn.Connective, "__call__", call)


def _whole_axes(attribute: str) -> Setting:
    return lambda: setattr(grounding, "WHOLE_RANGE", attribute)


# --compare: the two sides (the old first, the package's as it is second)
COMPARISONS: dict[str, dict[str, Setting]] = {
    "connectives": {"LTNtorch's connective": _connective(operators._LTN_CONNECTIVE),
                    "broadcasting connective": _connective(operators._broadcast_connective)},
    # a TablePredicate gathers along every axis (no variable carries the attribute it looks for), or reads the axes
    # that a range_variable covers whole as they are
    "whole_axes": {"every axis gathered": _whole_axes("_never_set"),
                   "whole axes read as they are": _whole_axes(grounding.WHOLE_RANGE)},
}
Pass = Callable[[], tuple[float, list[float]]]  # (CPU seconds, each batch's loss)


def knowledge_base_pass(s: Side) -> Pass:
    """A pass of the objective and its backward over the side's batches, hasValue's assignments fed as leaves."""
    model: LtnSudoku = s.model  # type: ignore[assignment]
    has_value = model.has_value
    with torch.no_grad():
        cached = [has_value(one_hot_givens(b.puzzles, model.n), detach_every=model.config.detach_every)
                  for b in s.batches]

    def run() -> tuple[float, list[float]]:
        losses = []
        start = time.process_time()
        for batch, assignments in zip(s.batches, cached):
            has_value.forward = _fed(assignments)  # type: ignore[method-assign]
            loss = s.objective(s.model, s.ops, batch).loss
            loss.backward()
            losses.append(float(loss.item()))
        seconds = time.process_time() - start
        del has_value.forward  # the module's own forward again
        return seconds, losses
    return run


def _fed(assignments: list[torch.Tensor]) -> Callable[..., list[torch.Tensor]]:
    """hasValue's forward replaced by these assignments, as fresh leaves (the backward stops there)."""
    return lambda *_, **__: [x.detach().requires_grad_() for x in assignments]


def training_pass(s: Side, weights: dict[str, torch.Tensor]) -> Pass:
    def run() -> tuple[float, list[float]]:
        seconds, _, losses = train_pass(s, weights, torch.device("cpu"))
        return seconds, losses
    return run


def alternate(run: Pass, repeats: int, sides: dict[str, Setting]) -> tuple[dict[str, list[float]], float]:
    """CPU seconds of each side's passes (one warm-up each first) and the largest loss difference; the package's
    own side (the last) is left in place."""
    seconds: dict[str, list[float]] = {name: [] for name in sides}
    losses: dict[str, list[float]] = {}
    names = list(sides)
    try:
        for name in names:  # warm-up: first-call allocations, compiling
            sides[name]()
            run()
        for repeat in range(repeats):
            for name in names[repeat % 2:] + names[:repeat % 2]:
                sides[name]()
                spent, losses[name] = run()
                seconds[name].append(spent)
    finally:
        sides[names[-1]]()
    first, second = losses.values()
    return seconds, max(abs(a - b) for a, b in zip(first, second))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], epilog=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", choices=list(MODELS), default="message_passing")
    parser.add_argument("--boards", type=int, default=128, help="training boards per pass (default 128)")
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=5, help="passes per connective (default 5)")
    parser.add_argument("--compile", action="store_true", help="also the training step with train.compile")
    parser.add_argument("--compare", choices=list(COMPARISONS), default="connectives",
                        help="connectives: LTNtorch's call against the broadcasting one (default); whole_axes: every "
                        "table axis gathered against whole axes read as they are")
    args = parser.parse_args(argv)
    if min(args.boards, args.batch, args.repeats) < 1:
        parser.error("--boards, --batch and --repeats must be at least 1")
    torch.set_num_threads(1)
    torch.manual_seed(0)
    s = side(args.model, "ltn_sudoku.logic", MODELS[args.model], args.boards, args.batch, torch.device("cpu"))
    weights = {k: v.clone() for k, v in s.model.state_dict().items()}
    rows = [("knowledge base alone (objective + backward, hasValue's assignments fed in)", knowledge_base_pass(s)),
            ("whole training step, eager", training_pass(s, weights))]
    if args.compile:
        compiled = side(args.model, "ltn_sudoku.logic", MODELS[args.model], args.boards, args.batch,
                        torch.device("cpu"))
        compiled.model.get_submodule("has_value").compile()
        rows.append(("whole training step, train.compile", training_pass(compiled, weights)))
    print(f"CPU: {cpu_name()}; torch {torch.__version__}, 1 thread; 9x9 {args.model} ({' '.join(MODELS[args.model])}),"
          f" batch {args.batch}, {args.boards} boards a pass, {args.repeats} passes a side, alternating")
    sides = COMPARISONS[args.compare]
    old_side, new_side = sides
    print(f"| part | {old_side}, CPU s a pass | {new_side} | **ratio** (min-max) | largest loss difference |")
    print("|---|---:|---:|---:|---:|")
    for label, run in rows:
        seconds, difference = alternate(run, args.repeats, sides)
        theirs, ours = (statistics.median(seconds[name]) for name in sides)
        ratios = [a / b for a, b in zip(*seconds.values())]
        print(f"| {label} | {theirs:.3f} | {ours:.3f} | **{theirs / ours:.2f}x** ({min(ratios):.2f}-"
              f"{max(ratios):.2f}) | {difference:.1e} |")
    print(f"peak RSS {peak_rss_mb():.0f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
