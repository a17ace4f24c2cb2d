"""Shared truth checks for technique finders: the exact solver is the oracle.

- `assert_sound(grid, steps, solution)`: every placement agrees with the solution, no elimination removes it.
- `states_from_puzzle(...)`: diverse candidate grids of a puzzle (random extra solution cells placed).
- `walk_sound(...)`: repeatedly apply the first step of any finder, checking every step found on the way.
- `hodoku_exemplars(tag)`: HoDoKu's realistic puzzles for one technique, with the technique sets they need.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Sequence

from ltn_sudoku.board import Board
from ltn_sudoku.candidates import CandidateGrid, Step
from ltn_sudoku.exact import count_solutions, solve
from ltn_sudoku.io import parse_board_text, read_boards
from ltn_sudoku.paths import shared_file
from ltn_sudoku.techniques import singles
from ltn_sudoku.techniques.base import Finder

SINGLES: list[Finder] = [t.finder for t in singles.TECHNIQUES]  # the finders every solving walk starts from


def assert_sound(grid: CandidateGrid, steps: Iterable[Step], solution: Board, context: str = "") -> int:
    """Fail with a readable message on the first unsound effect; return how many steps were checked."""
    checked = 0
    for step in steps:
        for cell, digit in step.placements:
            assert solution.values[cell] == digit, (
                f"unsound placement {grid.geo.cell_name(cell)}={digit} (solution {solution.values[cell]}) "
                f"by '{step.text}' {context}\n{grid.pencil_marks()}"
            )
        for cell, digit in step.eliminations:
            assert solution.values[cell] != digit, (
                f"unsound elimination {grid.geo.cell_name(cell)}<>{digit} by '{step.text}' {context}\n"
                f"{grid.pencil_marks()}"
            )
        assert step.progress, f"step without effect: {step.text}"
        checked += 1
    return checked


def shared_puzzles(relative: str, count: int | None = None, seed: int = 0) -> list[Board]:
    """Puzzles from ../shared/data (a random sample of `count` when given, reproducible)."""
    boards = read_boards(shared_file(relative))
    if count is not None and count < len(boards):
        boards = random.Random(seed).sample(boards, count)
    return boards


def random_unique_puzzle(n: int, rng: random.Random, keep: float = 0.5) -> tuple[Board, Board]:
    """(puzzle, solution) of side n: a random grid with cells removed while the solution stays unique."""
    k = int(n**0.5)
    base = [[(k * (r % k) + r // k + c) % n + 1 for c in range(n)] for r in range(n)]
    digits = list(range(1, n + 1))
    rng.shuffle(digits)
    rows = [b * k + r for b in rng.sample(range(k), k) for r in rng.sample(range(k), k)]
    cols = [b * k + c for b in rng.sample(range(k), k) for c in rng.sample(range(k), k)]
    solution = Board([digits[base[r][c] - 1] for r in rows for c in cols], n)
    values = list(solution.values)
    order = list(range(n * n))
    rng.shuffle(order)
    target = int(n * n * keep)
    filled = n * n
    for cell in order:
        if filled <= target:
            break
        saved = values[cell]
        values[cell] = 0
        if count_solutions(Board(values, n), 2) != 1:
            values[cell] = saved
        else:
            filled -= 1
    return Board(values, n), solution


def states_from_puzzle(puzzle: Board, solution: Board, rng: random.Random, count: int = 3) -> list[CandidateGrid]:
    """Candidate grids of the puzzle with a random share (0-60%) of the missing solution cells placed."""
    grids = [CandidateGrid.from_board(puzzle)]
    empty = puzzle.empty_cells
    for _ in range(count - 1):
        extra = rng.sample(empty, int(len(empty) * rng.uniform(0.0, 0.6)))
        grids.append(CandidateGrid.from_board(puzzle.with_values((c, solution.values[c]) for c in extra)))
    return grids


def walk_sound(puzzle: Board, finders: Sequence[Finder], solution: Board | None = None,
               max_steps: int = 2000) -> tuple[CandidateGrid, dict[str, int]]:
    """Apply the first step of the first finder that fires, until none fires; check every step found.

    Returns the final grid and how many steps each technique produced (checked) along the way.
    """
    solution = solution or solve(puzzle)
    assert solution is not None, "walk_sound needs a solvable puzzle"
    grid = CandidateGrid.from_board(puzzle)
    fired: dict[str, int] = {}
    for _ in range(max_steps):
        applied = False
        for finder in finders:
            steps = finder(grid)
            if steps:
                assert_sound(grid, steps, solution, f"in {puzzle.to_line()}")
                for s in steps:
                    fired[s.technique] = fired.get(s.technique, 0) + 1
                grid.apply(steps[0])
                applied = True
                break
        if not applied:
            break
    return grid, fired


def sweep_sound(pairs: Iterable[tuple[Board, Board]], finders: Sequence[Finder], seed: int, states: int = 2,
                walk: Sequence[Finder] | None = None) -> Counter[str]:
    """Check every step of every finder on `states` diverse grids of each (puzzle, solution), and every step of a
    whole walk with the `walk` pipeline when given. Returns how many (checked) steps each technique produced."""
    rng = random.Random(seed)
    fired: Counter[str] = Counter()
    for puzzle, solution in pairs:
        if walk is not None:
            fired.update(walk_sound(puzzle, walk, solution)[1])
        for grid in states_from_puzzle(puzzle, solution, rng, count=states):
            for finder in finders:
                steps = run_pure(grid, finder)
                assert_sound(grid, steps, solution, f"in {puzzle.to_line()}")
                fired.update(s.technique for s in steps)
    return fired


def run_pure(grid: CandidateGrid, finder: Finder) -> list[Step]:
    """Run a finder and fail if it changed the grid (finders must only read it)."""
    before = (grid.values[:], grid.masks[:], grid.digit_cells[:])
    steps = finder(grid)
    assert (grid.values, grid.masks, grid.digit_cells) == before, f"{finder.__name__} mutated the grid"
    return steps


def mixed_corpus(per_file: int, generated: dict[int, int], seed: int = 0,
                 files: Sequence[str] = ("9x9/top1465.txt", "9x9/qqwing_expert.txt")) -> list[tuple[Board, Board]]:
    """(puzzle, solution) pairs: `per_file` puzzles sampled from each shared file plus `generated[n]` random unique
    puzzles of side n (e.g. {4: 20, 16: 4}), all reproducible from `seed`."""
    pairs: list[tuple[Board, Board]] = []
    for name in files:
        for puzzle in shared_puzzles(name, per_file, seed):
            solution = solve(puzzle)
            assert solution is not None
            pairs.append((puzzle, solution))
    rng = random.Random(seed)
    for n, count in generated.items():
        pairs.extend(random_unique_puzzle(n, rng, keep=0.4 if n <= 9 else 0.5) for _ in range(count))
    return pairs


def cell_index(name: str, n: int = 9) -> int:
    """'r2c10' -> 0-based cell index on a board of side n."""
    row, col = name.lower().lstrip("r").split("c")
    return (int(row) - 1) * n + int(col) - 1


def marked_grid(n: int = 9, places: dict[int, Sequence[str]] | None = None,
                candidates: dict[str, str] | None = None) -> CandidateGrid:
    """A hand-made pencil-mark state on an empty board of side n, for hand-checked technique positions.

    `places[digit]` is a picture of n strings of n characters: the digit stays a candidate only where the picture
    has a non-'.' character. `candidates["r1c1"]` lists a cell's only candidates (e.g. "127"; digits above 9 are not
    supported here).
    """
    grid = CandidateGrid.from_board(Board.empty(n))
    for digit, picture in (places or {}).items():
        assert len(picture) == n and all(len(line) == n for line in picture), "a picture has n lines of n cells"
        for row, line in enumerate(picture):
            for col, mark in enumerate(line):
                if mark == ".":
                    grid.eliminate(row * n + col, digit)
    for name, digits in (candidates or {}).items():
        cell = cell_index(name, n)
        keep = {int(ch) for ch in digits}
        for digit in range(1, n + 1):
            if digit not in keep:
                grid.eliminate(cell, digit)
    return grid


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
    for line in shared_file("techniques/hodoku_exemplars-1.0.txt").read_text(encoding="utf-8").splitlines():
        puzzle, _, tags = line.partition("#")
        match = re.fullmatch(r"\s*(\w+)\s+([a-z0-9]+)\((\d+)\)\s+(\w+)\s*", tags)
        if puzzle.strip() and match and match.group(2) == tag:
            before, _, amount, after = match.groups()
            found.append(Exemplar(parse_board_text(puzzle.strip()), before, tag, int(amount), after))
    return found


SSTS_NAMES: tuple[str, ...] = (
    "Full House", "Naked Single", "Hidden Single", "Locked Pair", "Locked Triple",
    "Locked Candidates Type 1 (Pointing)", "Locked Candidates Type 2 (Claiming)", "Naked Pair", "Naked Triple",
    "Hidden Pair", "Hidden Triple", "Naked Quadruple", "Hidden Quadruple", "X-Wing", "Swordfish", "Jellyfish",
    "XY-Wing", "Simple Colors Trap", "Simple Colors Wrap", "Multi-Colors 1", "Multi-Colors 2",
)


def ssts_finders() -> list[Finder]:
    """The finders of HoDoKu's 'ssts' set (Simple Sudoku's techniques), easiest first, as the exemplars use it."""
    from ltn_sudoku.techniques import coloring, fish, intersections, singles, subsets, wings

    by_name = {t.name: t.finder for m in (singles, intersections, subsets, fish, wings, coloring) for t in m.TECHNIQUES}
    return [by_name[name] for name in SSTS_NAMES]
