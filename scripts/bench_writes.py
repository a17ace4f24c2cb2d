"""The cost of durability per checkpoint write: a shipped checkpoint written N times through save_checkpoint (the one
atomic writer: temporary file, fsync, rename, fsync of the folder) with and without the two fsyncs, and the load
(CRCs + SHA-256 checked) beside it.

    .venv/bin/python scripts/bench_writes.py [--checkpoint checkpoints/visual_9x9.pt] [--repeat 50] [--dir DIR]

Prints one line per case: ms per write (median and mean), the fsync/no-fsync ratio, and tracemalloc's peak of Python
allocations of one write (the payload is loaded once, outside the timing). DIR (default: a new folder under
outputs/) must be on the disk of interest: fsync costs nothing on a tmpfs.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from ltn_sudoku.logic.checkpoints import load_checkpoint, save_checkpoint  # noqa: E402
from scripts._machine import machine_line  # noqa: E402


def timed(repeat: int, step) -> tuple[list[float], float]:  # type: ignore[no-untyped-def]
    """Milliseconds of each of `repeat` calls, and the peak of Python allocations (MiB) of one more call, traced
    apart (tracemalloc slows the unpickling several times over)."""
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        step()
        times.append((time.perf_counter() - started) * 1e3)
    tracemalloc.start()
    step()
    peak = tracemalloc.get_traced_memory()[1] / (1 << 20)
    tracemalloc.stop()
    return times, peak


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", type=Path, default=REPO / "checkpoints" / "visual_9x9.pt")
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument("--dir", type=Path, help="where to write (default: a new folder under outputs/)")
    args = parser.parse_args()
    payload = load_checkpoint(args.checkpoint)
    parts = (payload["size"], payload["config"], payload["state_dict"], payload["extra"])
    (REPO / "outputs").mkdir(exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="bench_writes_", dir=args.dir or REPO / "outputs"))
    target = folder / "last.pt"
    try:
        save_checkpoint(target, *parts)  # warm: imports, the folder's first file
        size_kb = target.stat().st_size / 1e3
        results = {}
        for name, fsync in (("fsync", True), ("no fsync", False)):
            results[name] = timed(args.repeat, lambda fsync=fsync: save_checkpoint(target, *parts, fsync=fsync))
        results["load"] = timed(args.repeat, lambda: load_checkpoint(target))
        print(machine_line())
        print(f"{args.checkpoint.name}: {size_kb:.0f} kB, {args.repeat} writes each, into {folder.parent}")
        for name, (times, peak) in results.items():
            print(f"  {name:<9} {statistics.median(times):7.2f} ms median  {statistics.fmean(times):7.2f} ms mean  "
                  f"peak {peak:5.1f} MiB")
        ratio = statistics.median(results["fsync"][0]) / statistics.median(results["no fsync"][0])
        print(f"  fsync / no fsync: {ratio:.2f}x per write")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
