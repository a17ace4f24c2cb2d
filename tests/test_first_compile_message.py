"""numba compiles the package's machine code lazily, a function on its first call, and a compilation that runs for
longer than a few seconds is announced on stderr with its time (ltn_sudoku/exact/kernel.py: _CompileAnnouncer); a
9x9 run compiles the band solver alone, not the general one (issue 50: a first classify-board in seconds)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest
from numba import njit

from ltn_sudoku.exact import kernel


def _fresh(name: str):  # type: ignore[no-untyped-def]
    """A function of this package's modules that numba has not compiled yet in this process."""
    def add(a: int, b: int) -> int:
        return a + b

    add.__module__, add.__name__, add.__qualname__ = "ltn_sudoku.exact.kernel", name, name
    return njit(add)


def test_a_long_compilation_is_announced_with_its_time(monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(kernel, "ANNOUNCE_AFTER_S", 0.0)
    assert _fresh("announced")(1, 2) == 3
    err = capsys.readouterr().err
    assert "ltn-sudoku: compiling machine code for this machine (numba, kernel.announced and what it calls)" in err
    assert "ltn-sudoku: compiled in " in err


def test_a_short_compilation_or_another_package_says_nothing(monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert _fresh("quick")(1, 2) == 3  # well under ANNOUNCE_AFTER_S
    monkeypatch.setattr(kernel, "ANNOUNCE_AFTER_S", 0.0)
    assert njit(lambda a: a + 1)(1) == 2  # not this package's
    assert capsys.readouterr().err == ""


def test_a_9x9_count_compiles_the_band_solver_alone() -> None:
    """In a fresh process a 9x9 count loads or compiles `_solve_rows_band` only: the general solver (the bulk of the
    kernel's compilation) is left until a board of another side needs it."""
    code = textwrap.dedent("""
        import numpy as np
        from ltn_sudoku.exact import kernel
        print(kernel.count_solutions_batch(np.zeros((1, 81), np.int32), 1)[0])
        print(len(kernel._solve_rows_band.signatures), len(kernel._solve_rows.signatures))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["1", "1", "0"]


def test_both_solvers_answer_as_before() -> None:
    """The band and general entry points split apart count and solve as the one entry point did."""
    empty9, empty4 = np.zeros((2, 81), np.int32), np.zeros((2, 16), np.int32)
    assert kernel.count_solutions_batch(empty9, 2).tolist() == [2, 2]
    assert kernel.count_solutions_batch(empty4, 3).tolist() == [3, 3]
    assert kernel.random_solutions(9, 2, seed=1).shape == (2, 81)
