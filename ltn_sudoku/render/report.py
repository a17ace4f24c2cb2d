"""One self-contained HTML report of many boards, written as they come (inline SVG, CSS and JS; no network).

    with HtmlReport("report.html", title="top1465") as html:
        for board_dict, report in ...:                    # the dict classify-board prints per board (--json)
            html.add(board_dict, report_pictures(report), ltn_svg)   # ltn_svg: render.ltn.hasvalue_svg(...) or None
    # leaving the block commits the file; an exception leaves no file (io.writers.AtomicFile)

Per board: the Q1/Q2/Q3 answers and the LTN's, the solving path as a step-through (buttons, and the left / right
arrow keys for the board last clicked or opened) with each step drawn by render/svg.py, and the LTN picture.

Why the step pictures are compact data and not one SVG per step: a top1465 board's path is ~90 steps, and one SVG
per step came to 2.8 MB per board (4 GB for the file). So each board carries its opening board drawn once
(`board_svg`) and per step only what changes: the candidates the previous step removed, the digits it placed, the
roles of this step's candidates, its shaded units and its chain links (drawn by svg.py's `link_markup`). The page's
script replays them on the drawn board, using the role marks and the digit drawn by svg.py (`role_marks`,
`value_text`), so the drawing itself has one source. A board's data is parsed only when its section is opened.

Memory is flat in the number of boards: each board's section is written when it is added; the count of boards in
the page's header is a fixed-width field patched in place by `close()`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from ltn_sudoku import __version__
from ltn_sudoku.board import Board
from ltn_sudoku.candidates import CandidateGrid, Contradiction, Step, mask_digits
from ltn_sudoku.io import strict_json
from ltn_sudoku.io.writers import AtomicFile
from ltn_sudoku.questions.q3 import Q3Answer

if TYPE_CHECKING:
    from ltn_sudoku.questions.report import Report

from ltn_sudoku.render.svg import (
    COLOURS,
    board_svg,
    candidate_radius,
    link_markup,
    role_marks,
    step_highlight,
    value_font,
    value_text,
)

ROLES: tuple[str, ...] = ("elim", "place", "fin", "pattern")  # a step's role codes in the page's data: 0, 1, ...
_COUNT_WIDTH = 12  # characters kept for the board count in the header (patched by close())
_COUNT_MARK = "@" * _COUNT_WIDTH


@dataclass(frozen=True)
class StepPictures:
    """A solving path in the page's compact form: the opening board's SVG and, per step, what changes."""

    n: int
    stage: str
    steps: list[dict[str, object]] = field(default_factory=list)
    left_out: int = 0  # steps past the cap, listed as text only

    def as_data(self) -> dict[str, object]:
        """JSON-ready: what the page's script reads."""
        r = candidate_radius(self.n)
        return {
            "n": self.n,
            "stage": self.stage,
            "steps": self.steps,
            "leftOut": self.left_out,
            "marks": {role: role_marks(role, 0, 0, r) for role in ROLES},
            "placed": value_text("placed", "", 0, 0, 0, value_font(self.n)),
        }


def step_pictures(puzzle: Board | CandidateGrid, steps: Sequence[Step],
                  max_steps: int | None = None) -> StepPictures | None:
    """The step-through of a solving path: the steps replayed on the puzzle's candidate grid as the engine applied
    them (each is drawn on the grid it was found in; a CandidateGrid is copied, for paths that start from pencil
    marks, as HoDoKu's cases do). None for a board whose givens clash (it has no path). `max_steps` caps the drawn
    steps (the rest stay in the page as text)."""
    if isinstance(puzzle, CandidateGrid):
        grid = puzzle.copy()
    else:
        try:
            grid = CandidateGrid.from_board(puzzle)
        except Contradiction:
            return None
    n = grid.n
    stage = board_svg(grid)
    drawn = steps if max_steps is None else steps[:max_steps]
    out: list[dict[str, object]] = []
    for step in drawn:
        hl = step_highlight(grid, step)
        masks, values = grid.masks[:], grid.values[:]
        grid.apply(step)
        removed = [c * n + d - 1 for c in range(n * n) if masks[c] != grid.masks[c]
                   for d in mask_digits(masks[c] & ~grid.masks[c])]
        placed = [[c, grid.values[c]] for c in range(n * n) if grid.values[c] != values[c]]
        item: dict[str, object] = {
            "t": step.text,
            "r": [[c * n + d - 1, ROLES.index(role)] for (c, d), role in hl.roles.items()],
            "x": removed,
            "p": placed,
        }
        base = {c for u in hl.units for c in grid.geo.units[u]}
        cover = {c for u in hl.cover_units for c in grid.geo.units[u]} - base  # a base line's shade wins, as in board_svg
        if base:
            item["u"] = sorted(base)
        if cover:
            item["v"] = sorted(cover)
        if hl.links:
            item["l"] = "".join(link_markup(grid, link) for link in hl.links)
        out.append(item)
    return StepPictures(n, stage, out, len(steps) - len(drawn))


