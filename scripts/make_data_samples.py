"""Write the public sets that ship in data/ (whole copies and reproducible samples) from the full sets of the data home.

    LTN_SUDOKU_DATA=/folder/of/the/full/sets .venv/bin/python scripts/make_data_samples.py [--check]

The data home (`ltn_sudoku.paths.data_home`, laid out as data/ is) must hold every source file. Files named in WHOLE
are copied byte for byte. The samples of the large sets (SAMPLES) keep the source's leading comment lines and the
chosen puzzle lines as they are, in file order: the first N lines, or N lines chosen by a seeded generator. The MNIST
subset (data/mnist_sample/) holds, from each idx file pair, the first MNIST_PER_CLASS[part] images of each class 1..9
in file order (class 0 is never used: digit d of a visual board is class d), written as idx files in deterministic
gzip (no file name, mtime 0), as are the Kaggle samples (scripts/make_kaggle_sample.py, run from here too). Rerunning
writes the same bytes; `--check` writes nothing and lists every shipped file that differs from what would be written
(exit 1 when one does). data/README.md describes every file.
"""

from __future__ import annotations

import argparse
import gzip
import io
import struct
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))  # make_kaggle_sample, beside this file

import make_kaggle_sample

from ltn_sudoku.paths import DATA_DIR, DataNotFound, data_home

WHOLE: tuple[str, ...] = (  # copied whole, same relative path (paths.data_file falls back to these copies)
    "9x9/top95.txt", "9x9/hardest11.txt", "9x9/top1465.txt", "9x9/forum_hardest_1106.txt",
    "9x9/qqwing_simple.txt", "9x9/qqwing_easy.txt", "9x9/qqwing_intermediate.txt", "9x9/qqwing_expert.txt",
    *(f"generalized/sudoku_rank_{rank}.csv" for rank in range(3, 10)),
    # the generalized-Sudoku study's recorded counts and times (10 rows each): scripts/reproduce.py generalized
    "generalized/paper_times/sudoku_rank_3_SudokuBackTrackingSolver.csv",
    *(f"generalized/paper_times/sudoku_rank_{rank}_SudokuExactCoverSolver.csv" for rank in (4, 5)),
    "techniques/hodoku_reglib-1.3.txt", "techniques/hodoku_exemplars-1.0.txt",
)


@dataclass(frozen=True)
class Sample:
    source: str  # relative to the data home
    count: int  # puzzle lines kept
    seed: int | None  # None: the first `count` lines; else `count` lines chosen by numpy's default_rng(seed)


SAMPLES: dict[str, Sample] = {  # shipped file -> how it is made
    "9x9/17clue_sample1000.txt": Sample("9x9/17clue_49158.txt", 1000, 2026),
    "9x9/serg_benchmark_sample2000.txt": Sample("9x9/serg_benchmark_10000.txt", 2000, 2026),
    "9x9/forum_hardest_1905_se11_first200.txt": Sample("9x9/forum_hardest_1905_se11.txt", 200, None),
    "9x9/diabolical_se5plus_first200.txt": Sample("9x9/diabolical_se5plus.txt", 200, None),
    # the header line and the first 10 rows (the study's Dancing Links on the first 10 of its 3,000 9x9 puzzles)
    "generalized/paper_times/sudoku_rank_3_SudokuExactCoverSolver_first10.csv":
        Sample("generalized/paper_times/sudoku_rank_3_SudokuExactCoverSolver.csv", 11, None),
}
MNIST_SOURCE, MNIST_TARGET = "mnist", "mnist_sample"
MNIST_PER_CLASS: dict[str, int] = {"train": 60, "t10k": 30}  # images of each class 1..9 kept from each file
MNIST_CLASSES = range(1, 10)
KAGGLE_ROWS, KAGGLE_SEED = 1000, 2026  # scripts/make_kaggle_sample.py's defaults


def source(relative: str) -> Path:
    """A file of the data home itself (never the shipped copy that paths.data_file would fall back to)."""
    path = data_home() / relative
    if not path.is_file():
        raise DataNotFound(f"{path} not found: set LTN_SUDOKU_DATA to the folder of the full data sets")
    return path


