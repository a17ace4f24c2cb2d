"""The visual LTN: hasValue from the CNN reader, isCorrect(b) from the knowledge base's rule axioms on it.

satisfaction(b) = SatAgg of the rule axioms (ltn_sudoku.logic.kb.axioms.rule_axioms, unchanged, through the `logic`
config's operators) on the soft assignment hasValue(c, v | b) of board b. isCorrect(b) is that satisfaction with a
calibrated threshold: σ(scale · (violation(b) − offset)), where violation(b) = −log10(1 − satisfaction(b)) / 6 tells
0.9999 from 0.99 apart (ltn_sudoku.logic.board.model.violation_scale). The two calibration numbers are the only parameters
beside the reader's; they are learned with it from the labelled axioms ∀b:valid(b) isCorrect(b),
∀b:¬valid(b) ¬isCorrect(b). A board of digits is read off as the most probable digit of every cell.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from ltn_sudoku.logic.checkpoints import LoadedModel, load_kind
from ltn_sudoku.logic.config.vocabulary import VISUAL_AXIOMS  # the rule axioms but givens
from ltn_sudoku.logic.groundings.grounding import Grounding
from ltn_sudoku.logic.groundings.hasvalue import ReaderConfig, build_has_value, grounding_config
from ltn_sudoku.logic.groundings.hasvalue.reader import DigitReader
from ltn_sudoku.logic.groundings.layers import violation_scale
from ltn_sudoku.logic.kb.axioms import board_satisfaction, rule_axioms
from ltn_sudoku.logic.kb.operators import Operators

# The givens axiom is vacuous on a visual board (no cell is given: every digit is read from its image).


@dataclass(frozen=True)
class VisualConfig:
    """The `model` config of a visual model (conf/model/visual_*.yaml)."""

    size: int
    reader: ReaderConfig  # hasValue's grounding (ltn_sudoku.logic.groundings.hasvalue, kind `visual`)
    axioms: tuple[str, ...] = VISUAL_AXIOMS

    @staticmethod
    def from_cfg(cfg: Mapping[str, Any]) -> VisualConfig:
        axioms = tuple(cfg.get("axioms") or VISUAL_AXIOMS)
        unknown = [a for a in axioms if a not in VISUAL_AXIOMS]
        if unknown:
            raise ValueError(f"model.axioms: unknown {unknown}: expected some of {', '.join(VISUAL_AXIOMS)}")
        reader = grounding_config({**cfg, "kind": "visual"})
        assert isinstance(reader, ReaderConfig)
        return VisualConfig(int(cfg["size"]), reader, axioms)


class VisualLtn(nn.Module):
    """hasValue (the CNN reader), the fixed groundings of side n, and isCorrect's calibration."""

    names: torch.Tensor

    def __init__(self, config: VisualConfig) -> None:
        super().__init__()
        self.config = config
        self.n = config.size
        self.grounding = Grounding(config.size)
        self.reader: DigitReader = build_has_value(self.grounding, config.reader)  # type: ignore[assignment]
        self.calibration = nn.Parameter(torch.tensor([2.0, 0.3]))  # (log scale, offset) of isCorrect
        # names[i] = the digit (0-based) that the reader's i-th output is called when a board is read off. The rules
        # cannot tell digits apart, so the learned outputs are digits only up to a renaming; training leaves this the
        # identity, and the visual task sets it after training from the validation boards, for display only (docs/visual.md).
        self.register_buffer("names", torch.arange(config.size), persistent=False)

    def has_value(self, images: torch.Tensor) -> torch.Tensor:
        """(boards, n*n, 28, 28) → (boards, n*n, n) soft assignment."""
        return self.reader(images)

    def satisfaction(self, ops: Operators, assignment: torch.Tensor) -> torch.Tensor:
        """(boards,) SatAgg of the configured rule axioms on each board's assignment."""
        givens = torch.zeros_like(assignment)
        per_board = rule_axioms(self.grounding, ops, assignment, givens)
        return board_satisfaction(ops, per_board, self.config.axioms)

    def is_correct(self, ops: Operators, assignment: torch.Tensor) -> torch.Tensor:
        """(boards,) truth of isCorrect(b): the calibrated satisfaction."""
        log_scale, offset = self.calibration
        return torch.sigmoid(torch.exp(log_scale) * (violation_scale(self.satisfaction(ops, assignment)) - offset))

    @torch.no_grad()
    def read(self, images: torch.Tensor, batch: int = 256) -> torch.Tensor:
        """(boards, n*n) digits 1..n: each cell's most probable digit, under `names`."""
        return self.names[self.read_raw(images, batch) - 1] + 1

    @torch.no_grad()
    def read_raw(self, images: torch.Tensor, batch: int = 256) -> torch.Tensor:
        """(boards, n*n) the reader's own digit names 1..n (no renaming)."""
        return torch.cat([self.has_value(images[i:i + batch]).argmax(-1) + 1
                          for i in range(0, len(images), batch)]) \
            if len(images) else torch.zeros(0, self.n ** 2, dtype=torch.long, device=self.names.device)


def build_visual_model(payload: dict[str, Any]) -> VisualLtn:
    """A visual model from a checkpoint's payload: its weights and, when best.pt holds them, its digits' names (the
    visual row of logic/kinds.py: KINDS)."""
    model = VisualLtn(VisualConfig.from_cfg(payload["config"]["model"]))
    model.load_state_dict(payload["state_dict"])
    if "digit_names" in payload["extra"]:
        model.names.copy_(torch.as_tensor(payload["extra"]["digit_names"]))  # host: copied into the buffer
    return model


def load_visual_model(path: str | os.PathLike[str], size: int | None = None,
                      device: str | torch.device = "cpu") -> LoadedModel:
    """A visual checkpoint's model (eval mode, on `device`), its operators and payload. CheckpointError when the
    file is missing, damaged, for another size, a board model's, or made for other code."""
    return load_kind(path, "visual", build_visual_model, size, device)
