"""The learned package's error types that several of its layers raise: shared types sit at the bottom, so that
training (a resume of another config) and the command checks (a bad value) raise the same refusal without importing
each other."""

from __future__ import annotations


class ConfigError(ValueError):
    """A config value the user must fix; its message names the key as it is written on the command line."""


def first_line(error: BaseException) -> str:
    """An error's first line (its type's name when it says nothing): what a one-line refusal quotes."""
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
