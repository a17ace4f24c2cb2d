"""Writers for every board format (ltn_sudoku.io.records.FORMATS), atomic: a reader sees the old file or the new one."""

from __future__ import annotations

import csv
import io as _io
import os
import tempfile
from pathlib import Path
from typing import Sequence

from ltn_sudoku.board import Board
from ltn_sudoku.exact import solve
from ltn_sudoku.io.records import FORMATS, encode_cells


def format_board(board: Board, fmt: str = "line") -> str:
    """One board as text in a format (without header lines)."""
    if fmt == "line":
        return encode_cells(board)
    if fmt == "grid":
        width = 2 if board.n > 9 else 1  # aligned columns for two-digit values
        return "\n".join(",".join(f"{v:0{width}d}" for v in row) for row in board.rows())
    if fmt == "kaggle":
        return encode_cells(board, empty="0")
    if fmt == "table":
        return "".join(f"{v:02d}" for v in board.values)
    raise ValueError(f"unknown format {fmt!r}: expected one of {', '.join(FORMATS)}")


def _umask() -> int:
    """The process umask (reading it means setting it, so set it straight back)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    """Write a file so that readers see the old content or the complete new one, never a partial file."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp creates 0600; a written file should get the usual mode
        os.replace(tmp, p)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def boards_to_text(boards: Sequence[Board], fmt: str = "line", solutions: Sequence[Board | None] | None = None) -> str:
    """A whole file's text in a format. `kaggle` needs solutions (solved here when not given); `table` writes a
    `solution` column when solutions are given."""
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
            solutions = [solve(b) for b in boards]
        w.writerow(["quizzes", "solutions"])
        for b, s in zip(boards, solutions, strict=True):
            w.writerow([format_board(b, "kaggle"), format_board(s, "kaggle") if s is not None else ""])
    elif fmt == "table":
        if solutions is None:
            w.writerow(["puzzle"])
            w.writerows([format_board(b, "table")] for b in boards)
        else:
            w.writerow(["puzzle", "solution"])
            for b, s in zip(boards, solutions, strict=True):
                w.writerow([format_board(b, "table"), format_board(s, "table") if s is not None else ""])
    else:
        raise ValueError(f"unknown format {fmt!r}: expected one of {', '.join(FORMATS)}")
    return buf.getvalue()


def write_boards(path: str | os.PathLike[str], boards: Sequence[Board], fmt: str = "line",
                 solutions: Sequence[Board | None] | None = None) -> None:
    """Write boards to a file atomically in one format."""
    atomic_write_text(path, boards_to_text(boards, fmt, solutions))
