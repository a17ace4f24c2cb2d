"""Writers for every board format (ltn_sudoku.io.records.FORMATS), and the one atomic file writer of the package.

Every file ltn_sudoku writes (board files, results, checkpoints, metrics, parts) goes through `AtomicFile` (or its
shorthands `atomic_write`, `atomic_write_text`, `atomic_write_bytes`, `atomic_copy`): the content goes to a temporary
file beside the target, `.<name>.<pid>.<host>.<token>.tmp`, which is flushed and fsynced, renamed over the target, and
the folder fsynced, so a reader (or a machine that lost power) sees the old file or the complete new one. The file
gets the umask's mode (0666 & ~umask, as `open` gives), not mkstemp's 0600. The temporary file is removed on any
exception; SIGTERM is turned into an exception (SystemExit, status 143) while a write is under way where nothing else
handles it, so a stopped command leaves no temporary file either; and a SIGKILLed writer's leftover (its pid no
longer alive on this host) is removed by the next write to the same target.
"""

from __future__ import annotations

import csv
import io as _io
import os
import re
import secrets
import shutil
import signal
import socket
import threading
from contextlib import contextmanager, suppress
from pathlib import Path
from types import FrameType, TracebackType
from typing import IO, Any, Iterator, Sequence

from ltn_sudoku.board import DECIMAL, Board, writes_symbols
from ltn_sudoku.exact import solve
from ltn_sudoku.io.locks import alive
from ltn_sudoku.io.records import FORMATS, encode_cells

TEMP_SUFFIX = ".tmp"
TERMINATED_STATUS = 128 + signal.SIGTERM  # a shell's status of a process ended by SIGTERM


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")  # what a spreadsheet runs as a formula at the start of a field


def spreadsheet_safe(value: object) -> object:
    """A CSV field as written: text a spreadsheet would run as a formula (starting with = + - @, a tab or a carriage
    return: `=HYPERLINK(...)` in a board file's id column) gets a leading apostrophe, which spreadsheets show as text
    (OWASP's advice against CSV injection); numbers, and text that is a number ('-0.5'), stay as they are."""
    if not isinstance(value, str) or not value.startswith(FORMULA_STARTS):
        return value
    try:
        float(value)
    except ValueError:
        return "'" + value
    return value


def format_board(board: Board, fmt: str = "line", symbols: str = DECIMAL) -> str:
    """One board as text in a format (without header lines); boards above 9x9 in a convention of board.SYMBOLS
    (two decimal digits per cell, or one symbol: 1-9 then A-G, or letters A-P)."""
    if fmt == "line":
        return encode_cells(board, symbols=symbols)
    if fmt == "grid":
        if writes_symbols(board.n, symbols):
            line = board.to_line(symbols)
            return "\n".join(",".join(line[r * board.n:(r + 1) * board.n]) for r in range(board.n))
        width = 2 if board.n > 9 else 1  # aligned columns for two-digit values
        return "\n".join(",".join(f"{v:0{width}d}" for v in row) for row in board.rows())
    if fmt == "kaggle":
        return encode_cells(board, empty="0")
    if fmt == "table":
        return board.to_line(symbols) if writes_symbols(board.n, symbols) else "".join(f"{v:02d}" for v in board.values)
    raise ValueError(f"unknown format {fmt!r}: expected one of {', '.join(FORMATS)}")


# ---- the one atomic writer -----------------------------------------------------------------------------------------
def _host_label() -> str:
    """This machine's name as one file-name field (a temporary file's pid means something on its own host only)."""
    return re.sub(r"[^A-Za-z0-9-]", "-", socket.gethostname())[:32] or "host"


_HOST = _host_label()
_LOCK = threading.Lock()
_OPEN: set[str] = set()  # names of this process's temporary files now being written (its other ones are leftovers)
_SIGTERM = {"depth": 0, "installed": False}  # writes under way on the main thread; whether our handler is in place


def temp_path(target: str | os.PathLike[str]) -> Path:
    """A new temporary name beside `target`: `.<name>.<pid>.<host>.<token>.tmp`."""
    t = Path(target)
    return t.with_name(f".{t.name}.{os.getpid()}.{_HOST}.{secrets.token_hex(4)}{TEMP_SUFFIX}")


