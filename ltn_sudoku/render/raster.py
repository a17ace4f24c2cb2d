"""The LTN's pictures as pixels: numpy RGB images for TensorBoard (`SummaryWriter.add_images` needs pixels, and the
package has no drawing library), digits from a small built-in bitmap font, and a minimal PNG encoder for the SVG's
embedded cell images.

The picture is the one of render/ltn.py, in pixels: per cell, hasValue's most likely digit on a blue shade as deep as
its truth (givens on grey), the truths of all digits as a bar strip along the cell's foot, and a red frame where the
digit differs from the exact solution. `hasvalue_images` is what the training loop calls at validation.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Sequence

import numpy as np

from ltn_sudoku.board import Board, box_side

# 3x5 digits, one string of 15 bits (row-major) per digit: small, readable from 2x scale, any size of board
_GLYPHS = {
    "0": "111101101101111", "1": "010110010010111", "2": "111001111100111", "3": "111001111001111",
    "4": "101101111001001", "5": "111100111001111", "6": "111100111101111", "7": "111001010010010",
    "8": "111101111101111", "9": "111101111001111", "?": "111001011000010",
}
_FONT = {ch: np.array([int(b) for b in bits], dtype=bool).reshape(5, 3) for ch, bits in _GLYPHS.items()}
WHITE = np.array([255, 255, 255], np.float32)
SURE = np.array([70, 120, 230], np.float32)  # the shade of a truth of 1
GIVEN_BG = np.array([225, 225, 225], np.uint8)
BAR = np.array([150, 150, 150], np.uint8)
BAR_TOP = np.array([31, 79, 191], np.uint8)  # the most likely digit's bar
BAR_SOLUTION = np.array([40, 160, 70], np.uint8)  # the solution's digit's bar, where it is not the most likely
WRONG = np.array([220, 30, 30], np.uint8)
INK = np.array([0, 0, 0], np.uint8)
THIN = np.array([170, 170, 170], np.uint8)


def cell_pixels(n: int) -> int:
    """Side of a cell in pixels: room for two-digit labels and a readable bar strip, 9x9 ~ 300 px wide."""
    return 32 if n <= 9 else 28 if n <= 16 else 24


def text_pixels(text: str, scale: int) -> np.ndarray:
    """A bool mask of `text` in the built-in font (unknown characters as '?'), one blank column between glyphs."""
    glyphs = [_FONT.get(ch, _FONT["?"]) for ch in text]
    out = np.zeros((5, 4 * len(glyphs) - 1), dtype=bool)
    for i, g in enumerate(glyphs):
        out[:, 4 * i:4 * i + 3] = g
    return np.kron(out, np.ones((scale, scale), dtype=bool))


def _stamp(img: np.ndarray, mask: np.ndarray, cy: int, cx: int, colour: np.ndarray) -> None:
    """Paint mask centred at (cy, cx), clipped to the image."""
    h, w = mask.shape
    y0, x0 = cy - h // 2, cx - w // 2
    ys, xs = slice(max(y0, 0), min(y0 + h, img.shape[0])), slice(max(x0, 0), min(x0 + w, img.shape[1]))
    sub = mask[ys.start - y0:ys.stop - y0, xs.start - x0:xs.stop - x0]
    img[ys, xs][sub] = colour


def _grid_lines(img: np.ndarray, n: int, c: int) -> None:
    k = box_side(n)
    for i in range(n + 1):
        colour, width = (INK, 2) if i % k == 0 else (THIN, 1)
        p = min(i * c, n * c - width) if width == 2 else min(i * c, n * c - 1)
        img[p:p + width, :] = colour
        img[:, p:p + width] = colour


def _values(board: Board | Sequence[int] | np.ndarray | None, cells: int) -> np.ndarray | None:
    if board is None:
        return None
    values = np.asarray(board.values if isinstance(board, Board) else board, dtype=np.int64).reshape(-1)
    if values.size != cells:
        raise ValueError(f"{values.size} values for a board of {cells} cells")
    return values


def hasvalue_image(board: Board | Sequence[int] | np.ndarray, truths: np.ndarray,
                   solution: Board | Sequence[int] | np.ndarray | None = None) -> np.ndarray:
    """One board's hasValue picture, (H, W, 3) uint8. `board`: the puzzle's values (0 empty, givens drawn on grey);
    `truths`: (cells, n) truths of hasValue(cell, digit) in [0, 1]; `solution`: the exact solution's values (cells
    whose most likely digit differs get a red frame), or None."""
    t = np.clip(np.asarray(truths, dtype=np.float32), 0.0, 1.0)
    cells, n = t.shape
    values = _values(board, cells)
    assert values is not None
    sol = _values(solution, cells)
    c = cell_pixels(n)
    img = np.empty((n * c, n * c, 3), np.uint8)
    top = t.argmax(axis=1)
    best = t[np.arange(cells), top]
    shade = (WHITE[None, :] * (1 - best[:, None]) + SURE[None, :] * best[:, None]).astype(np.uint8)  # cell, rgb
    scale = max(1, (c // 2) // 5) if n <= 9 else max(1, (c // 2) // 6)
    labels = {d: text_pixels(str(d), scale) for d in range(1, n + 1)}
    bar_h = max(3, c // 5)
    bar_w = max(1, (c - 4) // n)
    strip0 = (c - bar_w * n) // 2
    for cell in range(cells):
        y, x = (cell // n) * c, (cell % n) * c
        given = values[cell] != 0
        img[y:y + c, x:x + c] = GIVEN_BG if given else shade[cell]
        digit = int(values[cell]) if given else int(top[cell]) + 1
        ink = INK if given or best[cell] < 0.6 else WHITE.astype(np.uint8)
        _stamp(img, labels[digit], y + (c - bar_h) // 2, x + c // 2, ink)
        foot = y + c - 2
        img[foot - bar_h - 1:foot + 1, x + 2:x + c - 2] = WHITE.astype(np.uint8)  # a band: bars read on any shade
        heights = np.round(t[cell] * (bar_h - 1)).astype(int) + 1
        for d in range(n):
            colour = BAR_TOP if d == top[cell] else BAR_SOLUTION if sol is not None and d + 1 == sol[cell] else BAR
            bx = x + strip0 + d * bar_w
            img[foot - heights[d]:foot, bx:bx + max(1, bar_w - (1 if bar_w > 2 else 0))] = colour
        if sol is not None and not given and digit != sol[cell]:
            img[y + 2:y + 4, x + 2:x + c - 2] = WRONG
            img[y + c - 4:y + c - 2, x + 2:x + c - 2] = WRONG
            img[y + 2:y + c - 2, x + 2:x + 4] = WRONG
            img[y + 2:y + c - 2, x + c - 4:x + c - 2] = WRONG
    _grid_lines(img, n, c)
    return img


def hasvalue_images(boards: Sequence[Board] | np.ndarray, truths: np.ndarray,
                    solutions: Sequence[Board] | np.ndarray | None = None) -> np.ndarray:
    """The hasValue pictures of a few boards of one size, (N, H, W, 3) uint8 for TensorBoard's
    `add_images(tag, images, step, dataformats="NHWC")`. `boards`: N boards or an (N, cells) array of values;
    `truths`: (N, cells, n) truths; `solutions`: N solutions or an (N, cells) array, or None."""
    t = np.asarray(truths)
    if t.ndim != 3 or len(t) != len(boards):
        raise ValueError(f"truths of shape {t.shape} for {len(boards)} boards: expected (N, cells, n)")
    return np.stack([hasvalue_image(boards[i], t[i], None if solutions is None else solutions[i])
                     for i in range(len(t))])


def reader_image(images: np.ndarray, read: Sequence[int] | np.ndarray,
                 digits: Sequence[int] | np.ndarray | None = None) -> np.ndarray:
    """A visual board as the reader saw it, (H, W, 3) uint8: each cell's image (cells, h, w) uint8 grayscale beside
    the digit the reader read (0: empty, drawn as nothing); where `digits` (the true digits) is given, a wrong
    reading is drawn red on a red frame."""
    imgs = np.asarray(images)
    cells = imgs.shape[0]
    n = int(round(cells ** 0.5))
    got = _values(read, cells)
    truth = _values(digits, cells)
    assert got is not None
    c = cell_pixels(n)
    w_img = c * 2 // 3
    img = np.full((n * c, n * c, 3), 255, np.uint8)
    # nearest-neighbour resize of every cell image to (c - 4) x (w_img - 2), at once
    h, w = imgs.shape[1:3]
    ys = (np.arange(c - 4) * h // (c - 4))
    xs = (np.arange(w_img - 2) * w // (w_img - 2))
    small = 255 - imgs[:, ys][:, :, xs]  # MNIST: white ink on black; drawn dark on white
    label_scale = max(1, c // 16)
    for cell in range(cells):
        y, x = (cell // n) * c, (cell % n) * c
        img[y + 2:y + c - 2, x + 1:x + w_img - 1] = small[cell][..., None]
        wrong = truth is not None and got[cell] != truth[cell]
        if got[cell]:
            _stamp(img, text_pixels(str(int(got[cell])), label_scale), y + c // 2, x + w_img + (c - w_img) // 2,
                   WRONG if wrong else BAR_TOP)
        if wrong:
            img[y + 1:y + 3, x + 1:x + c - 1] = WRONG
            img[y + c - 3:y + c - 1, x + 1:x + c - 1] = WRONG
    _grid_lines(img, n, c)
    return img


def reader_images(images: np.ndarray, read: np.ndarray, digits: np.ndarray | None = None) -> np.ndarray:
    """reader_image of N visual boards, (N, H, W, 3) uint8 for TensorBoard: `images` (N, cells, h, w), `read` and
    `digits` (N, cells)."""
    return np.stack([reader_image(images[i], read[i], None if digits is None else digits[i])
                     for i in range(len(images))])


def png_bytes(pixels: np.ndarray) -> bytes:
    """A PNG file of an (H, W) grayscale or (H, W, 3) RGB uint8 array (zlib and the PNG chunk layout: no imaging
    library)."""
    a = np.ascontiguousarray(pixels, dtype=np.uint8)
    colour = 2 if a.ndim == 3 else 0
    h, w = a.shape[:2]
    rows = a.reshape(h, -1)
    raw = np.concatenate([np.zeros((h, 1), np.uint8), rows], axis=1).tobytes()  # filter 0 on every row

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, colour, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b""))
