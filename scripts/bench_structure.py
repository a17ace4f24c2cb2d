"""The package's structure in numbers: modules per folder, import arrows and two-way pairs, from the import graph.

For a package (default ltn_sudoku.logic, the learned package): its modules per folder, the import arrows between its
modules (run-time imports: `if TYPE_CHECKING:` imports are left out, as import-linter leaves them out), the module
pairs that import each other, and the pairs of its sub-packages (and top-level modules) that import each other in
both directions. import-linter's contracts keep the last at zero; this prints what a reader of the tree meets.

    .venv/bin/python scripts/bench_structure.py [--package ltn_sudoku.logic]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from itertools import combinations
from pathlib import Path

import grimp

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # scripts/ as a package, wherever this runs from
from scripts._machine import machine_line  # noqa: E402


def group_of(module: str, package: str) -> str:
    """The sub-package (or top-level module) of `package` that holds `module`."""
    rest = module[len(package) + 1:]
    return rest.split(".")[0] if rest else "__init__"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--package", default="ltn_sudoku.logic")
    args = parser.parse_args()
    top = args.package.split(".")[0]
    graph = grimp.build_graph(top, exclude_type_checking_imports=True)
    modules = sorted(m for m in graph.modules if m == args.package or m.startswith(args.package + "."))
    folders = Counter(m if graph.find_children(m) else m.rsplit(".", 1)[0] for m in modules)  # a package: its __init__
    arrows = {(a, b) for a in modules for b in graph.find_modules_directly_imported_by(a) if b in modules and a != b}
    two_way_modules = sorted({tuple(sorted(p)) for p in arrows if (p[1], p[0]) in arrows})
    groups = {(group_of(a, args.package), group_of(b, args.package)) for a, b in arrows}
    groups = {g for g in groups if g[0] != g[1]}
    names = sorted({g for pair in groups for g in pair})
    two_way_groups = [(a, b) for a, b in combinations(names, 2) if (a, b) in groups and (b, a) in groups]
    print(machine_line())
    print(f"{args.package}: {len(modules)} modules")
    for folder, count in sorted(folders.items()):
        print(f"  {folder.replace('.', '/')}/: {count} modules")
    print(f"import arrows between its modules: {len(arrows)}")
    print(f"module pairs importing each other: {len(two_way_modules)} {two_way_modules or ''}")
    print(f"sub-package pairs importing each other: {len(two_way_groups)} {two_way_groups or ''}")


if __name__ == "__main__":
    main()
