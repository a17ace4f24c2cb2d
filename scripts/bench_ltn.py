#!/usr/bin/env python
"""Training throughput of the batched LTN against a naive per-board loop (one board per forward pass).

Both sides run the same objective (hasValue refinement + the whole knowledge base + backward + optimizer step) on
the same boards in the same process; only the batch size differs. CPU time, best of --repeats, and the ratio.

    python scripts/bench_ltn.py --size 4 --size 9 [--boards 256] [--batch 32] [--repeats 3] [--threads 1]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import torch

from ltn_sudoku.logic.board import data
from ltn_sudoku.logic.board.labels import resolve_techniques
from ltn_sudoku.logic.board.model import LtnSudoku, ModelConfig
from ltn_sudoku.logic.board.objective import objective
from ltn_sudoku.logic.config.schema import compose_config
from ltn_sudoku.logic.kb.operators import Operators, build_operators

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # scripts/ as a package, wherever this runs from
from scripts._machine import machine_line  # noqa: E402


def boards_for(size: int, count: int, techniques: list) -> data.BoardSet:
    solvable = data.generated(size, "open_solvable", count * 4 // 5, seed=7)
    impossible = data.generated(size, "open_impossible", count - len(solvable), seed=7)
    states = data.BoardSet.concat([data.solving_states(solvable, 7), impossible])
    return data.label_techniques(states, techniques)


def cpu_seconds(model: LtnSudoku, ops: Operators, boards: data.BoardSet, batch: int, repeats: int) -> float:
    """Best CPU time over `repeats` passes of training steps over all boards in batches of `batch`."""
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        for chunk in boards.batches(batch):
            loss = objective(model, ops, chunk).loss
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        best = min(best, time.process_time() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, action="append", help="4 and/or 9 (default both)")
    parser.add_argument("--boards", type=int, default=256)
    parser.add_argument("--naive-boards", type=int, default=64, help="boards for the slow per-board loop")
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    print(machine_line())
    print(f"threads={args.threads} batch={args.batch} boards={args.boards} naive_boards={args.naive_boards} "
          f"repeats={args.repeats} (CPU seconds, best of repeats)")
    for size in args.size or [4, 9]:
        cfg = compose_config([f"model={size}x{size}"])
        config = ModelConfig.from_cfg(cfg.model)
        boards = boards_for(size, args.boards, resolve_techniques(config.techniques, size))
        torch.manual_seed(0)
        model = LtnSudoku(config)
        ops = build_operators(cfg.logic)  # the default logic (the family does not change the cost)
        batched = cpu_seconds(model, ops, boards, args.batch, args.repeats) / len(boards)
        few = boards.select(range(min(args.naive_boards, len(boards))))
        naive = cpu_seconds(model, ops, few, 1, args.repeats) / len(few)
        print(f"{size}x{size}: batched {1 / batched:8.1f} boards/s  per-board loop {1 / naive:7.1f} boards/s  "
              f"ratio {naive / batched:6.1f}x")


if __name__ == "__main__":
    main()
