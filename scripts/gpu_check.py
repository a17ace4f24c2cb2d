#!/usr/bin/env python
"""The GPU check, in one command: the device tests, then what the learned half costs on this device.

    python scripts/gpu_check.py --device cuda --out gpu_check.json     # a GPU machine: about 8 minutes
    python scripts/gpu_check.py --device cpu --quick --out cpu.json     # the CPU baseline rows (this machine)

1. tests: `pytest tests/test_device.py --device D` (slow ones too, unless --quick): every entry point on the device.
2. train: boards/s of one training step (the objective, backward, Adam) for 4x4 and 9x9 (evidence, message passing)
   and visual 9x9, at batch sizes from 32 doubling up to the largest that fits (or --max-batch), in fp32 eager, bf16
   autocast and bf16 + torch.compile; peak device memory. Batches are drawn from one seeded pool of generated boards
   per model (the step's cost does not depend on which boards).
3. ddp: the same 9x9 message-passing run as `python -m ltn_sudoku.train` and under `torchrun --nproc_per_node=1`
   (DDP, nccl on CUDA): boards/s of the training loop and the largest difference between their loss curves.
4. answer: evaluation (hasValue + hasSolution after the answering steps, `assess.inference_speed`) and classify-board's
   LTN section (`LtnAnswers.sections`) in boards/s, with the shipped 9x9 checkpoints on real Kaggle rows.
It prints one table (the machine named) and writes every figure to JSON. Each section has a share of --budget-s and
records an error instead of stopping the others.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any, Callable

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from omegaconf import DictConfig, OmegaConf, open_dict  # noqa: E402
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator  # noqa: E402

from ltn_sudoku.io import read_boards  # noqa: E402
from ltn_sudoku.logic.board import assess, data
from ltn_sudoku.logic.board.data import build_splits  # noqa: E402
from ltn_sudoku.logic.board.model import LtnSudoku, ModelConfig  # noqa: E402
from ltn_sudoku.logic.board.predict import LtnAnswers  # noqa: E402
from ltn_sudoku.logic.board.task import board_step, build_optimizer  # noqa: E402
from ltn_sudoku.logic.config.schema import compose_config  # noqa: E402
from ltn_sudoku.logic.device import synchronize  # noqa: E402
from ltn_sudoku.logic.kb.operators import build_operators  # noqa: E402
from ltn_sudoku.logic.training import distributed  # noqa: E402
from ltn_sudoku.logic.training.runtime import configure_torch  # noqa: E402
from ltn_sudoku.paths import CHECKPOINTS_DIR, DATA_DIR, REPO_ROOT, data_file  # noqa: E402

MODELS: dict[str, tuple[str, ...]] = {  # name -> Hydra overrides
    "4x4 evidence": ("model=4x4", "logic=lukasiewicz"),
    "4x4 message passing": ("model=4x4_mp", "logic=product_mp"),
    "9x9 evidence": ("model=9x9", "logic=product"),
    "9x9 message passing": ("model=9x9_mp", "logic=product_mp"),
    "visual 9x9": ("model=visual_9x9", "logic=visual"),
}
MODES: dict[str, tuple[bool, bool]] = {"fp32": (False, False), "bf16": (True, False), "bf16+compile": (True, True)}
POOL = {"solvable": 192, "impossible": 64}


def machine(device: torch.device) -> str:
    cpu = f"{os.cpu_count()} CPU cores ({platform.processor() or platform.machine()})"
    if device.type == "cuda":
        p = torch.cuda.get_device_properties(device)
        return f"{p.name}, {p.total_memory / 2**30:.0f} GiB, {cpu}, torch {torch.__version__}"
    return f"CPU only: {cpu}, torch {torch.__version__}"


def config(device: str, *overrides: str) -> DictConfig:
    """A run's config, seeded and with its device resolved (cfg.device_resolved), as the trainer sees it."""
    cfg = compose_config([f"device={device}", "threads=0", *overrides])
    configure_torch(cfg)
    return cfg


def peak_memory_mb(device: torch.device) -> float:
    if device.type == "cuda":
        return torch.cuda.max_memory_allocated(device) / 2**20
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # the process's peak RSS (MB) on the CPU


