"""Every benchmark names the machine its figures were measured on (absolute times hold on that machine alone, ratios
are portable): each scripts/bench_*.py, a future one too, calls scripts/_machine.py's machine_line() or cpu_name()
(or reproduce.machine(), which is cpu_name() and the CPU count)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from ltn_sudoku.paths import REPO_ROOT

BENCHMARKS = sorted((REPO_ROOT / "scripts").glob("bench_*.py"))
NAMERS = {"_machine": {"cpu_name", "machine_line"}, "reproduce": {"machine"}}  # module -> its functions naming the CPU


def names_its_cpu(source: str) -> bool:
    """Whether the script calls a function of NAMERS that it imported from its module."""
    tree = ast.parse(source)
    imported = {alias.asname or alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                for alias in node.names if alias.name in NAMERS.get((node.module or "").rsplit(".", 1)[-1], ())}
    return any(isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in imported
               for node in ast.walk(tree))


def test_the_benchmarks_are_found() -> None:
    assert len(BENCHMARKS) >= 29


@pytest.mark.parametrize("script", BENCHMARKS, ids=lambda p: p.name)
def test_benchmark_names_its_cpu(script: Path) -> None:
    assert names_its_cpu(script.read_text()), (f"scripts/{script.name} does not say which machine it measures on: "
                                               "print scripts/_machine.py's machine_line() before its figures")


def test_an_import_alone_does_not_count() -> None:
    assert not names_its_cpu("from _machine import machine_line\nprint('figures')\n")
    assert not names_its_cpu("def cpu_name():\n    return ''\nprint(cpu_name())\n")
    assert names_its_cpu("from scripts._machine import machine_line\nprint(machine_line())\n")
