"""classify's writers (readable text, JSON Lines, CSV: each turns a chunk of answering.Answered into text, see
ltn_sudoku/answering.py), results files written as the answers come (constant memory) and made visible atomically at
the end, and the CSV columns of classify: every JSON key flattened into one fixed set of columns chosen by the
options, the same for every row of a file whatever each board's answer holds (docs/cli.md lists them)."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Iterable, Mapping, Sequence

from ltn_sudoku.answering import Answered
from ltn_sudoku.cli import UsageError
from ltn_sudoku.cli.common import AUTO_SYMBOLS, output_symbols
from ltn_sudoku.io import strict_json
from ltn_sudoku.io.writers import AtomicFile, spreadsheet_safe
from ltn_sudoku.logic.board.answer import LtnAnswer
from ltn_sudoku.questions.text import render_report
from ltn_sudoku.render.report import board_section, page_head, page_tail, report_pictures

BASE_COLUMNS: tuple[str, ...] = (
    "index", "line", "id", "size", "board", "givens", "closed", "valid", "conflicts", "solvable", "solutions",
    "solution", "no_solution_reason", "moves", "dead_ends", "dead_ends_unknown", "dead_end_limit",
)
Q3_COLUMNS: tuple[str, ...] = ("heuristics", "survey", "recommended", "steps", "level", "score", "guessed", "stats",
                               "heuristics_limit")
LTN_COLUMNS: tuple[str, ...] = (
    "ltn.available", "ltn.reason", "ltn.checkpoint", "ltn.isCorrect.truth", "ltn.isCorrect.decision",
    "ltn.hasSolution.truth", "ltn.hasSolution.decision", "ltn.solution.board", "ltn.solution.valid", "ltn.moves",
    "ltn.dead_ends", "ltn.recommendsHeuristic",
)


SEARCH_COLUMNS: tuple[str, ...] = ("ltn.search.verdict", "ltn.search.solution", "ltn.search.nodes",
                                   "ltn.search.branches", "ltn.search.cpu_seconds")
COMPLETE_COLUMNS: tuple[str, ...] = tuple(f"ltn.complete_solver.{key}" for key in (
    "verdict", "limit", "solutions", "nodes", "wrong_guesses", "order_calls", "first_solution_nodes",
    "first_solution_wrong_guesses", "cpu_seconds"))


def csv_columns(heuristics: bool, ltn: bool, search: bool = False, complete: bool = False) -> list[str]:
    """The columns of a classify CSV: fixed by the options, so the header can be written before the first answer."""
    return [*BASE_COLUMNS, *(Q3_COLUMNS if heuristics else ()), *(LTN_COLUMNS if ltn else ()),
            *(SEARCH_COLUMNS if ltn and search else ()), *(COMPLETE_COLUMNS if ltn and complete else ())]


def _flatten(value: Mapping[str, Any], prefix: str, out: dict[str, object], skip: str = "") -> None:
    for key, inner in value.items():
        if key == skip:
            continue
        name = f"{prefix}.{key}" if prefix else key
        kind = type(inner)  # exact types: JSON-ready values (the hot loop of a million-row CSV)
        if kind is dict:
            _flatten(inner, name, out)
        else:
            out[name] = len(inner) if kind is list else inner


def flat_row(answer: Mapping[str, object]) -> dict[str, object]:
    """One board's JSON object (Report.as_dict, with or without its move list) as CSV cells: nested objects as
    dotted keys (`ltn.hasSolution.truth`), lists by their length, and a few counts people ask for (dead ends,
    undecided moves, the LTN's dead ends and recommended techniques by name)."""
    out: dict[str, object] = {}
    _flatten(answer, "", out, skip="ltn")
    moves = answer.get("moves")
    if isinstance(moves, list):
        out["dead_ends"] = sum(m["dead_end"] is True for m in moves)
        out["dead_ends_unknown"] = sum(m["dead_end"] is None for m in moves)
    ltn = answer.get("ltn")
    if isinstance(ltn, dict):
        recommends = ltn.get("recommendsHeuristic")
        _flatten(ltn, "ltn", out, skip="recommendsHeuristic")
        out["ltn.dead_ends"] = sum(bool((m.get("dead_end") or {}).get("decision")) for m in ltn.get("moves") or [])
        if isinstance(recommends, dict):
            out["ltn.recommendsHeuristic"] = ";".join(name for name, t in recommends.items() if t["decision"])
    return out


def csv_lines(columns: list[str], answers: Iterable[Mapping[str, object]]) -> str:
    """CSV lines of the fixed columns, one per answer (empty where a board's answer has no such value)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    for answer in answers:
        row = flat_row(answer)
        writer.writerow([spreadsheet_safe(row.get(c)) for c in columns])
    return buf.getvalue()


def csv_header(columns: list[str]) -> str:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerow(columns)
    return buf.getvalue()


def json_line(answer: Mapping[str, object]) -> str:
    return strict_json.dumps(answer) + "\n"


@dataclass(frozen=True)
class TextWriter:
    """Readable reports (questions.text), a blank line after each; titled by the input's name (and, when it holds
    several boards, each board's number and line)."""

    name: str
    single: bool
    symbols: str = AUTO_SYMBOLS  # how boards above 9x9 are written: as each board was read, or one of board.SYMBOLS

    def head(self) -> str:
        return ""

    def __call__(self, answers: Sequence[Answered]) -> str:
        return "".join(render_report(a.report, self.name if self.single else
                                     f"{self.name}, board {a.index + 1} (line {a.record.line})",
                                     output_symbols(self.symbols, a.record)) + "\n\n"
                       for a in answers)

    def tail(self, boards: int) -> str:
        return ""


def _answer_dict(answer: Answered, moves: bool, symbols: str = AUTO_SYMBOLS) -> dict[str, object]:
    """One board's JSON object: where it is in the input, then its report (with or without the move list; boards
    above 9x9 in `symbols`, or as the board was read)."""
    return {"index": answer.index, "line": answer.record.line, "id": answer.record.fields.get("id"),
            **answer.report.as_dict(moves=moves, symbols=output_symbols(symbols, answer.record))}


@dataclass(frozen=True)
class JsonLinesWriter:
    """One JSON object per board and line, every move included."""

    symbols: str = AUTO_SYMBOLS

    def head(self) -> str:
        return ""

    def __call__(self, answers: Sequence[Answered]) -> str:
        return "".join(json_line(_answer_dict(a, moves=True, symbols=self.symbols)) for a in answers)

    def tail(self, boards: int) -> str:
        return ""


@dataclass(frozen=True)
class HtmlWriter:
    """One self-contained HTML page (render/report.py): per board its answers, the solving path as a step-through
    and the LTN's picture; the number of boards is written in the footer (the page's header takes it from there)."""

    title: str
    open_first: int = 1  # sections open when the page loads
    symbols: str = AUTO_SYMBOLS

    def head(self) -> str:
        return page_head(self.title)

    def __call__(self, answers: Sequence[Answered]) -> str:
        parts = []
        for a in answers:
            ltn = a.ltn if isinstance(a.ltn, LtnAnswer) else None
            parts.append(board_section(a.index, _answer_dict(a, moves=False, symbols=self.symbols),
                                       report_pictures(a.report),
                                       None if ltn is None else ltn.picture(a.report.solution),
                                       opened=a.index < self.open_first, ltn_html=None if ltn is None else ltn.html()))
        return "".join(parts)

    def tail(self, boards: int) -> str:
        return page_tail(boards)


@dataclass(frozen=True)
class CsvWriter:
    """CSV rows of fixed columns (csv_columns), after a header line."""

    columns: list[str]
    symbols: str = AUTO_SYMBOLS

    def head(self) -> str:
        return csv_header(self.columns)

    def __call__(self, answers: Sequence[Answered]) -> str:
        return csv_lines(self.columns, (_answer_dict(a, moves=False, symbols=self.symbols) for a in answers))

    def tail(self, boards: int) -> str:
        return ""


class ResultsFile:
    """A results file filled piece by piece through the package's atomic writer (ltn_sudoku.io.writers.AtomicFile: a
    temporary file beside it, fsynced and renamed into place by `commit()`); on any error, SIGTERM, or without
    commit the temporary file is removed and the old file, if any, stays as it was."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._atomic = AtomicFile(path, "w")

    def __enter__(self) -> ResultsFile:
        try:
            self._atomic.__enter__()
        except OSError as e:
            raise UsageError(f"--out {self.path}: cannot write ({e.strerror or e})") from None
        return self

    def write(self, texts: Iterable[str]) -> None:
        assert self._atomic.file is not None
        try:
            self._atomic.file.writelines(texts)
        except OSError as e:
            raise UsageError(f"--out {self.path}: cannot write ({e.strerror or e})") from None

    def commit(self) -> None:
        """Make the complete file visible under its name."""
        try:
            self._atomic.commit()
        except OSError as e:
            raise UsageError(f"--out {self.path}: cannot write ({e.strerror or e})") from None

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._atomic.__exit__(kind, error, tb)
