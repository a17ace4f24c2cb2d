"""HoDoKu's two test files, read: the regression library (exact effects) and the exemplars (realistic puzzles).

The regression library: one test case per line, a candidate grid and the exact effect a technique must find. Line
format: ``:<code[-variant|-x]>:<digits>:<grid>:<deleted>:<eliminations>:<placements>:<extra>:``, where `code` is
HoDoKu's 4-digit technique code (``#CODE: Name`` comment lines name each group; ``-N`` a variant of solver options,
``-x`` a case where the technique must find nothing, a 5th digit a variant too), `digits` the digit(s) it targets,
`grid` 81 characters (``+d`` a digit placed while solving, ``d`` a given, ``.`` empty), `deleted` the candidates removed
beforehand beyond the basic rules, `eliminations` / `placements` what the technique must find (all three as
space-separated ``<digit><row><col>``, 1-based) and `extra` metadata such as a chain's length. A case passes when one
step of the finder has exactly the expected placements and eliminations; a ``-x`` case passes when the finder finds
nothing. HoDoKu merges some pairs of steps into one: siamese fish (codes 03xx1: two fish on one base), dual 2-String
Kites (0404) and dual Empty Rectangles (0405). Our finders report the two steps apart, so such a case passes when two
steps that share a pattern cell together have exactly the expected eliminations. HoDoKu writes a discontinuous nice loop
that places a digit as the deletion of the cell's other candidates (0707-1, 0710-1, 0710-3): a placement counts as
exactly those deletions.

`case_finder` sets the options HoDoKu's own regression tester sets for some cases: both fish of a size for siamese
codes, two-candidate Empty Rectangles (0402-1, 0405) and ALS nodes in grouped chains (0709-2, 0710-3/4, 0711-3/4).

The exemplars (`hodoku_exemplars(tag)`): HoDoKu's realistic puzzles for one technique, with the technique sets a
solver needs before and after it (`ssts_finders()`: the 'ssts' set). Tests and scripts/bench_tiers.py read both.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Callable, Iterable, Mapping, Sequence

from ltn_sudoku.board import Board
from ltn_sudoku.candidates import Assignment, CandidateGrid, Step
from ltn_sudoku.io import parse_board_text
from ltn_sudoku.paths import DATA_DIR
from ltn_sudoku.techniques import coloring, fish, intersections, singles, subsets, wings
from ltn_sudoku.techniques.base import Finder, Technique

DEFAULT_PATH = DATA_DIR / "techniques" / "hodoku_reglib-1.3.txt"  # both files ship whole in data/ (data/README.md)
EXEMPLARS_FILE = DATA_DIR / "techniques" / "hodoku_exemplars-1.0.txt"
# A siamese fish joins two fish on one base, finned or sashimi alike: its finder is both finders of that size.
SIAMESE_PARTS: dict[str, tuple[str, str]] = {
    "03111": ("0311", "0321"),
    "03211": ("0311", "0321"),
    "03121": ("0312", "0322"),
    "03221": ("0312", "0322"),
}
ALS_CHAIN_VARIANTS: frozenset[tuple[str, str]] = frozenset(
    {("0709", "2"), ("0710", "3"), ("0710", "4"), ("0711", "3"), ("0711", "4")})


def _assignments(text: str) -> frozenset[Assignment]:
    """'436 257' -> {(r3c6, 4), (r5c7, 2)} as (0-based cell, digit)."""
    out = set()
    for tok in text.split():
        d, r, c = int(tok[0]), int(tok[1]), int(tok[2])
        out.add(((r - 1) * 9 + (c - 1), d))
    return frozenset(out)


@dataclass(frozen=True)
class RegCase:
    """One regression case."""

    code: str  # base technique code, e.g. '0300' or '03111'
    variant: str  # '' , '1', '2', ... or 'x' (must find nothing)
    digits: tuple[int, ...]
    board: Board  # givens and placed cells together
    deleted: frozenset[Assignment]
    eliminations: frozenset[Assignment]
    placements: frozenset[Assignment]
    line: int
    text: str
    placed: frozenset[int] = frozenset()  # cells marked '+': set while solving, not givens

    @property
    def must_fail(self) -> bool:
        return self.variant == "x"

    def grid(self) -> CandidateGrid:
        """The candidate grid of the case; its `givens` leave out the '+' cells (Avoidable Rectangles need that)."""
        grid = CandidateGrid.from_board(self.board, self.deleted)
        for cell in self.placed:
            grid.givens &= ~(1 << cell)
        return grid

    @property
    def merged(self) -> bool:
        """A case whose step HoDoKu merges from two: siamese fish (03111, 03121, ...) and duals (0404, 0405)."""
        siamese = len(self.code) == 5 and self.code.startswith("03") and self.code.endswith("1")
        return siamese or self.code in ("0404", "0405")

    def passes(self, steps: Iterable[Step]) -> bool:
        """True if the finder's steps answer this case (see module docstring)."""
        found = list(steps)
        if self.must_fail:
            return not found
        if self.merged:
            return self._merged_pair_in(found)
        return any(self._effects(s) == (self.eliminations, self.placements) for s in found)

    def _effects(self, step: Step) -> tuple[frozenset[Assignment], frozenset[Assignment]]:
        """(eliminations, placements) as the case writes them: when it expects deletions only, a placement stands for
        the deletion of the cell's other candidates."""
        if self.placements or not step.placements:
            return frozenset(step.eliminations), frozenset(step.placements)
        grid = self.grid()
        deletions = set(step.eliminations)
        for cell, digit in step.placements:
            deletions |= {(cell, d) for d in grid.candidates(cell) if d != digit}
        return frozenset(deletions), frozenset()

    def _merged_pair_in(self, steps: list[Step]) -> bool:
        """Two steps sharing a pattern cell whose eliminations together are the expected ones."""
        for i, first in enumerate(steps):
            for second in steps[i + 1:]:
                if (set(first.cells) & set(second.cells)
                        and frozenset(first.eliminations) | frozenset(second.eliminations) == self.eliminations):
                    return True
        return False

    def check(self, finder: Finder) -> bool:
        return self.passes(finder(self.grid()))


