"""Readers for every board format (see ltn_sudoku.io), with auto-detection and errors that point at file:line:column.

Files are read line by line as they are needed (constant memory), gzip-compressed ones transparently; lines may end
in LF, CRLF or a lone CR. Every reader raises FormatError; the list readers return nothing for a bad file, the
streaming ones (iter_records) raise when they reach the bad line. A real Kaggle CSV goes to ltn_sudoku.io.kaggle.
"""

from __future__ import annotations

import csv
import gzip
import io as _io
import itertools
import os
import re
import zlib
from pathlib import Path
from typing import BinaryIO, Iterable, Iterator, Sequence

from ltn_sudoku.board import DECIMAL, SUPPORTED_SIZES, Board, line_board
from ltn_sudoku.io.kaggle import is_kaggle_layout, kaggle_records
from ltn_sudoku.io.records import (
    FORMATS,
    SOLUTION_COLUMNS,
    BoardRecord,
    FormatError,
    cell_symbols,
    check_cells,
    decode_cells,
    decode_symbols,
    is_board_length,
)

MAX_LINE_CHARS = 100_000  # the longest valid line (81x81 at 2 chars per cell) is 13,122 characters
PUZZLE_COLUMNS = ("puzzle", "quizzes", "quiz", "board")
STDIN_NAME = "<stdin>"
_SEPARATORS = set(" \t\r\n,|+-_")
_SIZES_TEXT = ", ".join(map(str, SUPPORTED_SIZES))


def _decode_scattered(chars: Sequence[tuple[str, int, int]], path: str | None) -> Board:
    """Decode cells gathered from several places of a text; an error points at the offending (line, column)."""
    try:
        return decode_cells("".join(ch for ch, _, _ in chars), path)
    except FormatError as e:
        if e.column is None or not chars:
            raise
        _, line, column = chars[min(e.column, len(chars)) - 1]
        raise FormatError(e.message, path, line, column) from None


# ---- single board from free text -----------------------------------------------------------------------------------
def parse_board_text(text: str, name: str = "<board>") -> Board:
    """One board from free text: a line string, rows separated by spaces/newlines, a grid CSV, a drawn grid.

    Comment lines (``#``) are skipped and separators (spaces, commas, box-drawing ``|+-``) ignored. A grid CSV with
    multi-digit values (n > 9) is read by its commas. Errors name `name` and the line and column in `text`.
    """
    board = line_board(text)  # the usual case; anything else is read (or its error located) below
    if board is not None:
        return board
    numbered = list(_content(text.splitlines()))
    if not numbered:
        raise FormatError("no board found: expected a board string such as '1.34 34.2 2143 432.'", name)
    first = numbered[0][1].strip()
    spaced = _is_spaced_grid_row(first) and len(first.split()) == len(numbered)  # '1 . 13 4' rows, values > 9 too
    if len(numbered) > 1 and (spaced or any("," in ln for _, ln in numbered)):
        return _grid_block([ln.strip() for _, ln in numbered], name, numbered[0][0])[0]
    chars = [(ch, number, col + 1) for number, ln in numbered for col, ch in enumerate(ln) if ch not in _SEPARATORS]
    return _decode_scattered(chars, name)


def text_symbols(text: str) -> str:
    """The convention (board.SYMBOLS) a board given as free text (parse_board_text) is written in."""
    return cell_symbols("".join(ch for ln in text.splitlines() if not ln.lstrip().startswith("#")
                                for ch in ln if ch not in _SEPARATORS))


# ---- reading raw lines ---------------------------------------------------------------------------------------------
_NEWLINE = re.compile(rb"\r\n|\r|\n")
_READ_BYTES = 1 << 16
_GZIP_MAGIC = b"\x1f\x8b"
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


def _read_error(name: str, e: BaseException, read: int = 0) -> FormatError:
    """A damaged compressed file or an unreadable stream, as the user's error: where it stopped is the line after
    the `read` lines read whole (a damaged gzip stream has no line of its own)."""
    what = "not a valid gzip file" if isinstance(e, (gzip.BadGzipFile, EOFError, zlib.error)) else "cannot read"
    after = f", after line {read} (the last one read)" if read else ""
    return FormatError(f"{what} ({e}){after}: expected a board file, plain or gzip-compressed", name)


