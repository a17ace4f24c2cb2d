"""Q1 by reasoning over a reader's digits: the most likely valid grid (MAP decoding) and a calibrated margin.

Board accuracy from "read every cell, then check exactly" is capped by the reader: one misread cell makes a valid
board look invalid. Decoding instead asks how much less likely the best *valid* grid is than the reading itself.
Given a board's per-cell digit probabilities p (n*n, n), read independently, and the Sudoku rules as hard
constraints, the MAP grid g* maximises Σ_c log p(c, g_c) over valid grids g. The margin

    margin = log P(g*) − log P(argmax reading) ≤ 0

is 0 when the reading is itself valid and very negative when every valid grid needs confidently read cells changed.
A board is called valid iff margin ≥ −τ, with τ calibrated on validation boards' labels (`calibrate_tau`: the prior
log-odds of a logistic model in the margin).

The MAP is computed exactly by python-sat's RC2 (core-guided weighted MaxSAT): hard clauses are the Sudoku rules of
ltn_sudoku.cnf.rule_clauses on an empty board; soft unit clauses ¬x(c, v), one per digit v that is not cell c's
most probable, weigh round(SCALE · (log p(c, argmax) − log p(c, v))): a grid pays, for each cell, the log-likelihood
it gives up there, so the MaxSAT cost is (−margin) in units of 1/SCALE nat (rounding can cost the optimum at most
n*n / SCALE nats). Probabilities are clipped at CLIP, so one confidently read cell costs at most about 27.6
nats to change. Core-guided search raises a lower bound on the cost; beyond BOUND nats (several confidently read
cells changed, as a blocks-only Latin square needs) it is stopped and the board has no valid grid within the bound
(margin −inf, no grid): τ is never calibrated that far, so the verdict is exact; without the bound a few such 9x9
boards took RC2 minutes. A board still unsolved after TIME_LIMIT seconds (seen only with near-uniform readings of
an untrained reader) gets no grid and margin −inf and is counted (`timed_out`). No cell is fixed beforehand: every
digit of every cell stays available to the solver.
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from pysat.examples.rc2 import RC2
from pysat.formula import WCNF

from ltn_sudoku.board import Board
from ltn_sudoku.cnf import decode_variable, rule_clauses, variable
from ltn_sudoku.logic.visual.evaluate import BoardScores

# probabilities below this count as this: a confident reading costs at most -log(CLIP) ≈ 27.6 nats to change. At 1e-6
# (13.8 nats) a confidently read changed digit cost at most 13.8 nats, just under the 9x9 τ: two thirds of the 9x9
# errors were boards with one changed digit called valid. On ten kept 9x9 readers 1e-12 gave 95.6 against 93.6 %
# (docs/visual.md, "The clip").
CLIP = 1e-12
SCALE = 100  # MaxSAT weights in 1/100 nat (1/1000 made near-uniform readings take RC2 seconds: more distinct weights)
BOUND = 60.0  # nats: a board whose best valid grid is further from its reading has none "within the bound"
TIME_LIMIT = 1.0  # CPU seconds per board: a near-uniform 9x9 reading (an untrained reader) can take RC2 minutes
GRAIN = 0.1  # nats: model selection compares distances at this grain (a likelihood factor of 1.1)
SLOPE = 1.0  # nats: the calibration's logistic slope (a calibrated reader's log-likelihood ratio has slope 1)


@dataclass(frozen=True)
class Decoding:
    """The most likely valid grid of one board's readings (None beyond the bound) and the two log-likelihoods."""

    grid: np.ndarray | None  # (n*n,) digits 1..n, in the reader's own digit names
    log_likelihood: float  # log P(grid) under the clipped readings; -inf when no valid grid is within the bound
    reading_log_likelihood: float  # log P(argmax reading)
    timed_out: bool = False  # RC2 ran past TIME_LIMIT: no grid, margin −inf (the verdict "invalid" is then a guess)

    @property
    def margin(self) -> float:
        """log P(best valid grid) − log P(reading): 0 when the reading is valid, −inf beyond the bound."""
        return self.log_likelihood - self.reading_log_likelihood

    def valid(self, tau: float) -> bool:
        """The decoded Q1 verdict at threshold τ."""
        return self.margin >= -tau


class _OverBound(Exception):
    """RC2's lower bound on the cost passed the bound."""


class _OutOfTime(Exception):
    """RC2 ran past the time limit."""


