"""SVG text of a board and of one explained step (see the package docstring).

Every drawn candidate is a `<g class="cand ...">` with `data-cell="r4c4"` and `data-digit="7"`; its extra classes say
how the step uses it: `elim` (red, crossed), `place` (green), `fin` (blue), `pattern` (light green). Cells are
`<rect class="cell" data-cell=...>`; givens and placed digits are `<text class="given">` / `<text class="placed">`;
chain links are `<path class="link strong|weak">` with an arrow head.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from html import escape

from ltn_sudoku.candidates import Assignment, CandidateGrid, Step

# HoDoKu's hint colours (approximately): set value green, candidate to delete red, pattern green, fin blue
COLOURS: dict[str, str] = {
    "place": "#3fda65",
    "elim": "#ff7684",
    "fin": "#7fbbff",
    "pattern": "#b8f0b8",
    "unit": "#fff6cc",
    "cover": "#e3efff",
}
FISH_WORDS: tuple[str, ...] = ("X-Wing", "Swordfish", "Jellyfish")
STYLE = (
    ".cell{fill:#ffffff;stroke:#999999;stroke-width:1}"
    ".box{fill:none;stroke:#000000}"
    ".given{fill:#000000;font-weight:bold}"
    ".placed{fill:#1f4fbf}"
    ".cand text{fill:#555555}"
    ".cand.elim text,.cand.place text{fill:#000000;font-weight:bold}"
    ".cross{stroke:#7a0000;stroke-width:2}"
    ".head{fill:#d03030}"
    ".link{fill:none;stroke:#d03030;stroke-width:1.6}"
    ".link.weak{stroke-dasharray:5,4}"
    ".caption{fill:#000000}"
)
_NODE_OR_LINK = re.compile(
    r"(?:\((?P<inner>\d+(?:[=-]\d+)*)\))?r(?P<rows>\d+)c(?P<cols>\d+)"
    r"|(?P<link>=\d*=|-\d*-|(?<=\s)[=-](?=\s))"
)
_FINS = re.compile(r"\bf(r\d+c\d+(?:,r\d+c\d+)*)")
_CELL = re.compile(r"r(\d+)c(\d+)")


@dataclass(frozen=True)
class Link:
    """A chain link from candidate (cells, digit) to candidate (cells, digit); digit 0: the cells' centres."""

    source: tuple[tuple[int, ...], int]
    target: tuple[tuple[int, ...], int]
    strong: bool


@dataclass
class Highlight:
    """What a step marks on the board: candidate -> role ('elim', 'place', 'fin', 'pattern'), shaded units, links."""

    roles: dict[Assignment, str] = field(default_factory=dict)
    units: tuple[int, ...] = ()  # shaded yellow (a fish's base lines)
    cover_units: tuple[int, ...] = ()  # shaded blue (a fish's cover lines)
    links: tuple[Link, ...] = ()
    caption: str = ""


def _cell_size(n: int) -> int:
    k = round(n ** 0.5)
    return max(48, 16 * k) if n <= 9 else 20 * k  # room for two-digit pencil marks


def _cell_name(grid: CandidateGrid, cell: int) -> str:
    return f"r{grid.geo.row[cell] + 1}c{grid.geo.col[cell] + 1}"


