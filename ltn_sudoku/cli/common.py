"""What every board-reading subcommand shares: the input options, the technique-engine options, reading the input
(streamed for classify, whole for the others), the progress bar, results files written atomically, the refusal of an
output that is an input file, the lock of an output being written and the number of processes this machine can run."""

from __future__ import annotations

import argparse
import csv
import io
import os
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Iterable, Iterator, Sequence

from tqdm import tqdm

from ltn_sudoku.board import SYMBOLS
from ltn_sudoku.cli import UsageError
from ltn_sudoku.io import (
    FORMATS,
    STDIN_NAME,
    BoardRecord,
    atomic_write_text,
    iter_records,
    iter_stream_records,
    locks,
    parse_board_text,
    strict_json,
    text_symbols,
)
from ltn_sudoku.io.locks import LockBusy, LockError, owner_text, remove_hint
from ltn_sudoku.io.writers import spreadsheet_safe
from ltn_sudoku.questions.engine import SEARCH_TECHNIQUE, Engine, build
from ltn_sudoku.questions.memory import MemoryTracker

OUT_FORMATS = {".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl"}
HTML_FORMATS = {".html": "html", ".htm": "html"}  # classify-board's --out also writes a page (--html)
BOARD_NAME = "<board>"


DEVICES: tuple[str, ...] = ("cpu", "cuda", "auto")


def _device(name: str) -> str:
    """A --device value; cuda without a CUDA device is a usage error (torch is imported only to ask that)."""
    if name not in DEVICES:
        raise argparse.ArgumentTypeError(f"invalid choice: {name!r} (choose from {', '.join(DEVICES)})")
    if name == "cuda":
        import torch

        if not torch.cuda.is_available():
            raise argparse.ArgumentTypeError("cuda: no CUDA device is available on this machine (use cpu or auto)")
    return name


def add_device_argument(p: argparse.ArgumentParser) -> None:
    """--device for the commands that run an LTN model."""
    p.add_argument("--device", type=_device, default="cpu", metavar="{cpu,cuda,auto}",
                   help="where the LTN model runs: cpu (default: small batches gain little from a GPU), cuda, or auto "
                        "(CUDA when present)")


AUTO_SYMBOLS = "auto"  # --symbols: boards above 9x9 written back as each was read


def output_symbols(chosen: str, record: BoardRecord) -> str:
    """The convention (board.SYMBOLS) a board is written back in: as it was read (AUTO_SYMBOLS) or the one chosen."""
    return record.symbols if chosen == AUTO_SYMBOLS else chosen


def add_input_arguments(p: argparse.ArgumentParser) -> None:
    """PATH | - | --board TEXT, --format and --symbols."""
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("path", nargs="?", help="board file (line .txt/.sdm, grid CSV, Kaggle CSV, table CSV); "
                                                "'-' reads standard input")
    source.add_argument("--board", metavar="TEXT", help="one board given as text, e.g. '1.34 34.2 2143 432.'")
    p.add_argument("--format", choices=("auto", *FORMATS), default="auto",
                   help="input format of the file (default: detected from its first line)")
    p.add_argument("--symbols", choices=(AUTO_SYMBOLS, *SYMBOLS), default=AUTO_SYMBOLS,
                   help="how boards above 9x9 are written in the output: as each was read (auto: letters read, "
                        "letters written), decimal (two digits per cell, 01-16), digits-letters (1-9 then A-G for "
                        "16x16, A-P for 25x25) or letters (A-P, A-Y). Reading detects them: a 16x16 line of 256 "
                        "symbols is 1-9 then A-G when it holds a digit, A-P otherwise")


def add_engine_arguments(p: argparse.ArgumentParser) -> None:
    """The options that shape the technique pipeline (solve, rate and classify)."""
    p.add_argument("--techniques", metavar="NAMES",
                   help="comma-separated technique names in the order to try them (default: all, HoDoKu's order)")
    p.add_argument("--no-uniqueness", action="store_true",
                   help="never use techniques that assume a unique solution (Unique Rectangles, BUG+1, ...)")