class _BoundedRC2(RC2):
    """RC2 that stops once its lower bound (the cost of the cores found so far) exceeds `bound`, or its time is up."""

    def __init__(self, formula: WCNF, bound: float, deadline: float) -> None:
        super().__init__(formula, solver="g3")
        self.bound, self.deadline = bound, deadline

    def get_core(self) -> None:
        if self.cost > self.bound:
            raise _OverBound
        if time.process_time() > self.deadline:  # CPU time: the same verdict on a loaded machine
            raise _OutOfTime
        super().get_core()


@functools.lru_cache(maxsize=4)
def _hard_clauses(n: int) -> list[list[int]]:
    """The Sudoku rules of side n on an empty board (ltn_sudoku.cnf); built once, never modified."""
    return rule_clauses(Board([0] * (n * n), n))


def _formula(n: int, excluded: list[list[int]]) -> WCNF:
    """A fresh WCNF: the cached rules and the `excluded` unit clauses as its hard part (a new list of the same clause
    lists: RC2 without preprocessing only reads formula.hard; building ~12k clauses per board took longer than
    solving it)."""
    formula = WCNF()
    formula.hard = _hard_clauses(n) + excluded
    formula.nv = n ** 3
    return formula


def _within(n: int, loss: np.ndarray, limit: float, time_limit: float) -> list[int] | None:
    """RC2's model of the MAP grid if its cost is at most `limit` (in 1/SCALE nat), else None.

    Only grids of cost ≤ limit are asked for, so a digit whose own loss exceeds the limit is excluded by a hard unit
    clause (exact: a grid using it costs more than the limit). Asking for 2, 8, 32 nats in turn, so that a tight
    limit would fix most cells, was tried and was slower: each call pays the solver's set-up again."""
    cells, digits = np.nonzero(loss > 0)
    costs = loss[cells, digits]
    literals = [-variable(n, int(c), int(d) + 1) for c, d in zip(cells, digits)]
    formula = _formula(n, [[lit] for lit, cost in zip(literals, costs) if cost > limit])
    for lit, cost in zip(literals, costs):
        if cost <= limit:
            formula.append([lit], weight=int(cost))
    solver = _BoundedRC2(formula, limit, time.process_time() + time_limit)
    try:
        model = solver.compute()
    except _OverBound:
        return None
    finally:
        solver.delete()
    return model if model is not None and solver.cost <= limit else None


def decode(probs: np.ndarray, bound: float = BOUND, time_limit: float = TIME_LIMIT, clip: float = CLIP) -> Decoding:
    """MAP decoding of one board: probs (n*n, n), row-major cells, column v-1 = P(digit v), clipped at `clip`."""
    cells, n = probs.shape
    if cells != n * n:
        raise ValueError(f"probabilities of shape {probs.shape}: expected (n*n, n)")
    logp = np.log(np.clip(probs.astype(np.float64), clip, 1.0))
    reading = logp.argmax(axis=1)
    reading_ll = float(logp[np.arange(cells), reading].sum())
    if Board((reading + 1).tolist(), n).is_valid_solution:
        return Decoding(reading + 1, reading_ll, reading_ll)
    loss = np.rint(SCALE * (logp[np.arange(cells), reading][:, None] - logp)).astype(np.int64)
    try:
        model = _within(n, loss, bound * SCALE, time_limit)
    except _OutOfTime:
        return Decoding(None, -math.inf, reading_ll, timed_out=True)
    if model is None:
        return Decoding(None, -math.inf, reading_ll)
    grid = np.zeros(cells, dtype=np.int64)
    for lit in model:
        if lit > 0:
            cell, digit = decode_variable(n, lit)
            grid[cell] = digit
    return Decoding(grid, float(logp[np.arange(cells), grid - 1].sum()), reading_ll)


def decode_boards(probs: np.ndarray, bound: float = BOUND, time_limit: float = TIME_LIMIT, clip: float = CLIP
                  ) -> list[Decoding]:
    """MAP decoding of every board of probs (boards, n*n, n)."""
    return [decode(p, bound, time_limit, clip) for p in probs]


def margins(decodings: Sequence[Decoding]) -> np.ndarray:
    """(boards,) the decodings' margins (≤ 0, −inf beyond the bound)."""
    return np.array([d.margin for d in decodings], dtype=np.float64)


