"""Issue 49's figures: what refusing hostile files costs, beside the normal case of the same command.

    .venv/bin/python scripts/bench_faults.py [--sections checkpoints,downloads]

checkpoints: the peak RSS and wall time of one child process each that loads the shipped
checkpoints/9x9_message_passing.pt (the baseline: a normal load), and that refuses a crafted checkpoint whose one
weight is an expanded view of one stored float32 (20000x20000, and 2^31 elements), made the way the probe made it.
Beside them, the peak of materialising that 20000x20000 view in a child process, the step the checksum took on every
load in the earlier code (the same `.contiguous()` call, run on its own: the old code is not kept in the package).

downloads: `data fetch` against a local server on 127.0.0.1 (ltn_sudoku/datasets/serve.py) with a temporary data
home: a normal 8 MB file (the baseline), the same file's address sending an endless body, and a zip of 40 MB of CSV
packed to a few tens of KB (a zip bomb) for a Kaggle-like trust-on-first-use file; per case the outcome, the bytes
the server wrote into the connection (socket buffers included: the client reads fewer), the bytes left in the data
home, the wall time and this process's peak RSS (the fetches run in this process, one after the other).

Prints the machine's CPU and a Markdown table per section (docs/testing.md holds the figures).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

from _machine import cpu_name  # noqa: E402

from ltn_sudoku.datasets import registry  # noqa: E402
from ltn_sudoku.datasets.fetch import FetchError, fetch_file  # noqa: E402
from ltn_sudoku.datasets.registry import UNZIP_CSV, DataFile  # noqa: E402
from ltn_sudoku.datasets.serve import LocalServer  # noqa: E402

MB = 1 << 20
CHILD = """
import json, resource, sys, time
import torch
from ltn_sudoku.logic.checkpoints import FORMAT, CheckpointError, load_checkpoint
mode, path, shape = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
view = torch.zeros(1).expand(*shape) if shape else None
if mode == "craft":
    torch.save({"format": FORMAT, "version": 2, "size": 9, "config": {"model": {}}, "extra": {}, "sha256": "0" * 64,
                "state_dict": {"w": view}}, path)
    print(json.dumps({}))
    sys.exit()
started = time.perf_counter()
outcome = "loaded"
if mode == "materialise":
    view.contiguous()
    outcome = "materialised"
else:
    try:
        load_checkpoint(path)
    except CheckpointError as e:
        outcome = "refused in one line: " + ("a view of numbers not stored" if "not stored" in str(e) else str(e)[:60])
print(json.dumps({"outcome": outcome, "seconds": time.perf_counter() - started,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""




def child(mode: str, path: Path, shape: list[int] | None) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-c", CHILD, mode, str(path), json.dumps(shape)], cwd=REPO,
                          capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(REPO), "PYTHONWARNINGS": "ignore"})
    if done.returncode != 0:
        return {"outcome": f"failed: {done.stderr.strip().splitlines()[-1] if done.stderr.strip() else done.returncode}",
                "seconds": float("nan"), "peak_mb": float("nan")}
    return json.loads(done.stdout.splitlines()[-1])  # type: ignore[no-any-return]


def checkpoints() -> None:
    print("\n### Checkpoints\n")
    print("| case | file | outcome | wall s | peak RSS MB |")
    print("|---|---|---|---|---|")
    shipped = REPO / "checkpoints" / "9x9_message_passing.pt"
    rows = [("normal load (baseline): shipped 9x9_message_passing.pt", shipped, None, "load")]
    with tempfile.TemporaryDirectory() as tmp:
        for label, shape in (("crafted: one float32 seen as 20000x20000", [20000, 20000]),
                             ("crafted: one float32 seen as 2^31 elements", [2**16, 2**15])):
            path = Path(tmp) / f"crafted_{shape[0]}.pt"
            child("craft", path, shape)
            rows.append((label, path, shape, "load"))
        rows.append(("the 20000x20000 view materialised (the checksum's step in the earlier code)", None, [20000, 20000],
                     "materialise"))
        for label, path, shape, mode in rows:
            result = child(mode, path or Path("-"), shape)
            size = f"{path.stat().st_size / 1000:.0f} KB" if path is not None else "-"
            print(f"| {label} | {size} | {result['outcome']} | {float(result['seconds']):.3f} | "  # type: ignore[arg-type]
                  f"{float(result['peak_mb']):.0f} |")  # type: ignore[arg-type]


def zip_of(data: bytes) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        zf.writestr("sudoku.csv", data)
    return buf.getvalue()


def downloads() -> None:
    import hashlib

    print("\n### Downloads\n")
    print("| case | limit | outcome | bytes the server wrote | bytes left in the data home | wall s | peak RSS MB |")
    print("|---|---|---|---|---|---|---|")
    size = 8 * MB
    payload = os.urandom(size)
    sha = hashlib.sha256(payload).hexdigest()
    bomb = zip_of(b"quizzes,solutions\n" + b"0" * (40 * MB))
    with tempfile.TemporaryDirectory() as tmp, LocalServer({}) as server:
        root = Path(tmp)
        for name, data in (("file.bin", payload), ("bomb.zip", bomb)):
            (root / name).write_bytes(data)
            server.files[f"/{name}"] = root / name
        server.files["/endless.bin"] = root / "file.bin"
        server.endless["/endless.bin"] = 50 * size  # gives up after 400 MB, as the probe's endless body was cut
        cases = [
            ("normal 8 MB file (baseline)", DataFile("a/file.bin", (server.url("/file.bin"),), size, sha)),
            ("endless body, no Content-Length", DataFile("b/file.bin", (server.url("/endless.bin"),), size, sha)),
            (f"zip bomb: {len(bomb) / 1000:.0f} KB holding 40 MB of CSV",
             DataFile("c/k.csv", (server.url("/bomb.zip"),), 164_000_018, None, transform=UNZIP_CSV, tofu=True,
                      size_approx=True)),
        ]
        for label, f in cases:
            home = root / f"home-{f.path.split('/')[0]}"
            path = f"/{Path(f.urls[0]).name}"
            before = server.sent(path)
            started = time.perf_counter()
            try:
                outcome = fetch_file(f, home, progress=False).split()[0]
            except FetchError as e:
                outcome = "refused: " + str(e).split(": ", 1)[1].split(";")[0]
            seconds = time.perf_counter() - started
            left = sum(p.stat().st_size for p in home.rglob("*") if p.is_file()) if home.exists() else 0
            limit = f.transfer_cap if f.transform is None else f"unzip {registry.UNZIP_RATIO}:1"
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            print(f"| {label} | {limit:,} | {outcome} | {server.sent(path) - before:,} | {left:,} | {seconds:.2f} "
                  f"| {peak:.0f} |" if isinstance(limit, int) else
                  f"| {label} | {limit} | {outcome} | {server.sent(path) - before:,} | {left:,} | {seconds:.2f} "
                  f"| {peak:.0f} |")


SECTIONS = {"checkpoints": checkpoints, "downloads": downloads}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sections", default=",".join(SECTIONS), help=f"comma-separated, of {', '.join(SECTIONS)}")
    args = parser.parse_args(argv)
    names = [s for s in args.sections.split(",") if s]
    unknown = [s for s in names if s not in SECTIONS]
    if unknown:
        parser.error(f"unknown section(s) {', '.join(unknown)}: expected {', '.join(SECTIONS)}")
    print(f"CPU: {cpu_name()} ({os.cpu_count()} logical CPUs); Python {platform.python_version()}")
    for name in names:
        SECTIONS[name]()
    return 0


if __name__ == "__main__":
    sys.exit(main())
