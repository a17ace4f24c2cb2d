"""Board files: readers and writers for every format, the Kaggle reader and the fixed data split.

Formats (docs/design.md, "Board model and formats"; docs/formats.md has examples):
- ``line``: one board per line, one character per cell (n <= 9) or two decimal characters per cell (any n);
  ``.`` or ``0`` empty; ``#`` comments and blank lines skipped (``.txt`` / ``.sdm``). A line may also hold the rows
  separated by spaces (``1.34 34.2 2143 432.``) or extra tokens around one board (``id puzzle rating``: the id and
  the rating are kept as the record's fields ``id`` and ``rating``).
- ``grid``: n lines of n comma-separated values per board, ``0`` / ``00`` / ``.`` / empty = empty cell; boards follow
  each other, optionally separated by blank lines. Values may be separated by spaces instead (``1 . 3 4``).
- ``kaggle``: CSV with header ``quizzes,solutions`` (81-character strings, ``0`` empty).
- ``table``: CSV whose header names a ``puzzle`` column (the generalized dataset: 2 decimal characters per cell; the
  generators' labelled files: any encoding above) — other columns are kept as record fields.

Modules: ``records`` (the leaf: BoardRecord, cell strings, FormatError), ``readers``, ``writers``, ``kaggle`` (the
real Kaggle CSVs, every row verified) and ``split`` (train / val / test, a function of the puzzle alone). The names
below are the readers' and writers' public API; ``kaggle`` and ``split`` are imported by their module path.
"""

from __future__ import annotations

from ltn_sudoku.io.readers import (
    MAX_LINE_CHARS,
    PUZZLE_COLUMNS,
    STDIN_NAME,
    detect_format,
    iter_lines,
    iter_records,
    iter_stream_records,
    parse_board_text,
    read_boards,
    read_records,
    read_stream_records,
    records_from_lines,
    stream_records,
    text_symbols,
)
from ltn_sudoku.io.records import (
    FORMATS,
    SOLUTION_COLUMNS,
    BoardRecord,
    FormatError,
    cell_symbols,
    check_cells,
    decode_cells,
    encode_cells,
    is_board_length,
)
from ltn_sudoku.io.writers import (
    AtomicFile,
    atomic_copy,
    atomic_write,
    atomic_write_bytes,
    atomic_write_text,
    boards_to_text,
    format_board,
    write_boards,
)

__all__ = [
    "FORMATS", "MAX_LINE_CHARS", "PUZZLE_COLUMNS", "SOLUTION_COLUMNS", "STDIN_NAME", "AtomicFile", "BoardRecord",
    "FormatError", "atomic_copy", "atomic_write", "atomic_write_bytes", "atomic_write_text", "boards_to_text",
    "cell_symbols", "check_cells", "decode_cells", "detect_format", "encode_cells", "format_board", "is_board_length",
    "iter_lines", "iter_records", "iter_stream_records", "parse_board_text", "read_boards", "read_records", "read_stream_records",
    "records_from_lines", "stream_records", "text_symbols", "write_boards",
]
