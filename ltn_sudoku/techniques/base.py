"""How a technique is described (Technique) and how its Steps are written (make_step); Step itself sits beside
the candidate grid it applies to (ltn_sudoku.candidates).

A finder is a plain function ``finder(grid: CandidateGrid) -> list[Step]``: it reads the grid, never mutates it,
and returns every distinct step it finds (empty list when it does not apply). Each step must be sound on its own:
applying any one of them to a grid whose puzzle has a solution keeps that solution.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Callable, Iterable

from ltn_sudoku.board import Geometry
from ltn_sudoku.candidates import Assignment, CandidateGrid, Step

Finder = Callable[[CandidateGrid], list[Step]]


@dataclass(frozen=True)
class Technique:
    """A named finder with its place in the difficulty order.

    `score` is the per-use cost in the spirit of HoDoKu's scores; `level` the difficulty level the technique implies
    (Easy, Medium, Hard, Unfair, Extreme); `uniqueness` marks techniques that assume the puzzle has one solution;
    `aliases` are the other names people give it (HoDoKu, Sudoku Explainer, SudokuWiki), accepted wherever a technique
    is named (techniques/registry.resolve; a plural or other punctuation needs no alias of its own).
    """

    name: str
    family: str
    finder: Finder = field(compare=False)
    score: int
    level: str
    uniqueness: bool = False
    min_n: int = 4
    hodoku_codes: tuple[str, ...] = ()  # HoDoKu technique codes this finder answers in the regression library
    aliases: tuple[str, ...] = ()
    first: Finder | None = field(default=None, compare=False)  # `finder` cut to its first step, built alone: the
    # step a solving path takes when every step of the finder places one digit and eliminates nothing (the singles)


# ---- notation helpers shared by every finder -------------------------------------------------------------------
def format_assignments(geo: Geometry, items: Iterable[Assignment], op: str) -> str:
    """'r4c3,r6c1<>2, r5c5<>7' style: cells grouped per digit, in the order digits first appear."""
    per_digit: dict[int, list[int]] = defaultdict(list)
    for cell, digit in items:
        per_digit[digit].append(cell)
    return ", ".join(f"{geo.cells_name(sorted(cells))}{op}{d}" for d, cells in per_digit.items())


def explain(geo: Geometry, head: str, placements: Iterable[Assignment] = (),
            eliminations: Iterable[Assignment] = ()) -> str:
    """'<head> => r1c1=5, r2c2<>3' — the usual one-line notation."""
    parts = []
    pl = list(placements)
    el = list(eliminations)
    if pl:
        parts.append(format_assignments(geo, pl, "="))
    if el:
        parts.append(format_assignments(geo, el, "<>"))
    return f"{head} => {', '.join(parts)}" if parts else head


def make_step(
    grid: CandidateGrid,
    technique: str,
    pattern: str,
    placements: Iterable[Assignment] = (),
    eliminations: Iterable[Assignment] = (),
    cells: Iterable[int] = (),
    digits: Iterable[int] = (),
    units: Iterable[int] = (),
) -> Step:
    """Build a Step whose text is '<technique>: <pattern> => <effects>' (or '<technique>: <effects>' when the pattern
    is empty, as for singles); eliminations are de-duplicated and sorted."""
    pl = tuple(sorted(set(placements)))
    el = tuple(sorted(set(eliminations), key=lambda a: (a[1], a[0])))
    if pattern:
        text = explain(grid.geo, f"{technique}: {pattern}", pl, el)
    else:
        text = explain(grid.geo, technique, pl, el).replace(" => ", ": ", 1)
    return Step(
        technique=technique,
        placements=pl,
        eliminations=el,
        cells=tuple(cells),
        digits=tuple(digits),
        units=tuple(units),
        text=text,
    )


def single_step(grid: CandidateGrid, technique: str, cell: int, digit: int, unit: int | None = None) -> Step:
    """make_step for one placement and nothing else (the singles, tens of them per solving step on an easy board):
    the same Step and text ('<technique>: r1c2=3'), built without the general notation's grouping and sorting."""
    return Step(technique=technique, placements=((cell, digit),), cells=(cell,), digits=(digit,),
                units=() if unit is None else (unit,), text=f"{technique}: {grid.geo.cell_name(cell)}={digit}")
