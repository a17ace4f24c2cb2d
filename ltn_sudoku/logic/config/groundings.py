"""Each hasValue grounding's own config (ltn_sudoku/logic/groundings/hasvalue/, the networks), declared once with
each field's rule: the fields a grounding reads from the flat `model` config node. The schema (schema.py) makes every
model schema from these classes, and the registry (`GROUNDINGS`, hasvalue/__init__.py) builds each network from its
config. Here, not beside the networks, so that the schema imports no torch.

| grounding         | config                 | network                                            |
|-------------------|------------------------|----------------------------------------------------|
| `evidence`        | `RecurrentConfig`      | hasvalue/evidence.py: `EvidenceHasValue`           |
| `message_passing` | `MessagePassingConfig` | hasvalue/message_passing.py: `MessagePassingHasValue` |
| `visual`          | `ReaderConfig`         | hasvalue/reader.py: `DigitReader`                  |
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import Field, dataclass, field, fields
from typing import Any

from omegaconf import MISSING

from ltn_sudoku.logic.config.fields import Rule, at_least, ruled


def config_fields(config: Any) -> list[Field[Any]]:
    """The fields a grounding reads from a model config (every field but `grounding`, which the registry fills in)."""
    return [f for f in fields(config) if not f.metadata.get("omegaconf_ignore")]


@dataclass
class GroundingConfig:
    """A hasValue grounding's config, declared once: the fields it reads from the flat `model` config node, each with
    its rule (fields.py). The schema (schema.py) builds the model schemas from these classes, and `from_cfg` reads one
    from a composed config or a checkpoint's `model` node. Every field is required (the YAML files and every
    checkpoint set them). `grounding` is the grounding's name in GROUNDINGS; it is not a config key (`model.hasvalue`
    or `model.kind` names it), so OmegaConf ignores it."""

    grounding: str = field(default="", metadata={"omegaconf_ignore": True})

    def __post_init__(self) -> None:
        missing = [f.name for f in config_fields(self) if getattr(self, f.name) == MISSING]
        if missing:
            raise TypeError(f"{type(self).__name__}: {', '.join(missing)} not given (every field of a grounding's "
                            "config is required)")

    @classmethod
    def from_cfg(cls, grounding: str, cfg: Mapping[str, Any]) -> GroundingConfig:
        """The config of this grounding from a model config; KeyError names a field it lacks."""
        missing = [f.name for f in config_fields(cls) if f.name not in cfg]
        if missing:
            raise KeyError(f"model.{missing[0]}: missing (the {grounding} grounding of hasValue reads it)")
        return cls(grounding=grounding, **{f.name: int(cfg[f.name]) for f in config_fields(cls)})


@dataclass
class RecurrentConfig(GroundingConfig):
    """A recurrent board grounding (evidence): width and depth of its step, refinement steps while training."""

    grounding: str = field(default="evidence", metadata={"omegaconf_ignore": True})
    hidden: int = at_least(1)
    layers: int = at_least(1)
    steps: int = at_least(1)


@dataclass
class MessagePassingConfig(RecurrentConfig):
    """The message-passing grounding: a recurrent one whose messages along the peer graph have their own width."""

    grounding: str = field(default="message_passing", metadata={"omegaconf_ignore": True})
    message_dim: int = at_least(1)  # the width of each relation's message


@dataclass
class ReaderConfig(GroundingConfig):
    """The visual reader: CNN width, hidden units of its head, input average-pool factor (1 or 2)."""

    grounding: str = field(default="visual", metadata={"omegaconf_ignore": True})
    channels: int = at_least(1)
    hidden: int = at_least(1)
    pool: int = ruled(Rule(lambda v: v in (1, 2), "expected 1 (28x28 input) or 2 (14x14)"))
