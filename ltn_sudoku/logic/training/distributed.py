"""Data-parallel training on PyTorch's engines: DistributedDataParallel under `torchrun`, or under a submitit / SLURM
job with several tasks (`hydra/launcher=slurm`, tasks_per_node > 1); docs/scale.md.

Every process builds the same seeded data and draws the same global batch order; each reads its own contiguous shard
of every global batch. The knowledge base's ∀b (pMeanError, the log-product of the labelled axioms) is not a mean of
per-board terms, so the mean of the shards' gradients would not be the global batch's gradient. Instead
`gather_groundings` hands the objective every per-board truth (and label) from all processes (autograd-aware: the backward sums each process's gradient into the
shard that produced it) before ∀b: every process computes the global batch's loss L, its local gradient is
world_size * the part of dL/dθ that flows through its shard, and DDP's mean over processes is exactly dL/dθ.

Rank 0 alone writes (TensorBoard, checkpoints, metrics.json) and logs; every rank validates (so the thresholds
calibrated into the model agree) and follows rank 0's early-stopping decision. Plain `python -m ltn_sudoku.train` is
one process and never touches torch.distributed.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import torch
import torch.distributed as dist
from omegaconf import DictConfig
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.tensorboard import SummaryWriter

from ltn_sudoku.logic.device import resolve_device, to_list
from ltn_sudoku.logic.kb.aggregate import BatchResult, Groundings, local
from ltn_sudoku.logic.training.task import Shardable, Step

T = TypeVar("T")
S = TypeVar("S", bound=Shardable)
LossFn = Callable[[Any], BatchResult]  # a global batch -> the objective (on this process's shard under DDP)


@dataclass(frozen=True)
class Process:
    """This process's place in the job: rank 0 of 1 when not distributed."""

    rank: int = 0
    world_size: int = 1
    joined: bool = False  # in a process group (under torchrun, also with one process: DDP over nccl on one GPU)

    @property
    def is_main(self) -> bool:
        return self.rank == 0

    @property
    def distributed(self) -> bool:
        return self.joined


def launched_world_size() -> int:
    """How many processes the launcher started for this job: torchrun's WORLD_SIZE, a submitit job's tasks, else 1."""
    if "WORLD_SIZE" in os.environ:
        return int(os.environ["WORLD_SIZE"])
    if os.environ.get("SUBMITIT_EXECUTOR"):
        import submitit  # only inside a submitit job (hydra/launcher=slurm or local_submitit)

        return int(submitit.JobEnvironment().num_tasks)
    return 1


def current() -> Process:
    """The process group this process has joined (see `process_group`), or a single process."""
    if dist.is_available() and dist.is_initialized():
        return Process(dist.get_rank(), dist.get_world_size(), joined=True)
    return Process()


@contextmanager
def process_group(cfg: DictConfig) -> Iterator[Process]:
    """Join the job's process group when the launcher started several processes, for the duration of the block.

    Backend nccl when training on CUDA (each process on the GPU of its LOCAL_RANK), gloo on the CPU. A submitit task
    exports torchrun's variables (MASTER_ADDR, RANK, ...) from its SLURM environment first. Non-zero ranks log
    warnings only.
    """
    under_torchrun = "TORCHELASTIC_RUN_ID" in os.environ  # torchrun's own variable: join even with one process
    if (launched_world_size() <= 1 and not under_torchrun) or current().distributed:
        yield current()
        return
    if "RANK" not in os.environ:
        import submitit

        submitit.helpers.TorchDistributedEnvironment().export(set_cuda_visible_devices=False)
    cuda = resolve_device(str(cfg.device)).type == "cuda"
    if cuda:
        torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")) % torch.cuda.device_count())
    dist.init_process_group("nccl" if cuda else "gloo")
    process = current()
    if not process.is_main:
        logging.getLogger().setLevel(logging.WARNING)
    try:
        yield process
    finally:
        dist.destroy_process_group()


def shard(batch: S, process: Process) -> S:
    """This process's contiguous part of a global batch (parts differ in length by at most one; some may be empty)."""
    if not process.distributed:
        return batch
    shards = torch.tensor_split(torch.arange(len(batch)), process.world_size)  # host: an index
    return batch.select(shards[process.rank])