def report_pictures(report: Report, max_steps: int | None = None) -> StepPictures | None:
    """The step-through of a Report's Q3 solving path (None when the report has no path: closed boards, clashing
    givens, Q3 skipped)."""
    for section in report.sections:
        if isinstance(section, Q3Answer) and section.result.steps:  # its SolveResult: the puzzle and the Steps
            return step_pictures(section.result.puzzle, section.result.steps, max_steps)
    return None


def _script_json(data: object) -> str:
    """JSON safe inside <script>: no '<' can close the element or open a comment."""
    return strict_json.dumps(data, separators=(",", ":")).replace("<", "\\u003c").replace("&", "\\u0026")


def _kind(board: Mapping[str, Any]) -> str:
    if board.get("closed"):
        return "closed, valid" if board.get("valid") else "closed, invalid"
    if not board.get("valid", True):
        return "open, givens conflict"
    solutions = board.get("solutions")
    return "open, no solution" if solutions == 0 else "open, one solution" if solutions == 1 else \
        "open, several solutions"


def _value(value: object) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, list):
        if len(value) > 12 or any(isinstance(v, (dict, list)) for v in value):
            return f"{len(value)} items"
        return ", ".join(map(str, value)) or "none"
    return str(value)


def _rows(pairs: Sequence[tuple[str, object]]) -> str:
    return "".join(f"<tr><th>{escape(k)}</th><td>{escape(_value(v))}</td></tr>" for k, v in pairs)


def _answers_html(board: Mapping[str, Any], ltn_html: str | None = None) -> str:
    """The Q1 / Q2 / Q3 answers of a classify-board dict as small tables (keys that are absent are left out, so a
    dict of `solve` or of an older classify-board still renders), then the LTN's block (`ltn_html`, written by the
    LTN's answer object: logic/board/answer.py)."""
    moves = board.get("moves")
    if isinstance(moves, list):
        dead: object = sum(1 for m in moves if m.get("dead_end") is True)
        moves_n: object = len(moves)
    else:
        dead, moves_n = board.get("dead_ends"), moves
    q12 = [("size", f"{board['size']}x{board['size']}" if "size" in board else None), ("givens", board.get("givens")),
           ("closed", board.get("closed")), ("valid" if board.get("closed") else "givens consistent",
                                             board.get("valid")),
           ("conflicts", len(board.get("conflicts") or [])), ("solvable", board.get("solvable")),
           ("solutions (counted up to 2)", board.get("solutions")), ("solution", board.get("solution")),
           ("no-solution reason", board.get("no_solution_reason")), ("basic-rule moves", moves_n),
           ("moves that lead to a dead end", dead), ("dead-end limit", board.get("dead_end_limit"))]
    parts = ['<div class="answers"><table class="q"><caption>Q1 / Q2</caption>',
             _rows([(k, v) for k, v in q12 if v is not None or k == "solution"]), "</table>"]
    if "level" in board or "recommended" in board:
        steps = board.get("steps") or []
        recommended = board.get("recommended")
        if recommended is None and isinstance(steps, list) and steps:  # `solve`: the first step's technique
            recommended = [steps[0].get("technique")]
        q3 = [("recommended now", recommended), ("solving path", plural(len(steps), "step")),
              ("level", board.get("level")), ("score", board.get("score")), ("search needed", board.get("guessed")),
              ("survey", board.get("survey")), ("limit", board.get("heuristics_limit"))]
        parts += ['<table class="q"><caption>Q3</caption>', _rows(q3), "</table>"]
    if ltn_html:
        parts += ['<div class="ltn-block"><h3>LTN model</h3>', ltn_html, "</div>"]
    parts.append("</div>")
    return "".join(parts)


