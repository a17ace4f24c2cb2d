"""hasValue(c, v | b): the groundings of the predicate where learning happens, one module each, one registry.

Every grounding maps what a board shows to a soft assignment (each cell a distribution over digits), is built as
`GROUNDINGS[name].build(grounding, config)` from its own config dataclass, and says in a `DESCRIPTION` what it reads
(metrics.json's `inputs`):

| grounding         | module              | config                 | reads                                           |
|-------------------|---------------------|------------------------|-------------------------------------------------|
| `evidence`        | evidence.py         | `RecurrentConfig`      | one-hot givens; a step reads hand-made evidence: |
|                   |                     |                        | isPossible, a digit's open places per unit, counts |
| `message_passing` | message_passing.py  | `MessagePassingConfig` | one-hot givens; a step reads its own state and the |
|                   |                     |                        | previous hasValue through learned messages along |
|                   |                     |                        | the fixed peer graph; no hand-made evidence     |
| `visual`          | reader.py           | `ReaderConfig`         | each cell's MNIST image (a CNN digit reader)    |

The two board groundings are recurrent (`RecurrentHasValue`: refinement steps, givens clamped, an assignment per
step); the reader answers in one pass. `model.hasvalue` in conf/model/*.yaml picks a board grounding (checkpoints
without the key are `evidence` models); a `model.kind: visual` config is the `visual` grounding. The registry picks
the config dataclass, which reads its fields from the model config (the flat `model` node every checkpoint stores).
Each config is declared once, its fields with their rules, in ltn_sudoku/logic/config/groundings.py (torch-free, so
that checking a config loads no network); the schema (ltn_sudoku/logic/config/schema.py) makes every board grounding's
model schema from it. A new grounding is its own module (network, DESCRIPTION), its config dataclass, one entry in
`GROUNDINGS` and its conf/model/*.yaml.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from torch import nn

from ltn_sudoku.logic.config.groundings import GroundingConfig, MessagePassingConfig, ReaderConfig, RecurrentConfig
from ltn_sudoku.logic.groundings.grounding import Grounding
from ltn_sudoku.logic.groundings.hasvalue.base import RecurrentHasValue
from ltn_sudoku.logic.groundings.hasvalue.evidence import EvidenceHasValue
from ltn_sudoku.logic.groundings.hasvalue.message_passing import MessagePassingHasValue
from ltn_sudoku.logic.groundings.hasvalue.reader import DigitReader


@dataclass(frozen=True)
class GroundingEntry:
    """One registry entry: the config dataclass, how to build the network from it, and what it reads."""

    config: type[GroundingConfig]
    build: Callable[[Grounding, Any], nn.Module]
    description: str
    reads: str = "givens"  # what a board shows it: "givens" (a board model's grounding) or "images" (a visual one)


def _reader(grounding: Grounding, config: ReaderConfig) -> DigitReader:
    return DigitReader(grounding.n, config.channels, config.hidden, config.pool)


GROUNDINGS: dict[str, GroundingEntry] = {
    "evidence": GroundingEntry(RecurrentConfig, EvidenceHasValue, EvidenceHasValue.DESCRIPTION),
    "message_passing": GroundingEntry(MessagePassingConfig, MessagePassingHasValue, MessagePassingHasValue.DESCRIPTION),
    "visual": GroundingEntry(ReaderConfig, _reader, DigitReader.DESCRIPTION, reads="images"),
}


def grounding_name(cfg: Mapping[str, Any]) -> str:
    """The grounding a model config names: `model.kind: visual`, else `model.hasvalue` (absent: evidence)."""
    return "visual" if cfg.get("kind") == "visual" else str(cfg.get("hasvalue", "evidence"))


def grounding_config(cfg: Mapping[str, Any]) -> GroundingConfig:
    """The grounding's own config from a model config (composed, or a checkpoint's flat `model` node)."""
    name = grounding_name(cfg)
    if name not in GROUNDINGS:
        raise ValueError(f"model.hasvalue={name!r}: expected one of {', '.join(GROUNDINGS)}")
    return GROUNDINGS[name].config.from_cfg(name, cfg)


def build_has_value(grounding: Grounding, config: GroundingConfig) -> nn.Module:
    """The configured grounding of hasValue."""
    return GROUNDINGS[config.grounding].build(grounding, config)


__all__ = ["GROUNDINGS", "GroundingConfig", "GroundingEntry", "MessagePassingConfig", "ReaderConfig",
           "RecurrentConfig", "RecurrentHasValue", "build_has_value", "grounding_config", "grounding_name"]
