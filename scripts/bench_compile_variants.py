#!/usr/bin/env python
"""Ways of compiling the 9x9 message-passing training step, side by side in one process: what docs/scale.md reports
as tried beside `train.compile` (RecurrentHasValue.compile with torch.compile's defaults, CPU parts of 11 boards).

Each variant is its own model from the same seed, compiled once (the compile in its warm-up passes, outside the
timing) and trained from the same weights on the same generated boards as scripts/bench_train_step.py draws them;
the passes alternate, each variant first in turn. The figure is boards per CPU second (median over passes).

    .venv/bin/python scripts/bench_compile_variants.py [--variants default,python_wrapper,autotune,parts16k,...] [--boards 128]
        [--batch 32] [--repeats 5] [--profile]

--profile: after the timing, one more pass of the first variant under torch.profiler, its operators by their own CPU
time (what a compiled step still spends its time on; the profiler's overhead inflates the total).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path
from typing import Any

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # this tree's ltn_sudoku, whatever is installed

from ltn_sudoku.logic.groundings.hasvalue import RecurrentHasValue  # noqa: E402
from scripts._machine import cpu_name, peak_rss_mb  # noqa: E402
from scripts.bench_train_step import MODELS, Side, interleaved, side, train_pass  # noqa: E402

# name -> (torch.compile's keyword arguments, cpu_part_nodes or None for the grounding's own)
VARIANTS: dict[str, tuple[dict[str, Any], int | None]] = {
    "default": ({}, None),  # train.compile as it is (on the CPU: the compiled graphs called from C++)
    "python_wrapper": ({"options": {"cpp_wrapper": False}}, None),  # called from a generated Python wrapper, as before
    "autotune": ({"mode": "max-autotune-no-cudagraphs"}, None),  # inductor's CPU matrix-product templates
    "parts16k": ({}, 16384),  # 22 boards a CPU part instead of 11
    "aggressive_fusion": ({"options": {"cpp_wrapper": True, "aggressive_fusion": True}}, None),  # fuse unrelated ops
    "simdlen256": ({"options": {"cpp_wrapper": True, "cpp.simdlen": 256}}, None),  # 8-lane vectors, not AVX-512's 16
    "dynamic": ({"dynamic": True}, None),  # one graph for every part size (symbolic batch) instead of one per size
    # the default's kernels named in --profile (inductor's kernel profile needs the Python wrapper): where it goes
    "kernel_profile": ({"options": {"cpp_wrapper": False, "cpp.enable_kernel_profile": True}}, None),
}


def compiled_side(name: str, boards: int, batch: int) -> Side:
    """A message-passing model of the benchmark's config, compiled as the variant says."""
    kwargs, part_nodes = VARIANTS[name]
    torch.manual_seed(0)
    s = side(name, "ltn_sudoku.logic", MODELS["message_passing"], boards, batch, torch.device("cpu"))
    has_value = s.model.get_submodule("has_value")
    assert isinstance(has_value, RecurrentHasValue)
    if part_nodes is not None:
        has_value.cpu_part_nodes = part_nodes
    has_value.compile(**kwargs)
    return s


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], epilog=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variants", default=",".join(VARIANTS), help=f"of: {', '.join(VARIANTS)}")
    parser.add_argument("--boards", type=int, default=128, help="training boards per pass (default 128)")
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=5, help="interleaved passes per variant (default 5)")
    parser.add_argument("--profile", action="store_true", help="also profile one pass of the first variant")
    args = parser.parse_args(argv)
    names = [v.strip() for v in args.variants.split(",") if v.strip()]
    if not names or any(v not in VARIANTS for v in names) or min(args.boards, args.batch, args.repeats) < 1:
        parser.error(f"--variants: some of {', '.join(VARIANTS)}; --boards, --batch, --repeats at least 1")
    torch.set_num_threads(1)
    # every variant compiles the same step function, and dynamo counts their graphs together (two part sizes each):
    # past its default limit of 8 a variant would run eager without a word
    torch._dynamo.config.recompile_limit = max(torch._dynamo.config.recompile_limit, 4 * len(names))
    device = torch.device("cpu")
    print(f"CPU: {cpu_name()}; torch {torch.__version__}, 1 thread; 9x9 message passing, batch {args.batch}, "
          f"{args.boards} boards a pass, {args.repeats} interleaved passes a variant", flush=True)
    sides = [compiled_side(name, args.boards, args.batch) for name in names]
    weights = {k: v.clone() for k, v in sides[0].model.state_dict().items()}
    passes = interleaved(sides, weights, device, args.repeats, warm_ups=2)  # compile, then settle, untimed
    warm, cpu, losses = passes.warm_up_cpu, passes.cpu, passes.losses
    boards = sum(len(b) for b in sides[0].batches)
    first = sides[0].name
    print("| variant | boards/CPU s (median) | passes | vs " + first + " | first pass (compile) CPU s | largest loss "
          "difference |")
    print("|---|---:|---|---:|---:|---:|")
    for s in sides:
        rate = boards / statistics.median(cpu[s.name])
        each = ", ".join(f"{boards / c:.1f}" for c in cpu[s.name])
        ratio = statistics.median(cpu[first]) / statistics.median(cpu[s.name])
        difference = max(abs(a - b) for a, b in zip(losses[first], losses[s.name]))
        print(f"| {s.name} | {rate:.1f} | {each} | {ratio:.2f}x | {warm[s.name]:.0f} | {difference:.1e} |")
    if args.profile:
        from torch.profiler import ProfilerActivity, profile

        with profile(activities=[ProfilerActivity.CPU]) as prof:
            train_pass(sides[0], weights, device)
        print(f"torch.profiler, one pass of {first}:")
        print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=25, max_name_column_width=70))
    print(f"peak RSS {peak_rss_mb():.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
