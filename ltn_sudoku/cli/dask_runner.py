"""`classify-board FILE --dask [SCHEDULER] --out RESULTS`: the same answers as on one machine, as partitions on a Dask
cluster (a LocalCluster by default, or any scheduler address, e.g. one started by dask-jobqueue on SLURM; docs/cli.md).

The client reads the input (streamed) and cuts it into the chunks the one-machine path uses; each chunk is a
partition, answered and written on a worker by the same pipeline (answering.write_chunk: the Answerer, then the
command's writer, so only text comes back). As each partition finishes, the client writes it atomically into
RESULTS.parts/part-NNNNNNNN.json; a run that stops (interrupted, a worker or the client killed, a bad row) leaves the
finished partitions there, and the same command resumes with the missing ones.
At the end the parts are joined in input order into RESULTS (atomically) and the folder is removed.

What a resume trusts: RESULTS.parts/run.json, written atomically before any part, records the input (its real path,
size and SHA-256: hashing costs about 1.2 s per GB, nothing beside the answers' 8-17 ms per board) and the options;
parts are resumed only under a manifest equal to this run's, so another input (or the same file rewritten), other
options or parts without a manifest are refused with one line (exit 2, the folder kept: rerun the command that wrote
it, or remove it). The whole run holds RESULTS.lock (common.output_lock), so a second run on the same RESULTS is
refused while one runs and cannot write into, or re-create, the folder of another; an input that changes while it is
read is refused at the end, before the join.

A partition lost with a worker is recomputed by Dask and written once under its index, so no row is lost or written
twice. Few partitions are in flight at a time (WINDOW_PER_WORKER per worker), so memory stays flat for any input.

Memory allocator: Dask's nanny starts each worker with MALLOC_TRIM_THRESHOLD_=65536 (its default
`distributed.nanny.pre-spawn-environ`). Setting any glibc threshold turns off glibc's adaptive mmap threshold, so every
array above 128 KiB is mapped and unmapped afresh: on 1,000 Kaggle 1M rows, 6.4 M page faults and 5.5 s of system
time against 0.2 M and 0.3 s (docs/cli.md). Workers of a LocalCluster started here also get MALLOC_MMAP_THRESHOLD_ at
glibc's adaptive ceiling (32 MiB), which restores the `--jobs` cost and keeps Dask's trimming; a worker of another
cluster reports its variables with each partition, and the client says once how to set it there.

Progress: on a terminal, the boards bar advanced as each partition completes (distributed.as_completed); otherwise
(a log file, a batch job's output) one line per partition on stderr, so a job's log says how far it got.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import sys
import uuid
from collections import Counter
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, Mapping, TextIO

from tqdm import tqdm

from ltn_sudoku.answering import Answerer, Chunk, Writer, write_chunk
from ltn_sudoku.cli import UsageError
from ltn_sudoku.cli.allocator import MMAP_THRESHOLD
from ltn_sudoku.cli.results import ResultsFile
from ltn_sudoku.io import atomic_write_text, strict_json
from ltn_sudoku.io.digest import stream_sha256

if TYPE_CHECKING:
    from dask.typing import Key
    from distributed import Client

TRIM_VARIABLE = "MALLOC_TRIM_THRESHOLD_"  # Dask sets it for every worker; glibc then stops adapting its thresholds
MMAP_VARIABLE = "MALLOC_MMAP_THRESHOLD_"  # allocations above it are mapped afresh each time (page faults)
WINDOW_PER_WORKER = 3  # partitions in flight per worker: every worker busy, flat memory on the client
LOCAL = "local"

_ANSWERERS: dict[str, Answerer] = {}  # per worker process: the run's Answerer, so engines and models load once


def answer_partition(token: str, answerer: Answerer, writer: Writer,
                     chunk: Chunk) -> tuple[str, dict[str, int], int, bool]:
    """On a worker: one partition's written answers, the count of each kind of board, its number of boards, and
    whether the worker's allocator maps every large array afresh (slow_allocator)."""
    done = write_chunk(_ANSWERERS.setdefault(token, answerer), writer, chunk)
    return done.text, dict(done.kinds), done.boards, slow_allocator(os.environ)


