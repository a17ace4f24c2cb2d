"""Running the batch makers: deterministic batch seeds, repeated boards skipped, optional worker processes.

A stream is one kind of board wanted in some number. Batch i of a stream is made with the random generator seeded by
(stream seed, i) and a fixed number of attempts, and batches are taken in index order, so the boards depend only on
the arguments and the seed: never on the number of worker processes or on which batch finished first.
"""

from __future__ import annotations

import multiprocessing
from collections import deque
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ltn_sudoku.generate import closed_boards as closed
from ltn_sudoku.generate import open_boards as open_
from ltn_sudoku.generate.solver import Made

CLOSED_MAKERS: dict[str, Callable[[int, int, np.random.Generator, str], Made]] = {
    "valid": closed.make_valid,
    "random": closed.make_random,
    "swap": closed.make_swap,
    "change": closed.make_change,
    "latin_blocks": closed.make_latin_blocks,
}
MAX_BATCH: dict[int, int] = {4: 2048, 9: 1024, 16: 64}  # boards attempted per batch (larger sides: 8)
MAX_IDLE_BATCHES = 8  # batches in a row that yield nothing before a stream gives up
# ... and, on sides where an attempt is cheap, this many attempts in a row: small counts make small batches, and a
# sparse 9x9 range may need a few hundred attempts per board, so eight small batches alone prove nothing
MIN_IDLE_ATTEMPTS: dict[int, int] = {4: 2000, 9: 2000}


class GenerationError(ValueError):
    """The boards cannot be made as asked: a bad option, or a givens range that digging never reaches."""


IMPOSSIBLE_BASES: tuple[str, ...] = ("dug", "subset")


@dataclass(frozen=True)
class Stream:
    """`count` boards of one kind; `seed` starts the seeds of its batches; `base` is an impossible board's base."""

    size: int
    kind: str
    count: int
    seed: tuple[int, ...]
    givens: tuple[int, int]
    backend: str
    base: str = "dug"

    @property
    def attempts(self) -> int:
        """Boards attempted per batch: about the count plus a margin for rejects, capped per size."""
        return min(MAX_BATCH.get(self.size, 8), max(8, self.count + self.count // 8))

    @property
    def name(self) -> str:
        return f"{self.size}x{self.size} {self.kind}"


def make_batch(stream: Stream, index: int) -> Made:
    """Batch `index` of a stream: (puzzles, solutions) of the accepted boards, in a reproducible order."""
    rng = np.random.default_rng([*stream.seed, index])
    n, attempts, backend = stream.size, stream.attempts, stream.backend
    if stream.kind in CLOSED_MAKERS:
        return CLOSED_MAKERS[stream.kind](n, attempts, rng, backend)
    if stream.kind == "unique":
        return open_.make_unique(n, attempts, rng, backend, stream.givens)
    if stream.kind == "multiple":
        return open_.make_multiple(n, attempts, rng, backend, stream.givens)
    return open_.make_impossible(n, attempts, rng, backend, stream.givens, obvious=stream.kind == "obvious",
                                 base=stream.base)


@dataclass
class _Collector:
    """Takes one stream's batches in index order, skipping boards already taken while new ones keep coming (a 4x4
    class can run out of distinct boards: only 288 4x4 grids exist)."""

    stream: Stream
    made: int = 0
    tried: int = 0
    idle: int = 0
    allow_repeats: bool = False
    seen: set[bytes] = field(default_factory=set)
    puzzles: list[np.ndarray] = field(default_factory=list)
    solutions: list[np.ndarray] = field(default_factory=list)

    @property
    def done(self) -> bool:
        return self.made >= self.stream.count

    def expected_yield(self) -> float:
        """Boards per attempt so far (1 before the first batch), to decide how many batches to start ahead."""
        return max(self.made / self.tried, 0.05) if self.tried else 1.0

    def add(self, boards: np.ndarray, solutions: np.ndarray) -> int:
        """Take what is still needed of a batch; returns the number of boards taken."""
        self.tried += self.stream.attempts
        self.idle = 0 if len(boards) else self.idle + 1
        patience = MIN_IDLE_ATTEMPTS.get(self.stream.size, 0)
        if self.idle >= MAX_IDLE_BATCHES and self.idle * self.stream.attempts >= patience:
            raise GenerationError(f"gave up on {self.stream.name}: {self.idle} batches of {self.stream.attempts} "
                                  f"attempts made no board; try a wider givens range")
        fresh = np.ones(len(boards), dtype=bool)
        if not self.allow_repeats:
            for i, row in enumerate(boards):
                key = row.tobytes()
                fresh[i] = key not in self.seen
                self.seen.add(key)
            self.allow_repeats = bool(len(boards)) and not fresh.any()
        take = min(int(fresh.sum()), self.stream.count - self.made)
        self.puzzles.append(boards[fresh][:take])
        self.solutions.append(solutions[fresh][:take])
        self.made += take
        return take

    def result(self) -> Made:
        cells = self.stream.size**2
        if not self.puzzles:
            return np.zeros((0, cells), dtype=np.int8), np.zeros((0, cells), dtype=np.int8)
        return np.concatenate(self.puzzles), np.concatenate(self.solutions)


def run_streams(streams: list[Stream], workers: int = 1,
                on_progress: Callable[[int], object] | None = None) -> list[Made]:
    """(puzzles, solutions) of every stream, made in this process (workers=1) or in `workers` processes."""
    collectors = [_Collector(s) for s in streams]
    if workers <= 1:
        for c in collectors:
            index = 0
            while not c.done:
                taken = c.add(*make_batch(c.stream, index))
                index += 1
                if on_progress is not None and taken:
                    on_progress(taken)
    else:
        _run_parallel(collectors, workers, on_progress)
    return [c.result() for c in collectors]


def _run_parallel(collectors: list[_Collector], workers: int, on_progress: Callable[[int], object] | None) -> None:
    """Keep about `workers` + 1 batches running, started ahead only where a stream still needs them; take the results
    of each stream in index order."""
    pending: list[deque[Future[Made]]] = [deque() for _ in collectors]
    next_index = [0] * len(collectors)
    # fork: workers start at once and callers need no `if __name__ == "__main__"` guard; they only run numpy and
    # the numba kernel. Elsewhere the platform's default method.
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        try:
            while True:
                for i, c in enumerate(collectors):
                    while pending[i] and pending[i][0].done():
                        batch = pending[i].popleft().result()
                        taken = 0 if c.done else c.add(*batch)
                        if on_progress is not None and taken:
                            on_progress(taken)
                    if c.done:
                        for f in pending[i]:
                            f.cancel()
                        pending[i].clear()
                running = sum(not f.done() for q in pending for f in q)
                for i, c in enumerate(collectors):
                    while (running <= workers and not c.done
                           and len(pending[i]) * c.stream.attempts * c.expected_yield() < c.stream.count - c.made):
                        pending[i].append(pool.submit(make_batch, c.stream, next_index[i]))
                        next_index[i] += 1
                        running += 1
                if not any(pending):
                    return
                waiting = [f for q in pending for f in q if not f.done()]
                if waiting:
                    wait(waiting, return_when=FIRST_COMPLETED)
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            raise
