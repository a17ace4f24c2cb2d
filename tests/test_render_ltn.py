"""The LTN's pictures (ltn_sudoku/render/ltn.py as SVG, render/raster.py as pixels): every cell drawn with hasValue's
most likely digit and its truth, wrong cells marked against the exact solution, the reader's board for visual
models, for every size 4x4..25x25; hasvalue_images' pixels and PNG encoding."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from PIL import Image

from ltn_sudoku.board import Board
from ltn_sudoku.exact import solve
from ltn_sudoku.render.ltn import hasvalue_svg
from ltn_sudoku.render.raster import (
    WRONG,
    cell_pixels,
    hasvalue_image,
    hasvalue_images,
    png_bytes,
    reader_image,
    reader_images,
    text_pixels,
)

SVG = "{http://www.w3.org/2000/svg}"


def _case(n: int, seed: int = 3) -> tuple[Board, list[int], np.ndarray, set[int]]:
    """A puzzle (every third cell given) of a solved n x n board, truths whose most likely digit is the solution's
    except in a few known cells, and those cells."""
    solution = list(solve(Board([0] * (n * n), n)).values)
    puzzle = Board([v if c % 3 == 0 else 0 for c, v in enumerate(solution)], n)
    rng = np.random.default_rng(seed)
    t = rng.uniform(0.0, 0.4, (n * n, n))
    for c, v in enumerate(solution):
        t[c, v - 1] = rng.uniform(0.5, 1.0)
    wrong = {c for c in rng.choice(n * n, 4, replace=False) if puzzle.values[c] == 0}
    for c in wrong:
        t[c, solution[c] % n] = 1.0  # another digit wins
        t[c, solution[c] - 1] = 0.9
    return puzzle, solution, t, wrong


def _cells(svg: str, cls: str = "ltn-cell") -> list[ET.Element]:
    return [g for g in ET.fromstring(svg).iter(f"{SVG}g") if cls in (g.get("class") or "").split()]


@pytest.mark.parametrize("n", [4, 9, 16, 25])
def test_hasvalue_svg_draws_every_cell_and_marks_the_wrong_ones(n: int) -> None:
    puzzle, solution, t, wrong = _case(n)
    svg = hasvalue_svg(puzzle, t, solution)
    cells = _cells(svg)
    assert len(cells) == n * n and ET.fromstring(svg).get("data-n") == str(n)
    names = [f"r{c // n + 1}c{c % n + 1}" for c in range(n * n)]
    assert [g.get("data-cell") for g in cells] == names
    top = t.argmax(axis=1)
    for c, g in enumerate(cells):
        shown = puzzle.values[c] or top[c] + 1
        assert int(g.get("data-digit", "0")) == shown
        assert float(g.get("data-truth", "-1")) == pytest.approx(t[c, top[c]], abs=1e-3)
        bars = [r for r in g.iter(f"{SVG}rect") if "ltn-bar" in (r.get("class") or "")]
        assert len(bars) == n
    assert {c for c, g in enumerate(cells) if g.get("data-wrong") == "1"} == wrong
    assert len([r for r in ET.fromstring(svg).iter(f"{SVG}rect") if r.get("class") == "ltn-wrong"]) == len(wrong)
    assert not [g for g in _cells(hasvalue_svg(puzzle, t)) if g.get("data-wrong") == "1"]  # no solution: no marks


def test_visual_board_shows_each_image_beside_what_was_read() -> None:
    puzzle, solution, t, _ = _case(4)
    images = np.zeros((16, 28, 28), np.uint8)
    for c, v in enumerate(puzzle.values):
        if v:
            images[c, 6:21, 9:18] = 255 * text_pixels(str(v), 3)  # a drawn digit, white on black as MNIST
    read = list(puzzle.values)
    misread = next(c for c, v in enumerate(read) if v)
    read[misread] = read[misread] % 4 + 1
    svg = hasvalue_svg(puzzle, t, solution, images=images, read=read)
    reader = _cells(svg, "ltn-reader")
    assert len(reader) == 16 and len(_cells(svg)) == 16
    assert [int(g.get("data-read", "-1")) for g in reader] == read
    assert {i for i, g in enumerate(reader) if "wrong" in (g.get("class") or "")} == {misread}
    hrefs = [im.get("href", "") for im in ET.fromstring(svg).iter(f"{SVG}image")]
    assert len(hrefs) == 16 and all(h.startswith("data:image/png;base64,") for h in hrefs)


def test_png_bytes_round_trip() -> None:
    rng = np.random.default_rng(0)
    for pixels in (rng.integers(0, 256, (7, 5), dtype=np.uint8), rng.integers(0, 256, (6, 9, 3), dtype=np.uint8)):
        back = np.asarray(Image.open(io.BytesIO(png_bytes(pixels))))
        assert back.shape == pixels.shape and (back == pixels).all()


@pytest.mark.parametrize("n", [4, 9, 16])
def test_hasvalue_images_pixels(n: int) -> None:
    boards, solutions, truths = [], [], []
    for seed in range(3):
        puzzle, solution, t, wrong = _case(n, seed)
        boards.append(puzzle)
        solutions.append(solution)
        truths.append(t)
    images = hasvalue_images(boards, np.stack(truths), np.array(solutions))
    side = n * cell_pixels(n)
    assert images.shape == (3, side, side, 3) and images.dtype == np.uint8
    c = cell_pixels(n)
    for img, puzzle, solution, t in zip(images, boards, solutions, truths, strict=True):
        red = (img == WRONG).all(axis=2)
        top = t.argmax(axis=1) + 1
        for cell in range(n * n):
            y, x = (cell // n) * c, (cell % n) * c
            framed = red[y + 2:y + 4, x + 4:x + c - 4].all()
            assert framed == (puzzle.values[cell] == 0 and top[cell] != solution[cell]), cell
        assert img.std() > 20  # not blank
    with pytest.raises(ValueError):
        hasvalue_images(boards, np.stack(truths)[:2])


def test_sure_cells_are_darker_than_unsure_ones() -> None:
    board = Board([0] * 16, 4)
    t = np.full((16, 4), 0.05)
    t[:, 0] = np.linspace(0.1, 1.0, 16)
    img = hasvalue_image(board, t).astype(float)
    c = cell_pixels(4)
    corner = [img[(i // 4) * c + 3, (i % 4) * c + 3].sum() for i in range(16)]  # background, off the digit and bars
    assert all(a > b for a, b in zip(corner, corner[1:], strict=False))


def test_reader_image_marks_misreadings() -> None:
    images = np.zeros((16, 28, 28), np.uint8)
    images[:, 8:20, 10:18] = 255
    digits = [1, 2, 3, 4] * 4
    read = list(digits)
    read[5] = 3
    img = reader_image(images, read, digits)
    c = cell_pixels(4)
    red = (img == WRONG).all(axis=2)
    framed = [red[(i // 4) * c + 1:(i // 4) * c + 3, (i % 4) * c + 4:(i % 4) * c + c - 4].all() for i in range(16)]
    assert framed == [i == 5 for i in range(16)]
    batch = reader_images(np.stack([images, images]), np.array([read, digits]), np.array([digits, digits]))
    assert batch.shape == (2, *img.shape) and (batch[0] == img).all() and not (batch[1] == WRONG).all(axis=2).any()