def plural(count: int, word: str) -> str:
    """'1 step', '2 steps'."""
    return f"{count:,} {word}{'' if count == 1 else 's'}"


def page_head(title: str, count: str = "") -> str:
    """The page's top: styles and the header. `count` is the number of boards when known before the first board;
    left empty, the page's script copies it from the footer (page_tail) when the page opens."""
    return (_HEAD.replace("{title}", escape(title)).replace("{version}", escape(__version__))
            .replace("{count}", count))


def board_section(index: int, board: Mapping[str, Any], pictures: StepPictures | None = None,
                  ltn_svg: str | None = None, *, opened: bool = False, ltn_html: str | None = None) -> str:
    """One board's section: `board` is classify-board's JSON dict of the board (Report.as_dict() plus index / line /
    id), `pictures` its solving path (report_pictures / step_pictures), `ltn_svg` the LTN's picture and `ltn_html`
    its answers as prose and a table (LtnAnswer.picture, LtnAnswer.html)."""
    label = f"Board {int(board.get('index', index)) + 1}"
    if board.get("line") is not None:
        label += f" (line {board['line']})"
    if board.get("id"):
        label += f", id {board['id']}"
    bits = [_kind(board)]
    if board.get("level"):
        bits.append(f"level {board['level']}")
    if board.get("steps"):
        bits.append(plural(len(board["steps"]), "step"))
    data: dict[str, object] = {"pictures": pictures.as_data() if pictures is not None else None, "ltn": ltn_svg}
    if pictures is None:
        data["texts"] = [str(s.get("text", "")) for s in board.get("steps") or []]
    else:
        tail = (board.get("steps") or [])[len(pictures.steps):]
        data["texts"] = [str(s.get("text", "")) for s in tail] if pictures.left_out else []
    has_path = bool(pictures is not None and pictures.steps) or bool(data["texts"])
    path = ('<div class="path"><h3>Solving path</h3><div class="controls">'
            '<button class="first" title="first step (Home)">&laquo;</button>'
            '<button class="prev" title="previous step (left arrow)">&#x25C0;</button>'
            '<span class="pos"></span>'
            '<button class="next" title="next step (right arrow)">&#x25B6;</button>'
            '<button class="last" title="last step (End)">&raquo;</button></div>'
            '<p class="caption"></p><div class="stage"></div><ol class="steps"></ol></div>') if has_path else ""
    ltn = '<div class="ltn"><h3>LTN: hasValue on the board</h3><div class="ltn-picture"></div></div>' \
        if ltn_svg else ""
    return (f'<section class="board" id="board{index + 1}" tabindex="-1"><details'
            f'{" open" if opened else ""}><summary>{escape(label)} — '
            f'{escape(", ".join(bits))}<code>{escape(str(board.get("board", "")))}</code></summary>'
            f'{_answers_html(board, ltn_html)}<div class="pictures">{path}{ltn}</div>'
            f'<script type="application/json" class="board-data">{_script_json(data)}</script>'
            f"</details></section>\n")


def page_tail(count: int) -> str:
    """The page's end: the footer with the number of boards, and the step-through script."""
    return _TAIL.replace("{count}", str(count)).replace("{word}", "board" if count == 1 else "boards").replace("{colours}", _script_json(COLOURS)).replace(
        "{roles}", _script_json(list(ROLES)))


