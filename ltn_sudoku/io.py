"""Readers and writers for every board format, with auto-detection and errors that point at file:line:column.

Formats (DESIGN.md §2):
- ``line``: one board per line, one character per cell (n <= 9) or two decimal characters per cell (any n);
  ``.`` or ``0`` empty; ``#`` comments and blank lines skipped (``.txt`` / ``.sdm``). Extra whitespace-separated
  tokens on a line (ids, ratings) are ignored when exactly one token is a board.
- ``grid``: n lines of n comma-separated values per board, ``0`` / ``.`` / empty = empty cell; boards separated by
  blank lines.
- ``kaggle``: CSV with header ``quizzes,solutions`` (81-character strings, ``0`` empty).
- ``table``: CSV whose header names a ``puzzle`` column (the generalized dataset: 2 decimal characters per cell; the
  generators' labelled files: any encoding above) — other columns are kept as record fields.
Every reader raises FormatError; no reader returns a partial result for a bad file. Writers are atomic.
"""

from __future__ import annotations

import csv
import io as _io
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator, Sequence

from ltn_sudoku.board import SUPPORTED_SIZES, Board, BoardError

FORMATS: tuple[str, ...] = ("line", "grid", "kaggle", "table")
MAX_LINE_CHARS = 100_000  # the longest valid line (81x81 at 2 chars per cell) is 13,122 characters
PUZZLE_COLUMNS = ("puzzle", "quizzes", "quiz", "board")
SOLUTION_COLUMNS = ("solution", "solutions")
_SINGLE_LENGTHS = {n * n: n for n in SUPPORTED_SIZES if n <= 9}
_DOUBLE_LENGTHS = {2 * n * n: n for n in SUPPORTED_SIZES}
_EMPTY_CHARS = ".0"
_SEPARATORS = set(" \t\r\n,|+-_")


class FormatError(ValueError):
    """Bad board input, located as precisely as possible: 'file:line:column: what was wrong; what was expected'."""

    def __init__(self, message: str, path: str | os.PathLike[str] | None = None, line: int | None = None,
                 column: int | None = None) -> None:
        self.message = message
        self.path = str(path) if path is not None else None
        self.line = line
        self.column = column
        super().__init__(str(self))

    def __str__(self) -> str:
        loc = [self.path or "<input>"]
        if self.line is not None:
            loc.append(str(self.line))
            if self.column is not None:
                loc.append(str(self.column))
        return f"{':'.join(loc)}: {self.message}"


@dataclass(frozen=True)
class BoardRecord:
    """One board read from a file, where it started (1-based line), and any other columns of its row."""

    board: Board
    line: int
    fields: dict[str, str] = field(default_factory=dict)

    @property
    def solution(self) -> Board | None:
        for name in SOLUTION_COLUMNS:
            text = self.fields.get(name)
            if text:
                return decode_cells(text)
        return None


# ---- cell strings --------------------------------------------------------------------------------------------------
def _expected_lengths() -> str:
    single = ", ".join(f"{k} ({n}x{n})" for k, n in _SINGLE_LENGTHS.items())
    return f"{single} characters, or 2 digits per cell for any size up to 81x81"


