"""MNIST from its idx files (numpy + gzip, nothing downloaded) and the disjoint image pools of the visual boards.

Pools: the training and validation boards draw their images from MNIST's training file, split once by a fixed
seed into two disjoint halves-by-index (`VAL_SHARE` of every class goes to validation); the test boards draw theirs
from MNIST's t10k file. So a test image never appears in training or validation, whatever the seeds of the boards.
Digit d of a board (1..n) is MNIST class d: only classes 1..n are used (0 never is).
"""

from __future__ import annotations

import gzip
from dataclasses import dataclass
from pathlib import Path

import numpy as np

FILES: dict[str, tuple[str, str]] = {
    "train": ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"),
    "test": ("t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"),
}
POOLS: tuple[str, ...] = ("train", "val", "test")
VAL_SHARE = 0.2  # of each class of MNIST's training file, kept for the validation boards
POOL_SEED = 20221  # fixed: the train / val halves never change with a run's seed


class MnistError(FileNotFoundError):
    """The idx files are missing or damaged; the message names where they were looked for."""


@dataclass(frozen=True)
class Images:
    """Grey images (count, 28, 28) uint8 and their MNIST classes (count,) uint8."""

    images: np.ndarray
    labels: np.ndarray


def _read_idx(path: Path, magic: int) -> np.ndarray:
    """The array of an idx file (big-endian header: magic, then one 32-bit size per dimension, then uint8 data)."""
    with gzip.open(path, "rb") as f:
        raw = f.read()
    dims = magic & 0xFF
    header = np.frombuffer(raw, dtype=">u4", count=1 + dims)
    if int(header[0]) != magic:
        raise MnistError(f"{path}: not an idx file of the expected kind (magic {int(header[0]):#x}, "
                         f"expected {magic:#x})")
    shape = tuple(int(s) for s in header[1:])
    data = np.frombuffer(raw, dtype=np.uint8, offset=4 * (1 + dims))
    if data.size != int(np.prod(shape)):
        raise MnistError(f"{path}: truncated idx file ({data.size} bytes of data, expected {int(np.prod(shape))})")
    return data.reshape(shape)


def load_mnist(folder: str | Path, part: str) -> Images:
    """MNIST's `part` ("train" or "test") from the gzipped idx files in `folder`."""
    root = Path(folder).expanduser()
    images_name, labels_name = FILES[part]
    missing = [name for name in (images_name, labels_name) if not (root / name).is_file()]
    if missing:
        raise MnistError(f"MNIST idx files not found: looked for {', '.join(str(root / m) for m in missing)} "
                         f"(resolved: {root.resolve()}); set data.mnist_path=FOLDER to the folder holding "
                         f"{', '.join(n for pair in FILES.values() for n in pair)}")
    images = _read_idx(root / images_name, 0x0803)
    labels = _read_idx(root / labels_name, 0x0801)
    if len(images) != len(labels):
        raise MnistError(f"{root}: {len(images)} images but {len(labels)} labels")
    return Images(images, labels)


@dataclass(frozen=True)
class Pool:
    """The images one split of boards may use: for every digit d in 1..n, the images of MNIST class d."""

    name: str
    part: str  # the MNIST file its images come from: "train" or "test"
    by_digit: dict[int, np.ndarray]  # digit -> (count, 28, 28) uint8
    sources: dict[int, np.ndarray]  # digit -> the images' indices in that MNIST file

    def draw(self, digits: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """An image of each digit in `digits` (any shape, values 1..n), drawn uniformly with replacement."""
        flat = digits.reshape(-1)
        out = np.empty((flat.size, 28, 28), dtype=np.uint8)
        for d in np.unique(flat):
            where = np.flatnonzero(flat == d)
            choices = self.by_digit[int(d)]
            out[where] = choices[rng.integers(0, len(choices), size=where.size)]
        return out.reshape(*digits.shape, 28, 28)


def image_pools(folder: str | Path, n: int) -> dict[str, Pool]:
    """The disjoint train / val / test pools of digits 1..n (see the module's docstring)."""
    train, test = load_mnist(folder, "train"), load_mnist(folder, "test")
    rng = np.random.default_rng(POOL_SEED)
    sources: dict[str, dict[int, np.ndarray]] = {name: {} for name in POOLS}
    for d in range(1, n + 1):
        members = np.flatnonzero(train.labels == d)
        members = members[rng.permutation(members.size)]
        cut = round(members.size * VAL_SHARE)
        sources["val"][d], sources["train"][d] = np.sort(members[:cut]), np.sort(members[cut:])
        sources["test"][d] = np.flatnonzero(test.labels == d)
    files = {"train": train, "val": train, "test": test}
    parts = {"train": "train", "val": "train", "test": "test"}
    return {name: Pool(name, parts[name], {d: files[name].images[i] for d, i in sources[name].items()}, sources[name])
            for name in POOLS}