def engine_from_args(args: argparse.Namespace, tracker: MemoryTracker | None = None, fallback: bool = True) -> Engine:
    """The engine of add_engine_arguments' options; an unknown technique name is a usage error before any work."""
    try:
        return build(args.techniques, not args.no_uniqueness, fallback=fallback, tracker=tracker)
    except ValueError as e:
        raise UsageError(str(e)) from None


def technique_names(text: str, option: str) -> list[str]:
    """The registry names of a comma-separated list of technique names or aliases (docs/reference/techniques.md),
    'Brute Force' included; an unknown name is a usage error naming the option."""
    from ltn_sudoku.techniques.registry import by_name, normalise_name

    names = []
    for name in (part.strip() for part in text.split(",")):
        if not name:
            continue
        try:
            names.append(SEARCH_TECHNIQUE if normalise_name(name) == normalise_name(SEARCH_TECHNIQUE)
                         else by_name(name).name)
        except ValueError as e:
            raise UsageError(f"{option}: {e}") from None
    if not names:
        raise UsageError(f"{option}: expected one or more technique names")
    return names


def out_format(out: Path, formats: dict[str, str] = OUT_FORMATS) -> str:
    """The results format of --out, checked before any work so that a bad name costs nothing."""
    if out.is_dir():
        raise UsageError(f"--out {out}: is a directory: expected a file name")
    kind = formats.get(out.suffix.lower())
    if kind is None:
        raise UsageError(f"--out {out}: unknown extension {out.suffix!r}: expected one of {', '.join(formats)}")
    return kind


def check_html_out(path: Path) -> Path:
    """--html's file, checked before any work: a file name ending in .html (a page written over a directory would
    fail only once every board is answered)."""
    if path.suffix.lower() not in HTML_FORMATS:
        raise UsageError(f"--html {path}: expected a file name ending in .html")
    if path.is_dir():
        raise UsageError(f"--html {path}: is a directory: expected a file name")
    return path


OUTPUT_OPTIONS: tuple[str, ...] = ("out", "stats_out", "html")  # the options of any subcommand that name a file to write


def same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """Whether two names are one file: the same file by any name (a symbolic or a hard link) when both exist, else the
    same place once links in their folders are followed."""
    try:
        return os.path.samefile(a, b)
    except OSError:  # one does not exist (yet): the same place, or not
        return Path(a).resolve() == Path(b).resolve()


def _flag(option: str) -> str:
    return "--" + option.replace("_", "-")


def refuse_shared_outputs(args: argparse.Namespace) -> None:
    """A usage error (exit 2, before any work) when two file options to write (--out, --stats-out, --html) name one
    file, by any name: the second write would replace the first (`solve --out r.csv --stats-out r.csv`)."""
    named = [(option, out) for option in OUTPUT_OPTIONS if (out := getattr(args, option, None)) is not None]
    for i, (option, out) in enumerate(named):
        for other, other_out in named[i + 1:]:
            if same_file(out, other_out):
                raise UsageError(f"{_flag(other)} {other_out} and {_flag(option)} {out} are one file: each output "
                                 "needs a file of its own; choose another name")


def refuse_writing_over_input(args: argparse.Namespace) -> None:
    """A usage error (exit 2, before anything is written) when a file option to write (--out, --stats-out, --html) is the
    input file itself: the same file by any name, a symbolic or a hard link included; or when two of them name one
    file (refuse_shared_outputs)."""
    refuse_shared_outputs(args)
    path = getattr(args, "path", None)
    if path in (None, "-"):
        return
    for option in OUTPUT_OPTIONS:
        out = getattr(args, option, None)
        try:
            same = out is not None and os.path.samefile(out, path)
        except OSError:  # either does not exist (yet): they cannot be one file
            same = False
        if same:
            raise UsageError(f"{_flag(option)} {out} is the input file {path}: writing it would replace the boards; "
                             "choose another name")


