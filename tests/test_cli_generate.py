"""`ltn-sudoku generate` end to end: the file it writes holds true labels and is the same for the same seed; every
bad option is one error line, exit status 2 and no output file."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from test_generate import assert_label_true

from ltn_sudoku.cli import build_parser, run_command
from ltn_sudoku.generate import CLASSES, read_csv
from ltn_sudoku.io import read_boards


def generate_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Run the command in-process: (status, stdout, stderr)."""
    try:
        status = run_command(build_parser().parse_args(["generate", *argv]))
    except SystemExit as e:  # argparse's own usage errors
        status = int(e.code or 0)
    out, err = capsys.readouterr()
    return status, out, err


def test_one_class_and_kind(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "subtle.csv"
    status, stdout, err = generate_cli(capsys, "--size", "9", "--kind", "open_impossible", "--subkind", "subtle",
                                       "--count", "12", "--givens", "30-36", "--out", str(out), "--seed", "3")
    assert status == 0, err
    assert "12 boards (open_impossible/subtle: 12)" in stdout and str(out) in stdout
    assert err == ""  # no progress bar when stderr is not a terminal
    records = read_csv(out)
    assert len(records) == 12
    for r in records:
        assert (r.label, r.kind) == ("open_impossible", "subtle") and 30 <= r.board.givens <= 36
        assert_label_true(r)


def test_mixed_no_unique_and_reproducible(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first, second = tmp_path / "a.csv", tmp_path / "b.csv"
    for path in (first, second):
        status, _, err = generate_cli(capsys, "--size", "4", "--mixed", "--count", "40", "--no-unique",
                                      "--out", str(path), "--seed", "5")
        assert status == 0, err
    assert first.read_bytes() == second.read_bytes()
    records = read_csv(first)
    assert Counter(r.label for r in records) == {label: 10 for label in CLASSES}
    assert {r.kind for r in records if r.label == "open_solvable"} == {"unique", "multiple"}
    for r in records:
        assert_label_true(r)
    assert len(read_boards(first)) == 40  # any board reader takes the file (table format)


def test_workers_give_the_same_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    one, two = tmp_path / "one.csv", tmp_path / "two.csv"
    for path, workers in ((one, "1"), (two, "2")):
        status, _, err = generate_cli(capsys, "--kind", "open_solvable", "--count", "30", "--workers", workers,
                                      "--out", str(path))
        assert status == 0, err
    assert one.read_bytes() == two.read_bytes()


def test_as_a_command(tmp_path: Path) -> None:
    out = tmp_path / "valid.csv"
    done = subprocess.run([sys.executable, "-m", "ltn_sudoku", "generate", "--size", "16", "--kind", "closed_valid",
                           "--count", "3", "--out", str(out)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert [r.board.is_valid_solution for r in read_csv(out)] == [True] * 3


@pytest.mark.parametrize("argv,message", [
    (["--size", "10", "--kind", "closed_valid", "--count", "3"], "unsupported size 10"),
    (["--kind", "closed_valid", "--count", "-1"], "count must be >= 0"),
    (["--kind", "closed_nonsense", "--count", "3"], "unknown class 'closed_nonsense'"),
    (["--kind", "closed_invalid", "--subkind", "subtle", "--count", "3"], "unknown kind 'subtle'"),
    (["--kind", "open_solvable", "--count", "3", "--givens", "40-30"], "impossible for 9x9"),
    (["--kind", "open_solvable", "--count", "3", "--givens", "5-12"], "needs at least 17"),
    (["--kind", "closed_valid", "--count", "3", "--givens", "30-36"], "open boards only"),
    (["--mixed", "--subkind", "swap", "--count", "3"], "--subkind needs --kind"),
    (["--kind", "open_solvable", "--count", "3", "--workers", "0"], "workers must be >= 1"),
    (["--kind", "open_solvable", "--count", "3", "--givens", "thirty"], "expected LOW-HIGH"),
    (["--kind", "open_solvable", "--mixed", "--count", "3"], "not allowed with argument"),
    (["--count", "3"], "one of the arguments --kind --mixed --hardest --level --tier is required"),
])
def test_bad_options_exit_2_without_output(tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str],
                                           message: str) -> None:
    out = tmp_path / "never.csv"
    status, stdout, err = generate_cli(capsys, *argv, "--out", str(out))
    assert status == 2
    assert message in err
    assert "Traceback" not in err and stdout == ""
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_out_is_a_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = generate_cli(capsys, "--kind", "closed_valid", "--count", "2", "--out", str(tmp_path))
    assert status == 2 and "is a directory" in err