def _raw_lines(stream: BinaryIO, name: str) -> Iterator[bytes]:
    """The lines of a byte stream, read in chunks, split at LF, CRLF or a lone CR (old Mac files); a line longer than
    MAX_LINE_CHARS is refused as soon as it is seen, without reading the rest of it."""
    rest = b""
    number = 0
    while True:
        try:
            chunk = stream.read(_READ_BYTES)
        except (OSError, EOFError, zlib.error) as e:
            raise _read_error(name, e, number) from None
        if not chunk:
            break
        data = rest + chunk
        cut = len(data) - 1 if data.endswith(b"\r") else len(data)  # a CRLF may straddle two chunks
        parts = _NEWLINE.split(data[:cut])
        rest = parts.pop() + data[cut:]
        for part in parts:
            number += 1
            if len(part) > MAX_LINE_CHARS:
                break
            yield part
        else:
            if len(rest) <= MAX_LINE_CHARS:
                continue
            number += 1
        raise FormatError(f"line is longer than {MAX_LINE_CHARS:,} characters: expected one board per line "
                          f"(at most 13,122 characters for 81x81)", name, number)
    parts = _NEWLINE.split(rest) if rest else []
    if parts and parts[-1] == b"":
        parts.pop()
    yield from parts


def _decode_lines(stream: BinaryIO, name: str) -> Iterator[str]:
    """The text lines of a byte stream (gzip-compressed or not), refusing binary data and UTF-16 by name."""
    buffered = stream if hasattr(stream, "peek") else _io.BufferedReader(stream)  # type: ignore[type-var]  # any raw binary stream
    if buffered.peek(2)[:2] == _GZIP_MAGIC:
        buffered = gzip.GzipFile(fileobj=buffered, mode="rb")  # type: ignore[assignment]
    for number, raw in enumerate(_raw_lines(buffered, name), 1):
        if number == 1 and raw.startswith(_UTF16_BOMS):
            raise FormatError("UTF-16 text (byte order mark): expected UTF-8; convert it first, e.g. "
                              "iconv -f UTF-16 -t UTF-8", name, 1)
        if b"\x00" in raw:
            if raw[1::2].count(0) == len(raw) // 2 or raw[0::2].count(0) == (len(raw) + 1) // 2:
                raise FormatError("UTF-16 text (every other byte is NUL): expected UTF-8; convert it first, e.g. "
                                  "iconv -f UTF-16 -t UTF-8", name, number)
            raise FormatError("binary data (NUL byte): expected a text file of boards", name, number,
                              raw.index(b"\x00") + 1)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise FormatError(f"not UTF-8 text (byte {raw[e.start]:#04x}): expected a text file of boards",
                              name, number, e.start + 1) from None
        yield text[1:] if number == 1 and text.startswith("\ufeff") else text


def _open_error(path: Path, e: OSError) -> FormatError:
    if isinstance(e, FileNotFoundError):
        return FormatError("no such file: expected a board file", path)
    if isinstance(e, IsADirectoryError):
        return FormatError("is a directory: expected a board file", path)
    if isinstance(e, PermissionError):
        return FormatError("permission denied: expected a readable board file", path)
    return FormatError(f"cannot read ({e.strerror or e}): expected a board file", path)


def iter_lines(path: str | os.PathLike[str]) -> Iterator[str]:
    """The text lines of a file, read as they are needed (gzip-compressed files transparently); every OS problem
    becomes a FormatError naming the file."""
    p = Path(path)
    try:
        f = open(p, "rb")
    except OSError as e:
        raise _open_error(p, e) from None
    with f:
        try:
            yield from _decode_lines(f, str(p))
        except IsADirectoryError as e:
            raise _open_error(p, e) from None


def _content(lines: Iterable[str]) -> Iterator[tuple[int, str]]:
    """(1-based number, text) of lines that are neither blank nor comments."""
    return ((i, ln) for i, ln in enumerate(lines, 1) if (text := ln.lstrip()) and text[0] != "#")