def answering_techniques(techniques: Sequence[Technique]) -> dict[str, list[Technique]]:
    """Library code -> the techniques answering it (two for a siamese fish code)."""
    by_code = {code: [t] for t in techniques for code in t.hodoku_codes}
    for code, parts in SIAMESE_PARTS.items():
        if all(p in by_code for p in parts):
            by_code[code] = [by_code[p][0] for p in parts]
    return by_code


def case_finder(case: RegCase, answering: Mapping[str, Sequence[Technique]]) -> Finder:
    """The finder for a case, with the options HoDoKu's regression tester sets for it (see module docstring)."""
    techniques = answering[case.code]
    if len(techniques) > 1:
        finders = [t.finder for t in techniques]
        return lambda grid: [step for finder in finders for step in finder(grid)]
    # the finders of these cases take the keyword passed below (a Finder's type names the grid only)
    finder: Callable[..., list[Step]] = techniques[0].finder
    if case.code == "0405" or (case.code, case.variant) == ("0402", "1"):
        return partial(finder, two_candidates=True)
    if (case.code, case.variant) in ALS_CHAIN_VARIANTS:
        return partial(finder, als=True)
    return finder


def parse_line(line: str, number: int = 0) -> RegCase:
    parts = line.strip().split(":")
    # ['', code, digits, grid, deleted, eliminations, placements, extra, '']
    code_full, digits, grid_text, deleted, elims, places = parts[1:7]
    code, _, variant = code_full.partition("-")
    values: list[int] = []
    placed: set[int] = set()
    i = 0
    while i < len(grid_text):
        ch = grid_text[i]
        if ch == "+":
            placed.add(len(values))
            i += 1
            ch = grid_text[i]
        values.append(0 if ch in ".0" else int(ch))
        i += 1
    return RegCase(
        code=code,
        variant=variant,
        digits=tuple(int(d) for d in digits if d.isdigit()),
        board=Board(values, 9),
        deleted=_assignments(deleted),
        eliminations=_assignments(elims),
        placements=_assignments(places),
        line=number,
        text=line.strip(),
        placed=frozenset(placed),
    )


def load_cases(path: Path | str = DEFAULT_PATH, codes: Iterable[str] | None = None) -> list[RegCase]:
    """Every case of the library (optionally only some technique codes)."""
    wanted = set(codes) if codes is not None else None
    cases = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if line.startswith(":"):
            case = parse_line(line, number)
            if wanted is None or case.code in wanted:
                cases.append(case)
    return cases


# ---- the exemplars -------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Exemplar:
    """A puzzle of HoDoKu's exemplar file: solvable with the `before` set, then the technique `tag` (HoDoKu counted
    `amount` for it), then the `after` set. Sets: 's' singles, 'ssts' Simple Sudoku's technique set, 'x' harder."""

    puzzle: Board
    before: str
    tag: str
    amount: int
    after: str


def hodoku_exemplars(tag: str) -> list[Exemplar]:
    """The exemplars of one technique by HoDoKu's short tag ('xy', 'u1', 'hr', 'sc', ...), from lines like
    '<puzzle> # s xy(5) s' (comment and library lines of the file are skipped)."""
    found = []
    for line in EXEMPLARS_FILE.read_text(encoding="utf-8").splitlines():
        puzzle, _, tags = line.partition("#")
        match = re.fullmatch(r"\s*(\w+)\s+([a-z0-9]+)\((\d+)\)\s+(\w+)\s*", tags)
        if puzzle.strip() and match and match.group(2) == tag:
            before, _, amount, after = match.groups()
            found.append(Exemplar(parse_board_text(puzzle.strip()), before, tag, int(amount), after))
    return found


def exemplar_puzzles(code: str) -> list[Board]:
    """The exemplar puzzles filed under one HoDoKu technique code (the lines below its '#0302: Jellyfish' heading)."""
    found, current = [], None
    for line in EXEMPLARS_FILE.read_text(encoding="utf-8").splitlines():
        heading = re.match(r"#(\d{4}):", line)
        if heading:
            current = heading.group(1)
        elif current == code and line.startswith(tuple("123456789.")):
            found.append(parse_board_text(line.partition("#")[0].strip()))
    return found


SSTS_NAMES: tuple[str, ...] = (
    "Full House", "Naked Single", "Hidden Single", "Locked Pair", "Locked Triple",
    "Locked Candidates Type 1 (Pointing)", "Locked Candidates Type 2 (Claiming)", "Naked Pair", "Naked Triple",
    "Hidden Pair", "Hidden Triple", "Naked Quadruple", "Hidden Quadruple", "X-Wing", "Swordfish", "Jellyfish",
    "XY-Wing", "Simple Colors Trap", "Simple Colors Wrap", "Multi-Colors 1", "Multi-Colors 2",
)


def ssts_finders() -> list[Finder]:
    """The finders of HoDoKu's 'ssts' set (Simple Sudoku's techniques), easiest first, as the exemplars use it."""
    by_name = {t.name: t.finder for m in (singles, intersections, subsets, fish, wings, coloring) for t in m.TECHNIQUES}
    return [by_name[name] for name in SSTS_NAMES]