def decode_cells(text: str, path: str | None = None, line: int | None = None, column: int = 1) -> Board:
    """Decode a cell string (one char per cell for n <= 9, or two decimal chars per cell) into a Board."""
    length = len(text)
    if length in _SINGLE_LENGTHS:
        n = _SINGLE_LENGTHS[length]
        values = []
        for i, ch in enumerate(text):
            if ch in _EMPTY_CHARS:
                values.append(0)
            elif "1" <= ch <= "9" and int(ch) <= n:
                values.append(int(ch))
            else:
                want = f"a digit 1-{n}, '.' or '0'"
                what = f"digit {ch} is out of range for a {n}x{n} board" if ch.isdigit() else f"unexpected character {ch!r}"
                raise FormatError(f"{what}: expected {want}", path, line, column + i)
        return Board(values, n)
    if length in _DOUBLE_LENGTHS:
        n = _DOUBLE_LENGTHS[length]
        values = []
        for i in range(0, length, 2):
            pair = text[i : i + 2]
            if pair == "..":
                values.append(0)
                continue
            if not pair.isdigit() or not pair.isascii():
                bad = next(j for j, ch in enumerate(pair) if not ("0" <= ch <= "9"))
                raise FormatError(f"unexpected character {pair[bad]!r}: expected 2 decimal digits per cell",
                                  path, line, column + i + bad)
            v = int(pair)
            if v > n:
                raise FormatError(f"cell value {v} is out of range for a {n}x{n} board: expected 00 (empty) .. {n:02d}",
                                  path, line, column + i)
            values.append(v)
        return Board(values, n)
    raise FormatError(f"{length} characters is not a board: expected {_expected_lengths()}", path, line, column)


def encode_cells(board: Board, empty: str = ".") -> str:
    """Inverse of decode_cells: one char per cell for n <= 9 (`empty` for blanks), else two decimal digits."""
    if board.n <= 9:
        return "".join(str(v) if v else empty for v in board.values)
    return "".join(f"{v:02d}" for v in board.values)


# ---- single board from free text -----------------------------------------------------------------------------------
def parse_board_text(text: str) -> Board:
    """One board from free text: a line string, rows separated by spaces/newlines, a grid CSV, a drawn grid.

    Comment lines (``#``) are skipped and separators (spaces, commas, box-drawing ``|+-``) ignored. A grid CSV with
    multi-digit values (n > 9) is read by its commas.
    """
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    if not lines:
        raise FormatError("no board found: expected a board string")
    if any("," in ln for ln in lines) and len(lines) > 1:
        return _grid_block(lines, None, 1)
    cells = "".join(ch for ln in lines for ch in ln if ch not in _SEPARATORS)
    return decode_cells(cells)


# ---- files ---------------------------------------------------------------------------------------------------------
def _read_lines(path: Path) -> list[str]:
    """All lines of a text file, refusing binary files and absurdly long lines before decoding everything."""
    try:
        f = open(path, "rb")
    except FileNotFoundError:
        raise FormatError("no such file", path) from None
    except IsADirectoryError:
        raise FormatError("is a directory, expected a board file", path) from None
    except PermissionError:
        raise FormatError("permission denied", path) from None
    lines: list[str] = []
    with f:
        number = 0
        while True:
            raw = f.readline(MAX_LINE_CHARS + 1)
            if not raw:
                break
            number += 1
            if len(raw) > MAX_LINE_CHARS:
                raise FormatError(f"line is longer than {MAX_LINE_CHARS:,} characters: expected one board per line "
                                  f"(at most 13,122 characters for 81x81)", path, number)
            if b"\x00" in raw:
                raise FormatError("binary data (NUL byte): expected a text file of boards", path, number)
            try:
                lines.append(raw.decode("utf-8").rstrip("\r\n"))
            except UnicodeDecodeError as e:
                raise FormatError(f"not UTF-8 text (byte {raw[e.start]:#04x}): expected a text file of boards",
                                  path, number, e.start + 1) from None
    if lines and lines[0].startswith("\ufeff"):
        lines[0] = lines[0][1:]
    return lines


def _content(lines: Sequence[str]) -> list[tuple[int, str]]:
    """(1-based number, text) of lines that are neither blank nor comments."""
    return [(i + 1, ln) for i, ln in enumerate(lines) if ln.strip() and not ln.lstrip().startswith("#")]


def detect_format(lines: Sequence[str]) -> str:
    """Guess the format from the first content line."""
    content = _content(lines)
    if not content:
        return "line"
    first = content[0][1].strip()
    header = [h.strip().lower() for h in first.split(",")]
    if "quizzes" in header:
        return "kaggle"
    if any(h in PUZZLE_COLUMNS for h in header) and "," in first or first.lower() in PUZZLE_COLUMNS:
        return "table"
    if "," in first and len(first.split(",")) in SUPPORTED_SIZES:
        return "grid"
    return "line"