# ---- format detection ----------------------------------------------------------------------------------------------
def _is_cell_token(token: str) -> bool:
    """'.', a number of one or two digits, or one letter (a grid above 9x9 written with letters)."""
    return token == "." or (token.isascii() and (token.isdigit() and len(token) <= 2
                                                 or token.isalpha() and len(token) == 1))


def _is_spaced_grid_row(text: str) -> bool:
    """'1 . 3 4': one row of a grid whose values are separated by spaces. Every cell spaced out on one line
    ('1 . 3 4 3 4 . 2 ...') is a whole 4x4 or 9x9 board instead, unless it holds letters (a 16x16 row)."""
    tokens = text.split()
    return (len(tokens) in SUPPORTED_SIZES and all(map(_is_cell_token, tokens))
            and not (all(len(t) == 1 and not t.isalpha() for t in tokens) and is_board_length(len(tokens))))


def detect_format(lines: Iterable[str]) -> str:
    """Guess the format from the first content line: a CSV header, comma- or space-separated values, or a board
    string (possibly between an id and a rating)."""
    first_line = next(_content(lines), None)
    if first_line is None:
        return "line"
    first = first_line[1].strip()
    if "," not in first:
        if first.lower() in PUZZLE_COLUMNS:
            return "table"  # a one-column CSV
        return "grid" if _is_spaced_grid_row(first) else "line"
    header = [h.strip().lower() for h in first.split(",")]
    if len(header) in SUPPORTED_SIZES and all(len(h) <= 1 for h in header):
        return "grid"  # one symbol per value: a grid row, even one of letters only (A-P)
    if "quizzes" in header:
        return "kaggle"
    if any(h in PUZZLE_COLUMNS for h in header) or all(h[:1].isalpha() for h in header):
        return "table"  # a header: it names a puzzle column, or at least looks like names, never like cell values
    return "grid"


# ---- line format ---------------------------------------------------------------------------------------------------
def _line_record(text: str, path: str, number: int) -> BoardRecord:
    """One board of a line file: the whole line, its one board-sized token between an id and a rating
    ('id puzzle rating': the id and the rating are kept as fields), or rows split by spaces."""
    tokens = text.split()
    if len(tokens) == 1:
        return BoardRecord(decode_cells(tokens[0], path, number, text.index(tokens[0]) + 1), number,
                           symbols=cell_symbols(tokens[0]))
    boards = [i for i, t in enumerate(tokens) if is_board_length(len(t))]
    if len(boards) == 1:
        i = boards[0]
        fields = {name: " ".join(part) for name, part in (("id", tokens[:i]), ("rating", tokens[i + 1:])) if part}
        return BoardRecord(decode_cells(tokens[i], path, number, text.index(tokens[i]) + 1), number, fields,
                           cell_symbols(tokens[i]))
    chars = [(ch, number, col + 1) for col, ch in enumerate(text) if not ch.isspace()]
    return BoardRecord(_decode_scattered(chars, path), number, symbols=cell_symbols("".join(c for c, _, _ in chars)))


def _iter_line(content: Iterable[tuple[int, str]], path: str) -> Iterator[BoardRecord]:
    for number, text in content:
        yield _line_record(text, path, number)


# ---- grid CSV ------------------------------------------------------------------------------------------------------
def _row_fields(row: str) -> list[tuple[str, int]]:
    """(value, 1-based column) of one grid row: comma-separated, or separated by spaces ('1 . 3 4')."""
    if "," in row:
        fields, col = [], 1
        for f in row.split(","):
            fields.append((f, col))
            col += len(f) + 1
        return fields
    return [(m.group(), m.start() + 1) for m in re.finditer(r"\S+", row)]


def _grid_value(text: str, n: int, path: str | None, line: int, column: int) -> int:
    s = text.strip()
    if s in ("", "."):
        return 0
    if s.isdigit() and s.isascii() and int(s) <= n:
        return int(s)
    what = f"value {s} is out of range" if s.isdigit() and s.isascii() else f"unexpected value {s!r}"
    raise FormatError(f"{what}: expected 1..{n}, 0, '.' or empty", path, line, column)


