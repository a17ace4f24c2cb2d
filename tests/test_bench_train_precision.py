"""scripts/bench_train_precision.py: the paired table of float32 and bf16 training runs, read from run folders (the
trainings themselves are long, never run in the suite), and its argument errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.script_loader import load_script

bench = load_script("bench_train_precision")


def _record(folder: Path, loss: float, solved: float) -> None:
    folder.mkdir(parents=True)
    (folder / "metrics.json").write_text(json.dumps({"val/loss": loss, "train/boards_per_cpu_second": 25.0}))
    (folder / "point.json").write_text(json.dumps({"generated_17_40 solved": solved}))


def test_the_report_pairs_the_precisions_by_seed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for seed, (fp32, bf16) in {1: (0.30, 0.32), 2: (0.40, 0.44), 3: (0.50, 0.50)}.items():
        _record(bench.run_folder(tmp_path, "fp32", seed, 100), fp32, 0.1)
        _record(bench.run_folder(tmp_path, "bf16", seed, 100), bf16, 0.2)
    _record(bench.run_folder(tmp_path, "fp32", 4, 100), 0.9, 0.9)  # a seed without its bf16 run is left out
    assert bench.main(["--report", "--out-dir", str(tmp_path), "--seeds", "1,2,3,4", "--boards", "100"]) == 0
    out = capsys.readouterr().out
    assert "seeds 1, 2, 3" in out and "bf16 units: " in out
    loss = next(line for line in out.splitlines() if line.startswith("| validation loss"))
    # differences 0.02, 0.04, 0.00: mean 0.02, sd 0.02, half-width 4.303 * 0.02 / sqrt(3) = 0.0497
    assert "| 0.300 / 0.400 / 0.500 | 0.320 / 0.440 / 0.500 | +0.020 [-0.030, +0.070] | 0.100 |" in loss
    solved = next(line for line in out.splitlines() if line.startswith("| held-out generated: solved"))
    assert "+0.100 [+0.100, +0.100]" in solved
    missing = next(line for line in out.splitlines() if line.startswith("| validation: boards solved"))
    assert "nan" in missing  # a figure the runs did not record is shown as missing, not as 0


def test_nothing_recorded_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert bench.main(["--report", "--out-dir", str(tmp_path)]) == 1
    assert "no seed has both precisions" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["--seeds", "a,b"], ["--seeds", ""], ["--boards", "3"]])
def test_bad_arguments_are_usage_errors(argv: list[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        bench.main(["--report", *argv])
    assert exit_.value.code == 2