def slow_allocator(environ: Mapping[str, str]) -> bool:
    """True when a glibc threshold is fixed (Dask's trim threshold) but the mmap threshold is left at 128 KiB."""
    return TRIM_VARIABLE in environ and MMAP_VARIABLE not in environ


def worker_environ() -> dict[str, object]:
    """Dask's pre-spawn environment of worker processes, with the mmap threshold that keeps them as fast as `--jobs`."""
    import dask

    return {**dask.config.get("distributed.nanny.pre-spawn-environ", {}), MMAP_VARIABLE: MMAP_THRESHOLD}


ALLOCATOR_NOTE = (f"note: the Dask workers run with {TRIM_VARIABLE} set (Dask's default) and no {MMAP_VARIABLE}, "
                  "which costs them about 1.5x the CPU per board in system time; start them with "
                  f"DASK_DISTRIBUTED__NANNY__PRE_SPAWN_ENVIRON='{{\"{MMAP_VARIABLE}\": {MMAP_THRESHOLD}}}' "
                  "(docs/cli.md)")


def parts_folder(out: Path) -> Path:
    """Where the finished partitions of a run writing `out` wait: RESULTS.parts beside it."""
    return out.with_name(out.name + ".parts")


def _part_path(folder: Path, index: int) -> Path:
    return folder / f"part-{index:08d}.json"


def write_part(folder: Path, index: int, text: str, kinds: dict[str, int], boards: int) -> None:
    """A finished partition, written atomically (a part file is complete or absent)."""
    atomic_write_text(_part_path(folder, index), strict_json.dumps({"boards": boards, "kinds": kinds, "text": text}))


def _read_part(folder: Path, index: int) -> dict[str, Any] | None:
    path = _part_path(folder, index)
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


MANIFEST = "run.json"
INPUT_KEYS: tuple[str, ...] = ("input", "bytes", "sha256")  # what names the input in a manifest


def _input_identity(path: str) -> tuple[dict[str, object], tuple[int, int]]:
    """The input as a manifest names it (real path, size, SHA-256 of the whole file), and its (size, mtime) to tell
    whether it changed while it was read."""
    with open(path, "rb") as f:
        stat = os.fstat(f.fileno())
        sha256 = stream_sha256(f)
    return ({"input": os.path.realpath(path), "bytes": stat.st_size, "sha256": sha256},
            (stat.st_size, stat.st_mtime_ns))


def _run_description(answerer: Answerer, writer: Writer, identity: dict[str, object],
                     out_kind: str) -> dict[str, object]:
    """What a resumed run must share with the stopped one: the input, the output kind, the options (the answerer's
    and the writer's)."""
    options = {k: str(v) for k, v in asdict(answerer).items() if not k.startswith("_") and k != "visual"}
    options["writer"] = repr(writer)  # a dataclass's repr: its name and fields (a CSV's columns)
    return {**identity, "output": out_kind, "options": options}


