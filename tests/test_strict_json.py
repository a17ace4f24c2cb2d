"""Every JSON the package writes is strict JSON (ltn_sudoku/io/strict_json.py): no NaN or Infinity token, which
strict parsers (JSON.parse, jq) reject; a figure that does not exist is null. A training's metrics.json (a visual run
wrote `-Infinity` for the MAP decoding accuracy of a run that decoded nothing) parses strictly."""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ltn_sudoku.io import strict_json

ROOT = Path(__file__).resolve().parents[1]
HELPER = ROOT / "ltn_sudoku/io/strict_json.py"
# json.dump / json.dumps left in the package: evaluation's metrics.json is the lead's to switch (issue 47)


def test_non_finite_figures_are_written_as_null() -> None:
    value = {"a": math.nan, "b": [1.5, -math.inf, {"c": math.inf}], "d": np.float32("nan"), "e": (np.float64(2.0),),
             "ok": "NaN"}
    text = strict_json.dumps(value, sort_keys=True)
    assert strict_json.loads(text) == {"a": None, "b": [1.5, None, {"c": None}], "d": None, "e": [2.0], "ok": "NaN"}
    assert strict_json.dumps({"x": 1.25}, indent=2) == json.dumps({"x": 1.25}, indent=2)  # the common case unchanged
    with pytest.raises(ValueError, match="not JSON: -Infinity"):
        strict_json.loads('{"a": -Infinity}')


def test_every_json_writer_of_the_package_goes_through_the_helper() -> None:
    writers = [p.relative_to(ROOT).as_posix() for p in sorted((ROOT / "ltn_sudoku").rglob("*.py"))
               if p != HELPER and re.search(r"\bjson\.dumps?\(", p.read_text())]
    assert writers == [], f"write JSON with ltn_sudoku.io.strict_json.dumps: {writers}"


@pytest.mark.slow
def test_a_visual_debug_run_writes_strict_json(tmp_path: Path) -> None:
    run = tmp_path / "run"
    env = {"PATH": "/usr/bin:/bin", "LTN_SUDOKU_DATA": str(tmp_path / "empty_data_home")}  # the shipped sample
    done = subprocess.run([sys.executable, "-m", "ltn_sudoku.train", "model=visual_4x4", "+experiment=debug",
                           f"run_dir={run}", "threads=1"], cwd=tmp_path, capture_output=True, text=True, timeout=600,
                          env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    written = [p for p in run.rglob("*.json")]
    assert written and all(strict_json.loads(p.read_text()) is not None for p in written)
