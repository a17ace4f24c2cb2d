"""Write the small real Kaggle sample that ships in data/kaggle/ from the full copies in the data home's kaggle/.

    LTN_SUDOKU_DATA=/folder/of/the/full/sets .venv/bin/python scripts/make_kaggle_sample.py [--rows 1000] [--seed 2026]
    LTN_SUDOKU_DATA=/folder/of/the/full/sets .venv/bin/python scripts/make_kaggle_sample.py --verify-full

For each of the three Kaggle sets, `--rows` rows chosen at random with a fixed seed (all of them when the full copy
holds no more), kept in their original order, with the file's own header and layout, as gzip (no name, mtime 0), so
that the output is byte for byte the same on every run. Every written file is read back through ltn_sudoku.io.kaggle,
which verifies each row. The 3M copy without ratings is left out: its first 1,000 rows are the rated file's.
scripts/make_data_samples.py runs this too (and its --check compares the output with the shipped files).

`--verify-full` writes nothing: it verifies every row of the data home's Kaggle copies (the 49,208 rows that
data/kaggle/README.md describes) and checks the fixed split on them: no puzzle, nor a relabelling of one, in two splits
(what tests/test_kaggle.py checks on the shipped samples).
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
from ltn_sudoku.paths import DATA_DIR, data_home

SOURCES: dict[str, str] = {  # file of the data home's kaggle/ -> shipped file
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


def verify_full(folder: Path) -> int:
    """Every row of the Kaggle copies in `folder` verified (the reader raises on a bad one), and the fixed split
    checked: no test or validation puzzle, nor any relabelling of one, is in the training split. 0 when all hold."""
    from ltn_sudoku.io.split import SPLITS, canonical, splits_of
    from ltn_sudoku.logic.board import data
    from ltn_sudoku.logic.device import to_numpy

    counts: dict[str, int] = {}
    for chunk in KaggleReader(folder).chunks():
        counts[Path(chunk.path).name] = counts.get(Path(chunk.path).name, 0) + len(chunk)
    for name, count in sorted(counts.items()):
        print(f"{name}: {count:,} rows verified")
    rows = to_numpy(data.kaggle(folder, 9).puzzles)  # the rows two copies share are read once
    where = splits_of(rows)
    keys = {s: {row.tobytes() for row in canonical(rows[where == s])} for s in SPLITS}
    leaks = len(keys["test"] & keys["train"]) + len(keys["val"] & keys["train"]) + len(keys["test"] & keys["val"])
    rng = np.random.default_rng(3)
    relabel = np.array([np.concatenate([[0], rng.permutation(9) + 1]) for _ in range(len(rows))])
    moved = int((splits_of(np.take_along_axis(relabel, rows, axis=1)) != where).sum())
    print(f"{len(rows):,} distinct rows: " + ", ".join(f"{s} {int((where == s).sum()):,}" for s in SPLITS)
          + f"; puzzles shared between splits: {leaks}; relabelled rows that changed split: {moved}")
    return 1 if leaks or moved else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=None,
                        help="the full Kaggle copies (default: the data home's kaggle/, $LTN_SUDOKU_DATA)")
    parser.add_argument("--out", type=Path, default=DATA_DIR / "kaggle", help="where to write (default data/kaggle)")
    parser.add_argument("--rows", type=int, default=1000, help="rows per set (default 1000)")
    parser.add_argument("--seed", type=int, default=2026, help="seed of the row choice (default 2026)")
    parser.add_argument("--verify-full", action="store_true",
                        help="verify every row of the full copies and the split, write nothing")
    args = parser.parse_args(argv)
    source = args.source or data_home() / "kaggle"
    if not source.is_dir():
        parser.error(f"{source}: no such folder (set LTN_SUDOKU_DATA to the folder of the full data sets)")
    if args.verify_full:
        return verify_full(source)
    for path, count in make_sample(source, args.out, args.rows, args.seed):
        print(f"{path}: {count:,} verified rows, {path.stat().st_size:,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
