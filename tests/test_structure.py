"""The package's structure stays as documented: the import contracts of pyproject.toml (checked by `lint-imports`,
which `make test` runs) are consistent (the torch-free contract covers every layer below the learned wing, which is one
layer, listed once), and the README's layout table names every part of the package, and only what exists."""

from __future__ import annotations

import re
from typing import Any

import tomllib

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
    assert ":" in layers[_learned_index(layers)] and learned == {"ltn_sudoku.logic", "ltn_sudoku.train",
                                                                  "ltn_sudoku.evaluate"}
    assert not learned & set(contracts["symbolic-without-torch"]["source_modules"])


def _layout_rows() -> list[list[str]]:
    """The backticked paths of each row of the README's Layout table, the later ones relative to the first's folder."""
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    table = readme.split("## Layout", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in table.splitlines():
        if line.startswith("| `"):
            first_cell = line.split("|")[1]
            rows.append(re.findall(r"`([^`]+)`", first_cell))
    return rows


def test_the_readme_layout_table_matches_the_tree() -> None:
    listed: set[str] = set()
    for names in _layout_rows():
        base = (REPO_ROOT / names[0].rstrip("/")).parent
        for i, name in enumerate(names):
            path = REPO_ROOT / name if i == 0 else base / name
            assert path.exists(), f"README layout names {name}, which does not exist"
            listed.add(str(path.relative_to(REPO_ROOT)).rstrip("/"))
    package = REPO_ROOT / "ltn_sudoku"
    parts = {str(p.relative_to(REPO_ROOT)) for p in package.iterdir()
             if (p.suffix == ".py" and p.stem not in ("__init__", "__main__")) or (p / "__init__.py").is_file()}
    assert parts <= listed, f"not in the README's layout table: {sorted(parts - listed)}"