def gzip_bytes(data: bytes) -> bytes:
    """Deterministic gzip: no file name, mtime 0, level 9."""
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, mtime=0, compresslevel=9) as f:
        f.write(data)
    return buffer.getvalue()


def sample_text(text: str, sample: Sample) -> str:
    """The leading comment lines and the chosen puzzle lines (blank lines dropped), in file order, LF endings."""
    lines = text.splitlines()
    head = 0
    while head < len(lines) and lines[head].startswith("#"):
        head += 1
    body = [line for line in lines[head:] if line.strip() and not line.startswith("#")]
    if sample.count > len(body):
        raise ValueError(f"{sample.source}: {len(body)} puzzle lines, {sample.count} asked")
    if sample.seed is None:
        chosen = body[: sample.count]
    else:
        picked = np.sort(np.random.default_rng(sample.seed).choice(len(body), size=sample.count, replace=False))
        chosen = [body[i] for i in picked.tolist()]
    return "".join(line + "\n" for line in [*lines[:head], *chosen])


def _idx(array: np.ndarray) -> bytes:
    """An idx file of uint8 data: magic 0x0800 + number of dimensions, one big-endian 32-bit size per dimension."""
    return struct.pack(f">I{array.ndim}I", 0x0800 + array.ndim, *array.shape) + array.astype(np.uint8).tobytes()


def mnist_subset(part: str) -> dict[str, bytes]:
    """The gzipped idx images and labels of one MNIST file's subset (see the module docstring)."""
    from ltn_sudoku.logic.visual.mnist import FILES, load_mnist

    images_name, labels_name = FILES["train" if part == "train" else "test"]
    folder = source(f"{MNIST_SOURCE}/{images_name}").parent
    full = load_mnist(folder, "train" if part == "train" else "test")
    keep = np.sort(np.concatenate([np.flatnonzero(full.labels == d)[: MNIST_PER_CLASS[part]] for d in MNIST_CLASSES]))
    return {images_name: gzip_bytes(_idx(full.images[keep])), labels_name: gzip_bytes(_idx(full.labels[keep]))}


def kaggle_samples() -> dict[str, bytes]:
    """The Kaggle samples as scripts/make_kaggle_sample.py writes them (made in a scratch folder, then read)."""
    with tempfile.TemporaryDirectory() as scratch:
        written = make_kaggle_sample.make_sample(source("kaggle/kaggle_1m_first24997.csv.gz").parent, Path(scratch),
                                                 KAGGLE_ROWS, KAGGLE_SEED)
        return {f"kaggle/{path.name}": path.read_bytes() for path, _ in written}


def shipped_files() -> dict[str, Callable[[], bytes]]:
    """Every file this script makes, by its path under data/: how to make its bytes."""
    files: dict[str, Callable[[], bytes]] = {name: source(name).read_bytes for name in WHOLE}
    for name, sample in SAMPLES.items():
        files[name] = lambda sample=sample: sample_text(source(sample.source).read_text(encoding="utf-8"),
                                                         sample).encode("utf-8")
    return files


def everything() -> dict[str, bytes]:
    out = {name: make() for name, make in shipped_files().items()}
    for part in MNIST_PER_CLASS:
        out.update({f"{MNIST_TARGET}/{name}": data for name, data in mnist_subset(part).items()})
    out.update(kaggle_samples())
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the shipped files, write nothing")
    parser.add_argument("--out", type=Path, default=DATA_DIR, help="the data folder (default: the repository's)")
    args = parser.parse_args(argv)
    print(f"data home: {data_home()}")
    differ = []
    for name, data in sorted(everything().items()):
        path = args.out / name
        if args.check:
            same = path.is_file() and path.read_bytes() == data
            print(f"{'same   ' if same else 'DIFFERS'} {name} ({len(data):,} bytes)")
            differ += [] if same else [name]
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            print(f"wrote {path} ({len(data):,} bytes)")
    if differ:
        print(f"{len(differ)} file(s) differ from what this script writes: {', '.join(differ)}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
