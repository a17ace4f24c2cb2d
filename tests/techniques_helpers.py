"""Test-only fixtures for the technique finders: corpora of (puzzle, solution) pairs and hand-drawn pencil-mark
grids. The soundness oracle itself (assert_sound, walk_sound, ...) is ltn_sudoku.techniques.soundness, which the
benchmark scripts run too.
"""

from __future__ import annotations

import random
from typing import Sequence

from ltn_sudoku.board import Board
from ltn_sudoku.candidates import CandidateGrid
from ltn_sudoku.exact import count_solutions, solve
from ltn_sudoku.techniques.soundness import sample_puzzles


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


def mixed_corpus(per_file: int, generated: dict[int, int], seed: int = 0,
                 files: Sequence[str] = ("9x9/top1465.txt", "9x9/qqwing_expert.txt")) -> list[tuple[Board, Board]]:
    """(puzzle, solution) pairs: `per_file` puzzles sampled from each public file shipped in data/ plus `generated[n]` random unique
    puzzles of side n (e.g. {4: 20, 16: 4}), all reproducible from `seed`."""
    pairs: list[tuple[Board, Board]] = []
    for name in files:
        for puzzle in sample_puzzles(name, per_file, seed):
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
