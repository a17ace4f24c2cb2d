#!/usr/bin/env python
"""Training throughput (boards/s) with 1 and more data-parallel processes, against one process in the same run.

Every configuration runs the training step of ltn_sudoku/logic/training/loop.py (the objective on this rank's shard of each global
batch, through DDP when distributed, backward, Adam step) on the same seeded global batches, each in fresh processes
started like torchrun does (env:// rendezvous on this machine): gloo on the CPU, nccl on GPUs (one process per GPU).
Wall time of the timed batches after warm-up batches, boards/s of the global batches (median of --repeats rounds over
the settings, interleaved) and the ratio against the first setting (one process); boards per CPU second of all the
processes together (what the data-parallel work costs, whatever else loads the machine); the largest process's peak
resident memory (and peak CUDA memory on a GPU).

    python scripts/bench_scale.py [--model 4x4] [--procs 1 2] [--threads 1] [--batch 64] [--batches 30] \
        [--repeats 3] [--device auto] [--amp] [--compile] [--one-proc-threads 2] [override ...]
"""

from __future__ import annotations

import argparse
import os
import resource
import socket
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from omegaconf import DictConfig

from ltn_sudoku.logic.board.data import build_splits
from ltn_sudoku.logic.board.model import LtnSudoku, ModelConfig
from ltn_sudoku.logic.board.task import board_step, build_optimizer
from ltn_sudoku.logic.config.schema import compose_config
from ltn_sudoku.logic.kb.operators import build_operators
from ltn_sudoku.logic.training import distributed
from ltn_sudoku.logic.training.runtime import configure_torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # scripts/ as a package, wherever this runs from
from scripts._machine import machine_line  # noqa: E402


@dataclass(frozen=True)
class Setting:
    procs: int
    threads: int
    amp: bool = False
    compile: bool = False

    @property
    def label(self) -> str:
        extras = "".join(f" +{name}" for name in ("amp", "compile") if getattr(self, name))
        return f"{self.procs} proc x {self.threads} thread{'s' if self.threads > 1 else ''}{extras}"


def config(args: argparse.Namespace, setting: Setting) -> DictConfig:
    overrides = [f"model={args.model}", f"device={args.device}", f"threads={setting.threads}",
                 f"train.batch_size={args.batch}", f"train.amp={setting.amp}", f"train.compile={setting.compile}",
                 f"data.train.solvable={args.batch * (args.batches + args.warmup)}", "data.train.impossible=0",
                 "data.val.solvable=1", "data.val.impossible=1", *args.overrides]
    return compose_config(overrides)


def worker(rank: int, args: argparse.Namespace, setting: Setting, port: int, results: mp.Queue) -> None:
    """One process of a setting: the training steps over the global batches, timed on rank 0 between barriers."""
    os.environ.update(RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE=str(setting.procs), MASTER_ADDR="127.0.0.1",
                      MASTER_PORT=str(port))
    cfg = config(args, setting)
    with distributed.process_group(cfg) as process:
        configure_torch(cfg)
        model_config = ModelConfig.from_cfg(cfg.model)
        model = LtnSudoku(model_config).to(cfg.device_resolved)
        optimizer = build_optimizer(model, cfg)
        boards = build_splits(cfg, model_config).train.to(cfg.device_resolved)
        batches = list(boards.batches(args.batch, torch.Generator().manual_seed(0)))[:args.warmup + args.batches]
        ops = build_operators(cfg.logic)
        loss_fn = distributed.loss_function(model, cfg, process, board_step(ops, False))
        cuda = torch.device(str(cfg.device_resolved)).type == "cuda"
        started, cpu, seen = 0.0, 0.0, 0
        for i, batch in enumerate(batches):
            if i == args.warmup:
                if cuda:
                    torch.cuda.synchronize()
                if process.distributed:
                    dist.barrier()
                started, cpu = time.perf_counter(), time.process_time()
            loss = loss_fn(batch).loss
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            seen += len(batch) if i >= args.warmup else 0
        if cuda:
            torch.cuda.synchronize()
        if process.distributed:
            dist.barrier()
        seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
        peak_cuda = torch.cuda.max_memory_allocated() / 2**20 if cuda else 0.0
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        results.put((rank, seen, seconds, cpu, rss, peak_cuda))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def run(args: argparse.Namespace, setting: Setting) -> tuple[float, float, float, float]:
    """(boards/s, boards per CPU second of all processes, peak RSS MB and peak CUDA MB of the largest process)."""
    context = mp.get_context("spawn")
    results = context.Queue()
    port = free_port()
    processes = [context.Process(target=worker, args=(rank, args, setting, port, results))
                 for rank in range(setting.procs)]
    for p in processes:
        p.start()
    rows = [results.get() for _ in processes]
    for p in processes:
        p.join()
        if p.exitcode:
            raise RuntimeError(f"{setting.label}: a process failed (exit {p.exitcode})")
    main = next(row for row in rows if row[0] == 0)
    return (main[1] / main[2], main[1] / sum(row[3] for row in rows), max(row[4] for row in rows),
            max(row[5] for row in rows))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="4x4")
    parser.add_argument("--procs", type=int, nargs="+", default=[1, 2], help="process counts (the first is the base)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads per process")
    parser.add_argument("--batch", type=int, default=64, help="global batch (split between the processes)")
    parser.add_argument("--batches", type=int, default=30, help="timed batches")
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=3, help="rounds over the settings, interleaved; median shown")
    parser.add_argument("--device", default="cpu", help="cpu | cuda | auto")
    parser.add_argument("--amp", action="store_true", help="also each process count with bf16 autocast")
    parser.add_argument("--compile", action="store_true", help="also each process count with torch.compile")
    parser.add_argument("--one-proc-threads", type=int, default=0,
                        help="also one process with this many threads (intra-op parallelism instead of processes)")
    parser.add_argument("overrides", nargs="*", help="Hydra overrides (model.steps=8 ...)")
    args = parser.parse_args()
    print(machine_line())
    settings = [Setting(procs, args.threads) for procs in args.procs]
    if args.one_proc_threads:
        settings.append(Setting(1, args.one_proc_threads))
    settings += [Setting(procs, args.threads, amp=True) for procs in args.procs if args.amp]
    settings += [Setting(procs, args.threads, compile=True) for procs in args.procs if args.compile]
    print(f"model={args.model} device={args.device} global batch={args.batch} timed batches={args.batches} "
          f"(after {args.warmup}) overrides={args.overrides}; cores: {os.cpu_count()}, load average "
          f"{os.getloadavg()[0]:.1f} at start")
    rounds = []
    for _ in range(args.repeats):  # interleaved, so a change in the machine's load hits every setting alike
        rounds.append([run(args, setting) for setting in settings])
        print("round:", ", ".join(f"{s.label} {r[0]:.1f}" for s, r in zip(settings, rounds[-1])), flush=True)
    print(f"{'setting':<28} {'boards/s':>10} {'vs base':>8} {'boards/CPU s':>13} {'vs base':>8} "
          f"{'peak RSS MB/proc':>17} {'peak CUDA MB':>13}")
    base = [statistics.median(r[0][k] for r in rounds) for k in (0, 1)]
    for i, setting in enumerate(settings):
        rate, per_cpu = (statistics.median(r[i][k] for r in rounds) for k in (0, 1))
        rss, cuda = max(r[i][2] for r in rounds), max(r[i][3] for r in rounds)
        print(f"{setting.label:<28} {rate:>10.1f} {rate / base[0]:>7.2f}x {per_cpu:>13.1f} {per_cpu / base[1]:>7.2f}x "
              f"{rss:>17.0f} {cuda:>13.0f}")
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