def _candidate_xy(grid: CandidateGrid, cell: int, digit: int, size: int) -> tuple[float, float]:
    k = grid.geo.k
    sub = size / k
    x = grid.geo.col[cell] * size + ((digit - 1) % k + 0.5) * sub
    y = grid.geo.row[cell] * size + ((digit - 1) // k + 0.5) * sub
    return x, y


def wrap_words(text: str, width: int) -> list[str]:
    lines: list[str] = []
    line = ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return [*lines, line] if line else lines


def candidate_radius(n: int) -> float:
    """Half the side of a candidate's square in a board of side n (its role mark's size)."""
    return _cell_size(n) / round(n ** 0.5) / 2 - 1


def role_marks(role: str, cx: float, cy: float, r: float) -> tuple[str, str]:
    """The marks of a candidate's role centred at (cx, cy): what goes under its digit (the coloured square) and over
    it (an elimination's cross). The one drawing of a role: board_svg and the HTML report's step-through use it."""
    under = (f'<rect x="{cx - r:.1f}" y="{cy - r:.1f}" width="{2 * r:.1f}" height="{2 * r:.1f}" '
             f'rx="{r / 3:.1f}" fill="{COLOURS[role]}"/>')
    if role != "elim":
        return under, ""
    d = r * 0.8
    return under, (f'<line class="cross" x1="{cx - d:.1f}" y1="{cy - d:.1f}" x2="{cx + d:.1f}" y2="{cy + d:.1f}"/>'
                   f'<line class="cross" x1="{cx - d:.1f}" y1="{cy + d:.1f}" x2="{cx + d:.1f}" y2="{cy - d:.1f}"/>')


def value_font(n: int) -> float:
    """The font size of a given or placed digit in a board of side n."""
    return _cell_size(n) * 0.6


def link_markup(grid: CandidateGrid, link: Link) -> str:
    """One chain link drawn as board_svg draws it (the report's step-through inserts it over its board)."""
    return _link_path(grid, link, _cell_size(grid.n))


def value_text(kind: str, name: str, value: int, x: float, y: float, font: float) -> str:
    """A given or placed digit centred at (x, y) (kind: 'given' or 'placed')."""
    return (f'<text class="{kind}" data-cell="{name}" data-digit="{value}" x="{x}" y="{y}" font-size="{font:.1f}" '
            f'text-anchor="middle" dominant-baseline="central">{value}</text>')


def board_svg(grid: CandidateGrid, highlight: Highlight | None = None, *, pencil_marks: bool = True) -> str:
    """The board as SVG text: givens bold, placed digits blue, candidates as pencil marks in a k x k sub-grid of
    each empty cell, box lines thicker; `highlight` colours candidates, shades units and draws chain links."""
    hl = highlight or Highlight()
    n, k = grid.n, grid.geo.k
    size = _cell_size(n)
    side = n * size
    margin = 4
    font = value_font(n)
    small = size / k * (0.72 if n <= 9 else 0.5)
    caption = wrap_words(hl.caption, max(20, int(side / (0.55 * 13)))) if hl.caption else []
    height = side + 2 * margin + (len(caption) * 17 + 8 if caption else 0)
    out: list[str] = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{side + 2 * margin}" height="{height}" '
        f'viewBox="{-margin} {-margin} {side + 2 * margin} {height}" data-n="{n}" '
        f'font-family="DejaVu Sans, Arial, sans-serif">',
        # a candidate's font, once per board (scoped by side: an HTML page holds boards of several sides)
        f'<style>{STYLE}svg[data-n="{n}"] .cand text{{font-size:{small:.1f}px;text-anchor:middle;'
        f"dominant-baseline:central}}</style>",
    ]
    if hl.caption:
        out.append(f"<title>{escape(hl.caption)}</title>")
    out.append('<rect x="0" y="0" width="100%" height="100%" fill="#ffffff" transform="translate(-4,-4)"/>')
    shaded = {c for u in hl.units for c in grid.geo.units[u]}
    covered = {c for u in hl.cover_units for c in grid.geo.units[u]}
    for cell in range(n * n):
        x, y = grid.geo.col[cell] * size, grid.geo.row[cell] * size
        colour = COLOURS["unit"] if cell in shaded else COLOURS["cover"] if cell in covered else ""
        fill = f' style="fill:{colour}"' if colour else ""
        out.append(f'<rect class="cell" data-cell="{_cell_name(grid, cell)}" x="{x}" y="{y}" '
                   f'width="{size}" height="{size}"{fill}/>')
    for cell in range(n * n):
        name = _cell_name(grid, cell)
        x, y = grid.geo.col[cell] * size, grid.geo.row[cell] * size
        value = grid.values[cell]
        if value:
            kind = "given" if grid.givens >> cell & 1 else "placed"
            out.append(value_text(kind, name, value, x + size / 2, y + size / 2, font))
            continue
        digits = set(grid.candidates(cell)) if pencil_marks else set()
        digits |= {d for (c, d) in hl.roles if c == cell}
        for digit in sorted(digits):
            role = hl.roles.get((cell, digit))
            cx, cy = _candidate_xy(grid, cell, digit, size)
            r = candidate_radius(n)
            under, over = role_marks(role, cx, cy, r) if role else ("", "")
            out.append(f'<g class="cand{" " + role if role else ""}" data-cell="{name}" data-digit="{digit}">'
                       f'{under}<text x="{cx:.1f}" y="{cy:.1f}">{digit}</text>{over}</g>')
    for i in range(k + 1):  # box lines over the cells
        p = i * k * size
        out.append(f'<line class="box" x1="{p}" y1="0" x2="{p}" y2="{side}" stroke-width="3"/>')
        out.append(f'<line class="box" x1="0" y1="{p}" x2="{side}" y2="{p}" stroke-width="3"/>')
    if hl.links:
        for link in hl.links:
            out.append(_link_path(grid, link, size))
    for i, line in enumerate(caption):
        out.append(f'<text class="caption" x="0" y="{side + 8 + 13 + i * 17}" font-size="13">{escape(line)}</text>')
    out.append("</svg>")
    return "\n".join(out)


