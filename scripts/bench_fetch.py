"""Benchmark of `ltn-sudoku data fetch` on a local server, and a check of a data home against the registry.

    .venv/bin/python scripts/bench_fetch.py [--size-mb 50] [--repeat 3]
    .venv/bin/python scripts/bench_fetch.py --verify-home [DIR]

The benchmark writes a file of random bytes, serves it from 127.0.0.1 (ltn_sudoku/datasets/serve.py, Range support)
and fetches it into an empty data home the way `data fetch` does (pooch, the resumable downloader, the SHA-256
check), each run in a fresh child process so that its peak memory is its own: wall time and throughput, tracemalloc's
peak of Python allocations during the fetch, and the process's peak RSS, for the full size and for a tenth of it (a
download that streams keeps the same memory whatever the size). A plain `requests` streaming copy with no hash is
the baseline. Then a transfer cut at half is fetched again: the table gives the bytes the server sent in all, so the
bytes re-sent by the resume (against the whole file again for a restart).

--verify-home hashes every file of the registry found in a data home (default: the configured one, $LTN_SUDOKU_DATA)
and reports verified / MISMATCH / missing per file; exit status 1 on any mismatch.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from ltn_sudoku.datasets.registry import DataFile, DataSet, all_sets, human_size  # noqa: E402
from ltn_sudoku.datasets.serve import LocalServer  # noqa: E402
from scripts._machine import machine_line  # noqa: E402

MiB = 1 << 20


def make_file(path: Path, size: int) -> str:
    digest = hashlib.sha256()
    with open(path, "wb") as fh:
        left = size
        while left:
            chunk = os.urandom(min(left, 4 * MiB))
            fh.write(chunk)
            digest.update(chunk)
            left -= len(chunk)
    return digest.hexdigest()


def client(mode: str, url: str, sha256: str, size: int, home: str, trace: bool) -> dict[str, float]:
    """One measured download in this (child) process: seconds, peak RSS, and with ``trace`` tracemalloc's peak (a
    separate run: tracing slows every allocation, so the timed runs do not trace)."""
    import resource
    import tracemalloc

    import pooch  # noqa: F401  (imported before the measure, as the command has it imported when it downloads)
    import requests

    from ltn_sudoku.datasets.fetch import FetchError, fetch_sets

    dataset = DataSet("bench", "benchmark file", "test", (DataFile("bench.bin", (url,), size, sha256),), "local", "")
    if trace:
        tracemalloc.start()
    start = time.perf_counter()
    ok = 1.0
    if mode == "fetch":
        try:
            fetch_sets([dataset], Path(home), progress=False, report=lambda line: None)
        except FetchError:
            ok = 0.0
    else:  # the baseline: a plain streaming copy, no hash, no rename
        with requests.get(url, stream=True, timeout=30) as r, open(Path(home) / "plain.bin", "wb") as fh:
            fh.writelines(r.iter_content(1 << 16))
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1] if trace else 0
    tracemalloc.stop()
    maxrss_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    return {"seconds": seconds, "peak_traced": peak, "maxrss": maxrss_kib * 1024, "ok": ok}


def run_client(mode: str, url: str, sha256: str, size: int, home: Path, trace: bool = False) -> dict[str, float]:
    home.mkdir(parents=True, exist_ok=True)
    out = subprocess.run([sys.executable, __file__, "--client", mode, url, sha256, str(size), str(home),
                          str(int(trace))],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def bench(size_mb: int, repeat: int) -> int:
    with tempfile.TemporaryDirectory(prefix="bench_fetch_") as tmp:
        root = Path(tmp)
        sizes = {"full": size_mb * 1_000_000, "tenth": size_mb * 100_000}
        files, hashes = {}, {}
        for key, size in sizes.items():
            files[f"/{key}.bin"] = root / f"{key}.bin"
            hashes[key] = make_file(root / f"{key}.bin", size)
        rows = []
        with LocalServer(files) as srv:
            for mode, key in (("requests", "full"), ("fetch", "full"), ("fetch", "tenth")):
                runs = []
                for i in range(repeat + 1):  # the last run traces allocations
                    home = root / f"home_{mode}_{key}_{i}"
                    runs.append(run_client(mode, srv.url(f"/{key}.bin"), hashes[key], sizes[key], home,
                                           trace=i == repeat))
                    assert runs[-1]["ok"] == 1.0, runs[-1]
                    if mode == "fetch":
                        assert (home / "bench.bin").stat().st_size == sizes[key]
                seconds = statistics.median(r["seconds"] for r in runs[:repeat])
                label = ("plain requests stream (no hash)" if mode == "requests" else "data fetch (pooch, sha256)")
                rows.append((label, sizes[key], seconds, runs[-1]["peak_traced"],
                             max(r["maxrss"] for r in runs[:repeat])))
            # a transfer cut at half, then resumed
            full = sizes["full"]
            srv.cut_after["/full.bin"] = full // 2
            home = root / "home_resume"
            already = srv.sent("/full.bin")
            first = run_client("fetch", srv.url("/full.bin"), hashes["full"], full, home)
            part = (home / "bench.bin.part").stat().st_size
            sent_before = srv.sent("/full.bin") - already
            second = run_client("fetch", srv.url("/full.bin"), hashes["full"], full, home)
            resume = [r for r in srv.requests if r.path == "/full.bin" and r.range][-1]
            assert first["ok"] == 0.0 and second["ok"] == 1.0
            assert (home / "bench.bin").stat().st_size == full and not (home / "bench.bin.part").exists()

    print(f"data fetch benchmark: local server on 127.0.0.1 (same machine), median wall time of {repeat} runs, each "
          f"in a fresh process; the fetch's time includes pooch's SHA-256 check and the rename; peak traced = "
          f"tracemalloc's peak in one more run; peak RSS = the whole process (interpreter, requests, pooch)")
    print(f"{'run':<34} {'size':>9} {'wall s':>8} {'MB/s':>8} {'peak traced':>12} {'peak RSS':>10}")
    for label, size, seconds, peak, rss in rows:
        print(f"{label:<34} {human_size(size):>9} {seconds:>8.3f} {size / seconds / 1e6:>8.1f} "
              f"{peak / MiB:>9.2f} MiB {rss / MiB:>6.1f} MiB")
    resent = sent_before + resume.sent - full
    print(f"cut at half ({sent_before:,} bytes sent), then fetched again: the .part kept {part:,} bytes; the resume "
          f"asked `Range: {resume.range}` and got {resume.sent:,} bytes ({resume.status}); in all "
          f"{sent_before + resume.sent:,} bytes sent for a {full:,}-byte file: {resent:,} re-sent "
          f"({resent / full:.2%}; a restart would re-send {sent_before:,}, {sent_before / full:.0%}); the resumed "
          f"fetch took {second['seconds']:.3f} s")
    return 0


def verify_home(folder: str | None) -> int:
    from ltn_sudoku.datasets.fetch import set_states
    from ltn_sudoku.paths import data_home

    home = Path(folder).expanduser().resolve() if folder else data_home()
    counts: dict[str, int] = {}
    print(f"data home: {home}")
    for ds in all_sets():
        for state in set_states(ds, home, verify=True):
            status = "missing" if state.path is None else state.status
            if state.shipped:
                status += " (shipped copy)"
            counts[status] = counts.get(status, 0) + 1
            print(f"{status:<12} {ds.name:<27} {state.file.path}")
    print(", ".join(f"{n} {status}" for status, n in sorted(counts.items())))
    return 1 if any(s.startswith("MISMATCH") for s in counts) else 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--size-mb", type=int, default=50, help="size of the served file in MB (default 50)")
    p.add_argument("--repeat", type=int, default=3, help="runs per row (default 3; the median is shown)")
    p.add_argument("--verify-home", nargs="?", const="", default=None, metavar="DIR",
                   help="check the files of a data home against the registry (default: the configured data home)")
    p.add_argument("--client", nargs=6, metavar=("MODE", "URL", "SHA256", "SIZE", "HOME", "TRACE"),
                   help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.client:
        mode, url, sha, size, home, trace = args.client
        print(json.dumps(client(mode, url, sha, int(size), home, trace == "1")))
        return 0
    print(machine_line())
    if args.verify_home is not None:
        return verify_home(args.verify_home or None)
    return bench(args.size_mb, args.repeat)


if __name__ == "__main__":
    sys.exit(main())
