"""A Report as readable text: the board drawn with boxes (conflicting cells starred), answers in r1c1 notation,
the moves grouped by cell with dead ends marked '!' (undecided ones '?'), and any later sections (Q3, LTN) after
them."""

from __future__ import annotations

from itertools import groupby
from typing import Sequence

from ltn_sudoku.board import DECIMAL, geometry
from ltn_sudoku.candidates import CandidateGrid
from ltn_sudoku.questions.report import Move, Report

LINE_WIDTH = 100
DEAD_END_MARK = "!"
UNDECIDED_MARK = "?"
CONFLICT_MARK = "*"


def _side_by_side(left: list[str], right: list[str], gap: int = 4) -> list[str] | None:
    """Two drawings next to each other, or None when they do not fit in LINE_WIDTH."""
    width = max(len(s) for s in left)
    if width + gap + max(len(s) for s in right) > LINE_WIDTH:
        return None
    return [a.ljust(width + gap) + b for a, b in zip(left, right, strict=True)]


def _drawings(report: Report, symbols: str) -> list[str]:
    """The board (conflicts starred) and, when there is one, the solution beside or below it."""
    cells = sorted({c for conflict in report.conflicts for c in conflict.cells})
    board = report.board.draw(highlight=cells, marker=CONFLICT_MARK, symbols=symbols).splitlines()
    if report.closed or report.solution is None:
        return board
    solution = report.solution.draw(symbols=symbols).splitlines()
    titles = ["board:", "solution:"]
    beside = _side_by_side([titles[0], *board], [titles[1], *solution])
    return beside if beside is not None else [titles[0], *board, titles[1], *solution]


def _packed(entries: list[str], indent: str = "  ") -> list[str]:
    """Equal-width entries, as many per line as fit in LINE_WIDTH."""
    if not entries:
        return []
    width = max(len(e) for e in entries) + 2
    per_line = max(1, (LINE_WIDTH - len(indent)) // width)
    return [indent + "".join(e.ljust(width) for e in entries[i : i + per_line]).rstrip()
            for i in range(0, len(entries), per_line)]


def _mark(move: Move) -> str:
    return UNDECIDED_MARK if move.dead_end is None else DEAD_END_MARK if move.dead_end else ""


def _move_entries(moves: Sequence[Move], n: int) -> list[str]:
    """One 'r1c2: 3! 8 9!' entry per empty cell, its candidate digits in order, dead ends marked."""
    g = geometry(n)
    return [
        f"{g.cell_name(cell)}: " + " ".join(f"{m.digit}{_mark(m)}" for m in group)
        for cell, group in groupby(moves, key=lambda m: m.cell)
    ]


def _conflict_lines(report: Report) -> list[str]:
    return [f"  {c.describe()}" for c in report.conflicts]


def _closed_lines(report: Report) -> list[str]:
    if report.valid:
        return ["Q1 valid solution: yes"]
    return [f"Q1 valid solution: no, {len(report.conflicts)} conflicts (cells marked {CONFLICT_MARK}):",
            *_conflict_lines(report)]


def _solution_count_text(report: Report) -> str:
    return {0: "0 (no solution)", 1: "1 (unique)"}.get(report.solution_count, "at least 2")


def _open_lines(report: Report, symbols: str) -> list[str]:
    lines = ["Givens consistent: yes" if report.valid
             else f"Givens consistent: no, {len(report.conflicts)} conflicts (cells marked {CONFLICT_MARK}):"]
    lines += _conflict_lines(report)
    if report.valid:
        lines.append(f"Candidates: {CandidateGrid.from_board(report.board).summary()}")
    lines.append(f"Q2 solutions: {_solution_count_text(report)}")
    if report.solution is not None:
        lines.append(f"Solution: {report.solution.to_line(symbols)}")
    elif report.no_solution_reason:
        lines.append(f"No solution because {report.no_solution_reason}")
    else:
        lines.append("No solution, for no obvious reason: the exact search proves it")
    lines.append(f"Moves: {len(report.moves)} possible, {report.dead_ends} dead ends "
                 f"(marked {DEAD_END_MARK}: no solution after the move)")
    if report.dead_end_limit:
        lines.append(f"Dead ends limited (marked {UNDECIDED_MARK}): {report.dead_end_limit}")
    lines += _packed(_move_entries(report.moves, report.board.n))
    return lines


def render_report(report: Report, title: str = "", symbols: str = DECIMAL) -> str:
    """The whole report as text; `title` (e.g. 'file.csv, board 3') heads it; boards above 9x9 are drawn and written
    in `symbols` (a convention of board.SYMBOLS)."""
    b = report.board
    state = "closed" if report.closed else "open"
    head = f"{b.n}x{b.n}, {b.givens} givens, {state}"
    lines = [f"== {title}: {head}" if title else f"== {head}", *_drawings(report, symbols)]
    lines += _closed_lines(report) if report.closed else _open_lines(report, symbols)
    for section in report.sections:
        lines.append(f"{section.title}:")
        lines += [f"  {line}" for line in section.describe()]
    return "\n".join(lines)