def stale_temp_files(target: str | os.PathLike[str]) -> list[Path]:
    """The temporary files of `target` left by writers that are gone: made on this host by a process no longer
    alive, or by this process but not being written now. A live writer's file (another process's, or another
    host's, whose pid cannot be checked here) is never listed."""
    t = Path(target)
    if os.name != "posix":  # os.kill(pid, 0) is no liveness test elsewhere
        return []
    pattern = re.compile(rf"\.{re.escape(t.name)}\.(\d+)\.{re.escape(_HOST)}\.[0-9a-f]{{8}}{re.escape(TEMP_SUFFIX)}")
    prefix, me = f".{t.name}.", os.getpid()
    found = []
    try:
        with os.scandir(t.parent) as entries:
            for entry in entries:
                if not entry.name.startswith(prefix) or (match := pattern.fullmatch(entry.name)) is None:
                    continue
                pid = int(match.group(1))
                if pid == me:
                    with _LOCK:
                        gone = entry.name not in _OPEN
                else:
                    gone = not alive(pid)
                if gone:
                    found.append(Path(entry.path))
    except OSError:  # a folder that cannot be listed: nothing to clean, the write itself reports the problem
        return []
    return found


def remove_stale_temp_files(target: str | os.PathLike[str]) -> list[Path]:
    """Remove `stale_temp_files(target)`; returns those removed."""
    removed = []
    for path in stale_temp_files(target):
        with suppress(OSError):
            path.unlink()
            removed.append(path)
    return removed


def _terminate(signum: int, frame: FrameType | None) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a second SIGTERM ends the process at once
    raise SystemExit(TERMINATED_STATUS)  # unwinds through the writers' cleanup; the process ends with status 143


def _hold_sigterm() -> bool:
    """While a write is under way on the main thread, SIGTERM raises SystemExit(143) instead of killing the process
    outright (only where SIGTERM has its default action: a command's own handler is left alone)."""
    if threading.current_thread() is not threading.main_thread():
        return False
    if _SIGTERM["depth"] == 0:
        _SIGTERM["installed"] = signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
        if _SIGTERM["installed"]:
            signal.signal(signal.SIGTERM, _terminate)
    _SIGTERM["depth"] += 1
    return True


def _release_sigterm() -> None:
    _SIGTERM["depth"] -= 1
    if _SIGTERM["depth"] == 0 and _SIGTERM["installed"]:
        _SIGTERM["installed"] = False
        if signal.getsignal(signal.SIGTERM) is _terminate:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)


@contextmanager
def sigterm_as_exit() -> Iterator[bool]:
    """While the block runs, SIGTERM (a cluster's time limit, `kill`) raises SystemExit(143) on the main thread where
    nothing else handles it, so that `finally` blocks run (a training releases its run folder's lock); yields
    whether it is in force (False off the main thread)."""
    held = _hold_sigterm()
    try:
        yield held
    finally:
        if held:
            _release_sigterm()


def _fsync_folder(folder: Path) -> None:
    """Make a rename in `folder` durable (POSIX: fsync the directory; a file system that cannot is left as is)."""
    if os.name != "posix":
        return
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:  # EINVAL on file systems without directory fsync
        pass
    finally:
        os.close(fd)