class HtmlReport:
    """The streaming writer of the HTML report to a file (see the module docstring). `add` writes one board's section
    at once; `close` writes the end, patches the board count into the header and renames the file into place.
    (classify-board writes the same pieces through its chunk writer, cli/results.py: HtmlWriter.)"""

    def __init__(self, path: str | Path, title: str = "ltn-sudoku report", *, open_first: int = 1) -> None:
        self.path = Path(path)
        self.title = title
        self.open_first = open_first  # sections opened when the page loads
        self.count = 0
        self._out: AtomicFile | None = None
        self._count_at = 0

    def __enter__(self) -> HtmlReport:
        self.open()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 tb: TracebackType | None) -> None:
        if kind is None:
            self.close()
        elif self._out is not None:
            self._out.__exit__(kind, error, tb)  # no commit: the target is left as it was
            self._out = None

    def open(self) -> None:
        out = AtomicFile(self.path, "wb")
        out.__enter__()
        self._out = out
        head = page_head(self.title, _COUNT_MARK)
        self._count_at = len(head[:head.index(_COUNT_MARK)].encode())
        self._write(head.encode())

    def _write(self, data: bytes) -> None:
        assert self._out is not None, "HtmlReport used before open() or after close()"
        self._out.write(data)

    def add(self, board: Mapping[str, Any], pictures: StepPictures | None = None, ltn_svg: str | None = None,
            ltn_html: str | None = None) -> None:
        """One board's section (board_section), written at once."""
        self._write(board_section(self.count, board, pictures, ltn_svg, opened=self.count < self.open_first,
                                  ltn_html=ltn_html).encode())
        self.count += 1

    def close(self) -> None:
        """Write the end of the page, the board count into its header, and rename the file into place."""
        out = self._out
        if out is None:
            return
        self._write(page_tail(self.count).encode())
        assert out.file is not None
        end = out.file.tell()
        out.file.seek(self._count_at)
        out.file.write(str(self.count).ljust(_COUNT_WIDTH).encode())  # HTML folds the spaces
        out.file.seek(end)
        out.commit()
        out.__exit__(None, None, None)
        self._out = None


