"""The import contracts of pyproject.toml (checked by `lint-imports`, which `make test` runs) stay consistent: the
torch-free contract covers every layer below the learned wing, and the learned wing is one layer, listed once."""

from __future__ import annotations

import tomllib
from typing import Any

from ltn_sudoku.paths import REPO_ROOT

SYMBOLIC_ENTRY_POINTS = {"ltn_sudoku.warmup"}  # beside the CLI in the top layer, yet free of torch


def _contracts() -> dict[str, dict[str, Any]]:
    config = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    return {contract["id"]: contract for contract in config["contracts"]}


def _modules(layer: str) -> list[str]:
    return [f"ltn_sudoku.{name.strip()}" for part in layer.split("|") for name in part.split(":")]


def _learned_index(layers: list[str]) -> int:
    return next(i for i, layer in enumerate(layers) if "ltn_sudoku.train" in _modules(layer))


def test_the_symbolic_side_is_every_layer_below_the_learned_wing() -> None:
    contracts = _contracts()
    layers = contracts["layers"]["layers"]
    below = {m for layer in layers[_learned_index(layers) + 1:] for m in _modules(layer)}
    forbidden = contracts["symbolic-without-torch"]
    assert set(forbidden["source_modules"]) == below | SYMBOLIC_ENTRY_POINTS
    assert set(forbidden["forbidden_modules"]) == {"torch", "ltn"}


def test_the_learned_wing_is_one_layer_of_siblings_named_nowhere_else() -> None:
    contracts = _contracts()
    layers = contracts["layers"]["layers"]
    learned = set(_modules(layers[_learned_index(layers)]))
    assert ":" in layers[_learned_index(layers)] and {"ltn_sudoku.logic", "ltn_sudoku.visual"} <= learned
    assert not learned & set(contracts["symbolic-without-torch"]["source_modules"])
