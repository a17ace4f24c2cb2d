"""hasSolution's Platt scaling recovers a known miscalibration and lowers the calibration error it is fitted for."""

from __future__ import annotations

import numpy as np
import torch

from ltn_sudoku.logic.board.metrics import expected_calibration_error
from ltn_sudoku.logic.board.model import HasSolutionNet


def test_platt_scaling_recovers_scale_and_offset_and_lowers_ece() -> None:
    torch.manual_seed(0)
    logits = torch.randn(4000) * 3
    labels = torch.rand(4000) < torch.sigmoid(0.5 * logits - 0.3)  # the truth: overconfident logits, shifted
    net = HasSolutionNet(hidden=4)
    assert torch.equal(net.calibration, torch.tensor([1.0, 0.0]))  # identity until fitted
    before = expected_calibration_error(torch.sigmoid(logits).numpy(), labels.numpy())
    net.fit_calibration(logits, labels)
    scale, offset = net.calibration.tolist()
    assert abs(scale - 0.5) < 0.05 and abs(offset + 0.3) < 0.1
    after = expected_calibration_error(torch.sigmoid(scale * logits + offset).numpy(), labels.numpy())
    assert after < 0.03 < before


def test_has_solution_table_per_givens_bin_beside_the_singles_loop() -> None:
    from ltn_sudoku.logic.board.evaluate import has_solution_by_givens

    truths = np.array([0.9, 0.2, 0.1, 0.8, 0.7, 0.3])
    labels = np.array([1, 1, 0, 0, 1, 0])
    givens = np.array([20, 21, 22, 23, 35, 36])
    refuted = np.array([False, False, True, False, False, True])
    metrics, table = has_solution_by_givens(truths, labels, givens, 0.5, [(17, 23), (30, 40)], refuted)
    # 17-23: the model gets one of two solvable and one of two impossible boards; the loop both solvable, one refuted
    assert metrics["q2_has_solution_givens_17_23/balanced_accuracy"] == 0.5
    assert metrics["q2_has_solution_givens_17_23/singles_balanced_accuracy"] == 0.75
    assert metrics["q2_has_solution_givens_30_40/balanced_accuracy"] == 1.0
    assert metrics["q2_has_solution/balanced_accuracy"] == (2 / 3 + 2 / 3) / 2
    assert list(table.index) == ["17-23", "30-40", "all"] and table.loc["all", "boards"] == 6


def test_singles_silent_summary_gives_no_balanced_accuracy_for_one_class() -> None:
    from ltn_sudoku.logic.board.evaluate import _silent_summary

    key = "q2_has_solution_singles_silent"
    both = {f"{key}/balanced_accuracy": 0.75, f"{key}/accuracy": 0.6, f"{key}/count": 20.0, f"{key}/impossible": 4.0}
    assert _silent_summary(both).startswith("balanced accuracy 0.750")
    only_solvable = {**both, f"{key}/impossible": 0.0}
    assert _silent_summary(only_solvable).startswith("accuracy 0.600 (one class only")
    assert "balanced accuracy 0" not in _silent_summary({**both, f"{key}/impossible": 20.0})
