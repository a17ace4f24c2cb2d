"""Count the package's modules, lines and function-local imports: the structure figures of docs/design.md.

    .venv/bin/python scripts/count_imports.py            # totals
    .venv/bin/python scripts/count_imports.py --list     # also every function-local import, file:line

A function-local import is an ``import`` inside a function or method (not at module level, not under
``if TYPE_CHECKING``). Each is counted as "package" (it imports ltn_sudoku) or "third-party" (torch, numba, pysat,
...: loaded only when used). Reads the source with ast; imports nothing from the package.
"""

from __future__ import annotations

import argparse
import ast
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "ltn_sudoku"


@dataclass(frozen=True)
class LocalImport:
    """One import statement inside a function: where, and what it names."""

    path: Path
    line: int
    target: str

    @property
    def internal(self) -> bool:
        return self.target.startswith("ltn_sudoku")


def _target(node: ast.Import | ast.ImportFrom) -> str:
    if isinstance(node, ast.ImportFrom):
        return "." * node.level + (node.module or "")
    return node.names[0].name


def local_imports(path: Path) -> Iterator[LocalImport]:
    """The imports of one file that sit inside a function body."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))

    def walk(node: ast.AST, in_function: bool) -> Iterator[LocalImport]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Import, ast.ImportFrom)) and in_function:
                yield LocalImport(path, child.lineno, _target(child))
            inside = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            yield from walk(child, inside)

    yield from walk(tree, False)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--list", action="store_true", help="print every function-local import, file:line")
    parser.add_argument("--package", type=Path, default=PACKAGE, help="the package folder (default: ltn_sudoku/)")
    args = parser.parse_args(argv)
    files = sorted(args.package.rglob("*.py"))
    lines = sum(len(f.read_text(encoding="utf-8").splitlines()) for f in files)
    found = [imp for f in files for imp in local_imports(f)]
    internal = sum(imp.internal for imp in found)
    if args.list:
        for imp in found:
            print(f"{imp.path.relative_to(args.package.parent)}:{imp.line}: {imp.target}")
    print(f"modules {len(files)}, lines {lines:,}, function-local imports {len(found)} "
          f"({internal} of the package, {len(found) - internal} third-party)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