def timed_steps(step: Callable[[], None], device: torch.device, warmup: int, seconds: float,
                max_steps: int = 50) -> tuple[int, float]:
    """(steps, wall seconds) of `step` run after `warmup` calls, for about `seconds` (at least 2 steps)."""
    for _ in range(warmup):
        step()
    synchronize(device)
    started, steps = time.perf_counter(), 0
    while steps < 2 or (time.perf_counter() - started < seconds and steps < max_steps):
        step()
        steps += 1
        if steps % 2 == 0:
            synchronize(device)
    synchronize(device)
    return steps, time.perf_counter() - started


Trainer = Callable[[int], Callable[[], None]]  # batch size -> one training step on a batch of that size


def ltn_trainer(cfg: DictConfig, pool: data.BoardSet) -> Trainer:
    """One model, optimizer and loss (compiled once with train.compile) for every batch size."""
    model = LtnSudoku(ModelConfig.from_cfg(cfg.model)).to(cfg.device_resolved)
    optimizer = build_optimizer(model, cfg)
    ops = build_operators(cfg.logic)
    loss_fn = distributed.loss_function(model, cfg, distributed.Process(), board_step(ops, False))
    generator = torch.Generator().manual_seed(0)

    def steps(batch: int) -> Callable[[], None]:
        def step() -> None:
            rows = pool.select(torch.randint(len(pool), (batch,), generator=generator))  # host: an index
            loss = loss_fn(rows).loss
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        return step

    return steps


def visual_trainer(cfg: DictConfig, pool: Any) -> Trainer:
    from ltn_sudoku.logic.visual.model import VisualConfig, VisualLtn
    from ltn_sudoku.logic.visual.objective import objective

    model = VisualLtn(VisualConfig.from_cfg(OmegaConf.to_container(cfg.model, resolve=True))).to(cfg.device_resolved)
    if cfg.train.get("compile_mode"):
        model.reader.compile()
    optimizer = torch.optim.Adam(model.parameters(), lr=float(cfg.train.lr))
    ops = build_operators(cfg.logic)
    images, valid = pool
    generator = torch.Generator().manual_seed(0)
    device_type = torch.device(str(cfg.device_resolved)).type
    amp = bool(cfg.train.get("amp_mode"))

    def steps(batch: int) -> Callable[[], None]:
        def step() -> None:
            rows = torch.randint(len(valid), (batch,), generator=generator)  # host: an index
            with torch.autocast(device_type, dtype=torch.bfloat16, enabled=amp):
                loss = objective(model, ops, images[rows], valid[rows], float(cfg.train.rules_weight)).loss
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        return step

    return steps


def train_section(args: argparse.Namespace, device: torch.device, deadline: float) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    names = [m for m in MODELS if not args.models or m in args.models]
    pairs_left = len(names) * len(args.modes)
    for name in names:
        overrides = MODELS[name]
        visual = name.startswith("visual")
        base = config(args.device, *overrides, f"data.mnist_path={data_file('mnist')}" if visual else "seed=0")
        if visual:
            from ltn_sudoku.logic.visual.data import build_data

            with open_dict(base):
                base.data.train_boards, base.data.val_boards, base.data.test_boards = 64, 2, 2
            boards = build_data(9, base.data, 0).train.boards
            pool: Any = (torch.from_numpy(boards.images).to(device), torch.from_numpy(boards.valid).to(device))
        else:
            small = config(args.device, *overrides, f"data.train.solvable={POOL['solvable']}",
                           f"data.train.impossible={POOL['impossible']}", "data.val.solvable=2",
                           "data.val.impossible=2", "data.val.closed_valid=2", "data.val.closed_invalid=2")
            pool = build_splits(small, ModelConfig.from_cfg(small.model)).train.to(device)
        for mode in args.modes:
            pair_deadline = time.perf_counter() + (deadline - time.perf_counter()) / max(1, pairs_left)
            pairs_left -= 1
            amp, compiled = MODES[mode]
            cfg = config(args.device, *overrides, f"train.amp={amp}", f"train.compile={compiled}") if not visual \
                else base
            if visual:
                with open_dict(cfg):
                    cfg.train.amp_mode, cfg.train.compile_mode = amp, compiled
            torch.manual_seed(0)
            trainer = (visual_trainer if visual else ltn_trainer)(cfg, pool)
            batch = 32
            while batch <= args.max_batch and (batch == 32 or time.perf_counter() < pair_deadline):
                row: dict[str, Any] = {"model": name, "mode": mode, "batch": batch}
                try:
                    if device.type == "cuda":
                        torch.cuda.empty_cache()
                        torch.cuda.reset_peak_memory_stats(device)
                    step = trainer(batch)
                    started = time.perf_counter()
                    steps, seconds = timed_steps(step, device, 3 if compiled else 1, args.seconds)
                    row.update(boards_per_s=steps * batch / seconds, steps=steps,
                               setup_s=time.perf_counter() - started - seconds,
                               peak_mb=peak_memory_mb(device))
                except torch.OutOfMemoryError:
                    row["error"] = "out of memory"
                except Exception as e:  # noqa: BLE001 - recorded, the other settings go on
                    row["error"] = f"{type(e).__name__}: {str(e)[:300]}"
                rows.append(row)
                print(_train_line(row), flush=True)
                if "error" in row:
                    break
                batch *= 2
    return rows


