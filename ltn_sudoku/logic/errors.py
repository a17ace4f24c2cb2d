"""The learned package's error types that several of its layers raise: shared types sit at the bottom, so that
training (a resume of another config) and the command checks (a bad value) raise the same refusal without importing
each other."""

from __future__ import annotations

from ltn_sudoku.io import FormatError


class ConfigError(ValueError):
    """A config value the user must fix; its message names the key as it is written on the command line."""


class CheckpointError(ValueError):
    """A checkpoint that cannot be used: missing, corrupted, unsafe, or made for another board size."""


class DataError(ValueError):
    """A data file the config names cannot be used (missing, a bad row, boards of another size): one line naming the
    key and the file's line, as the entry points print it."""


# what a user can cause once a command has started (a checkpoint, a changed config on resume, a data file): the
# entry points refuse it in one line (ltn_sudoku.logic.commands.check.refuse), not with a traceback
USER_ERRORS: tuple[type[Exception], ...] = (CheckpointError, ConfigError, DataError, FormatError)


def first_line(error: BaseException) -> str:
    """An error's first line (its type's name when it says nothing): what a one-line refusal quotes."""
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
