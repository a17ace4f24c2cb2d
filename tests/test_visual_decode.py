"""MAP decoding of readings (ltn_sudoku.logic.visual.decode) against truth: brute force over all 288 valid 4x4 grids, an
independent MILP solver (scipy's HiGHS) on 9x9, and the board module's exact validity check."""

from __future__ import annotations

import math
import time
from itertools import permutations

import numpy as np
import pytest
from scipy.optimize import Bounds, LinearConstraint, milp

from ltn_sudoku.board import Board, geometry
from ltn_sudoku.generate import generate
from ltn_sudoku.logic.visual.decode import (
    BOUND,
    CLIP,
    SCALE,
    best_threshold_accuracy,
    calibrate_tau,
    calibration_log_likelihood,
    decode,
)


def all_valid_4x4() -> np.ndarray:
    """(288, 16) every valid 4x4 grid: rows drawn from the 24 permutations, kept when the board module says valid."""
    rows = list(permutations(range(1, 5)))
    grids = []

    def extend(prefix: list[tuple[int, ...]]) -> None:
        if len(prefix) == 4:
            grid = [d for row in prefix for d in row]
            if Board(grid, 4).is_valid_solution:
                grids.append(grid)
            return
        for row in rows:
            if all(row[c] != other[c] for other in prefix for c in range(4)):  # columns only: prune, blocks checked
                extend([*prefix, row])

    extend([])
    return np.array(grids)


GRIDS_4 = all_valid_4x4()


def log_likelihood(probs: np.ndarray, grid: np.ndarray) -> float:
    return float(np.log(np.clip(probs, CLIP, 1))[np.arange(len(grid)), grid - 1].sum())


def noisy_reading(truth: np.ndarray, n: int, rng: np.random.Generator, misread: float, sharp: float) -> np.ndarray:
    """Probabilities of a reader that puts most mass on the true digit, or on a random one for a misread cell."""
    read = np.where(rng.random(len(truth)) < misread, rng.integers(1, n + 1, len(truth)), truth)
    logits = rng.normal(0, 1, (len(truth), n))
    logits[np.arange(len(truth)), read - 1] += sharp
    probs = np.exp(logits)
    return probs / probs.sum(axis=1, keepdims=True)


def test_there_are_288_valid_4x4_grids() -> None:
    assert len(GRIDS_4) == 288 and len({tuple(g) for g in GRIDS_4}) == 288


@pytest.mark.parametrize("concentration", [0.1, 0.5, 1.0])
def test_maxsat_map_equals_brute_force_on_4x4(concentration: float) -> None:
    rng = np.random.default_rng(int(concentration * 10))
    for _ in range(12):
        probs = rng.dirichlet(np.full(4, concentration), size=16)
        decoded = decode(probs, bound=math.inf, time_limit=math.inf)
        scores = np.array([log_likelihood(probs, g) for g in GRIDS_4])
        assert decoded.grid is not None and Board(decoded.grid.tolist(), 4).is_valid_solution
        assert decoded.log_likelihood == pytest.approx(log_likelihood(probs, decoded.grid))
        # integer weights (1/SCALE nat) can cost at most one grain per cell against the float optimum
        assert decoded.log_likelihood >= scores.max() - 16 / SCALE - 1e-9
        assert decoded.reading_log_likelihood == pytest.approx(np.log(np.clip(probs, CLIP, 1)).max(axis=1).sum())


def test_bound_reports_only_boards_beyond_it() -> None:
    rng = np.random.default_rng(7)
    seen = {"within": 0, "beyond": 0}
    for _ in range(40):  # readings of a valid grid with many cells misread, some confidently
        probs = noisy_reading(GRIDS_4[rng.integers(288)], 4, rng, misread=0.3, sharp=rng.uniform(2, 8))
        best = max(log_likelihood(probs, g) for g in GRIDS_4)
        reading = np.log(np.clip(probs, CLIP, 1)).max(axis=1).sum()
        decoded = decode(probs, bound=20.0)
        if best - reading < -20.0 - 16 / SCALE:
            assert decoded.grid is None and decoded.margin == -math.inf
            seen["beyond"] += 1
        elif best - reading > -20.0 + 16 / SCALE:
            assert decoded.grid is not None and decoded.log_likelihood >= best - 16 / SCALE - 1e-9
            seen["within"] += 1
    assert seen["within"] > 0 and seen["beyond"] > 0


