"""A genetic-algorithm Sudoku solver: the second half of the pre-processing study's pipeline (techniques, then a GA).

Not an exact solver: it searches, may fail, and says so. The design is the common one for Sudoku GAs (the study's
too): every individual keeps the givens and holds each row as a permutation of the row's missing digits, so rows are
always right and the fitness counts the conflicts left in columns and boxes (0 = solved). Rows are drawn among the
orders that keep every digit on a candidate the givens leave, and a swap that would break that is not made. A generation keeps an
elite, fills the rest by tournament selection (two entrants), a row-wise uniform crossover (each row from one parent)
and a swap of two open cells of one row, then `climb` rounds of hill climbing (a swap kept when it adds no
conflict: the memetic step that lets a GA finish a grid); after `restart_after` generations without a better best, the whole
population is drawn anew (the usual remedy for a GA stuck in a local minimum; the best grid met is kept aside). Whole populations are numpy arrays, so a
generation costs a few array operations, not a Python loop per individual. The same seed gives the same run.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ltn_sudoku.board import Board, geometry


@dataclass(frozen=True)
class GeneticConfig:
    """The GA's knobs. While tuning, on 20 puzzles (the first 5 of each QQWing level), 3 CPU s each, seed 1: these
    defaults solved 17 (about a second per puzzle); without the climb 0, with it but redrawing only the non-elite 3."""

    population: int = 400
    elite: int = 20  # individuals carried over unchanged
    max_generations: int = 2000
    mutation_rate: float = 0.5  # share of children that get one swap
    restart_after: int = 30  # generations without a better best before the population is drawn anew
    climb: int = 2  # hill-climbing swaps tried on each child per generation (0: a plain GA)
    seed: int = 0

    def __post_init__(self) -> None:
        if self.population < 2 or not 0 <= self.elite < self.population:
            raise ValueError("population must be at least 2 and elite in 0..population-1")
        if self.max_generations < 0 or self.restart_after < 1 or self.climb < 0 or not 0 <= self.mutation_rate <= 1:
            raise ValueError("max_generations >= 0, restart_after >= 1, climb >= 0 and mutation_rate in [0, 1] are "
                             "required")


@dataclass(frozen=True)
class GeneticResult:
    """The best individual met (a full grid that keeps the givens; valid only when `solved`), the generations run,
    its conflicts (equal digits in a column or box: 0 when solved), the restarts and the CPU seconds."""

    board: Board
    solved: bool
    generations: int
    conflicts: int
    restarts: int
    seconds: float
    stopped: str | None = None  # "generations" or "time" when the run ended unsolved


def _conflicts(population: np.ndarray, box_order: np.ndarray) -> np.ndarray:
    """Per individual (rows of `population`, cells row-major): equal neighbours after sorting each column and each
    box, i.e. the digits each of them misses."""
    size, cells = population.shape
    n = int(round(cells ** 0.5))
    columns = np.sort(population.reshape(size, n, n), axis=1)
    boxes = np.sort(population[:, box_order].reshape(size, n, n), axis=2)
    return ((columns[:, 1:, :] == columns[:, :-1, :]).sum(axis=(1, 2))
            + (boxes[:, :, 1:] == boxes[:, :, :-1]).sum(axis=(1, 2)))


ROW_TABLE_CAP = 50_000  # a row with more candidate-consistent orders than this is filled without its candidates


def _row_orders(cells: list[int], digits: list[int], masks: list[int], cap: int) -> np.ndarray | None:
    """Every order of the row's missing `digits` over its open `cells` that puts each digit on one of its
    candidates (masks: bit d-1 = digit d possible), as an (orders, cells) array; None past `cap` orders."""
    found: list[list[int]] = []
    chosen: list[int] = []

    def place(i: int, left: int) -> bool:
        if i == len(cells):
            found.append(list(chosen))
            return len(found) <= cap
        for d in digits:
            if left >> d & 1 and masks[i] >> (d - 1) & 1:
                chosen.append(d)
                more = place(i + 1, left & ~(1 << d))
                chosen.pop()
                if not more:
                    return False
        return True

    complete = place(0, sum(1 << d for d in digits))
    return np.array(found, dtype=np.int16).reshape(len(found), len(cells)) if complete else None


class _Rows:
    """Where each row's open cells are, which digits they miss and, where there are not too many, every order of
    them that respects the candidates the givens leave: what random individuals and swaps are made of."""

    def __init__(self, board: Board) -> None:
        n = board.n
        grid = np.array(board.values, dtype=np.int16).reshape(n, n)
        masks = board.candidate_masks()
        self.n = n
        self.givens = grid.reshape(-1)
        self.open = [np.flatnonzero(grid[r] == 0) + r * n for r in range(n)]  # flat cell indices
        self.missing = [np.setdiff1d(np.arange(1, n + 1), grid[r]).astype(np.int16) for r in range(n)]
        # candidate-consistent orders per row (None: too many, or none at all: that row ignores candidates)
        self.orders = [_row_orders(cells.tolist(), digits.tolist(), [masks[c] for c in cells], ROW_TABLE_CAP)
                       for cells, digits in zip(self.open, self.missing)]
        self.orders = [o if o is not None and len(o) else None for o in self.orders]
        self.candidate = np.zeros((n * n, n + 1), dtype=bool)  # [cell, digit]: a swap may put digit there
        for r, cells in enumerate(self.open):
            for c in cells.tolist():
                allowed = [d for d in range(1, n + 1) if masks[c] >> (d - 1) & 1] if self.orders[r] is not None \
                    else list(range(1, n + 1))
                self.candidate[c, allowed] = True
        self.swappable = np.array([r for r in range(n) if len(self.open[r]) >= 2], dtype=np.int64)
        width = max((len(o) for o in self.open), default=0)
        self.padded = np.zeros((n, max(width, 1)), dtype=np.int64)
        for r, cells in enumerate(self.open):
            self.padded[r, :len(cells)] = cells
        self.widths = np.array([len(o) for o in self.open], dtype=np.int64)

    def random(self, count: int, rng: np.random.Generator) -> np.ndarray:
        population = np.tile(self.givens, (count, 1))
        for cells, digits, orders in zip(self.open, self.missing, self.orders):
            if not len(cells):
                continue
            if orders is not None:
                population[:, cells] = orders[rng.integers(len(orders), size=count)]
            else:
                population[:, cells] = rng.permuted(np.tile(digits, (count, 1)), axis=1)
        return population

    def swap(self, children: np.ndarray, which: np.ndarray, rng: np.random.Generator) -> None:
        """Swap two open cells of one random row in each child of `which` (in place), when both digits stay on
        their candidates."""
        if not len(self.swappable) or not len(which):
            return
        rows = self.swappable[rng.integers(len(self.swappable), size=len(which))]
        width = self.widths[rows]
        first = (rng.random(len(which)) * width).astype(np.int64)
        second = (rng.random(len(which)) * (width - 1)).astype(np.int64)
        second += second >= first
        a, b = self.padded[rows, first], self.padded[rows, second]
        digit_a, digit_b = children[which, a], children[which, b]
        keep = self.candidate[a, digit_b] & self.candidate[b, digit_a]
        which, a, b = which[keep], a[keep], b[keep]
        children[which, a], children[which, b] = digit_b[keep], digit_a[keep]


def solve(board: Board, config: GeneticConfig | None = None, deadline: float | None = None) -> GeneticResult:
    """Run the GA on the board (its givens are kept); `deadline` is a time.process_time() value. Clashing givens
    raise ValueError: no individual could be valid."""
    config = config or GeneticConfig()
    if not board.is_consistent:
        raise ValueError("the givens clash: a genetic algorithm cannot repair them")
    start = time.process_time()
    rng = np.random.default_rng(config.seed)
    rows = _Rows(board)
    g = geometry(board.n)
    box_order = np.array([c for box in g.units[2 * board.n:] for c in box], dtype=np.int64)
    population = rows.random(config.population, rng)
    fitness = _conflicts(population, box_order)
    best, since, restarts, generation = int(fitness.min()), 0, 0, 0
    kept, kept_conflicts = population[int(np.argmin(fitness))].copy(), best  # the best grid of the runs before
    stopped: str | None = None
    children_count = config.population - config.elite
    while best > 0:
        if generation >= config.max_generations:
            stopped = "generations"
            break
        if deadline is not None and time.process_time() > deadline:
            stopped = "time"
            break
        generation += 1
        order = np.argsort(fitness, kind="stable")
        elite = population[order[:config.elite]]
        entrants = rng.integers(config.population, size=(2, children_count, 2))
        parents = np.where(fitness[entrants[..., 0]] <= fitness[entrants[..., 1]], entrants[..., 0], entrants[..., 1])
        take_first = np.repeat(rng.random((children_count, board.n)) < 0.5, board.n, axis=1)
        children = np.where(take_first, population[parents[0]], population[parents[1]])
        rows.swap(children, np.flatnonzero(rng.random(children_count) < config.mutation_rate), rng)
        child_fitness = _conflicts(children, box_order)
        for _ in range(config.climb):  # a swap per child, kept when it does not add conflicts
            trial = children.copy()
            rows.swap(trial, np.arange(children_count), rng)
            trial_fitness = _conflicts(trial, box_order)
            better = trial_fitness <= child_fitness
            children[better], child_fitness[better] = trial[better], trial_fitness[better]
        population = np.concatenate([elite, children])
        fitness = np.concatenate([fitness[order[:config.elite]], child_fitness])
        now = int(fitness.min())
        if now < best:
            best, since = now, 0
        else:
            since += 1
        if since >= config.restart_after and best > 0:  # stuck: a fresh population, the best so far kept aside
            keep = int(np.argmin(fitness))
            if fitness[keep] <= kept_conflicts:
                kept, kept_conflicts = population[keep].copy(), int(fitness[keep])
            population = rows.random(config.population, rng)
            fitness = _conflicts(population, box_order)
            best, since, restarts = int(fitness.min()), 0, restarts + 1
    winner = int(np.argmin(fitness))
    if fitness[winner] <= kept_conflicts:
        kept, kept_conflicts = population[winner], int(fitness[winner])
    return GeneticResult(Board(kept.tolist(), board.n), kept_conflicts == 0, generation, kept_conflicts, restarts,
                         time.process_time() - start, stopped)
