"""The repository's scripts as modules for the tests (scripts/ is not a package): one loader instead of a copy in
every test file that calls a script's functions."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

from ltn_sudoku.paths import REPO_ROOT


def load_script(name: str) -> ModuleType:
    """scripts/<name>.py, executed as the module `name` (registered in sys.modules, so its dataclasses resolve)."""
    spec = importlib.util.spec_from_file_location(name, REPO_ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
