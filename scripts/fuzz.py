"""Fuzz every input path with hypothesis (the targets of scripts/fuzz_targets.py) and report the inputs tried, the
time and every property violation found, strictly: an error must be exactly one line, and a config that passes the entry
points' up-front check must build a model.

    python scripts/fuzz.py                      # 100,000+ inputs, the run reported in docs/testing.md
    python scripts/fuzz.py --scale 0.01 --seed 1

Each target runs in rounds of fresh random seeds, so that one violation (hypothesis stops at the first and shrinks
it) does not hide the others; violations are reported once per distinct message.
"""

from __future__ import annotations

import argparse
import logging
import resource
import sys
import time
import warnings
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, seed, settings

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from scripts import fuzz_targets as fuzzing  # noqa: E402

EXAMPLES = {"board text": 45_000, "file readers": 45_000, "file bytes": 5_000, "kaggle reader": 5_000,
            "commands": 2_500, "checkpoints": 1_500, "hydra overrides": 1_500}
ROUNDS = 10


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every target's number of inputs")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", nargs="+", choices=sorted(fuzzing.TARGETS), help="run only these targets")
    args = parser.parse_args()
    fuzzing.STRICT = True
    logging.disable(logging.CRITICAL)  # readers log skipped rows; the fuzzer's output is the report below
    warnings.simplefilter("ignore")
    findings: dict[str, dict[str, str]] = {}
    started, cpu = time.perf_counter(), time.process_time()
    for name in args.only or list(EXAMPLES):
        check, strategy = fuzzing.TARGETS[name]
        per_round = max(1, int(EXAMPLES[name] * args.scale) // ROUNDS)
        t0 = time.perf_counter()
        for round_ in range(ROUNDS):
            profile = settings(max_examples=per_round, deadline=None, database=None, derandomize=False,
                               suppress_health_check=list(HealthCheck), report_multiple_bugs=False,
                               phases=[Phase.generate, Phase.target, Phase.shrink], print_blob=False)
            test = profile(given(strategy)(check))
            test = seed(args.seed * 1000 + round_)(test)
            try:
                test()
            except BaseException as e:  # every violation is reported, none stops the run
                if isinstance(e, KeyboardInterrupt):
                    raise
                first = (str(e).strip().splitlines() or [type(e).__name__])[0][:300]
                notes = " | ".join(getattr(e, "__notes__", []))[:600]
                message = f"{type(e).__name__}: {first}"
                if message not in findings.setdefault(name, {}):
                    findings[name][message] = notes
                    print(f"VIOLATION [{name}] {message}\n    {notes}", flush=True)  # at once: a long run may be cut
            print(f"  {name} round {round_ + 1}/{ROUNDS}: {fuzzing.COUNTS[name]} inputs, "
                  f"{time.process_time() - cpu:.0f} s CPU so far", flush=True)
        print(f"{name:16} {fuzzing.COUNTS[name]:8d} inputs  {time.perf_counter() - t0:7.1f} s wall  "
              f"{len(findings.get(name, {}))} distinct violations", flush=True)
    total = sum(fuzzing.COUNTS.values())
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"total {total} inputs in {time.perf_counter() - started:.0f} s wall, {time.process_time() - cpu:.0f} s CPU, "
          f"peak RSS {peak:.0f} MiB")


if __name__ == "__main__":
    main()