class AtomicFile:
    """A file written under a temporary name beside its target and renamed into place by `commit()`.

        with AtomicFile(path, "wb") as out:
            out.file.write(data)        # or torch.save(payload, out.file), out.write(...)
            out.commit()                # flush, fsync, rename over `path`, fsync the folder

    Leaving the block without commit (an exception, SIGTERM, or on purpose) removes the temporary file and leaves the
    target as it was. `fsync=False` skips both fsyncs (atomic for readers, not across a power loss)."""

    def __init__(self, path: str | os.PathLike[str], mode: str = "w", *, encoding: str = "utf-8",
                 newline: str | None = "", fsync: bool = True) -> None:
        if mode not in ("w", "wb"):
            raise ValueError(f"mode {mode!r}: expected 'w' or 'wb'")
        self.path, self.mode, self.encoding, self.newline, self.fsync = Path(path), mode, encoding, newline, fsync
        self.temp: Path | None = None
        self.file: IO[Any] | None = None
        self.committed = False
        self._held = False

    def __enter__(self) -> AtomicFile:
        self._held = _hold_sigterm()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            remove_stale_temp_files(self.path)
            self.temp = temp_path(self.path)
            with _LOCK:
                _OPEN.add(self.temp.name)
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
            fd = os.open(self.temp, flags, 0o666)  # the umask applies, as for open(): not mkstemp's 0600
            try:
                self.file = (os.fdopen(fd, "wb") if self.mode == "wb"
                             else os.fdopen(fd, "w", encoding=self.encoding, newline=self.newline))
            except BaseException:
                os.close(fd)
                raise
        except BaseException:
            self._clean()
            raise
        return self

    def write(self, data: Any) -> int:
        assert self.file is not None, "AtomicFile used outside its `with` block"
        return self.file.write(data)

    def commit(self) -> None:
        """Make the complete file visible under its name (durably, unless fsync=False)."""
        assert self.file is not None and self.temp is not None and not self.committed
        self.file.flush()
        if self.fsync:
            os.fsync(self.file.fileno())
        self.file.close()
        os.replace(self.temp, self.path)
        self.committed = True
        self._forget()
        if self.fsync:
            _fsync_folder(self.path.parent)

    def _forget(self) -> None:
        if self.temp is not None:
            with _LOCK:
                _OPEN.discard(self.temp.name)
            self.temp = None

    def _clean(self) -> None:
        try:
            if self.file is not None and not self.file.closed:
                with suppress(OSError):
                    self.file.close()
            if self.temp is not None and not self.committed:
                with suppress(FileNotFoundError):
                    self.temp.unlink()
        finally:
            self._forget()
            if self._held:
                self._held = False
                _release_sigterm()

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._clean()


@contextmanager
def atomic_write(path: str | os.PathLike[str], mode: str = "w", *, encoding: str = "utf-8",
                 newline: str | None = "", fsync: bool = True) -> Iterator[IO[Any]]:
    """`with atomic_write(path, "wb") as f: ...`: the file object of an AtomicFile, committed when the block ends
    without an exception."""
    with AtomicFile(path, mode, encoding=encoding, newline=newline, fsync=fsync) as out:
        assert out.file is not None
        yield out.file
        out.commit()


def atomic_write_text(path: str | os.PathLike[str], text: str, *, fsync: bool = True) -> None:
    """Write a text file (UTF-8, newlines as given) so that readers see the old content or the complete new one."""
    with atomic_write(path, "w", fsync=fsync) as f:
        f.write(text)


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes, *, fsync: bool = True) -> None:
    """Write a binary file atomically."""
    with atomic_write(path, "wb", fsync=fsync) as f:
        f.write(data)


def atomic_copy(source: str | os.PathLike[str], target: str | os.PathLike[str], *, fsync: bool = True) -> None:
    """Copy a file's bytes to `target` atomically (streamed: constant memory)."""
    with open(source, "rb") as src, atomic_write(target, "wb", fsync=fsync) as out:
        shutil.copyfileobj(src, out, 1 << 20)


def boards_to_text(boards: Sequence[Board], fmt: str = "line", solutions: Sequence[Board | None] | None = None,
                   symbols: str = DECIMAL) -> str:
    """A whole file's text in a format, boards above 9x9 in a convention of board.SYMBOLS. `kaggle` needs solutions
    (solved here when not given); `table` writes a `solution` column when solutions are given."""
    if fmt == "line":
        return "".join(format_board(b, "line", symbols) + "\n" for b in boards)
    if fmt == "grid":
        return "\n".join(format_board(b, "grid", symbols) + "\n" for b in boards)
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
            w.writerows([format_board(b, "table", symbols)] for b in boards)
        else:
            w.writerow(["puzzle", "solution"])
            for b, s in zip(boards, solutions, strict=True):
                solution = format_board(s, "table", symbols) if s is not None else ""
                w.writerow([format_board(b, "table", symbols), solution])
    else:
        raise ValueError(f"unknown format {fmt!r}: expected one of {', '.join(FORMATS)}")
    return buf.getvalue()


def write_boards(path: str | os.PathLike[str], boards: Sequence[Board], fmt: str = "line",
                 solutions: Sequence[Board | None] | None = None, symbols: str = DECIMAL) -> None:
    """Write boards to a file atomically in one format (boards above 9x9 in a convention of board.SYMBOLS)."""
    atomic_write_text(path, boards_to_text(boards, fmt, solutions, symbols))