def _train_line(row: dict[str, Any]) -> str:
    if "error" in row:
        return f"  {row['model']:<20} {row['mode']:<13} batch {row['batch']:>5}: {row['error']}"
    return (f"  {row['model']:<20} {row['mode']:<13} batch {row['batch']:>5}: {row['boards_per_s']:>9.1f} boards/s "
            f"({row['steps']} steps, setup {row['setup_s']:.1f} s), peak {row['peak_mb']:.0f} MB")


def tensorboard_losses(run: Path) -> list[tuple[int, float]]:
    """(boards seen, loss) of every training batch of a run, as TensorBoard holds them (tests/test_distributed.py
    compares runs with it too)."""
    values = []
    for events in (run / "tb").rglob("events.out.tfevents.*"):
        accumulator = EventAccumulator(str(events)).Reload()
        if "train/loss" in accumulator.Tags()["scalars"]:
            values += [(e.step, e.value) for e in accumulator.Scalars("train/loss")]
    return sorted(values)


def ddp_section(args: argparse.Namespace, device: torch.device) -> dict[str, Any]:
    """One process against torchrun with one process (DDP: nccl on CUDA, gloo on the CPU), same config and seed."""
    out: dict[str, Any] = {"model": args.ddp_model, "boards": args.ddp_boards + args.ddp_boards // 4,
                           "batch": args.ddp_batch}
    common = [*MODELS[args.ddp_model], f"device={args.device}", "train.epochs=1", "train.progress=false",
              f"data.train.solvable={args.ddp_boards}", f"data.train.impossible={args.ddp_boards // 4}",
              f"train.batch_size={args.ddp_batch}", "data.val.solvable=8", "data.val.impossible=8",
              "data.val.closed_valid=4", "data.val.closed_invalid=4"]
    env = {**os.environ, "PYTHONWARNINGS": "ignore",
           "PYTHONPATH": os.pathsep.join([str(REPO_ROOT), os.environ.get("PYTHONPATH", "")])}
    with tempfile.TemporaryDirectory() as root:
        runs = {"one process": [sys.executable, "-m", "ltn_sudoku.train"],
                **({"one process, again": [sys.executable, "-m", "ltn_sudoku.train"]} if args.ddp_repeat else {}),
                "torchrun, 1 process (DDP)": [sys.executable, "-m", "torch.distributed.run", "--standalone",
                                              "--nproc_per_node=1", "-m", "ltn_sudoku.train"]}
        curves = {}
        for label, command in runs.items():
            folder = Path(root) / "".join(c if c.isalnum() else "_" for c in label)  # a plain Hydra override value
            done = subprocess.run([*command, *common, f"run_dir={folder}"], cwd=REPO_ROOT, env=env,
                                  capture_output=True, text=True, timeout=600, check=False)
            if done.returncode:
                out[label] = {"error": done.stderr[-6000:]}
                continue
            metrics = json.loads((folder / "metrics.json").read_text())
            out[label] = {"boards_per_s": metrics["train/boards_per_second"], "processes": metrics["train/processes"],
                          "wall_s": metrics["train/wall_seconds"]}
            curves[label] = tensorboard_losses(folder)
            print(f"  ddp {label}: {out[label]['boards_per_s']:.1f} boards/s", flush=True)
        def difference(a: str, b: str) -> float:
            return max((abs(x - y) for (_, x), (_, y) in zip(curves[a], curves[b])), default=0.0)

        ddp = "torchrun, 1 process (DDP)"
        if "one process" in curves and ddp in curves:
            out["same_batches"] = [s for s, _ in curves["one process"]] == [s for s, _ in curves[ddp]]
            out["max_loss_difference"] = difference("one process", ddp)
            if "one process, again" in curves:  # the device's own run-to-run difference (atomics in reductions)
                out["max_loss_difference_same_command"] = difference("one process", "one process, again")
            out["ratio"] = out["torchrun, 1 process (DDP)"]["boards_per_s"] / out["one process"]["boards_per_s"]
    return out