def _node_xy(grid: CandidateGrid, node: tuple[tuple[int, ...], int], size: int) -> tuple[float, float]:
    cells, digit = node
    if digit:
        points = [_candidate_xy(grid, c, digit, size) for c in cells]
    else:
        points = [((grid.geo.col[c] + 0.5) * size, (grid.geo.row[c] + 0.5) * size) for c in cells]
    return sum(p[0] for p in points) / len(points), sum(p[1] for p in points) / len(points)


def _link_path(grid: CandidateGrid, link: Link, size: int) -> str:
    (x1, y1), (x2, y2) = _node_xy(grid, link.source, size), _node_xy(grid, link.target, size)
    dx, dy = x2 - x1, y2 - y1
    length = (dx * dx + dy * dy) ** 0.5 or 1.0
    gap = size / grid.geo.k / 2  # stop at the candidate's edge
    sx, sy = x1 + dx / length * gap, y1 + dy / length * gap
    ex, ey = x2 - dx / length * gap, y2 - dy / length * gap
    bend = min(0.2 * length, size * 0.6)  # a slight curve keeps the arrow off the candidates in between
    mx, my = (sx + ex) / 2 - dy / length * bend, (sy + ey) / 2 + dx / length * bend
    kind = "strong" if link.strong else "weak"
    src = ",".join(_cell_name(grid, c) for c in link.source[0])
    dst = ",".join(_cell_name(grid, c) for c in link.target[0])
    # the arrow head as a polygon along the curve's end tangent (markers render unevenly across SVG viewers)
    tx, ty = ex - mx, ey - my
    t = (tx * tx + ty * ty) ** 0.5 or 1.0
    ux, uy = tx / t, ty / t
    head = 7.0
    bx, by = ex - ux * head, ey - uy * head
    points = f"{ex:.1f},{ey:.1f} {bx - uy * head / 2:.1f},{by + ux * head / 2:.1f} {bx + uy * head / 2:.1f},{by - ux * head / 2:.1f}"
    return (f'<g class="arrow"><path class="link {kind}" data-from="{link.source[1]}{src}" '
            f'data-to="{link.target[1]}{dst}" d="M{sx:.1f},{sy:.1f} Q{mx:.1f},{my:.1f} {bx:.1f},{by:.1f}"/>'
            f'<polygon class="head" points="{points}"/></g>')


def _body(step: Step) -> str:
    text = step.text.split(":", 1)[-1]
    return text.split("=>", 1)[0]


