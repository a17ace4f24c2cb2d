"""The `ltn-sudoku` command and the `classify-board` script.

Each subcommand lives in its own module of this package with two functions:
``register(subparsers) -> argparse.ArgumentParser`` and ``run(args: argparse.Namespace) -> int``.
Errors the user can fix (bad input files, bad options) exit with status 2 and one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import signal
import sys
from typing import Sequence

from ltn_sudoku import __version__
from ltn_sudoku.board import BoardError
from ltn_sudoku.io import FormatError

SUBCOMMANDS: tuple[str, ...] = ("classify", "solve", "generate", "rate", "bench", "data")
EXIT_USAGE = 2


class UsageError(Exception):
    """A problem with the user's input or options: reported in one line, exit status 2."""


def _available_subcommands() -> list[tuple[str, object]]:
    mods: list[tuple[str, object]] = []
    for name in SUBCOMMANDS:
        try:
            mods.append((name, importlib.import_module(f"ltn_sudoku.cli.{name}")))
        except ModuleNotFoundError as e:  # a subcommand not built yet; any other import error is a real bug
            if e.name != f"ltn_sudoku.cli.{name}":
                raise
    return mods


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ltn-sudoku",
        description="Sudoku reasoning with an exact symbolic engine and Logic Tensor Networks.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, module in _available_subcommands():
        p = module.register(sub)  # type: ignore[attr-defined]
        p.set_defaults(_run=module.run)  # type: ignore[attr-defined]
    return parser


def run_command(args: argparse.Namespace) -> int:
    """Run a parsed command, turning user errors into exit status 2 with a one-line message."""
    try:
        return int(args._run(args) or 0)
    except (FormatError, BoardError, UsageError, FileNotFoundError) as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `ltn-sudoku classify big.txt | head`
        sys.stderr.close()
        return 0


def main(argv: Sequence[str] | None = None) -> int:
    """The command line. While it runs, SIGPIPE ends the process quietly (piped into `head`, like any Unix tool);
    the caller's handling is put back after, so a notebook or test that calls main() keeps Python's (a write to a
    closed socket raises BrokenPipeError instead of killing the process)."""
    if not hasattr(signal, "SIGPIPE"):
        return run_command(build_parser().parse_args(argv))
    before = signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    try:
        status = run_command(build_parser().parse_args(argv))
        sys.stdout.flush()  # still under SIG_DFL: a reader gone ends the process quietly, not at interpreter exit
        return status
    finally:
        signal.signal(signal.SIGPIPE, before)


def classify_board_main(argv: Sequence[str] | None = None) -> int:
    """`classify-board PATH ...` is `ltn-sudoku classify PATH ...`; `classify-board --version` prints the version."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--version" in argv[:argv.index("--") if "--" in argv else len(argv)]:
        print(f"classify-board {__version__}")
        return 0
    return main(["classify", *argv])

