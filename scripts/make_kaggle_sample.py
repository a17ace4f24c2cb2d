"""Write the small real Kaggle sample that ships in data/kaggle/ from the shared copies in ../shared/data/kaggle/.

    .venv/bin/python scripts/make_kaggle_sample.py [--rows 1000] [--seed 2026] [--out data/kaggle]

For each of the three Kaggle sets, `--rows` rows chosen at random with a fixed seed (all of them when the shared file
holds no more), kept in their original order, with the file's own header and layout, as gzip (no name, mtime 0), so
that the output is byte for byte the same on every run. Every written file is read back through ltn_sudoku.io.kaggle,
which verifies each row. The 3M copy without ratings is left out: its first 1,000 rows are the rated file's.
"""

from __future__ import annotations

import argparse
import gzip
import io
import sys
from pathlib import Path
from typing import Sequence

import numpy as np

from ltn_sudoku.io.kaggle import KaggleReader
from ltn_sudoku.paths import DATA_DIR, SHARED_DATA

SOURCES: dict[str, str] = {  # shared file -> shipped file
    "kaggle_1m_first24997.csv.gz": "kaggle_1m_sample{rows}.csv.gz",
    "kaggle_9m_first10000.csv.gz": "kaggle_9m_sample{rows}.csv.gz",
    "kaggle_3m_first1000.csv.gz": "kaggle_3m_sample{rows}.csv.gz",
}


def sample_lines(lines: list[str], rows: int, seed: int) -> list[str]:
    """The header and `rows` data lines chosen by a seeded generator, in file order."""
    header, body = lines[0], [ln for ln in lines[1:] if ln.strip()]
    if rows >= len(body):
        return [header, *body]
    chosen = np.sort(np.random.default_rng(seed).choice(len(body), size=rows, replace=False))
    return [header, *(body[i] for i in chosen.tolist())]


def write_gzip(path: Path, lines: Sequence[str]) -> None:
    """Deterministic gzip: no file name, mtime 0, LF line endings."""
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, mtime=0, compresslevel=9) as f:
        f.write("".join(line + "\n" for line in lines).encode("utf-8"))
    path.write_bytes(buffer.getvalue())


def make_sample(source_dir: Path, out_dir: Path, rows: int, seed: int) -> list[tuple[Path, int]]:
    """Write every sample file; (path, rows) of each."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for source, target in SOURCES.items():
        with gzip.open(source_dir / source, "rt", encoding="utf-8", newline="") as f:
            lines = f.read().splitlines()
        path = out_dir / target.format(rows=rows)
        write_gzip(path, sample_lines(lines, rows, seed))
        written.append((path, sum(1 for _ in KaggleReader(path))))  # read back, every row verified
    return written


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=SHARED_DATA / "kaggle", help="the shared Kaggle copies")
    parser.add_argument("--out", type=Path, default=DATA_DIR / "kaggle", help="where to write (default data/kaggle)")
    parser.add_argument("--rows", type=int, default=1000, help="rows per set (default 1000)")
    parser.add_argument("--seed", type=int, default=2026, help="seed of the row choice (default 2026)")
    args = parser.parse_args(argv)
    for path, count in make_sample(args.source, args.out, args.rows, args.seed):
        print(f"{path}: {count:,} verified rows, {path.stat().st_size:,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
