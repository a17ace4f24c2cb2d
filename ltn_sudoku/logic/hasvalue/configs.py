"""The config dataclass of each hasValue grounding (the registry, ltn_sudoku/logic/hasvalue/__init__.py, picks one per
kind); each reads its own fields from a model config, the composed one or a checkpoint's flat `model` node."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any


@dataclass(frozen=True)
class GroundingConfig:
    """What every grounding's config holds: its kind; `from_cfg` reads the other fields from a model config."""

    kind: str

    @classmethod
    def from_cfg(cls, kind: str, cfg: Mapping[str, Any]) -> GroundingConfig:
        return cls(kind=kind, **{f.name: int(cfg[f.name]) for f in fields(cls) if f.name != "kind" and f.name in cfg})


@dataclass(frozen=True)
class RecurrentConfig(GroundingConfig):
    """A recurrent board grounding (evidence): width and depth of its step, refinement steps while training."""

    kind: str = "evidence"
    hidden: int = 64
    layers: int = 2
    steps: int = 24


@dataclass(frozen=True)
class MessagePassingConfig(RecurrentConfig):
    """The message-passing grounding: a recurrent one whose messages along the peer graph have their own width."""

    kind: str = "message_passing"
    message_dim: int = 16


@dataclass(frozen=True)
class ReaderConfig(GroundingConfig):
    """The visual reader: CNN width, hidden units of its head, input average-pool factor (1 or 2)."""

    kind: str = "visual"
    channels: int = 8
    hidden: int = 32
    pool: int = 2
