"""How the processes that answer boards (classify-board, its `--jobs` workers) hold memory: glibc's malloc
thresholds, and Python's collector told to leave the start-up objects alone (`prepare_answering_process`).

The LTN section allocates the same few large tensors (a batch's (boards, cells, digits, hidden) activations, ~6 MB)
for every batch. glibc maps an allocation above its mmap threshold afresh and gives freed memory above its trim
threshold back to the system, so every batch pays page faults for memory it just freed: on 200 Kaggle 1M rows, about
1,000 minor faults and 0.8-1.7 ms of system time per board out of ~9.5 (docs/cli.md). Fixing the mmap threshold at
the ceiling glibc's own adaptive threshold reaches (32 MiB) and the trim threshold above it keeps those tensors in
the heap: 5 faults per board, the same answers. Dask workers get the mmap threshold from their environment instead
(cli/dask_runner.py), as Dask's nanny sets their trim threshold there.
"""

from __future__ import annotations

import ctypes
import gc
import sys

MMAP_THRESHOLD = 32 * 1024 * 1024  # the ceiling glibc's adaptive mmap threshold reaches on 64-bit systems
TRIM_THRESHOLD = 256 * 1024 * 1024  # freed heap kept for reuse: above a batch's working set, bounded
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # mallopt parameters (glibc's malloc.h)


def keep_large_arrays_in_heap() -> bool:
    """Set the thresholds above in this process (later allocations only); False where the C library is not glibc
    (no mallopt: musl, macOS), which leaves the allocator as it was."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD))


def prepare_answering_process() -> None:
    """Both settings for a process about to answer boards: the malloc thresholds above, then `gc.freeze()`. The
    imported modules leave about 300,000 objects that live as long as the process; answering makes many short-lived
    ones (steps, moves, answers), whose count triggers the collector's full collections, each of which walks every
    object not frozen. Frozen, they are never walked again. Call it after the imports and before the first board."""
    keep_large_arrays_in_heap()
    gc.freeze()
