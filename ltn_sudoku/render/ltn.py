"""The LTN on the board, as SVG text: what hasValue believes, cell by cell, beside the exact solution.

Per cell: hasValue's most likely digit on a shade that shows doubt (pale blue where it is sure, amber where its truth
is 0.5 or less: an easy board the model is sure of stays calm and legible, the cells it doubts stand out; givens in
bold on grey), the truths of all n digits as a bar strip along the cell's foot (the most likely digit's bar blue, the
solution's green where it is another), and a red frame with the solution's digit in the corner where the most likely
digit is wrong. For a
visual model a second board beside it shows each cell's image next to the digit the reader read (red where the
reading is wrong). Plain data in (boards, numpy arrays), so the renderer stays on the symbolic side (no torch).
render/raster.py draws the same picture in pixels for TensorBoard.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from html import escape

import numpy as np

from ltn_sudoku.board import Board, box_side
from ltn_sudoku.render.raster import png_bytes
from ltn_sudoku.render.svg import wrap_words

STYLE = (
    ".ltn-cell rect.bg{stroke:#999999;stroke-width:1}"
    ".ltn-digit{fill:#000000}.ltn-given{fill:#000000;font-weight:bold}"
    ".ltn-strip{fill:#ffffff;fill-opacity:0.85}.ltn-bar{fill:#969696}.ltn-bar.top{fill:#1f4fbf}.ltn-bar.solution{fill:#28a046}"
    ".ltn-wrong{fill:none;stroke:#dc1e1e;stroke-width:3}.ltn-fix{fill:#dc1e1e;font-weight:bold}"
    ".ltn-read{fill:#1f4fbf;font-weight:bold}.ltn-read.wrong{fill:#dc1e1e}"
    ".ltn-box{fill:none;stroke:#000000;stroke-width:3}.ltn-legend{fill:#333333}"
)


def _cell_side(n: int) -> int:
    return 52 if n <= 9 else 40 if n <= 16 else 34


SURE, UNSURE = (214, 226, 255), (255, 190, 80)  # the shades of a truth of 1 and of 0.5 or less


def _shade(truth: float) -> str:
    """Amber at a truth of 0.5 or less to pale blue at 1: the shade shows how sure hasValue is, the digit stays dark."""
    u = min(max((truth - 0.5) / 0.5, 0.0), 1.0)
    r, g, b = (round(a + (z - a) * u) for a, z in zip(UNSURE, SURE))
    return f"#{r:02x}{g:02x}{b:02x}"


def _name(cell: int, n: int) -> str:
    return f"r{cell // n + 1}c{cell % n + 1}"


def _values(board: Board | Sequence[int] | np.ndarray | None, cells: int) -> list[int] | None:
    if board is None:
        return None
    values = [int(v) for v in (board.values if isinstance(board, Board) else np.asarray(board).reshape(-1))]
    if len(values) != cells:
        raise ValueError(f"{len(values)} values for a board of {cells} cells")
    return values


def _box_lines(n: int, size: int, x0: float) -> list[str]:
    k = box_side(n)
    side = n * size
    out = []
    for i in range(k + 1):
        p = i * k * size
        out.append(f'<line class="ltn-box" x1="{x0 + p}" y1="0" x2="{x0 + p}" y2="{side}"/>')
        out.append(f'<line class="ltn-box" x1="{x0}" y1="{p}" x2="{x0 + side}" y2="{p}"/>')
    return out


def hasvalue_svg(board: Board | Sequence[int] | np.ndarray, truths: np.ndarray,
                 solution: Board | Sequence[int] | np.ndarray | None = None, *,
                 images: np.ndarray | None = None, read: Sequence[int] | np.ndarray | None = None,
                 title: str = "") -> str:
    """The picture as SVG text. `board`: the puzzle's values (0 empty); `truths`: (cells, n) truths of
    hasValue(cell, digit); `solution`: the exact solution's values, or None. For a visual model, `images`:
    (cells, h, w) uint8 grayscale cell images (MNIST: white ink on black) and `read`: the digits the reader read
    (0 empty); `board` is then the board the images show. Every cell is a `<g class="ltn-cell" data-cell="r1c1"
    data-digit=... data-truth=... data-wrong=...>` for tools and tests."""
    t = np.clip(np.asarray(truths, dtype=np.float64), 0.0, 1.0)
    cells, n = t.shape
    values = _values(board, cells)
    assert values is not None
    sol = _values(solution, cells)
    got = _values(read, cells)
    size = _cell_side(n)
    side = n * size
    margin = 4
    gap = size // 2
    x0 = side + gap if images is not None else 0  # the hasValue board's left edge
    width = x0 + side
    top = t.argmax(axis=1)
    wrong_cells = [c for c in range(cells) if sol is not None and not values[c] and top[c] + 1 != sol[c]]
    legend = [f"hasValue: shade = how sure (pale blue: truth 1; amber: 0.5 or less); bars = truths of digits 1..{n}"
              + ("; green bar = the solution's digit" if sol is not None else ""),
              f"red frame: differs from the exact solution ({len(wrong_cells)} of "
              f"{sum(1 for v in values if not v)} empty cells; the solution's digit top left)" if sol is not None
              else "no exact solution given: nothing marked wrong"]
    if images is not None:
        legend.insert(0, "left: each cell's image and the digit the reader read (red: read wrong)")
    legend = [line for text in legend for line in wrap_words(text, max(30, int(width / (0.55 * 12))))]
    height = side + 8 + 16 * len(legend)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="ltn-board" width="{width + 2 * margin}" '
           f'height="{height + 2 * margin}" viewBox="{-margin} {-margin} {width + 2 * margin} {height + 2 * margin}" '
           f'data-n="{n}" font-family="DejaVu Sans, Arial, sans-serif">', f"<style>{STYLE}</style>"]
    if title:
        out.append(f"<title>{escape(title)}</title>")
    out.append(f'<rect x="{-margin}" y="{-margin}" width="{width + 2 * margin}" height="{height + 2 * margin}" '
               f'fill="#ffffff"/>')
    if images is not None:
        out += _reader_cells(np.asarray(images), values, got, n, size)
        out += _box_lines(n, size, 0)
    bar_h = size * 0.26
    bar_w = (size - 6) / n
    font = size * (0.5 if n <= 9 else 0.42)
    for c in range(cells):
        x, y = x0 + (c % n) * size, (c // n) * size
        given = values[c] != 0
        digit = values[c] if given else int(top[c]) + 1
        truth = float(t[c, top[c]])
        wrong = c in wrong_cells
        fill = "#e1e1e1" if given else _shade(truth)
        parts = [f'<g class="ltn-cell{" wrong" if wrong else ""}" data-cell="{_name(c, n)}" data-digit="{digit}" '
                 f'data-truth="{truth:.3f}" data-wrong="{int(wrong)}">',
                 f'<rect class="bg" x="{x}" y="{y}" width="{size}" height="{size}" fill="{fill}"/>']
        ink = "ltn-given" if given else "ltn-digit"
        parts.append(f'<text class="{ink}" x="{x + size / 2}" y="{y + (size - bar_h) / 2 + 1:.1f}" '
                     f'font-size="{font:.1f}" text-anchor="middle" dominant-baseline="central">{digit}</text>')
        parts.append(f'<rect class="ltn-strip" x="{x + 2}" y="{y + size - 3 - bar_h:.1f}" width="{size - 4}" '
                     f'height="{bar_h + 1:.1f}"/>')  # a light band: the bars read on any shade
        for d in range(n):
            h = max(1.5, float(t[c, d]) * bar_h)
            kind = " top" if d == top[c] else " solution" if sol is not None and d + 1 == sol[c] else ""
            parts.append(f'<rect class="ltn-bar{kind}" x="{x + 3 + d * bar_w:.1f}" y="{y + size - 2 - h:.1f}" '
                         f'width="{max(bar_w - 0.6, 0.6):.1f}" height="{h:.1f}"/>')
        if wrong:
            assert sol is not None
            parts.append(f'<rect class="ltn-wrong" x="{x + 2}" y="{y + 2}" width="{size - 4}" height="{size - 4}"/>')
            parts.append(f'<text class="ltn-fix" x="{x + 5}" y="{y + 5 + size * 0.11:.1f}" '
                         f'font-size="{size * 0.22:.1f}" dominant-baseline="central">{sol[c]}</text>')
        parts.append("</g>")
        out.append("".join(parts))
    out += _box_lines(n, size, x0)
    for i, line in enumerate(legend):
        out.append(f'<text class="ltn-legend" x="0" y="{side + 18 + 16 * i}" font-size="12">{escape(line)}</text>')
    out.append("</svg>")
    return "\n".join(out)


def _reader_cells(images: np.ndarray, values: list[int], read: list[int] | None, n: int, size: int) -> list[str]:
    """The reader's board: each cell's image (an embedded PNG, dark ink on white) and, beside it, what was read."""
    if images.shape[0] != n * n:
        raise ValueError(f"{images.shape[0]} cell images for a board of {n * n} cells")
    out = []
    w_img = size * 0.64
    for c in range(n * n):
        x, y = (c % n) * size, (c // n) * size
        png = base64.b64encode(png_bytes(255 - images[c])).decode("ascii")
        got = read[c] if read is not None else 0
        wrong = read is not None and got != values[c]
        out.append(f'<g class="ltn-reader{" wrong" if wrong else ""}" data-cell="{_name(c, n)}" data-read="{got}">'
                   f'<rect class="bg" x="{x}" y="{y}" width="{size}" height="{size}" fill="#ffffff" '
                   f'stroke="#999999"/><image x="{x + 1}" y="{y + 2}" width="{w_img:.1f}" height="{size - 4}" '
                   f'preserveAspectRatio="none" style="image-rendering:pixelated" '
                   f'href="data:image/png;base64,{png}"/>'
                   + (f'<text class="ltn-read{" wrong" if wrong else ""}" x="{x + w_img + (size - w_img) / 2:.1f}" '
                      f'y="{y + size / 2}" font-size="{size * 0.34:.1f}" text-anchor="middle" '
                      f'dominant-baseline="central">{got}</text>' if got else "")
                   + "</g>")
    return out