def iter_input(args: argparse.Namespace) -> tuple[str, Iterator[BoardRecord]]:
    """(name for messages, the records as they are read): a bad line raises FormatError when it is reached; an output
    option that names the input file is refused first (refuse_writing_over_input)."""
    refuse_writing_over_input(args)
    if args.board is not None:
        if args.format != "auto":
            raise UsageError("--format applies to files; --board text is always detected")
        board = parse_board_text(args.board, BOARD_NAME)
        return BOARD_NAME, iter([BoardRecord(board, 1, symbols=text_symbols(args.board))])
    if args.path == "-":
        return STDIN_NAME, iter_stream_records(sys.stdin.buffer, STDIN_NAME, args.format)
    return args.path, iter_records(args.path, args.format)


def read_input(args: argparse.Namespace) -> tuple[str, list[BoardRecord]]:
    """(name for messages, every record); the whole input is validated before any board is processed."""
    name, records = iter_input(args)
    return name, list(records)


def _show_progress(writing_file: bool) -> bool:
    """Only when a person watches stderr and the reports do not go to the same terminal."""
    return sys.stderr.isatty() and (writing_file or not sys.stdout.isatty())


def progress(records: Sequence[BoardRecord], writing_file: bool) -> Iterable[BoardRecord]:
    """A progress bar on stderr over a list of records (multi-board inputs only)."""
    show = len(records) > 1 and _show_progress(writing_file)
    return tqdm(records, unit="board", disable=not show, file=sys.stderr)


def progress_bar(writing_file: bool) -> tqdm:
    """A progress bar on stderr for a stream of boards of unknown length, advanced with `.update(count)`; it appears
    after a second, so a quick single board shows none."""
    return tqdm(unit="board", disable=not _show_progress(writing_file), file=sys.stderr, delay=1.0)


def results_text(kind: str, results: list[dict[str, object]], columns: Sequence[str] | None = None) -> str:
    """JSON Lines, or CSV with `columns` (default: the first result's keys) as header."""
    if kind == "jsonl":
        return "".join(strict_json.dumps(r) + "\n" for r in results)
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(columns or results[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows({key: spreadsheet_safe(value) for key, value in result.items()} for result in results)
    return buf.getvalue()


def write_results(out: Path, kind: str, results: list[dict[str, object]],
                  columns: Sequence[str] | None = None) -> None:
    """Write a results file atomically (`columns`: the CSV header, needed when there may be no result); an unwritable
    place is a usage error (exit 2), not a traceback."""
    try:
        atomic_write_text(out, results_text(kind, results, columns))
    except OSError as e:
        raise UsageError(f"--out {out}: cannot write ({e.strerror or e})") from None


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity mask where the system has one, otherwise the count)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1


def capped_jobs(jobs: int, option: str = "--jobs") -> int:
    """`jobs` local processes, at most one per usable CPU: more would only share the CPUs (and a typo such as 100000
    would start that many processes); a cap says so in a note on stderr."""
    cpus = usable_cpus()
    if jobs <= cpus:
        return jobs
    print(f"note: {option} {jobs}: capped at {cpus}, the CPUs this process may use", file=sys.stderr)
    return cpus


def lock_path(out: Path) -> Path:
    """The lock of a run writing `out`: OUT.lock beside it."""
    return out.with_name(out.name + ".lock")


def _busy(out: Path, busy: LockBusy) -> UsageError:
    return UsageError(f"--out {out} is being written by {owner_text(busy.owner)}: wait for it to end, or "
                      f"{remove_hint(busy.path, busy.owner)}")


def _acquire(out: Path) -> int:
    """The open, flocked lock file of `out`, holding this process's pid and host (ltn_sudoku/io/locks.py)."""
    try:
        return locks.acquire(lock_path(out), f"--out {out}")
    except LockBusy as e:
        raise _busy(out, e) from None
    except LockError as e:
        raise UsageError(str(e)) from None


@contextmanager
def output_lock(out: Path) -> Iterator[None]:
    """Hold OUT.lock while a run writes `out` (and its resumable parts): created atomically (O_EXCL) with this
    process's pid and host, and flocked. A concurrent run on the same output is refused (one line, exit 2); a lock
    whose run is over (its pid no longer runs on this host) is taken over with a note, never shared. The lock is
    removed at the end, whatever the outcome."""
    fd = _acquire(out)
    try:
        yield
    finally:
        locks.release(fd, lock_path(out))
