"""The soundness oracle of the technique finders: the exact solution is the truth every step is checked against.

- `assert_sound(grid, steps, solution)`: every placement agrees with the solution, no elimination removes it;
- `run_pure(grid, finder)`: the finder only reads the grid;
- `states_from_puzzle(...)`: diverse candidate grids of a puzzle (random extra solution cells placed);
- `walk_sound(...)` / `sweep_sound(...)`: apply steps along a solving walk, or sweep many grids, checking every step;
- `sample_puzzles(...)`: puzzles of the public files the oracle runs on (data home, else the shipped copy).
The tests (tests/test_tech_*.py) and the benchmark (scripts/bench_techniques.py) both run it. A violation raises
UnsoundStep, an AssertionError, so pytest reports it as a failed check.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Iterable, Sequence

from ltn_sudoku.board import Board
from ltn_sudoku.candidates import CandidateGrid, Step
from ltn_sudoku.exact import solve
from ltn_sudoku.io import read_boards
from ltn_sudoku.paths import data_file
from ltn_sudoku.techniques import singles
from ltn_sudoku.techniques.base import Finder

SINGLES: list[Finder] = [t.finder for t in singles.TECHNIQUES]  # the finders every solving walk starts from


class UnsoundStep(AssertionError):
    """A finder broke its contract: a step that loses the solution or does nothing, or a finder that wrote the grid."""


def assert_sound(grid: CandidateGrid, steps: Iterable[Step], solution: Board, context: str = "") -> int:
    """Fail with a readable message on the first unsound effect; return how many steps were checked."""
    checked = 0
    for step in steps:
        for cell, digit in step.placements:
            if solution.values[cell] != digit:
                raise UnsoundStep(f"unsound placement {grid.geo.cell_name(cell)}={digit} (solution "
                                  f"{solution.values[cell]}) by '{step.text}' {context}\n{grid.pencil_marks()}")
        for cell, digit in step.eliminations:
            if solution.values[cell] == digit:
                raise UnsoundStep(f"unsound elimination {grid.geo.cell_name(cell)}<>{digit} by '{step.text}' "
                                  f"{context}\n{grid.pencil_marks()}")
        if not step.progress:
            raise UnsoundStep(f"step without effect: {step.text}")
        checked += 1
    return checked


def sample_puzzles(relative: str, count: int | None = None, seed: int = 0) -> list[Board]:
    """Puzzles of a public file (paths.data_file: the data home, else the same file shipped in data/); a random
    sample of `count` when given, reproducible."""
    boards = read_boards(data_file(relative))
    if count is not None and count < len(boards):
        boards = random.Random(seed).sample(boards, count)
    return boards


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
    if solution is None:
        raise ValueError(f"walk_sound needs a solvable puzzle: {puzzle.to_line()} has no solution")
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
    if (grid.values, grid.masks, grid.digit_cells) != before:
        raise UnsoundStep(f"{finder.__name__} mutated the grid")
    return steps
