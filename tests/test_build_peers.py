"""scripts/build_peers.py (the exact solver's peers, built from their sources into a cache) and bench_exact.py's
reading of that cache, without network or compiler: argument handling, its one-line errors, a missing toolchain,
fetching from a local git repository, and peer discovery in empty and fake cache folders."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.script_loader import load_script

build_peers = load_script("build_peers")


def _one_error_line(captured: pytest.CaptureFixture[str]) -> str:
    err = captured.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: "), err
    return err[0]


def test_help_says_what_it_builds(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        build_peers.main(["--help"])
    assert stop.value.code == 0
    out = capsys.readouterr().out
    assert "tdoku" in out and "fastdoku" in out and "--source-dir" in out and "~/.cache/ltn_sudoku/peers" in out


@pytest.mark.parametrize(("argument", "says"), [
    ("tdoku=/no/such/dir", "no such directory"),
    ("tdoku", "expected NAME=DIR"),
    ("sudokusolver=.", "unknown peer 'sudokusolver'"),
])
def test_a_bad_source_dir_is_one_line(argument: str, says: str, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    assert build_peers.main(["--cache", str(tmp_path), "--source-dir", argument]) == 2
    assert says in _one_error_line(capsys)
    assert not (tmp_path / "peers.json").exists()


def test_the_cache_is_never_inside_the_repository(capsys: pytest.CaptureFixture[str]) -> None:
    assert build_peers.main(["--cache", str(build_peers.REPO_ROOT / "peers"), "--dry-run"]) == 2
    assert "inside the repository" in _one_error_line(capsys)


def test_the_default_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("LTN_SUDOKU_PEERS", raising=False)
    assert build_peers.default_cache() == Path.home() / ".cache" / "ltn_sudoku" / "peers"
    monkeypatch.setenv("LTN_SUDOKU_PEERS", str(tmp_path))
    assert build_peers.default_cache() == tmp_path


def test_without_cargo_fastdoku_is_skipped_and_recorded(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(build_peers, "which", lambda tool: None)
    assert build_peers.main(["--cache", str(tmp_path), "--only", "fastdoku"]) == 0
    assert "fastdoku: skipped (no cargo on PATH" in capsys.readouterr().out
    assert json.loads((tmp_path / "peers.json").read_text()) == {"fastdoku": {"skipped": "no cargo on PATH"}}
    assert not (tmp_path / "fastdoku").exists()  # nothing fetched


def test_without_a_compiler_tdoku_is_an_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(build_peers, "which", lambda tool: None)
    assert build_peers.main(["--cache", str(tmp_path), "--only", "tdoku"]) == 1
    assert _one_error_line(capsys) == "error: tdoku: no cmake or g++ on PATH"


def test_dry_run_builds_nothing(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(build_peers, "which", lambda tool: "/usr/bin/" + tool if tool == "g++" else None)
    assert build_peers.main(["--cache", str(tmp_path / "c"), "--dry-run", "--source-dir", f"tdoku={tmp_path}"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == (f"tdoku: build: from {tmp_path.resolve()} into {tmp_path / 'c' / 'tdoku' / 'libtdoku_shared.so'}"
                      " (cmake missing, g++ found)")
    assert out[1].startswith("fastdoku: skip (no toolchain): from https://github.com/rocketbombs/fastdoku.git")
    assert not (tmp_path / "c").exists()


def _git(*args: str, cwd: Path) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def test_a_local_checkout_is_cloned_at_its_commit(tmp_path: Path) -> None:
    """--source-dir NAME=DIR of a git checkout: a clone of it, the commit recorded; a plain tree: copied, commit
    unknown; a clone that fails (an empty repository) is one message naming the step."""
    source = tmp_path / "tdoku"
    (source / "src").mkdir(parents=True)
    (source / "src" / "util.cc").write_text("// a source file\n")
    _git("init", "-q", cwd=source)
    _git("add", ".", cwd=source)
    _git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "one", cwd=source)
    head = _git("rev-parse", "HEAD", cwd=source)
    plan = build_peers.Plan("tdoku", str(source), True, tmp_path / "cache" / "tdoku")
    src, commit = build_peers.fetch_source(plan)
    assert commit == head and (src / "src" / "util.cc").read_text() == "// a source file\n"

    plain = tmp_path / "plain"
    (plain / "src").mkdir(parents=True)
    (plain / "src" / "lib.rs").write_text("// rust\n")
    src, commit = build_peers.fetch_source(build_peers.Plan("fastdoku", str(plain), True, tmp_path / "cache" / "fd"))
    assert commit == "unknown (not a git checkout)" and (src / "src" / "lib.rs").is_file()

    empty = tmp_path / "empty"
    empty.mkdir()
    _git("init", "-q", cwd=empty)
    with pytest.raises(build_peers.BuildError, match="^`git -C .* rev-parse HEAD` failed"):
        build_peers.fetch_source(build_peers.Plan("tdoku", str(empty), True, tmp_path / "cache" / "e"))


# ---- bench_exact.py's side: finding what build_peers built ------------------------------------------------------
def test_an_empty_peers_folder_finds_nothing_and_says_so(tmp_path: Path) -> None:
    from scripts.bench_exact import find_peers

    found, notes = find_peers(tmp_path)
    assert found == []
    assert notes == [f"tdoku: not built in {tmp_path} (scripts/build_peers.py --cache {tmp_path})",
                     f"fastdoku: not built in {tmp_path} (scripts/build_peers.py --cache {tmp_path})"]


def test_peers_json_is_read(tmp_path: Path) -> None:
    """A built tdoku (its library there), a skipped fastdoku; then a manifest naming a library that is gone."""
    from scripts.bench_exact import find_peers, load_peers

    (tmp_path / "tdoku").mkdir()
    (tmp_path / "tdoku" / "libtdoku_shared.so").write_bytes(b"not a library")
    (tmp_path / "peers.json").write_text(json.dumps({
        "tdoku": {"library": "tdoku/libtdoku_shared.so", "commit": "af42618", "toolchain": "g++"},
        "fastdoku": {"skipped": "no cargo on PATH"}}))
    found, notes = find_peers(tmp_path)
    assert [(b.name, b.library, b.commit) for b in found] == [("tdoku", tmp_path / "tdoku/libtdoku_shared.so",
                                                               "af42618")]
    assert notes == ["fastdoku: skipped when built (no cargo on PATH)"]
    peers, lines = load_peers(None, tmp_path)  # the fake library cannot be loaded: said, not run
    assert peers == [] and lines[0].startswith("not run: fastdoku: skipped")
    assert lines[1].startswith(f"not run: tdoku: cannot be loaded from {tmp_path / 'tdoku/libtdoku_shared.so'}")

    (tmp_path / "tdoku" / "libtdoku_shared.so").unlink()
    found, notes = find_peers(tmp_path)
    assert found == [] and notes[0] == (f"tdoku: peers.json names {tmp_path / 'tdoku/libtdoku_shared.so'}, which is "
                                        "not there (run scripts/build_peers.py)")


def test_libraries_at_their_usual_places_without_a_manifest(tmp_path: Path) -> None:
    from scripts.bench_exact import find_peers

    (tmp_path / "fastdoku").mkdir()
    (tmp_path / "fastdoku" / "libfastdoku_capi.so").write_bytes(b"")
    found, _ = find_peers(tmp_path)
    assert [(b.name, b.commit) for b in found] == [("fastdoku", "unknown")]