_HEAD = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="ltn-sudoku {version}">
<title>{title}</title>
<style>
body{font-family:system-ui,"DejaVu Sans",Arial,sans-serif;margin:1.2em;color:#111;background:#fafafa}
header p{margin:.2em 0}
.count{font-weight:bold}
section.board{background:#fff;border:1px solid #ccc;border-radius:6px;margin:.6em 0;padding:.3em .8em}
section.board.active{border-color:#1f4fbf;box-shadow:0 0 0 2px #c9d8ff}
summary{cursor:pointer;font-weight:600}
summary code{display:block;font-weight:normal;font-size:.8em;color:#555;word-break:break-all}
.answers{display:flex;flex-wrap:wrap;gap:1em;margin:.6em 0;align-items:flex-start}
table.q{border-collapse:collapse;font-size:.85em}
table.q caption{text-align:left;font-weight:bold}
table.q th{text-align:left;font-weight:normal;color:#444;padding:1px 8px 1px 0;vertical-align:top}
table.q td{padding:1px 0;overflow-wrap:anywhere;max-width:40em}
table.q td,table.q th,.ltn-answer p{word-break:normal;hyphens:none}
.ltn-block{max-width:44em}
.ltn-block h3{font-size:.85em;margin:0}
.ltn-answer p{font-size:.85em;margin:.2em 0 .4em}
.ltn-answer table.q td,.ltn-answer table.q th{padding:1px 14px 1px 0;font-variant-numeric:tabular-nums}
.ltn-answer table.q caption{white-space:nowrap;font-weight:normal;color:#444}
.pictures{display:flex;flex-wrap:wrap;gap:2em;align-items:flex-start}
.pictures h3{font-size:1em;margin:.3em 0}
.controls button{font-size:1.1em;min-width:2.4em;margin-right:.2em}
.pos{display:inline-block;min-width:8em;text-align:center;font-variant-numeric:tabular-nums}
.caption{max-width:34em;min-height:2.6em;font-family:monospace;font-size:.9em}
.stage svg,.ltn-picture svg{max-width:100%;height:auto}
ol.steps{position:relative;max-height:14em;overflow:auto;font-family:monospace;font-size:.8em;max-width:34em;padding-left:3em}
ol.steps li{cursor:pointer}
ol.steps li.current{background:#fff6cc;font-weight:bold}
ol.steps li.text-only{cursor:default;color:#666}
</style></head><body>
<header><h1>{title}</h1>
<p>This report holds <span class="count" id="board-count">{count}</span> <span id="board-word">boards</span>.
Open a board, then step through its solving path with the buttons or the left / right arrow keys (Home / End: first
/ last step). Colours as in HoDoKu: green, placed; red and crossed, eliminated; light green, the pattern; blue, fins;
yellow / blue cells, a fish's base / cover lines; arrows, a chain's strong (solid) and weak (dashed) links.</p>
<p>Made by ltn-sudoku {version}.</p></header>
<main>
"""

_TAIL = """</main>
<footer><p>End of the report: <span id="footer-count">{count}</span> {word}.</p></footer>
<script>
"use strict";
(function () {  // a header written before the count was known (classify-board --html) takes it from the footer
  const head = document.getElementById("board-count");
  if (!head.textContent.trim()) head.textContent = document.getElementById("footer-count").textContent;
  if (head.textContent.trim() === "1") document.getElementById("board-word").textContent = "board";
})();
const COLOURS = {colours};
const ROLES = {roles};
let active = null;

function cellIndex(name, n) {
  const m = /^r(\\d+)c(\\d+)$/.exec(name);
  return (Number(m[1]) - 1) * n + Number(m[2]) - 1;
}

function fragment(markup) {
  const g = document.createElementNS("http://www.w3.org/2000/svg", "g");
  g.innerHTML = markup;
  return g;
}

function load(sec) {
  if (!sec._data) {
    sec._data = JSON.parse(sec.querySelector("script.board-data").textContent);
    sec._pos = 0;
    const d = sec._data, list = sec.querySelector("ol.steps");
    if (list) {
      const texts = (d.pictures ? d.pictures.steps.map(s => s.t) : []);
      texts.forEach((t, i) => {
        const li = document.createElement("li");
        li.textContent = t;
        li.addEventListener("click", () => { activate(sec); show(sec, i); });
        list.appendChild(li);
      });
      for (const t of d.texts) {
        const li = document.createElement("li");
        li.textContent = t;
        li.className = "text-only";
        list.appendChild(li);
      }
    }
    if (d.ltn) sec.querySelector(".ltn-picture").innerHTML = d.ltn;
  }
  return sec._data;
}

function positions(sec) {
  const p = load(sec).pictures;
  return p ? p.steps.length + 1 : 0;  // every step, then the board after the last drawn step
}

function fresh(sec) {
  // the opening board, drawn anew (going back replays the path from here)
  const p = sec._data.pictures, holder = sec.querySelector(".stage");
  holder.innerHTML = p.stage;
  const svg = holder.querySelector("svg"), n = p.n;
  const st = {svg: svg, cands: new Map(), cells: new Map(), boxes: svg.querySelector("line.box"), at: 0, decor: []};
  for (const g of svg.querySelectorAll("g.cand")) {
    st.cands.set(cellIndex(g.dataset.cell, n) * n + Number(g.dataset.digit) - 1, g);
  }
  for (const r of svg.querySelectorAll("rect.cell")) st.cells.set(cellIndex(r.dataset.cell, n), r);
  sec._state = st;
  return st;
}

function apply(st, p, s) {
  // what step s did to the board: the candidates it removed, the digits it placed
  for (const k of s.x) { const g = st.cands.get(k); if (g) { g.remove(); st.cands.delete(k); } }
  for (const [c, v] of s.p) {
    const r = st.cells.get(c), t = fragment(p.placed).firstElementChild;
    t.setAttribute("data-cell", r.dataset.cell);
    t.setAttribute("data-digit", String(v));
    t.setAttribute("x", String(Number(r.getAttribute("x")) + Number(r.getAttribute("width")) / 2));
    t.setAttribute("y", String(Number(r.getAttribute("y")) + Number(r.getAttribute("height")) / 2));
    t.textContent = String(v);
    st.svg.insertBefore(t, st.boxes);
  }
}

function undecorate(st) {
  for (const undo of st.decor) undo();
  st.decor = [];
}

function decorate(st, p, s) {
  // step s's highlight: shaded units, role marks on its candidates, chain links
  const shade = (c, colour) => {
    const r = st.cells.get(c);
    r.style.fill = colour;
    st.decor.push(() => { r.style.fill = ""; });
  };
  for (const c of (s.u || [])) shade(c, COLOURS.unit);
  for (const c of (s.v || [])) shade(c, COLOURS.cover);
  for (const [k, code] of s.r) {
    const g = st.cands.get(k);
    if (!g) continue;
    const role = ROLES[code], text = g.querySelector("text");
    const [under, over] = p.marks[role];
    const at = "translate(" + text.getAttribute("x") + "," + text.getAttribute("y") + ")";
    g.classList.add(role);
    const u = fragment(under);
    u.setAttribute("transform", at);
    g.insertBefore(u, text);
    let o = null;
    if (over) { o = fragment(over); o.setAttribute("transform", at); g.appendChild(o); }
    st.decor.push(() => { g.classList.remove(role); u.remove(); if (o) o.remove(); });
  }
  if (s.l) { const l = fragment(s.l); st.svg.appendChild(l); st.decor.push(() => l.remove()); }
}

function show(sec, pos) {
  const d = load(sec), p = d.pictures;
  if (!p) return;
  const last = p.steps.length;
  pos = Math.max(0, Math.min(pos, last));
  sec._pos = pos;
  let st = sec._state;
  if (!st || st.at > pos) st = fresh(sec);
  undecorate(st);
  for (; st.at < pos; st.at++) apply(st, p, p.steps[st.at]);
  const caption = sec.querySelector(".caption");
  if (pos < last) {
    const s = p.steps[pos];
    decorate(st, p, s);
    caption.textContent = s.t;
    st.svg.setAttribute("data-step", String(pos + 1));
  } else {
    caption.textContent = d.pictures.leftOut
      ? "After the first " + last + " steps (the other " + d.pictures.leftOut + " are listed as text)."
      : "After the last step.";
    st.svg.setAttribute("data-step", "end");
  }
  sec.querySelector(".pos").textContent = pos < last ? "step " + (pos + 1) + " / " + last : "end (" + last + " steps)";
  const items = sec.querySelectorAll("ol.steps li");
  if (sec._current !== undefined && items[sec._current]) items[sec._current].classList.remove("current");
  if (items[pos]) items[pos].classList.add("current");
  sec._current = pos;
  const list = sec.querySelector("ol.steps"), current = items[pos];
  if (current && (current.offsetTop < list.scrollTop || current.offsetTop > list.scrollTop + list.clientHeight - 20)) {
    list.scrollTop = current.offsetTop - list.clientHeight / 2;  // the list scrolls, never the page
  }
}

function activate(sec) {
  if (active) active.classList.remove("active");
  active = sec;
  sec.classList.add("active");
}

for (const sec of document.querySelectorAll("section.board")) {
  const details = sec.querySelector("details");
  const start = () => { if (details.open && !sec._shown) { sec._shown = true; load(sec); show(sec, 0); } };
  details.addEventListener("toggle", () => { start(); if (details.open) activate(sec); });
  sec.addEventListener("click", () => activate(sec));
  const on = (cls, f) => { const b = sec.querySelector("button." + cls); if (b) b.addEventListener("click", f); };
  on("first", () => show(sec, 0));
  on("prev", () => show(sec, sec._pos - 1));
  on("next", () => show(sec, sec._pos + 1));
  on("last", () => show(sec, positions(sec) - 1));
  start();
  if (details.open && !active) activate(sec);
}

document.addEventListener("keydown", (e) => {
  if (!active || e.altKey || e.ctrlKey || e.metaKey) return;
  const moves = {ArrowLeft: -1, ArrowRight: 1};
  if (e.key in moves) show(active, active._pos + moves[e.key]);
  else if (e.key === "Home") show(active, 0);
  else if (e.key === "End") show(active, positions(active) - 1);
  else return;
  e.preventDefault();
});
</script>
</body></html>
"""