@pytest.mark.parametrize("n", [4, 9])
def test_confident_reading_of_a_valid_grid_decodes_to_itself(n: int) -> None:
    truth = np.array(generate(n, "closed_valid", 1, 3)[0].board.values)
    probs = np.full((n * n, n), 0.01 / (n - 1))
    probs[np.arange(n * n), truth - 1] = 0.99
    decoded = decode(probs)
    assert decoded.grid is not None and (decoded.grid == truth).all() and decoded.margin == 0.0
    probs[5] = 0.5 / (n - 2)  # one cell misread, unsure: 0.4 on its true digit, 0.6 on another
    probs[5, truth[5] - 1], probs[5, truth[5] % n] = 0.4, 0.6
    decoded = decode(probs)
    assert decoded.grid is not None and (decoded.grid == truth).all()
    assert decoded.margin == pytest.approx(math.log(0.4 / 0.6)) and decoded.valid(1.0) and not decoded.valid(0.1)


@pytest.mark.parametrize("n", [4, 9])
def test_a_confidently_read_clash_is_not_repaired(n: int) -> None:
    grid = np.array(generate(n, "closed_valid", 1, 5)[0].board.values)
    grid[0] = grid[0] % n + 1  # one changed digit: a clash in its row, column and block
    assert not Board(grid.tolist(), n).is_valid_solution
    probs = np.full((n * n, n), 1e-4 / (n - 1))
    probs[np.arange(n * n), grid - 1] = 1 - 1e-4
    decoded = decode(probs)
    assert decoded.margin <= -math.log((1 - 1e-4) / (1e-4 / (n - 1))) + 1e-6  # at least one sure cell must change
    assert not decoded.valid(5.0)  # a τ that accepts a board with one unsure cell (docs/visual.md: 4x4 τ ≈ 13.7)
    assert decoded.grid is None or Board(decoded.grid.tolist(), n).is_valid_solution


def milp_best(probs: np.ndarray, n: int) -> float:
    """log P of the most likely valid grid by scipy's MILP (HiGHS): x[c, v] binary, each cell one digit, each unit
    each digit once."""
    g = geometry(n)
    cost = -np.log(np.clip(probs, CLIP, 1)).reshape(-1)
    rows = []
    for c in range(n * n):
        row = np.zeros(n ** 3)
        row[c * n:(c + 1) * n] = 1
        rows.append(row)
    for unit in g.units:
        for v in range(n):
            row = np.zeros(n ** 3)
            row[[c * n + v for c in unit]] = 1
            rows.append(row)
    result = milp(cost, constraints=LinearConstraint(np.array(rows), 1, 1), integrality=np.ones(n ** 3),
                  bounds=Bounds(0, 1))
    assert result.success
    return -float(result.fun)


def test_9x9_decoding_is_optimal_valid_and_fast() -> None:
    """Against HiGHS on noisy readings of valid grids (the 9x9 reader's kind of mistakes); decoding time measured."""
    rng = np.random.default_rng(11)
    records = generate(9, "closed_valid", 8, 21)
    times = []
    for record in records:
        probs = noisy_reading(np.array(record.board.values), 9, rng, misread=0.04, sharp=6.0)
        start = time.process_time()  # CPU time: wall time on a loaded machine measures the neighbours
        decoded = decode(probs, bound=math.inf, time_limit=math.inf)
        times.append(time.process_time() - start)
        assert decoded.grid is not None and Board(decoded.grid.tolist(), 9).is_valid_solution
        assert decoded.log_likelihood == pytest.approx(log_likelihood(probs, decoded.grid))
        assert decoded.log_likelihood >= milp_best(probs, 9) - 81 / SCALE - 1e-9
    assert np.median(times) < 0.5  # trained readers' boards: about 20 ms CPU (docs/visual.md); these noisier more