def _line_board(text: str, path: str, number: int) -> Board:
    stripped = text.strip()
    offset = len(text) - len(text.lstrip()) + 1
    tokens = stripped.split()
    if len(tokens) > 1:
        joined = "".join(tokens)
        if len(joined) in _SINGLE_LENGTHS or len(joined) in _DOUBLE_LENGTHS:
            return decode_cells(joined, path, number, offset)  # rows separated by spaces
        boards = [t for t in tokens if len(t) in _SINGLE_LENGTHS or len(t) in _DOUBLE_LENGTHS]
        if len(boards) == 1:  # 'id puzzle rating' lines
            return decode_cells(boards[0], path, number, text.index(boards[0]) + 1)
    return decode_cells(stripped, path, number, offset)


def _grid_block(rows: list[str], path: str | None, first_line: int) -> Board:
    n = len(rows)
    if n not in SUPPORTED_SIZES:
        raise FormatError(f"a grid of {n} rows: expected {', '.join(map(str, SUPPORTED_SIZES))} rows of as many "
                          f"comma-separated values", path, first_line)
    values: list[int] = []
    for r, row in enumerate(rows):
        fields = row.split(",")
        if len(fields) != n:
            raise FormatError(f"row has {len(fields)} values: expected {n} comma-separated values", path, first_line + r)
        col = 1
        for f in fields:
            s = f.strip()
            if s in ("", ".", "0"):
                values.append(0)
            elif s.isdigit() and s.isascii() and 1 <= int(s) <= n:
                values.append(int(s))
            else:
                what = f"value {s} is out of range" if s.isdigit() else f"unexpected value {s!r}"
                raise FormatError(f"{what}: expected 1..{n}, 0, '.' or empty", path, first_line + r, col)
            col += len(f) + 1
    return Board(values, n)


def _iter_grid(lines: Sequence[str], path: str) -> Iterator[BoardRecord]:
    block: list[str] = []
    start = 0
    for i, ln in enumerate(list(lines) + [""]):
        s = ln.strip()
        if s.startswith("#"):
            continue
        if not s:
            if block:
                yield BoardRecord(_grid_block(block, path, start), start)
                block = []
            continue
        if not block:
            start = i + 1
        block.append(s)
        if len(block) == len(block[0].split(",")) and len(block) in SUPPORTED_SIZES:
            yield BoardRecord(_grid_block(block, path, start), start)
            block = []


def _iter_csv(lines: Sequence[str], path: str, kaggle: bool) -> Iterator[BoardRecord]:
    content = _content(lines)
    header_number, header_text = content[0]
    header = [h.strip().lower() for h in next(csv.reader([header_text]))]
    names = ("quizzes",) if kaggle else PUZZLE_COLUMNS
    column = next((header.index(h) for h in names if h in header), None)
    if column is None:
        raise FormatError(f"no puzzle column in header {header_text!r}: expected one of {', '.join(names)}",
                          path, header_number)
    for number, text in content[1:]:
        row = next(csv.reader([text]))
        if len(row) != len(header):
            raise FormatError(f"{len(row)} fields: expected {len(header)} as in the header ({header_text})",
                              path, number)
        cell_text = row[column].strip()
        col = sum(len(f) + 1 for f in row[:column]) + 1
        board = decode_cells(cell_text, path, number, col)
        fields = {h: v for i, (h, v) in enumerate(zip(header, row)) if i != column}
        for name in SOLUTION_COLUMNS:
            if fields.get(name):
                decode_cells(fields[name].strip(), path, number)  # validate now, not at first use
        yield BoardRecord(board, number, fields)


def iter_records(path: str | os.PathLike[str], fmt: str = "auto") -> Iterator[BoardRecord]:
    """Every board of a file with its line number and extra fields. The whole file is validated first, so a bad
    file raises FormatError before anything is yielded (no partial results downstream)."""
    return iter(read_records(path, fmt))


