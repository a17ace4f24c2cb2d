"""Visual boards against the truth: MNIST's own label files, the exact solver, and independent row/column/box checks."""

from __future__ import annotations

import numpy as np
import pytest

from ltn_sudoku.logic.visual.boards import make_boards
from ltn_sudoku.logic.visual.mnist import MnistError, image_pools, load_mnist
from ltn_sudoku.paths import DATA_DIR

MNIST = DATA_DIR / "mnist_sample"  # a subset of MNIST: 60 + 30 images of each class 1-9 (data/README.md)


@pytest.fixture(scope="module")
def pools4() -> dict:
    return image_pools(MNIST, 4)


def _units_ok(digits: np.ndarray, n: int) -> bool:
    """Every row, column and box of a closed board holds 1..n exactly once (written here, not taken from the code)."""
    grid = digits.reshape(n, n)
    k = int(n ** 0.5)
    units = [grid[i] for i in range(n)] + [grid[:, j] for j in range(n)]
    units += [grid[r:r + k, c:c + k].reshape(-1) for r in range(0, n, k) for c in range(0, n, k)]
    return all(sorted(u.tolist()) == list(range(1, n + 1)) for u in units)


def test_pools_are_disjoint_and_hold_their_class(pools4: dict) -> None:
    train_file, test_file = load_mnist(MNIST, "train"), load_mnist(MNIST, "test")
    assert pools4["train"].part == pools4["val"].part == "train" and pools4["test"].part == "test"
    for d in range(1, 5):
        tr, va = pools4["train"].sources[d], pools4["val"].sources[d]
        assert not set(tr) & set(va)  # no training image is a validation image
        assert len(tr) + len(va) == int((train_file.labels == d).sum())  # every class-d training image used once
        assert (train_file.labels[tr] == d).all() and (train_file.labels[va] == d).all()
        te = pools4["test"].sources[d]
        assert (test_file.labels[te] == d).all() and len(te) == int((test_file.labels == d).sum())
        assert np.array_equal(pools4["train"].by_digit[d], train_file.images[tr])
    assert set(pools4["train"].by_digit) == {1, 2, 3, 4}  # digit d is class d; class 0 is never used


def test_board_images_show_their_digits(pools4: dict) -> None:
    boards = make_boards(4, 12, 3, pools4["test"], "test")
    test_file = load_mnist(MNIST, "test")
    by_bytes = {img.tobytes(): int(label) for img, label in zip(test_file.images, test_file.labels)}
    images, digits = boards.boards.images, boards.digits
    assert images.shape == (12, 16, 28, 28) and images.dtype == np.uint8
    # each cell's image is a t10k image whose MNIST label is the cell's digit
    assert all(by_bytes[img.tobytes()] == d for img, d in zip(images.reshape(-1, 28, 28), digits.reshape(-1)))


@pytest.mark.parametrize("n", [4, 9])
def test_generated_labels_are_true_and_balanced(n: int) -> None:
    pools = image_pools(MNIST, n) if n == 9 else image_pools(MNIST, 4)
    boards = make_boards(n, 24, 5, pools["train"], "train")
    valid = boards.boards.valid
    assert valid.sum() == 12 and (~valid).sum() == 12
    assert all(_units_ok(d, n) == bool(v) for d, v in zip(boards.digits, valid))
    assert {k for k, v in zip(boards.kinds, valid) if not v} == {"random", "swap", "change", "latin_blocks"}


def test_seeded_and_split_apart(pools4: dict) -> None:
    a = make_boards(4, 10, 7, pools4["train"], "train")
    b = make_boards(4, 10, 7, pools4["train"], "train")
    assert np.array_equal(a.boards.images, b.boards.images) and np.array_equal(a.digits, b.digits)
    c = make_boards(4, 10, 8, pools4["train"], "train")
    assert not np.array_equal(a.digits, c.digits)
    v = make_boards(4, 10, 7, pools4["val"], "val")  # same seed, another split: other boards
    assert not np.array_equal(a.digits, v.digits)


def test_missing_mnist_names_the_place(tmp_path) -> None:
    with pytest.raises(MnistError, match=str(tmp_path / "nowhere" / "train-images-idx3-ubyte.gz")):
        load_mnist(tmp_path / "nowhere", "train")