def test_calibrate_tau_is_the_logistic_maximum_likelihood() -> None:
    # one valid board at distance 0 and one invalid at 2: by symmetry the likelihood peaks halfway
    assert calibrate_tau(-np.array([0.0, 2.0]), np.array([True, False])) == pytest.approx(1.0, abs=1e-6)
    # valid boards at 0 and 1 and invalid ones at 5 and 6: the sum of σ's balances at 3 (again by symmetry)
    assert calibrate_tau(-np.array([0.0, 1.0, 5.0, 6.0]), np.array([True, True, False, False])) == pytest.approx(
        3.0, abs=1e-6)
    # more valid boards near the boundary pull τ up, more invalid ones pull it down
    base = calibrate_tau(-np.array([0.0, 2.0, 8.0]), np.array([True, True, False]))
    assert calibrate_tau(-np.array([0.0, 2.0, 3.0, 8.0]), np.array([True, True, True, False])) > base
    assert calibrate_tau(-np.array([0.0, 2.0, 6.0, 8.0]), np.array([True, True, False, False])) < base


def test_calibrate_tau_edges() -> None:
    separable = -np.array([0.0, 0.0, 1.0, 2.0, 5.0, 6.0, math.inf])
    valid = np.array([True, True, True, True, False, False, False])
    tau = calibrate_tau(separable, valid)
    assert 2.0 < tau < 5.0 and (((-separable) <= tau) == valid).all()
    assert calibrate_tau(-np.array([0.0, 70.0]), np.array([True, True])) == BOUND  # no invalid board: accept all
    assert calibrate_tau(-np.array([1.0, 3.0]), np.array([False, False])) == 0.0  # no valid board: the readings only
    # boards beyond the bound say nothing about τ: no τ below it accepts them
    assert calibrate_tau(-np.array([0.0, 2.0, math.inf, 70.0]), np.array([True, False, True, True])) == pytest.approx(
        1.0, abs=1e-6)


def test_calibration_log_likelihood_peaks_at_the_fitted_tau() -> None:
    margin, valid = -np.array([0.0, 0.5, 3.0, 4.0, 7.0, 9.0]), np.array([True, True, True, False, True, False])
    tau = calibrate_tau(margin, valid)
    best = calibration_log_likelihood(margin, valid, tau)
    assert best > calibration_log_likelihood(margin, valid, tau - 0.3)
    assert best > calibration_log_likelihood(margin, valid, tau + 0.3)
    # closed form: one valid board at distance 0 and τ = 0 → log σ(0) = −log 2
    assert calibration_log_likelihood(np.array([0.0]), np.array([True]), 0.0) == pytest.approx(-math.log(2))
    # a valid board beyond the bound counts at the bound (finite), an invalid one there costs almost nothing
    assert calibration_log_likelihood(np.array([-math.inf]), np.array([True]), 10.0) == pytest.approx(
        -math.log1p(math.exp(BOUND - 10.0)))
    assert calibration_log_likelihood(np.array([-math.inf]), np.array([False]), 10.0) > -1e-20


@pytest.mark.parametrize("clip", [1e-6, 1e-12])
def test_a_confident_misreading_costs_its_log_likelihood_down_to_the_clip(clip: float) -> None:
    """A valid 4x4 grid read confidently except one cell, whose true digit gets probability 1e-9 (read as another
    digit at 1 - 1e-9): the best valid grid is the truth, min(20.7 nats, −log clip) away."""
    truth = GRIDS_4[17]
    probs = np.full((16, 4), 1e-15)
    probs[np.arange(16), truth - 1] = 1.0
    wrong = truth[5] % 4  # another digit's column
    probs[5] = 1e-15
    probs[5, wrong], probs[5, truth[5] - 1] = 1 - 1e-9, 1e-9
    decoded = decode(probs, clip=clip)
    assert np.array_equal(decoded.grid, truth)
    assert decoded.margin == pytest.approx(-min(-math.log(1e-9), -math.log(clip)), abs=0.02)


def test_best_threshold_accuracy() -> None:
    assert best_threshold_accuracy(-np.array([0.0, 1.0, 5.0, math.inf]), np.array([True, True, False, False])) == 1.0
    # one valid board among the far ones: accepting it would accept two invalid ones
    assert best_threshold_accuracy(-np.array([0.0, 3.0, 4.0, 4.5]), np.array([True, False, False, True])) == 0.75