def read_records(path: str | os.PathLike[str], fmt: str = "auto") -> list[BoardRecord]:
    """All records of a file; raises FormatError on the first problem (empty file, mixed sizes, bad cell...)."""
    p = Path(path)
    lines = _read_lines(p)
    name = str(path)
    if not _content(lines):
        raise FormatError("empty file: no board found (expected one board per line, a grid CSV or a CSV with a "
                          "puzzle column)", name)
    kind = detect_format(lines) if fmt == "auto" else fmt
    if kind not in FORMATS:
        raise FormatError(f"unknown format {fmt!r}: expected auto or one of {', '.join(FORMATS)}", name)
    if kind == "line":
        records: Iterable[BoardRecord] = (BoardRecord(_line_board(t, name, i), i) for i, t in _content(lines))
    elif kind == "grid":
        records = _iter_grid(lines, name)
    else:
        records = _iter_csv(lines, name, kaggle=kind == "kaggle")
    out: list[BoardRecord] = []
    try:
        for rec in records:
            if out and rec.board.n != out[0].board.n:
                n0, n1 = out[0].board.n, rec.board.n
                raise FormatError(f"a {n1}x{n1} board in a file of {n0}x{n0} boards (line {out[0].line}): "
                                  f"expected every board of a file to have the same size", name, rec.line)
            out.append(rec)
    except BoardError as e:
        raise FormatError(str(e), name) from None
    if not out:
        raise FormatError("no board found", name)
    return out


def read_boards(path: str | os.PathLike[str], fmt: str = "auto") -> list[Board]:
    """All boards of a file (any format, auto-detected by default)."""
    return [r.board for r in read_records(path, fmt)]


# ---- writers -------------------------------------------------------------------------------------------------------
def format_board(board: Board, fmt: str = "line") -> str:
    """One board as text in a format (without header lines)."""
    if fmt == "line":
        return encode_cells(board)
    if fmt == "grid":
        return "\n".join(",".join(str(v) for v in row) for row in board.rows())
    if fmt == "kaggle":
        return encode_cells(board, empty="0")
    if fmt == "table":
        return "".join(f"{v:02d}" for v in board.values)
    raise ValueError(f"unknown format {fmt!r}: expected one of {', '.join(FORMATS)}")


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    """Write a file so that readers see the old content or the complete new one, never a partial file."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        os.replace(tmp, p)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def boards_to_text(boards: Sequence[Board], fmt: str = "line", solutions: Sequence[Board | None] | None = None) -> str:
    """A whole file's text in a format; `kaggle` needs solutions (solved here when not given)."""
    if fmt == "line":
        return "".join(format_board(b, "line") + "\n" for b in boards)
    if fmt == "grid":
        return "\n".join(format_board(b, "grid") + "\n" for b in boards)
    buf = _io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    if fmt == "kaggle":
        if any(b.n != 9 for b in boards):
            raise ValueError("the Kaggle format holds 9x9 boards only")
        if solutions is None:
            from ltn_sudoku.exact import solve

            solutions = [solve(b) for b in boards]
        w.writerow(["quizzes", "solutions"])
        for b, s in zip(boards, solutions):
            w.writerow([format_board(b, "kaggle"), format_board(s, "kaggle") if s is not None else ""])
    elif fmt == "table":
        w.writerow(["puzzle"])
        for b in boards:
            w.writerow([format_board(b, "table")])
    else:
        raise ValueError(f"unknown format {fmt!r}: expected one of {', '.join(FORMATS)}")
    return buf.getvalue()


def write_boards(path: str | os.PathLike[str], boards: Sequence[Board], fmt: str = "line",
                 solutions: Sequence[Board | None] | None = None) -> None:
    """Write boards to a file atomically in one format."""
    atomic_write_text(path, boards_to_text(boards, fmt, solutions))