class _AllGather(torch.autograd.Function):
    """all_gather of equal-shaped tensors, stacked; backward: the sum over processes of the gradient of the stack
    (all_reduce), of which each process keeps its own row."""

    @staticmethod
    def forward(ctx: Any, tensor: torch.Tensor) -> torch.Tensor:
        parts = [torch.empty_like(tensor) for _ in range(dist.get_world_size())]
        dist.all_gather(parts, tensor.contiguous())
        return torch.stack(parts)

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> torch.Tensor:
        grad = grad.contiguous()
        dist.all_reduce(grad)
        return grad[dist.get_rank()]


def gather_boards(tensor: torch.Tensor) -> torch.Tensor:
    """Every process's `tensor` concatenated along dim 0 in rank order; lengths may differ between processes.

    Differentiable when `tensor` requires grad: the backward sums every process's gradient of the gathered tensor into
    the part each process contributed. Every process must call it in the same order (the objective does).
    """
    if dist.get_world_size() == 1:  # one process (torchrun on one GPU): nothing to gather, and no host sync
        return tensor
    length = torch.tensor([tensor.shape[0]], device=tensor.device)
    sizes = to_list(_AllGather.apply(length).flatten())
    padded = torch.cat([tensor, tensor.new_zeros(max(sizes) - tensor.shape[0], *tensor.shape[1:])])
    if tensor.dtype == torch.bool:  # gloo gathers no bool tensors
        parts = _AllGather.apply(padded.to(torch.uint8)).bool()
    else:
        parts = _AllGather.apply(padded)
    return torch.cat([part[:size] for part, size in zip(parts, sizes)])


def gather_groundings(grounded: Groundings) -> Groundings:
    """Every grounded axiom's per-board tensors from all processes (gather_boards on each, in the order of the
    groundings, which the config alone fixes): what the objective closes with ∀b on every process."""
    gathered: dict[int, tuple[torch.Tensor, ...]] = {}  # an axiom pair grounded on the same tensors is gathered once
    out: Groundings = {}
    for name, value in grounded.items():
        if id(value) not in gathered:
            gathered[id(value)] = tuple(gather_boards(t) for t in value.tensors())
        out[name] = value.with_tensors(gathered[id(value)])
    return out


def from_main(value: T, process: Process) -> T:
    """Rank 0's `value` on every process (a picklable object: a run folder, an early-stopping decision)."""
    if not process.distributed:
        return value
    box = [value]
    dist.broadcast_object_list(box, src=0)
    return box[0]


class _Objective(nn.Module):
    """A task's objective as a module, so DDP sees a forward (its gradient hooks are armed there)."""

    def __init__(self, model: nn.Module, step: Step, process: Process) -> None:
        super().__init__()
        self.model, self.step, self.process = model, step, process

    def forward(self, batch: Shardable) -> BatchResult:
        return self.step(self.model, shard(batch, self.process), gather_groundings)


def loss_function(model: nn.Module, cfg: DictConfig, process: Process, step: Step) -> LossFn:
    """The training loss of one (global) batch on this process: the task's `step` on its shard under DDP when
    distributed, in bf16 autocast with train.amp, with hasValue's network compiled with train.compile."""
    if cfg.train.get("compile"):
        model.get_submodule("has_value").compile()  # in place: the state_dict keys (checkpoints) stay as they are
    device_type = torch.device(str(cfg.device_resolved)).type
    amp = bool(cfg.train.get("amp"))
    if process.distributed:
        # find_unused_parameters: rules-only runs leave some heads without gradient on some batches
        ddp = DistributedDataParallel(_Objective(model, step, process), find_unused_parameters=True)

        def compute(batch: Any) -> BatchResult:
            return ddp(batch)
    else:
        def compute(batch: Any) -> BatchResult:
            return step(model, batch, local)

    def loss(batch: Any) -> BatchResult:
        with torch.autocast(device_type, dtype=torch.bfloat16, enabled=amp):
            return compute(batch)

    return loss


class NullWriter:
    """What a non-zero rank writes to TensorBoard: nothing."""

    def add_scalar(self, *args: Any, **kwargs: Any) -> None:
        pass

    def add_hparams(self, *args: Any, **kwargs: Any) -> None:
        pass

    def add_images(self, *args: Any, **kwargs: Any) -> None:
        pass

    def close(self) -> None:
        pass


def summary_writer(process: Process, folder: Path, purge_step: int | None) -> SummaryWriter | NullWriter:
    """TensorBoard's writer on rank 0, a NullWriter elsewhere."""
    return SummaryWriter(str(folder), purge_step=purge_step) if process.is_main else NullWriter()
