#!/usr/bin/env python
"""Training throughput of the 9x9 board models against the code of a baseline commit, in one process (issue 50).

The baseline is today's `ltn_sudoku/logic` with the modules of the training step that issue 50 rewrote
(STEP_MODULES: the recurrent hasValue groundings and the axioms) as they were at `--baseline` (default: the last
commit before that work), read with `git show` into a temporary copy of the package whose imports point at itself;
everything else is the same code on both sides, so the comparison isolates the step. Both sides build the same model
from the same config and start from the same weights, draw the same boards (generated states: a solving state of
each solvable board and a fifth impossible boards, techniques labelled), and run the same training step on the same
batches: the board objective, backward, an Adam step. The passes alternate (baseline first on even repeats, today's
on odd), each from the initial weights, so both meet the same machine load; the figure is boards per CPU second of
the process (all threads), the median over repeats, and the ratio is the median of the per-repeat ratios (the
portable figure; the absolute ones hold on the CPU named). The losses of the two sides on the same batches are
compared: learning unchanged means they differ by float32 rounding only (the largest difference is printed).

    .venv/bin/python scripts/bench_train_step.py [--models message_passing,evidence] [--boards 128] [--batch 32]
        [--repeats 5] [--threads 1] [--baseline REV] [--device cpu] [--repo PATH] [--compile] [--amp]

--amp adds one more side: today's code with train.amp (bf16 autocast, as training/distributed.py wraps the step),
compiled as well with --compile. Its losses differ from the baseline's by bf16 rounding, not float32's, so its
learning is checked by training instead (docs/scale.md: the two learning curves); the CPU's bf16 units are printed,
without which bf16 products gain nothing.
"""

from __future__ import annotations

import argparse
import importlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # this tree's ltn_sudoku, whatever is installed

from ltn_sudoku.logic.config.schema import compose_config  # noqa: E402
from ltn_sudoku.logic.device import synchronize  # noqa: E402
from scripts._machine import bf16_units, cpu_name, peak_rss_mb  # noqa: E402

BASELINE = "1b4e7c4"  # the last commit before issue 50's training work
MODELS: dict[str, list[str]] = {"message_passing": ["model=9x9_mp", "logic=product_mp"],
                                "evidence": ["model=9x9", "logic=lukasiewicz"]}
BASELINE_PACKAGE = "_baseline_ltn"
MOVED_MODULES: dict[str, str] = {"ltn_sudoku.logic.fields": "ltn_sudoku.logic.config.fields"}  # moved since
# the modules of the training step that issue 50 rewrote for speed: the baseline side runs them as they were
STEP_MODULES: tuple[str, ...] = (*(f"ltn_sudoku/logic/groundings/hasvalue/{name}.py"
                                    for name in ("base", "evidence", "message_passing")),
                                  "ltn_sudoku/logic/kb/axioms.py")
# today's signature over a baseline module's old work, where today's callers pass what the old code did not take
BASELINE_SHIMS: dict[str, str] = {"ltn_sudoku/logic/kb/axioms.py": """

_rule_axioms_every = rule_axioms


def rule_axioms(grounding, ops, assignment, givens, names=RULE_AXIOMS):  # every axiom computed, as then
    truths = _rule_axioms_every(grounding, ops, assignment, givens)
    return {name: truth for name, truth in truths.items() if name in set(names)}
"""}


def baseline_logic(rev: str, into: Path, repo: Path = ROOT, paths: tuple[str, ...] = STEP_MODULES) -> str:
    """Today's `ltn_sudoku/logic` with the modules of the training step (`paths`) as they were at commit `rev`, as
    the package `_baseline_ltn.logic` under `into` (put on sys.path); returns the package's name. Its imports of
    `ltn_sudoku.logic` are rewritten to itself, the rest of the package stays today's. `repo`: the git repository to
    read `rev` from (this tree's, or a clone's when this tree is a copy)."""
    package = into / BASELINE_PACKAGE
    shutil.copytree(ROOT / "ltn_sudoku" / "logic", package / "logic", ignore=shutil.ignore_patterns("__pycache__"))
    (package / "__init__.py").write_text("")
    for path in paths:
        try:
            old = subprocess.run(["git", "-C", str(repo), "show", f"{rev}:{path}"], check=True, capture_output=True,
                                 text=True).stdout
        except (OSError, subprocess.CalledProcessError) as e:
            raise SystemExit(f"bench_train_step: cannot read {path} at {rev} with git (a clone with its history is "
                             f"needed; --repo names another): {e}") from None
        for moved, now in MOVED_MODULES.items():  # modules the old step imports that have moved since
            old = old.replace(moved, now)
        if "def rule_axioms(" in old and "names:" not in old.split("def rule_axioms(")[1].split(")")[0]:
            old += BASELINE_SHIMS[path]
        (package / Path(path).relative_to("ltn_sudoku")).write_text(old)
    for source in (package / "logic").rglob("*.py"):
        source.write_text(source.read_text().replace("ltn_sudoku.logic", f"{BASELINE_PACKAGE}.logic"))
    sys.path.insert(0, str(into))
    return f"{BASELINE_PACKAGE}.logic"