def _prepare_folder(folder: Path, description: dict[str, object]) -> None:
    """Resume the parts under a manifest equal to `description`, or start the folder with its manifest written first;
    anything else is refused (one line, the folder kept)."""
    manifest = folder / MANIFEST
    if manifest.exists():
        try:
            recorded = json.loads(manifest.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            recorded = None
        if recorded != description:
            other = ("another input (or this file changed since)" if not isinstance(recorded, dict) or
                     any(recorded.get(k) != description[k] for k in INPUT_KEYS) else "other options")
            raise UsageError(f"{folder} holds the parts of a run on {other}: rerun that command to finish it, or "
                             "remove the folder")
        return
    if any(folder.glob("part-*.json")):  # e.g. written by an older version: whose answers they are is unknown
        raise UsageError(f"{folder} holds parts without a {MANIFEST} (of an unknown input and options): remove the "
                         "folder to start again")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        atomic_write_text(manifest, strict_json.dumps(description))  # before any part
    except OSError as e:
        raise UsageError(f"--out: cannot write {folder} ({e.strerror or e})") from None


@contextmanager
def dask_client(scheduler: str, workers: int) -> Iterator[Client]:
    """A client of a new LocalCluster of `workers` single-threaded processes (without Dask's trim threshold), or of
    the scheduler at an address."""
    try:
        import dask
        from distributed import Client, LocalCluster
    except ImportError:
        raise UsageError("--dask needs Dask: pip install 'ltn-sudoku[dask]'") from None
    logging.getLogger("distributed").setLevel(logging.ERROR)
    if scheduler == LOCAL:
        with dask.config.set({"distributed.nanny.pre-spawn-environ": worker_environ()}), \
                LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
                Client(cluster) as client:
            yield client
        return
    try:
        client = Client(scheduler, timeout="20s")
    except (OSError, TimeoutError, ValueError) as e:
        raise UsageError(f"--dask {scheduler}: cannot reach the scheduler ({e})") from None
    with client:
        yield client


def run_on_dask(answerer: Answerer, writer: Writer, path: str, chunks: Iterator[Chunk], out: Path, out_kind: str,
                scheduler: str, workers: int, show: Callable[[int], None],
                log: TextIO | None = None) -> Counter[str]:
    """Answer and write every chunk on the cluster, store each as it finishes, then join them into `out` in input
    order (the writer's head, the parts, its tail); the count of each kind of board. `show(boards)` advances the
    progress bar; `log` gets a line per partition. The caller holds the lock of `out` (common.output_lock)."""
    from distributed import as_completed

    folder = parts_folder(out)
    identity, before = _input_identity(path)
    _prepare_folder(folder, _run_description(answerer, writer, identity, out_kind))
    token = uuid.uuid4().hex
    total = 0
    with dask_client(scheduler, workers) as client:
        window = WINDOW_PER_WORKER * max(1, len(client.scheduler_info().get("workers", {})) or workers)
        pending = as_completed()
        indices: dict[Key, int] = {}  # future key -> partition index
        in_flight = 0

        done_boards = 0
        warned = False

        def progress(index: int, boards: int, how: str) -> None:
            nonlocal done_boards
            done_boards += boards
            show(boards)
            if log is not None:
                print(f"partition {index}: {boards} boards {how} ({done_boards:,} boards done)", file=log, flush=True)

        def finish_one() -> None:
            nonlocal warned
            future = next(pending)
            text, kinds, boards, slow = future.result()
            if slow and not warned:
                warned = True
                if log is not None:
                    print(ALLOCATOR_NOTE, file=log, flush=True)
                else:  # above the terminal's progress bar
                    tqdm.write(ALLOCATOR_NOTE, file=sys.stderr)
            index = indices.pop(future.key)
            write_part(folder, index, text, kinds, boards)
            progress(index, boards, "answered")

        for index, chunk in enumerate(chunks):
            total = index + 1
            done = _read_part(folder, index)
            if done is not None:
                progress(index, int(done["boards"]), "already written (resumed)")
                continue
            future = client.submit(answer_partition, token, answerer, writer, chunk, key=f"classify-{token}-{index}")
            indices[future.key] = index
            pending.add(future)
            in_flight += 1
            if in_flight >= window:
                finish_one()
                in_flight -= 1
        while in_flight:
            finish_one()
            in_flight -= 1
    stat = os.stat(path)
    if (stat.st_size, stat.st_mtime_ns) != before:
        raise UsageError(f"{path} changed while it was read: its answers would mix two versions; remove {folder} "
                         "and run again")
    return _join(folder, total, out, writer)


def _join(folder: Path, total: int, out: Path, writer: Writer) -> Counter[str]:
    """The parts, in input order, between the writer's head and tail into `out` (atomically); the folder is removed
    once `out` is in place."""
    kinds: Counter[str] = Counter()
    with ResultsFile(out) as results:
        results.write([writer.head()])
        for index in range(total):
            part = _read_part(folder, index)
            if part is None:  # removed by hand while this run held the lock: the folder cannot be trusted
                raise UsageError(f"partition {index} is missing from {folder}: remove the folder and run again")
            results.write([str(part["text"])])
            kinds.update(part["kinds"])
        results.write([writer.tail(sum(kinds.values()))])
        results.commit()
    shutil.rmtree(folder, ignore_errors=True)
    return kinds