def chain_links(step: Step, n: int = 9) -> tuple[Link, ...]:
    """The links of a chain written in HoDoKu's notation in the step's text: `(1)r4c4 = (1)r8c4 - (4=5)r3c7`,
    `7 r1c2 = r1c9 - r2c8`, `r4c7 =2= r4c6`; grouped nodes `r9c56`. Empty for a text without a chain, for ALS
    chains (their nodes are sets) and for sides over 9 (a multi-digit row or column cannot be split)."""
    if n > 9 or "ALS" in step.technique or "Death Blossom" in step.technique:
        return ()
    body = _body(step)
    lead = re.match(r"\s*(\d+)\s+r", body)
    default = int(lead.group(1)) if lead else 0
    nodes: list[tuple[tuple[int, ...], list[int], list[str]]] = []  # (cells, digits, signs inside the node)
    signs: list[str] = []  # the links between nodes
    kinds: list[str] = []
    for m in _NODE_OR_LINK.finditer(body):
        if m.group("link"):
            signs.append(m.group("link").strip())
            kinds.append("link")
        else:
            cells = tuple((int(r) - 1) * n + int(c) - 1 for r in m.group("rows") for c in m.group("cols"))
            inner = m.group("inner") or ""
            digits = [int(d) for d in re.split(r"[=-]", inner)] if inner else []
            nodes.append((cells, digits, re.findall(r"[=-]", inner)))
            kinds.append("node")
    # a chain alternates node, link, node, ...; anything else is not a chain
    if len(kinds) < 3 or any((kind == "link") != (i % 2 == 1) for i, kind in enumerate(kinds)):
        return ()
    links: list[Link] = []

    def link_digit(sign: str) -> int:
        inner = sign[1:-1] if len(sign) > 2 else ""
        return int(inner) if inner else 0

    for i, (cells, digits, inner_signs) in enumerate(nodes):
        for a, b, sign in zip(digits, digits[1:], inner_signs, strict=False):
            links.append(Link((cells, a), (cells, b), sign == "="))
        if i + 1 == len(nodes):
            break
        sign = signs[i]
        nxt_cells, nxt_digits, _ = nodes[i + 1]
        digit = link_digit(sign) or default
        out_digit = digits[-1] if digits else digit
        in_digit = nxt_digits[0] if nxt_digits else digit
        links.append(Link((cells, out_digit), (nxt_cells, in_digit), sign.startswith("=")))
    return tuple(links)


def _fins(step: Step, n: int) -> set[int]:
    if n > 9:
        return set()
    m = _FINS.search(_body(step))
    if not m:
        return set()
    return {(int(r) - 1) * n + int(c) - 1 for r, c in _CELL.findall(m.group(1))}


def step_highlight(grid: CandidateGrid, step: Step) -> Highlight:
    """The roles of a step's candidates: its eliminations, placements, fins and pattern, plus units and links."""
    roles: dict[Assignment, str] = {}
    links = chain_links(step, grid.n)
    # a chain's pattern is its nodes (its cells x digits would also mark candidates the chain does not use)
    pattern: set[Assignment] = set() if links else {(c, d) for c in step.cells for d in step.digits if grid.has(c, d)}
    for link in links:
        for cells, digit in (link.source, link.target):
            pattern |= {(c, digit) for c in cells if digit and grid.has(c, digit)}
    for cand in pattern:
        roles[cand] = "pattern"
    fin_digits = step.digits[:1]
    for cell in _fins(step, grid.n):
        for d in fin_digits:
            if grid.has(cell, d):
                roles[(cell, d)] = "fin"
    for cand in step.placements:
        roles[cand] = "place"
    for cand in step.eliminations:
        roles[cand] = "elim"
    units: tuple[int, ...] = step.units
    cover: tuple[int, ...] = ()
    if any(word in step.technique for word in FISH_WORDS) and len(units) % 2 == 0:
        half = len(units) // 2  # a fish records its base lines, then its cover lines
        units, cover = units[:half], units[half:]
    return Highlight(roles, units, cover, links, step.text)


def step_svg(grid: CandidateGrid, step: Step) -> str:
    """One explained step drawn on the grid it was found in (before it is applied)."""
    return board_svg(grid, step_highlight(grid, step))


def roles_of(svg: str) -> Mapping[str, set[tuple[str, int]]]:
    """role -> {(cell name, digit)} of the candidates drawn in an SVG of this module (for tests and tools)."""
    import xml.etree.ElementTree as ET

    out: dict[str, set[tuple[str, int]]] = {}
    for el in ET.fromstring(svg).iter("{http://www.w3.org/2000/svg}g"):
        classes: Iterable[str] = (el.get("class") or "").split()
        if "cand" in classes:
            for role in classes:
                if role != "cand":
                    out.setdefault(role, set()).add((el.get("data-cell", ""), int(el.get("data-digit", "0"))))
    return out