@dataclass
class Side:
    """One side of the comparison: its modules, model, operators and batches."""

    name: str
    objective: Any
    model: torch.nn.Module
    ops: Any
    batches: list[Any]

    def in_bf16(self) -> Side:
        """This side with its objective in bf16 autocast, as train.amp runs the training step
        (training/distributed.loss_function)."""
        objective = self.objective

        def autocast_objective(*args: Any, **kwargs: Any) -> Any:
            with torch.autocast(self.batches[0].puzzles.device.type, dtype=torch.bfloat16):
                return objective(*args, **kwargs)

        self.objective = autocast_objective
        return self


def side(name: str, logic: str, overrides: list[str], boards: int, batch: int, device: torch.device) -> Side:
    """A model of the config and its boards, built by the `logic` package (today's or the baseline's)."""
    def module(path: str) -> ModuleType:
        return importlib.import_module(f"{logic}.{path}")

    data, model_module = module("board.data"), module("board.model")
    cfg = compose_config(overrides)
    config = model_module.ModelConfig.from_cfg(cfg.model)
    solvable = data.generated(9, "open_solvable", boards * 4 // 5, seed=7)
    impossible = data.generated(9, "open_impossible", boards - len(solvable), seed=7)
    states = data.BoardSet.concat([data.solving_states(solvable, 7), impossible])
    labels = module("board.labels").resolve_techniques(config.techniques, 9)
    states = data.label_techniques(states, labels).to(device)
    model = model_module.LtnSudoku(config).to(device)
    ops = module("kb.operators").build_operators(cfg.logic)
    return Side(name, module("board.objective").objective, model, ops, list(states.batches(batch)))


def train_pass(s: Side, weights: dict[str, torch.Tensor], device: torch.device) -> tuple[float, float, list[float]]:
    """(CPU seconds, wall seconds, each batch's loss) of training steps over the side's batches from `weights`."""
    s.model.load_state_dict(weights)
    s.model.train()
    optimizer = torch.optim.Adam(s.model.parameters(), lr=1e-3)
    losses = []
    synchronize(device)
    cpu, wall = time.process_time(), time.perf_counter()
    for batch in s.batches:
        loss = s.objective(s.model, s.ops, batch).loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(float(loss.item()))
    synchronize(device)
    return time.process_time() - cpu, time.perf_counter() - wall, losses


@dataclass
class Passes:
    """Per side (by name): the CPU seconds of its first warm-up pass (compiling, where it compiles), and of each
    timed pass, their wall seconds, and the last timed pass's loss per batch."""

    warm_up_cpu: dict[str, float]
    cpu: dict[str, list[float]]
    wall: dict[str, list[float]]
    losses: dict[str, list[float]]


def interleaved(sides: list[Side], weights: dict[str, torch.Tensor], device: torch.device, repeats: int,
                warm_ups: int = 1) -> Passes:
    """`warm_ups` untimed passes of each side (first-call allocations, lazy initialisation, compiling), then
    `repeats` timed passes of every side from `weights`, each side first in turn, so that all meet the same load."""
    passes = Passes({}, {s.name: [] for s in sides}, {s.name: [] for s in sides}, {})
    for s in sides:
        passes.warm_up_cpu[s.name] = train_pass(s, weights, device)[0]
        for _ in range(warm_ups - 1):
            train_pass(s, weights, device)
    for repeat in range(repeats):
        for s in sides[repeat % len(sides):] + sides[:repeat % len(sides)]:
            seconds, wall_seconds, passes.losses[s.name] = train_pass(s, weights, device)
            passes.cpu[s.name].append(seconds)
            passes.wall[s.name].append(wall_seconds)
    return passes


def compare(kind: str, baseline: str, args: argparse.Namespace, device: torch.device) -> list[dict[str, Any]]:
    """The sides of one model kind, interleaved: boards per CPU second, each side's ratio to the baseline, the
    losses' difference; with --compile a third side, today's code with train.compile (hasValue's step compiled,
    its compile time in the warm-up pass, out of the timing)."""
    torch.manual_seed(0)
    today = side("today", "ltn_sudoku.logic", MODELS[kind], args.boards, args.batch, device)
    torch.manual_seed(0)
    before = side(f"baseline {args.baseline}", baseline, MODELS[kind], args.boards, args.batch, device)
    if not all(torch.equal(a.puzzles, b.puzzles) for a, b in zip(today.batches, before.batches)):
        raise SystemExit("bench_train_step: the two sides drew different boards")
    sides = [before, today]
    if args.compile:
        torch.manual_seed(0)
        compiled = side("today + train.compile", "ltn_sudoku.logic", MODELS[kind], args.boards, args.batch, device)
        compiled.model.get_submodule("has_value").compile()  # as train.compile does (training/distributed.py)
        sides.append(compiled)
    if args.amp:
        torch.manual_seed(0)
        name = "today + train.compile + train.amp (bf16)" if args.compile else "today + train.amp (bf16)"
        mixed = side(name, "ltn_sudoku.logic", MODELS[kind], args.boards, args.batch, device).in_bf16()
        if args.compile:
            mixed.model.get_submodule("has_value").compile()
        sides.append(mixed)
    weights = {k: v.clone() for k, v in today.model.state_dict().items()}
    boards = sum(len(b) for b in today.batches)
    passes = interleaved(sides, weights, device, args.repeats)
    cpu, wall, losses = passes.cpu, passes.wall, passes.losses
    rows = []
    for s in sides[1:]:
        ratios = [b / t for b, t in zip(cpu[before.name], cpu[s.name])]
        rows.append({
            "kind": kind, "side": s.name, "boards": boards, "batches": len(today.batches),
            "baseline_boards_per_cpu_s": boards / statistics.median(cpu[before.name]),
            "today_boards_per_cpu_s": boards / statistics.median(cpu[s.name]),
            "baseline_boards_per_s": boards / statistics.median(wall[before.name]),
            "today_boards_per_s": boards / statistics.median(wall[s.name]),
            "ratio": statistics.median(ratios), "ratio_min": min(ratios), "ratio_max": max(ratios),
            "loss_difference": max(abs(a - b) for a, b in zip(losses[before.name], losses[s.name])),
            "first_loss": losses[s.name][0],
            "warm_up_cpu_s": passes.warm_up_cpu[s.name] if "compile" in s.name else None,
        })
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], epilog=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default=",".join(MODELS), help=f"of: {', '.join(MODELS)}")
    parser.add_argument("--boards", type=int, default=128, help="training boards per pass (default 128)")
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=5, help="interleaved passes per side (default 5)")
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads (default 1, as conf/config.yaml)")
    parser.add_argument("--baseline", default=BASELINE, help=f"the commit to compare with (default {BASELINE})")
    parser.add_argument("--device", default="cpu", help="cpu (default) or cuda")
    parser.add_argument("--compile", action="store_true", help="also today's code with train.compile (hasValue's "
                        "step compiled by torch.compile; needs a C++ compiler on the CPU)")
    parser.add_argument("--amp", action="store_true", help="also today's code with train.amp (bf16 autocast; "
                        "compiled too with --compile)")
    parser.add_argument("--repo", type=Path, default=ROOT, help="the git repository holding --baseline (default: this "
                        "tree's)")
    args = parser.parse_args(argv)
    kinds = [k.strip() for k in args.models.split(",") if k.strip()]
    unknown = [k for k in kinds if k not in MODELS]
    if unknown or args.boards < 1 or args.batch < 1 or args.repeats < 1 or args.threads < 1:
        parser.error(f"--models: expected some of {', '.join(MODELS)}" if unknown
                     else "--boards, --batch, --repeats and --threads must be at least 1")
    device = torch.device(args.device)
    if device.type == "cuda" and not torch.cuda.is_available():
        parser.error("--device cuda: no CUDA device here")
    torch.set_num_threads(args.threads)
    print(f"CPU: {cpu_name()}; torch {torch.__version__}, {args.threads} thread(s), device {device}; batch "
          f"{args.batch}, {args.boards} boards a pass, {args.repeats} interleaved passes a side; baseline "
          f"{args.baseline} (its training-step modules: STEP_MODULES); the CPU's bf16 units: {bf16_units()}",
          flush=True)
    with tempfile.TemporaryDirectory(prefix="bench_train_step_") as tmp:
        baseline = baseline_logic(args.baseline, Path(tmp), args.repo)
        print("| model | today's side | baseline boards/CPU s | today boards/CPU s | ratio (min-max) | baseline / "
              "today boards/s (wall) | largest loss difference |")
        print("|---|---|---:|---:|---:|---:|---:|")
        for kind in kinds:
            for r in compare(kind, baseline, args, device):
                warm = "" if r["warm_up_cpu_s"] is None else f" (compiling: {r['warm_up_cpu_s']:.0f} CPU s, once)"
                print(f"| 9x9 {kind} | {r['side']}{warm} | {r['baseline_boards_per_cpu_s']:.1f} | "
                      f"{r['today_boards_per_cpu_s']:.1f} | **{r['ratio']:.2f}x** ({r['ratio_min']:.2f}-"
                      f"{r['ratio_max']:.2f}) | {r['baseline_boards_per_s']:.1f} / {r['today_boards_per_s']:.1f} | "
                      f"{r['loss_difference']:.1e} (loss {r['first_loss']:.4f}) |", flush=True)
    print(f"peak RSS {peak_rss_mb():.0f} MB (the process: both sides)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
