"""A small cache keyed by grid state, so that the finders of one engine pass share their expensive searches.

The engine tries finders one after another on the same candidates (e.g. Finned X-Wing, then Sashimi X-Wing; the six
nice-loop finders; the ALS family): one search per state serves them all. Finders whose search splits into parts
that read only a few cells (a digit's places, a unit, a line-box pair) also keep each part's steps keyed by what
that part reads, so along a solving path, where a step changes a few cells, only the changed parts are searched
again (fish, single-digit patterns, subsets, Sue de Coq; issue 29).
"""

from __future__ import annotations

from typing import Callable, Generic, Hashable, TypeVar

from ltn_sudoku.candidates import CandidateGrid

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class StateCache(Generic[K, V]):
    """The last `size` results keyed by a grid-state key (the oldest goes first); cheap insurance against rebuilding
    per finder call."""

    def __init__(self, size: int = 4) -> None:
        self.size = size
        self._items: dict[K, V] = {}

    def get(self, key: K, build: Callable[[], V]) -> V:
        if key in self._items:
            return self._items[key]
        value = build()
        if len(self._items) >= self.size:
            del self._items[next(iter(self._items))]
        self._items[key] = value
        return value

    def clear(self) -> None:
        """Forget every result (tests compare a cached finder with a fresh search)."""
        self._items.clear()


def state_key(grid: CandidateGrid) -> tuple[int, ...]:
    """What candidate-based searches depend on: the candidate masks (placed cells have mask 0)."""
    return tuple(grid.masks)
