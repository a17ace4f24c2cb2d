"""`ltn-sudoku data list` and `ltn-sudoku data fetch`, offline: a test registry points at a local HTTP server with
Range support (ltn_sudoku/datasets/serve.py) and the data home is a temporary folder. A good file lands verified; a
bad hash, a cut transfer, an unknown name and an unreachable address are one error line and exit status 2, leaving
nothing that looks complete; a cut transfer resumes with a Range request. The real registry is checked for
consistency (no network), and docs/data.md must hold its generated table."""

from __future__ import annotations

import dataclasses
import gzip
import hashlib
import json
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from ltn_sudoku.cli import build_parser, run_command
from ltn_sudoku.datasets import registry
from ltn_sudoku.datasets.fetch import CHUNK
from ltn_sudoku.datasets.registry import CHECKSUMS_FILE, GZIP_LINES, LINES, TRANSFORMS, DataFile, DataSet
from ltn_sudoku.datasets.serve import LocalServer
from ltn_sudoku.paths import DATA_HOME_VARIABLE, REPO_ROOT

SIZE = 600_000  # a few chunks of the downloader, so that a cut falls in the middle of the stream


def data_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Run `ltn-sudoku data ...` in-process: (status, stdout, stderr)."""
    try:
        status = run_command(build_parser().parse_args(["data", *argv]))
    except SystemExit as e:  # argparse's own usage errors
        status = int(e.code or 0)
    out, err = capsys.readouterr()
    return status, out, err


def one_error_line(err: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "Traceback" not in err
    return lines[0]


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def files_in(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()) if folder.exists() else []


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "home"
    monkeypatch.setenv(DATA_HOME_VARIABLE, str(folder))
    return folder


@pytest.fixture
def payload() -> bytes:
    return bytes((i * 7 + i // 251) % 256 for i in range(SIZE))


@pytest.fixture
def server(tmp_path: Path, payload: bytes) -> Iterator[LocalServer]:
    root = tmp_path / "served"
    root.mkdir()
    (root / "big.bin").write_bytes(payload)
    (root / "rows.csv").write_bytes(b"a,b\r\n1,2\r\n\r\n3,4\r\n\r\n")
    with LocalServer({"/big.bin": root / "big.bin", "/rows.csv": root / "rows.csv"}) as srv:
        yield srv


def use_sets(monkeypatch: pytest.MonkeyPatch, *files: tuple[str, DataFile]) -> None:
    """Swap the registry for one set per (name, file)."""
    sets = tuple(DataSet(name=name, description=f"test set {name}", licence="test", files=(f,), origin="local",
                         verification="test") for name, f in files)
    monkeypatch.setattr(registry, "SETS", sets)


def test_good_file_lands_verified(home: Path, server: LocalServer, payload: bytes,
                                  monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    use_sets(monkeypatch, ("good", DataFile("sub/good.bin", (server.url("/big.bin"),), SIZE, sha256(payload))))
    status, out, err = data_cli(capsys, "list")
    assert status == 0 and str(home) in out and "missing" in out
    status, out, err = data_cli(capsys, "fetch", "good")
    assert status == 0, err
    assert err == ""  # no progress bar when stderr is not a terminal
    assert "fetched   sub/good.bin" in out and "checked: sha256" in out
    assert (home / "sub/good.bin").read_bytes() == payload
    assert files_in(home) == ["sub/good.bin"]  # no .part, no temporary file
    status, out, _ = data_cli(capsys, "list")
    assert status == 0 and "good" in out and "present" in out and "missing" not in out
    status, out, _ = data_cli(capsys, "list", "--verify", "--files")
    assert status == 0 and "verified" in out and "sub/good.bin" in out
    requests_before = len(server.requests)
    status, out, _ = data_cli(capsys, "fetch", "good")  # already there: checked, not downloaded again
    assert status == 0 and "present   sub/good.bin (verified)" in out and len(server.requests) == requests_before


def test_bad_hash_is_one_line_and_leaves_nothing(home: Path, server: LocalServer, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    use_sets(monkeypatch, ("bad", DataFile("sub/bad.bin", (server.url("/big.bin"),), SIZE, "0" * 64)))
    status, _, err = data_cli(capsys, "fetch", "bad")
    assert status == 2
    assert "does not match its checksum" in one_error_line(err)
    assert files_in(home) == []  # neither the file, nor a .part, nor pooch's temporary file
    status, out, _ = data_cli(capsys, "list")
    assert "missing" in out


def test_cut_transfer_resumes_with_a_range_request(home: Path, server: LocalServer, payload: bytes,
                                                   monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    use_sets(monkeypatch, ("big", DataFile("big.bin", (server.url("/big.bin"),), SIZE, sha256(payload))))
    half = SIZE // 2
    server.cut_after["/big.bin"] = half
    status, _, err = data_cli(capsys, "fetch", "big")
    assert status == 2
    line = one_error_line(err)
    assert "transfer cut" in line and "resume" in line
    assert files_in(home) == ["big.bin.part"]  # nothing that looks complete
    kept = (home / "big.bin.part").read_bytes()
    # what came before the cut, less the last partial read (at most one chunk), which urllib3 drops on the cut
    assert half - CHUNK <= len(kept) <= half and kept == payload[:len(kept)]
    status, out, _ = data_cli(capsys, "list", "--files")
    assert "missing" in out and f"(.part: {len(kept):,} bytes to resume)" in out

    status, out, err = data_cli(capsys, "fetch", "big")
    assert status == 0, err
    resumed = [r for r in server.requests if r.range is not None]
    assert [(r.range, r.status, r.sent) for r in resumed] == [(f"bytes={len(kept)}-", 206, SIZE - len(kept))]
    assert server.sent("/big.bin") == SIZE + (half - len(kept))  # only the dropped partial read is sent twice
    assert (home / "big.bin").read_bytes() == payload and files_in(home) == ["big.bin"]
    status, out, _ = data_cli(capsys, "list", "--verify")
    assert status == 0 and "verified" in out


def test_a_resumed_part_that_fails_its_hash_is_deleted(home: Path, server: LocalServer,
                                                       monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    use_sets(monkeypatch, ("big", DataFile("big.bin", (server.url("/big.bin"),), SIZE, "1" * 64)))
    server.cut_after["/big.bin"] = SIZE // 3
    assert data_cli(capsys, "fetch", "big")[0] == 2
    assert files_in(home) == ["big.bin.part"]
    status, _, err = data_cli(capsys, "fetch", "big")
    assert status == 2 and "does not match" in one_error_line(err)
    assert files_in(home) == []


def test_unknown_name_and_no_name(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = data_cli(capsys, "fetch", "top1456")
    assert status == 2
    line = one_error_line(err)
    assert "'top1456'" in line and "top1465" in line  # the near miss is suggested
    status, _, err = data_cli(capsys, "fetch")
    assert status == 2 and "--all" in one_error_line(err)
    assert files_in(home) == []


def test_unreachable_address(home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"http://127.0.0.1:{closed_port()}/nothing.bin"
    use_sets(monkeypatch, ("away", DataFile("away.bin", (url,), 10, "2" * 64)))
    status, _, err = data_cli(capsys, "fetch", "away")
    assert status == 2 and "cannot reach 127.0.0.1" in one_error_line(err)
    assert files_in(home) == []


def test_http_error_then_mirror(home: Path, server: LocalServer, payload: bytes, monkeypatch: pytest.MonkeyPatch,
                                capsys: pytest.CaptureFixture[str]) -> None:
    missing = DataFile("m.bin", (server.url("/gone.bin"),), SIZE, sha256(payload))
    use_sets(monkeypatch, ("m", missing))
    status, _, err = data_cli(capsys, "fetch", "m")
    assert status == 2 and "HTTP 404" in one_error_line(err)
    use_sets(monkeypatch, ("m", dataclasses.replace(missing, urls=(*missing.urls, server.url("/big.bin")))))
    status, _, err = data_cli(capsys, "fetch", "m")
    assert status == 0, err
    assert (home / "m.bin").read_bytes() == payload


def test_transform_and_trust_on_first_use(home: Path, server: LocalServer, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    made = b"a,b\n1,2\n3,4\n"  # CRLF made LF, blank lines dropped
    lines = DataFile("t/rows.csv", (server.url("/rows.csv"),), len(made), sha256(made), transform=LINES)
    gz = DataFile("t/rows.csv.gz", (server.url("/rows.csv"),), None, None, transform=GZIP_LINES, header="h",
                  tofu=True)
    use_sets(monkeypatch, ("lines", lines), ("gz", gz))
    status, out, err = data_cli(capsys, "fetch", "lines", "gz")
    assert status == 0, err
    assert (home / "t/rows.csv").read_bytes() == made
    assert gzip.decompress((home / "t/rows.csv.gz").read_bytes()) == b"h\n" + made
    assert "trust on first use" in out
    records = json.loads((home / CHECKSUMS_FILE).read_text())
    assert records["t/rows.csv.gz"]["sha256"] == sha256((home / "t/rows.csv.gz").read_bytes())
    assert files_in(home) == [CHECKSUMS_FILE, "t/rows.csv", "t/rows.csv.gz"]  # the raw downloads are gone
    status, out, _ = data_cli(capsys, "list", "--verify")
    assert status == 0 and "recorded" in out
    (home / "t/rows.csv.gz").write_bytes(gzip.compress(b"other rows\n"))  # a changed file fails the record
    status, out, _ = data_cli(capsys, "list", "--verify")
    assert status == 1 and "MISMATCH" in out
    (home / "t/rows.csv.gz").unlink()
    (tmp := home.parent / "served" / "rows.csv").write_bytes(b"changed\r\n")  # the source changed since
    status, _, err = data_cli(capsys, "fetch", "gz")
    assert status == 2 and "does not match its SHA-256" in one_error_line(err)
    assert tmp.exists() and not (home / "t/rows.csv.gz").exists()


def test_all_skips_the_large_and_the_unpublished(home: Path, server: LocalServer, payload: bytes,
                                                 monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    good = DataFile("a.bin", (server.url("/big.bin"),), SIZE, sha256(payload))
    monkeypatch.setattr(registry, "SETS", (
        DataSet("a", "a", "test", (good,), "local", "test"),
        DataSet("huge", "huge", "test", (dataclasses.replace(good, path="huge.bin"),), "local", "test", in_all=False),
        DataSet("measured", "m", "test", (DataFile("m.csv", (), 3, "3" * 64),), "here", "test"),
    ))
    status, out, err = data_cli(capsys, "fetch", "--all")
    assert status == 0, err
    assert files_in(home) == ["a.bin"] and "measured: skipped (no public address" in out
    status, _, err = data_cli(capsys, "fetch", "--all", "a")
    assert status == 2 and "not both" in one_error_line(err)


def test_no_public_address(home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    use_sets(monkeypatch, ("measured", DataFile("r/x.csv", (), 3, "3" * 64)))
    status, _, err = data_cli(capsys, "fetch", "measured")
    assert status == 2 and "no public address" in one_error_line(err)


# ----------------------------------------------------------------------------------------------------------------------
# The real registry (no network)


def test_real_registry_is_consistent() -> None:
    sets = registry.SETS
    names = [s.name for s in sets]
    assert len(names) == len(set(names))
    assert not {s.group for s in sets if s.group} & set(names)  # a group name never hides a set
    paths = [f.path for s in sets for f in s.files]
    assert len(paths) == len(set(paths))
    for s in sets:
        assert s.files and s.licence and s.origin and s.verification, s.name
        assert "\n" not in s.description and len(s.description) < 160, s.name
        for f in s.files:
            assert not f.path.startswith(("/", ".")) and ".." not in f.path.split("/") and "\\" not in f.path
            assert f.size is not None and f.size > 0, f.path
            assert (f.sha256 is None) == f.tofu, f"{f.path}: a SHA-256 or an explicit trust-on-first-use flag"
            assert f.sha256 is None or (len(f.sha256) == 64 and int(f.sha256, 16) >= 0)
            assert f.transform is None or f.transform in TRANSFORMS
            assert f.transform is not None or f.source_hash is None  # a download that is the file has one hash
            assert f.source_hash is None or f.source_hash.split(":")[0] in ("sha256", "md5")
            assert all(u.startswith("https://") for u in f.urls), f.path
            assert f.content_sha256 is None or f.path.endswith(".gz")
            assert f.check in ("sha256", "source+sha256", "output-sha256", "tofu", "none")
    assert registry.select(["tdoku"]).sets and not registry.select(["tdoku"]).unknown
    assert {s.name for s in registry.select(["hodoku", "mnist"]).sets} == {
        "top1465", "qqwing", "hodoku-reglib", "hodoku-exemplars", "mnist"}


def test_docs_hold_the_generated_table() -> None:
    docs = (REPO_ROOT / "docs" / "data.md").read_text()
    assert registry.markdown_table() in docs, "docs/data.md: paste `ltn-sudoku data list --markdown` again"
    for s in registry.SETS:
        assert f"`{s.name}`" in docs


def test_no_file_names_the_local_development_copy() -> None:
    mine = ["ltn_sudoku/datasets/registry.py", "ltn_sudoku/datasets/fetch.py", "ltn_sudoku/datasets/serve.py",
            "ltn_sudoku/datasets/__init__.py", "ltn_sudoku/cli/data.py", "docs/data.md", "scripts/bench_fetch.py"]
    for rel in mine:
        assert "../" + "shared" not in (REPO_ROOT / rel).read_text(), rel


def test_importing_stays_light() -> None:
    code = ("import sys, ltn_sudoku, ltn_sudoku.datasets, ltn_sudoku.datasets.fetch, ltn_sudoku.cli.data; "
            "print(sorted(m for m in ('pooch', 'requests', 'tqdm', 'torch') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=REPO_ROOT).stdout
    assert out.strip() == "[]"