def _grid_side(row: str, path: str | None, line: int) -> int:
    """The board side a grid's first row announces by its number of values."""
    count = len(_row_fields(row))
    if count not in SUPPORTED_SIZES:
        raise FormatError(f"row has {count} comma-separated values: expected a row of an n x n grid, n one of "
                          f"{_SIZES_TEXT}", path, line)
    return count


def _grid_block(rows: Sequence[str], path: str | None, first_line: int) -> tuple[Board, str]:
    """One grid from exactly its rows (consecutive lines starting at first_line), and the convention of its values
    (board.SYMBOLS: a grid above 9x9 may hold one symbol per cell, 1-9 then A-G or A-P)."""
    n = _grid_side(rows[0], path, first_line)
    if len(rows) != n:
        raise FormatError(f"grid has {len(rows)} rows: expected {n} rows of {n} comma-separated values",
                          path, first_line + min(len(rows), n))
    rows_fields = []
    for r, row in enumerate(rows):
        fields = _row_fields(row)
        if len(fields) != n:
            raise FormatError(f"row has {len(fields)} values: expected {n} comma-separated values",
                              path, first_line + r)
        rows_fields.append(fields)
    if n > 9 and any(f.strip().isalpha() for fields in rows_fields for f, _ in fields):
        return _symbol_grid(rows_fields, n, path, first_line)
    values = [_grid_value(f, n, path, first_line + r, col)
              for r, fields in enumerate(rows_fields) for f, col in fields]
    return Board(values, n), DECIMAL


def _symbol_grid(rows_fields: Sequence[Sequence[tuple[str, int]]], n: int, path: str | None,
                 first_line: int) -> tuple[Board, str]:
    """A grid whose values are one symbol each (letters present): decoded as one cell string, errors located."""
    chars = []
    for r, fields in enumerate(rows_fields):
        for f, col in fields:
            value = f.strip() or "."
            if len(value) != 1:
                raise FormatError(f"value {value!r} in a grid written with letters: expected one symbol per cell "
                                  "(1-9 then A-G, or A-P), '.' or empty", path, first_line + r, col)
            chars.append((value, first_line + r, col))
    text = "".join(ch for ch, _, _ in chars)
    symbols = cell_symbols(text)
    if symbols == DECIMAL:
        raise FormatError(f"a {n}x{n} grid written with letters: letters are read for 16x16 and 25x25 boards; "
                          f"expected numbers 1..{n}", path, first_line)
    try:
        return decode_symbols(text, n, symbols, path), symbols
    except FormatError as e:
        _, line, column = chars[(e.column or 1) - 1]
        raise FormatError(e.message, path, line, column) from None


def _iter_grid(content: Iterable[tuple[int, str]], path: str) -> Iterator[BoardRecord]:
    """Grids one after the other: the first row of each sets its side n, the next n - 1 content rows complete it."""
    block: list[str] = []
    start = side = 0
    for number, text in content:
        if not block:
            start, side = number, _grid_side(text.strip(), path, number)
        elif number != start + len(block):
            raise FormatError(f"grid starting at line {start} ends after {len(block)} rows: expected {side} rows",
                              path, start + len(block))
        block.append(text.strip())
        if len(block) == side:
            board, symbols = _grid_block(block, path, start)
            yield BoardRecord(board, start, symbols=symbols)
            block = []
    if block:
        raise FormatError(f"grid starting at line {start} ends after {len(block)} rows (end of file): "
                          f"expected {side} rows", path, start + len(block))


# ---- CSV with a header (kaggle, table) -----------------------------------------------------------------------------
def _iter_csv(content: Iterator[tuple[int, str]], path: str, kaggle: bool) -> Iterator[BoardRecord]:
    header_number, header_text = next(content)
    header = [h.strip().lower() for h in next(csv.reader([header_text]))]
    names = ("quizzes",) if kaggle else PUZZLE_COLUMNS
    column = next((header.index(h) for h in names if h in header), None)
    if column is None:
        raise FormatError(f"no puzzle column in header {header_text!r}: expected one of {', '.join(names)}",
                          path, header_number)
    for number, text in content:
        row = text.split(",") if '"' not in text else next(csv.reader([text]))  # the csv module only when quoted
        if len(row) != len(header):
            raise FormatError(f"{len(row)} fields: expected {len(header)} as in the header ({header_text})",
                              path, number)
        col = sum(len(f) + 1 for f in row[:column]) + 1
        board = decode_cells(row[column].strip(), path, number, col)
        fields = {h: v for i, (h, v) in enumerate(zip(header, row, strict=True)) if i != column}
        for name in SOLUTION_COLUMNS:
            if fields.get(name):
                sol_col = sum(len(f) + 1 for f in row[: header.index(name)]) + 1
                check_cells(fields[name].strip(), path, number, sol_col)  # validate now, not at first use
        yield BoardRecord(board, number, fields, cell_symbols(row[column].strip()))