def calibrate_tau(margin: np.ndarray, valid: np.ndarray, bound: float = BOUND, slope: float = SLOPE) -> float:
    """τ fitted on labelled boards (board labels only): the maximum-likelihood τ of P(valid | d) = σ((τ − d) / slope),
    d = −margin the board's distance from a valid grid in nats.

    Were the reader's probabilities calibrated, −d would be the log-likelihood ratio of the best valid explanation
    against the reading, and the posterior log-odds of "valid" would be τ − d with τ the prior log-odds: a logistic
    model with slope 1 nat and one free number. Fitting that number uses every board, weighted by how close it comes
    to the boundary, where the threshold of best accuracy rests on the one or two extreme boards of a small validation
    set: on 15 trained 4x4 readers it gained 0.2-0.3 points of held-out board accuracy on average (docs/visual.md).
    Boards beyond the bound are left out (no τ below the bound accepts them). The log-likelihood is concave in τ, so
    its derivative is bisected on [0, bound]."""
    distance = -np.asarray(margin, dtype=np.float64)
    valid = np.asarray(valid, dtype=bool)
    keep = np.isfinite(distance) & (distance < bound)
    distance, valid = np.maximum(distance[keep], 0.0), valid[keep]
    if not valid.any():
        return 0.0
    if valid.all():
        return float(bound)

    def slope_of_likelihood(tau: float) -> float:  # decreasing in τ: valid boards pull τ up, invalid ones down
        z = (tau - distance) / slope
        return float(np.sum(np.where(valid, 1 / (1 + np.exp(np.clip(z, -50, 50))),
                                     -1 / (1 + np.exp(np.clip(-z, -50, 50))))))

    low, high = 0.0, float(bound)
    if slope_of_likelihood(low) <= 0:
        return low
    for _ in range(60):
        mid = (low + high) / 2
        low, high = (mid, high) if slope_of_likelihood(mid) > 0 else (low, mid)
    return (low + high) / 2


def calibration_log_likelihood(margin: np.ndarray, valid: np.ndarray, tau: float, bound: float = BOUND,
                                slope: float = SLOPE) -> float:
    """The log-likelihood of the labels under `calibrate_tau`'s model P(valid | d) = σ((τ − d) / slope), a board
    beyond the bound counted at d = bound (its distance is at least that). How well a decoding's distances explain
    the labels: it compares decodings (e.g. clips) on the same validation boards."""
    distance = np.clip(-np.asarray(margin, dtype=np.float64), 0.0, bound)
    z = (tau - distance) / slope
    return float(np.where(np.asarray(valid, dtype=bool), -np.logaddexp(0.0, -z), -np.logaddexp(0.0, z)).sum())


def best_threshold_accuracy(margin: np.ndarray, valid: np.ndarray, bound: float = BOUND) -> float:
    """The best board accuracy of 'valid iff margin ≥ −τ' over every τ below the bound: how well the readings'
    margins separate these boards' labels (model selection; the decision itself uses `calibrate_tau`)."""
    distance = np.maximum(np.round(-np.asarray(margin, dtype=np.float64) / GRAIN) * GRAIN, 0.0)
    valid = np.asarray(valid, dtype=bool)
    candidates = np.union1d([0.0], distance[np.isfinite(distance) & (distance < bound)])
    return float(max(((distance <= t) == valid).mean() for t in candidates))


def map_decoding_metrics(val_probs: np.ndarray, val_valid: np.ndarray, test_probs: np.ndarray,
                         test_valid: np.ndarray, prefix: str = "test/map_decoding", time_limit: float = TIME_LIMIT
                         ) -> dict[str, float]:
    """Q1 by MAP decoding of a reader's probabilities (boards, n*n, n): τ calibrated on the validation boards' labels,
    then the held-out boards' accuracy, the calibrated τ, the shares of boards beyond the bound and timed out, and
    the CPU milliseconds of decoding per held-out board."""
    tau = calibrate_tau(margins(decode_boards(val_probs, time_limit=time_limit)), val_valid)
    start = time.process_time()  # CPU time: on a shared machine wall time measures the neighbours
    decoded = decode_boards(test_probs, time_limit=time_limit)
    test = margins(decoded)
    seconds = time.process_time() - start
    return {**BoardScores.of(test >= -tau, test_valid).as_dict(prefix), f"{prefix}/tau": tau,
            f"{prefix}/beyond_bound": float(np.mean([d.grid is None and not d.timed_out for d in decoded])),
            f"{prefix}/timed_out": float(np.mean([d.timed_out for d in decoded])),
            f"{prefix}/ms_per_board": 1000 * seconds / max(1, len(test))}
