"""Progress that reads well where it goes: a redrawn tqdm bar on a terminal, a few plain lines in a log file.

tqdm redraws its bar with carriage returns; sent to a file that is a stream of overwritten lines (a sweep of two 5-epoch
4x4 runs wrote 185 KB, lines of up to 18 KB). ``progress`` keeps tqdm's bar for a terminal and, when stderr is not
one, prints one line at most every ``every_s`` seconds (and one at the end), so a log holds what happened, not the
redraws. Training, the tiers and the generators draw progress through it (the commands' own bars,
cli/common.py, are drawn only on a terminal).
"""

from __future__ import annotations

import sys
import time
from typing import IO, Any, Iterable, Iterator, TypeVar

from tqdm import tqdm

T = TypeVar("T")


def stderr_is_terminal() -> bool:
    """True when stderr is a terminal, where a redrawn bar is readable."""
    return bool(getattr(sys.stderr, "isatty", lambda: False)())


class LineProgress:
    """tqdm's small interface (iterate, update, set_postfix, write, close) as plain lines in a log.

    A line is printed at most every ``every_s`` seconds and once at close, with the count, the total when known,
    the rate and the last postfix: ``epoch 2/5: 120/300 batch (40.0%) 35.1 batch/s loss=0.412``.
    """

    def __init__(self, iterable: Iterable[Any] | None = None, *, total: int | None = None, desc: str = "",
                 unit: str = "it", every_s: float = 30.0, file: IO[str] | None = None, disable: bool = False,
                 initial: int = 0, **_ignored: Any) -> None:
        self.iterable, self.desc, self.unit, self.every_s = iterable, desc, unit, every_s
        self.total = total if total is not None else _len_or_none(iterable)
        self.n, self.disable, self.file = initial, disable, file
        self.postfix = ""
        self._start = self._last = time.monotonic()
        self._closed = False

    def __iter__(self) -> Iterator[Any]:
        assert self.iterable is not None, "LineProgress was made without an iterable"
        try:
            for item in self.iterable:
                yield item
                self.update(1)
        finally:
            self.close()

    def __enter__(self) -> LineProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def update(self, n: float = 1) -> None:
        self.n += int(n)
        now = time.monotonic()
        if now - self._last >= self.every_s:
            self._last = now
            self._emit()

    def set_postfix(self, ordered_dict: Any = None, refresh: bool = True, **kwargs: Any) -> None:
        items = {**(dict(ordered_dict) if ordered_dict else {}), **kwargs}
        self.postfix = " ".join(f"{k}={_short(v)}" for k, v in items.items())

    def set_postfix_str(self, s: str = "", refresh: bool = True) -> None:
        self.postfix = s

    def set_description(self, desc: str | None = None, refresh: bool = True) -> None:
        self.desc = desc or ""

    def write(self, s: str, file: IO[str] | None = None, end: str = "\n") -> None:
        print(s, end=end, file=file or self.file or sys.stderr, flush=True)

    def refresh(self) -> None:  # tqdm's interface: nothing to redraw in a log
        pass

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            if self.n or self.total:
                self._emit()

    def _emit(self) -> None:
        if self.disable:
            return
        elapsed = max(time.monotonic() - self._start, 1e-9)
        done = f"{self.n}/{self.total}" if self.total else f"{self.n}"
        share = f" ({100.0 * self.n / self.total:.1f}%)" if self.total else ""
        head = f"{self.desc}: " if self.desc else ""
        tail = f" {self.postfix}" if self.postfix else ""
        self.write(f"{head}{done} {self.unit}{share} {self.n / elapsed:.1f} {self.unit}/s{tail}")


def progress(iterable: Iterable[T] | None = None, **kwargs: Any) -> Any:
    """A tqdm bar on a terminal, else a LineProgress: same arguments (tqdm's), same use."""
    kwargs.setdefault("file", sys.stderr)
    if stderr_is_terminal():
        return tqdm(iterable, **kwargs)
    return LineProgress(iterable, **kwargs)


def _len_or_none(iterable: Iterable[Any] | None) -> int | None:
    try:
        return len(iterable)  # type: ignore[arg-type]
    except TypeError:
        return None


def _short(value: Any) -> str:
    return f"{value:.4g}" if isinstance(value, float) else str(value)
