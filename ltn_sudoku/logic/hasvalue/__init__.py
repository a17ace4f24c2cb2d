"""hasValue(c, v | b): the groundings of the predicate where learning happens, one module each, one interface.

Every grounding is a recurrent network that maps one-hot givens (batch, N, n) to soft assignments after each
refinement step (a list of (batch, N, n) tensors, each cell a distribution over digits), with the givens clamped as
facts (`RecurrentHasValue.forward`). They differ in what a step reads:

| kind              | module              | a step reads                                                          |
|-------------------|---------------------|-----------------------------------------------------------------------|
| `evidence`        | evidence.py         | hand-made evidence: isPossible, a digit's open places per unit, counts |
| `message_passing` | message_passing.py  | the givens, its own hidden state and the previous hasValue, through    |
|                   |                     | learned messages along the fixed peer graph; no hand-made evidence    |

`model.hasvalue` in conf/model/*.yaml picks one from `GROUNDINGS`; checkpoints without the key are `evidence` models.
A new grounding is its own module (a `RecurrentHasValue` with a `DESCRIPTION`) and one line in `GROUNDINGS`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from ltn_sudoku.logic.grounding import Grounding
from ltn_sudoku.logic.hasvalue.base import RecurrentHasValue
from ltn_sudoku.logic.hasvalue.evidence import EvidenceHasValue
from ltn_sudoku.logic.hasvalue.message_passing import MessagePassingHasValue

GROUNDINGS: dict[str, type[RecurrentHasValue]] = {"evidence": EvidenceHasValue,
                                                  "message_passing": MessagePassingHasValue}
HAS_VALUE_KINDS: tuple[str, ...] = tuple(GROUNDINGS)


@dataclass(frozen=True)
class HasValueConfig:
    """Which hasValue grounding, its size and how many refinement steps it runs while training."""

    kind: str = "evidence"
    hidden: int = 64
    layers: int = 2
    steps: int = 24
    message_dim: int = 16  # message passing only

    @classmethod
    def from_cfg(cls, cfg: Mapping[str, Any]) -> HasValueConfig:
        kind = str(cfg.get("hasvalue", "evidence"))
        if kind not in HAS_VALUE_KINDS:
            raise ValueError(f"model.hasvalue={kind!r}: expected one of {', '.join(HAS_VALUE_KINDS)}")
        ints = {k: int(cfg[k]) for k in cls.__dataclass_fields__ if k != "kind" and k in cfg}
        return cls(kind=kind, **ints)


def build_has_value(grounding: Grounding, config: HasValueConfig) -> RecurrentHasValue:
    """The configured grounding of hasValue."""
    return GROUNDINGS[config.kind](grounding, config)


__all__ = ["GROUNDINGS", "HAS_VALUE_KINDS", "HasValueConfig", "RecurrentHasValue", "build_has_value"]