# ---- whole files ---------------------------------------------------------------------------------------------------
def stream_records(lines: Iterable[str], name: str, fmt: str = "auto") -> Iterator[BoardRecord]:
    """The records of a file's lines, one at a time, as the lines are read: constant memory for any file size.
    Raises FormatError at the first problem (empty, mixed sizes, bad cell...), after the records before it."""
    if fmt != "auto" and fmt not in FORMATS:
        raise FormatError(f"unknown format {fmt!r}: expected auto or one of {', '.join(FORMATS)}", name)
    content = _content(lines)
    first = next(content, None)
    if first is None:
        raise FormatError("empty file: no board found (expected one board per line, a grid CSV or a CSV with a "
                          "puzzle column)", name)
    kind = detect_format([first[1]]) if fmt == "auto" else fmt
    content = itertools.chain([first], content)
    if kind == "line":
        records = _iter_line(content, name)
    elif kind == "grid":
        records = _iter_grid(content, name)
    else:
        records = _iter_csv(content, name, kaggle=kind == "kaggle")
    head: BoardRecord | None = None
    for rec in records:
        if head is None:
            head = rec
        elif rec.board.n != head.board.n:
            n0, n1 = head.board.n, rec.board.n
            raise FormatError(f"a {n1}x{n1} board in a file of {n0}x{n0} boards (line {head.line}): "
                              f"expected every board of a file to have the same size", name, rec.line)
        yield rec
    if head is None:
        raise FormatError("no board found: expected rows below the header", name)


def records_from_lines(lines: Iterable[str], name: str, fmt: str = "auto") -> list[BoardRecord]:
    """All records of a file's lines; raises FormatError on the first problem (empty, mixed sizes, bad cell...)."""
    return list(stream_records(lines, name, fmt))


def iter_records(path: str | os.PathLike[str], fmt: str = "auto") -> Iterator[BoardRecord]:
    """Every board of a file (plain or gzip-compressed) with its line number and extra fields, read as needed; a bad
    line raises FormatError when reached, after the records before it. A real Kaggle CSV (ltn_sudoku.io.kaggle.
    is_kaggle_layout) is read by ltn_sudoku.io.kaggle, every row verified (solution valid and completing the quiz)."""

    def records() -> Iterator[BoardRecord]:
        lines = iter_lines(path)
        head = list(itertools.islice(lines, 2))
        if fmt in ("auto", "kaggle") and is_kaggle_layout(head):
            lines.close()  # type: ignore[attr-defined]  # a generator
            yield from kaggle_records(path)
        else:
            yield from stream_records(itertools.chain(head, lines), str(path), fmt)

    return records()


def iter_stream_records(stream: BinaryIO, name: str = STDIN_NAME, fmt: str = "auto") -> Iterator[BoardRecord]:
    """Every board of a byte stream (standard input), read as needed, with the same checks as a file."""
    return stream_records(_decode_lines(stream, name), name, fmt)


def read_records(path: str | os.PathLike[str], fmt: str = "auto") -> list[BoardRecord]:
    """All records of a file (any format, auto-detected by default); raises FormatError on the first problem."""
    return list(iter_records(path, fmt))


def read_stream_records(stream: BinaryIO, name: str = STDIN_NAME, fmt: str = "auto") -> list[BoardRecord]:
    """All records of a byte stream (standard input), with the same checks as a file."""
    return list(iter_stream_records(stream, name, fmt))


def read_boards(path: str | os.PathLike[str], fmt: str = "auto") -> list[Board]:
    """All boards of a file (any format, auto-detected by default)."""
    return [r.board for r in iter_records(path, fmt)]
