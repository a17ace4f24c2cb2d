"""The exact kernel's first use on a machine says on stderr that it compiles, once, and how long it took
(ltn_sudoku/exact/kernel.py: announce_first_compilation); with the machine code cached it says nothing."""

from __future__ import annotations

import pytest

from ltn_sudoku.exact import kernel


def test_the_first_compilation_is_announced_with_its_time(monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    compiled: list[bool] = []
    monkeypatch.setattr(kernel, "warm_up", lambda: compiled.append(True))
    monkeypatch.setattr(kernel, "_machine_code_cached", lambda: False)
    kernel.announce_first_compilation()
    err = capsys.readouterr().err
    assert compiled == [True]
    assert "compiling the exact solver's machine code (numba) on this machine's first use" in err
    assert "ltn-sudoku: compiled in " in err


def test_a_cached_kernel_says_nothing(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    kernel.warm_up()
    assert kernel._machine_code_cached()  # the suite's processes load the cache (make install compiled it)
    kernel.announce_first_compilation()
    assert capsys.readouterr().err == ""