def answer_section(args: argparse.Namespace, device: torch.device) -> list[dict[str, Any]]:
    """Evaluation and classify-board LTN boards/s with the shipped 9x9 checkpoints on real Kaggle 3M rows."""
    from ltn_sudoku.logic.kinds import load_model

    boards = read_boards(DATA_DIR / "kaggle" / "kaggle_3m_sample1000.csv.gz")[: args.answer_boards]
    puzzles = data.from_boards(9, boards, [None] * len(boards), ["open_solvable"] * len(boards), ["3M"] * len(boards))
    rows = []
    for checkpoint in ("9x9.pt", "9x9_message_passing.pt"):
        model, ops, _ = load_model(CHECKPOINTS_DIR / checkpoint, 9, device)
        assess.inference_speed(model, ops, puzzles.select(range(min(8, len(puzzles)))))  # warm-up
        speed = assess.inference_speed(model, ops, puzzles)
        answers = LtnAnswers(CHECKPOINTS_DIR / checkpoint, device=args.device, threads=None)
        answers.sections(boards[:8])  # load + warm-up
        started = time.perf_counter()
        answers.sections(boards)
        synchronize(device)
        rows.append({"checkpoint": checkpoint, "boards": len(boards),
                     "evaluate_boards_per_s": speed["cost/inference_boards_per_wall_second"],
                     "classify_ltn_boards_per_s": len(boards) / (time.perf_counter() - started)})
        print(f"  {checkpoint}: evaluation {rows[-1]['evaluate_boards_per_s']:.1f} boards/s, classify-board LTN "
              f"section {rows[-1]['classify_ltn_boards_per_s']:.1f} boards/s", flush=True)
    return rows


def tests_section(args: argparse.Namespace) -> dict[str, Any]:
    command = [sys.executable, "-m", "pytest", "-q", "tests/test_device.py", f"--device={args.device}", "-p",
               "no:cacheprovider", "-rfEs", "--tb=short", "-W", "ignore", *(["-m", "not slow"] if args.quick else []),
               *(["-n", str(args.test_workers)] if args.test_workers > 1 else [])]
    started = time.perf_counter()
    done = subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True, timeout=args.tests_timeout_s,
                          check=False)
    lines = done.stdout.strip().splitlines()
    summary = next((line for line in reversed(lines) if " passed" in line or " failed" in line), "no summary")
    failures = [line for line in lines if line.startswith(("FAILED", "ERROR", "SKIPPED"))]
    print("\n".join([*failures, summary]), flush=True)
    return {"command": " ".join(command[1:]), "returncode": done.returncode, "summary": summary,
            "seconds": time.perf_counter() - started, "failures": failures, "output": done.stdout[-20000:]}


def run_section(report: dict[str, Any], name: str, work: Callable[[], Any]) -> None:
    print(f"\n== {name}", flush=True)
    gc.collect()  # what the last section held goes back to the device: the DDP runs are separate processes
    if torch.cuda.is_available():
        torch.cuda.empty_cache()
    started = time.perf_counter()
    try:
        report[name] = work()
    except Exception:  # noqa: BLE001 - a broken section is a finding, not the end of the check
        report[name] = {"error": traceback.format_exc()[-3000:]}
        print(report[name]["error"], flush=True)
    report.setdefault("seconds", {})[name] = time.perf_counter() - started


