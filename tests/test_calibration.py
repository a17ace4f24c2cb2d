"""hasSolution's Platt scaling recovers a known miscalibration and lowers the calibration error it is fitted for."""

from __future__ import annotations

import torch

from ltn_sudoku.logic.metrics import expected_calibration_error
from ltn_sudoku.logic.model import HasSolutionNet


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