def print_table(report: dict[str, Any]) -> None:
    print(f"\n# gpu_check on {report['machine']}")
    tests = report.get("tests", {})
    if tests:
        print(f"device tests: {tests.get('summary', tests.get('error', ''))}")
    print("\n| model | mode | batch | boards/s | peak MB |\n|---|---|---:|---:|---:|")
    for row in report.get("train", []) if isinstance(report.get("train"), list) else []:
        if "error" in row:
            print(f"| {row['model']} | {row['mode']} | {row['batch']} | {row['error'][:40]} | |")
        else:
            print(f"| {row['model']} | {row['mode']} | {row['batch']} | {row['boards_per_s']:.1f} | "
                  f"{row['peak_mb']:.0f} |")
    ddp = report.get("ddp", {})
    if "ratio" in ddp:
        print(f"\nDDP (torchrun, 1 process) / one process: {ddp['ratio']:.3f}x boards/s; same batches: "
              f"{ddp['same_batches']}; largest loss difference {ddp['max_loss_difference']:.2e}")
    for row in report.get("answer", []) if isinstance(report.get("answer"), list) else []:
        print(f"{row['checkpoint']}: evaluation {row['evaluate_boards_per_s']:.1f} boards/s, classify-board LTN "
              f"{row['classify_ltn_boards_per_s']:.1f} boards/s ({row['boards']} Kaggle 3M rows)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda", choices=("cuda", "cpu"))
    parser.add_argument("--out", type=Path, default=Path("gpu_check.json"), help="the JSON report")
    parser.add_argument("--quick", action="store_true", help="a small setting (CI, the CPU baseline)")
    parser.add_argument("--sections", nargs="+", default=["tests", "train", "ddp", "answer"],
                        choices=("tests", "train", "ddp", "answer"))
    parser.add_argument("--models", nargs="+", choices=list(MODELS), help="training models (default: all)")
    parser.add_argument("--modes", nargs="+", choices=list(MODES), default=list(MODES))
    parser.add_argument("--max-batch", type=int, default=8192, help="largest training batch tried")
    parser.add_argument("--seconds", type=float, default=1.5, help="timed seconds per training setting")
    parser.add_argument("--budget-s", type=float, default=240.0, help="seconds for the training section")
    parser.add_argument("--tests-timeout-s", type=float, default=600.0, help="seconds the device tests may take")
    parser.add_argument("--test-workers", type=int, default=1, help="pytest-xdist workers for the device tests")
    parser.add_argument("--ddp-model", default="9x9 message passing", choices=[m for m in MODELS if "visual" not in m])
    parser.add_argument("--ddp-boards", type=int, default=2000, help="solvable training boards of the DDP runs")
    parser.add_argument("--ddp-batch", type=int, default=128)
    parser.add_argument("--ddp-repeat", action="store_true", help="run the one-process run twice (run-to-run noise)")
    parser.add_argument("--answer-boards", type=int, default=256)
    args = parser.parse_args()
    if args.quick:
        args.max_batch, args.seconds = min(args.max_batch, 64), min(args.seconds, 0.5)
        args.ddp_boards, args.ddp_batch, args.answer_boards = min(args.ddp_boards, 24), min(args.ddp_batch, 8), \
            min(args.answer_boards, 16)
    device = torch.device(args.device)
    if device.type == "cuda" and not torch.cuda.is_available():
        parser.error("--device cuda: no CUDA device is available (use --device cpu)")
    report: dict[str, Any] = {"machine": machine(device), "device": args.device, "args": vars(args) | {"out": str(args.out)},
                              "started": time.strftime("%Y-%m-%d %H:%M:%S")}
    print(f"gpu_check on {report['machine']}", flush=True)
    sections: dict[str, Callable[[], Any]] = {
        "tests": lambda: tests_section(args),
        "train": lambda: train_section(args, device, time.perf_counter() + args.budget_s),
        "ddp": lambda: ddp_section(args, device),
        "answer": lambda: answer_section(args, device),
    }
    for name in args.sections:
        run_section(report, name, sections[name])
        args.out.write_text(json.dumps(report, indent=2, default=str) + "\n")  # what is done so far, kept
    print_table(report)
    print(f"\nwrote {args.out}")


if __name__ == "__main__":
    main()
