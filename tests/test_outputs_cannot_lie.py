"""Issue 41: outputs that cannot lie. A second run on an output being written is refused (OUT.lock, two real
processes); a killed run's lock is taken over, and its parts never answer another input, parts without a manifest
or of a file rewritten in place included; `--out` that is the input file (by any name) is refused before anything is
written; `--jobs` never starts more processes than CPUs or chunks."""

from __future__ import annotations

import gzip
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from test_cli_classify import classify_cli

from ltn_sudoku import answering
from ltn_sudoku.cli import build_parser, dask_runner, run_command
from ltn_sudoku.paths import DATA_DIR

distributed = pytest.importorskip("distributed")

ROOT = Path(__file__).resolve().parents[1]
FAST = ("--no-ltn", "--no-heuristics")  # Q1/Q2 only: fast, and no timing column to compare around


def _kaggle_rows(count: int, skip: int = 0) -> str:
    """A Kaggle 1M file of `count` rows after the first `skip` (every row has the same length)."""
    with gzip.open(DATA_DIR / "kaggle" / "kaggle_1m_sample1000.csv.gz", "rt") as f:
        header, *rows = f.read().splitlines()
    return "\n".join([header, *rows[skip: skip + count]]) + "\n"


@pytest.fixture
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(answering, "CHUNK_CELLS", 2 * 81)  # partitions of two boards


@pytest.fixture
def inputs(tmp_path: Path) -> tuple[Path, Path]:
    """Two files of six rows: the same size and format, other boards and answers."""
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.write_text(_kaggle_rows(6))
    b.write_text(_kaggle_rows(6, skip=6))
    assert a.stat().st_size == b.stat().st_size and a.read_text() != b.read_text()
    return a, b


@pytest.fixture
def clean(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> Callable[[Path], str]:
    """A file's results from a clean one-machine run."""

    def results(path: Path) -> str:
        out = tmp_path / f"clean-{path.name}"
        assert classify_cli(capsys, str(path), *FAST, "--out", str(out))[0] == 0
        return out.read_text()

    return results


GATE = threading.Event()  # the cluster's worker runs in this process (threads): a task can wait on it


def _wait_at_gate() -> bool:
    return GATE.wait(120)


class Cluster:
    """A one-thread LocalCluster at a TCP address (other processes can use it) whose worker can be held busy, so that
    a run started on it holds its lock until `release()`."""

    def __init__(self, local: distributed.LocalCluster, client: distributed.Client) -> None:
        self.address = local.scheduler_address
        self.client = client
        self.blocker: distributed.Future | None = None

    def hold(self) -> None:
        GATE.clear()
        self.blocker = self.client.submit(_wait_at_gate, pure=False)

    def release(self) -> None:
        GATE.set()
        if self.blocker is not None:
            self.blocker.result(timeout=30)
            self.blocker = None


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, protocol="tcp",
                                  dashboard_address=None) as local, distributed.Client(local) as client:
        held = Cluster(local, client)
        yield held
        GATE.set()


def _command(path: Path, out: Path, address: str) -> list[str]:
    return [sys.executable, "-m", "ltn_sudoku", "classify", str(path), *FAST, "--out", str(out), "--dask", address]


def _wait_for(condition: Callable[[], bool], process: subprocess.Popen[str], what: str) -> None:
    deadline = time.monotonic() + 60
    while not condition():
        if process.poll() is not None:
            pytest.fail(f"the first run ended before {what}: {process.communicate()}")
        if time.monotonic() > deadline:
            pytest.fail(f"no {what} after 60 s")
        time.sleep(0.05)


def _lock(out: Path) -> Path:
    return out.with_name(out.name + ".lock")


# ---- case 1: two runs on one output --------------------------------------------------------------------------------


def test_a_second_run_on_the_same_output_is_refused_while_the_first_holds_it(
        tmp_path: Path, inputs: tuple[Path, Path], clean: Callable[[Path], str], cluster: Cluster) -> None:
    """Two real processes: the second (same command) is refused in one line, exit 2, while the first runs; the first
    then finishes with the clean answers and leaves neither lock nor parts."""
    a, _ = inputs
    out = tmp_path / "r.csv"
    parts = dask_runner.parts_folder(out)
    cluster.hold()
    first = subprocess.Popen(_command(a, out, cluster.address), cwd=ROOT, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        _wait_for(lambda: (parts / "run.json").exists(), first, "manifest")  # the first run is under way
        second = subprocess.run(_command(a, out, cluster.address), cwd=ROOT, capture_output=True, text=True,
                                timeout=60, check=False)
        assert second.returncode == 2, second.stderr
        [line] = second.stderr.splitlines()
        assert line.startswith(f"error: --out {out} is being written by another run (pid {first.pid} on "
                               f"{socket.gethostname()}, since ")
        assert line.endswith(f"wait for it to end, or remove {_lock(out)} if that run is not running")
        assert not out.exists() and sorted(p.name for p in parts.iterdir()) == ["run.json"]
    finally:
        cluster.release()
        _, stderr = first.communicate(timeout=120)
    assert first.returncode == 0, stderr
    assert out.read_text() == clean(a)
    assert not parts.exists() and not _lock(out).exists()


def test_a_killed_runs_lock_is_taken_over_with_a_note(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                      inputs: tuple[Path, Path], clean: Callable[[Path], str],
                                                      cluster: Cluster) -> None:
    """A real run SIGKILLed while it holds the lock: the next run on this host sees its pid gone, takes the lock
    over with a note and resumes under the matching manifest."""
    a, _ = inputs
    out = tmp_path / "r.csv"
    parts = dask_runner.parts_folder(out)
    cluster.hold()
    first = subprocess.Popen(_command(a, out, cluster.address), cwd=ROOT, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    try:
        _wait_for(lambda: (parts / "run.json").exists(), first, "manifest")
        first.kill()
        first.wait(timeout=30)
    finally:
        cluster.release()
    assert str(first.pid) in _lock(out).read_text()
    status, _, err = classify_cli(capsys, str(a), *FAST, "--out", str(out), "--dask", cluster.address)
    assert status == 0, err
    assert f"note: took over the stale lock {_lock(out)}: left by pid {first.pid}" in err
    assert out.read_text() == clean(a) and not parts.exists() and not _lock(out).exists()


# ---- case 1: what a stopped run leaves ----------------------------------------------------------------------------


def _stopped_run(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, path: Path, out: Path,
                 address: str) -> None:
    """A --dask run on `path` stopped after its first partition: the parts folder holds run.json and one part."""
    write = dask_runner.write_part

    def stop_after_one(folder: Path, index: int, *rest: object) -> None:
        if list(folder.glob("part-*.json")):
            raise KeyboardInterrupt
        write(folder, index, *rest)  # type: ignore[arg-type]

    with monkeypatch.context() as patched:
        patched.setattr(dask_runner, "write_part", stop_after_one)
        assert classify_cli(capsys, str(path), *FAST, "--out", str(out), "--dask", address)[0] == 130
    assert len(list(dask_runner.parts_folder(out).glob("part-*.json"))) == 1


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", ""])
    child.wait()
    return child.pid


def _errors(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("error:")]


def test_a_stale_lock_is_taken_over_and_stale_parts_never_answer_another_input(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        inputs: tuple[Path, Path], clean: Callable[[Path], str], cluster: Cluster, small_chunks: None) -> None:
    a, b = inputs
    expected = clean(b)
    out = tmp_path / "r.csv"
    parts = dask_runner.parts_folder(out)
    _stopped_run(capsys, monkeypatch, a, out, cluster.address)
    pid = _dead_pid()  # a run killed while it held the lock
    _lock(out).write_text(f'{{"pid": {pid}, "host": "{socket.gethostname()}", "since": "earlier"}}\n')
    argv = (str(b), *FAST, "--out", str(out), "--dask", cluster.address)

    status, _, err = classify_cli(capsys, *argv)  # another input over a's parts: refused
    assert status == 2 and not out.exists()
    assert f"note: took over the stale lock {_lock(out)}: left by pid {pid}" in err
    assert _errors(err) == [(f"error: {parts} holds the parts of a run on another input (or this file changed "
                             "since): rerun that command to finish it, or remove the folder")]
    assert not _lock(out).exists()

    (parts / "run.json").unlink()  # parts without a manifest (as an older version left them): never resumed
    status, _, err = classify_cli(capsys, *argv)
    assert status == 2 and not out.exists() and len(list(parts.glob("part-*.json"))) == 1
    assert _errors(err) == [(f"error: {parts} holds parts without a run.json (of an unknown input and options): "
                             "remove the folder to start again")]

    for part in parts.iterdir():  # as the line says
        part.unlink()
    parts.rmdir()
    assert classify_cli(capsys, *argv)[0] == 0
    assert out.read_text() == expected


def test_an_input_rewritten_in_place_is_not_resumed(capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                    inputs: tuple[Path, Path], clean: Callable[[Path], str],
                                                    cluster: Cluster, small_chunks: None) -> None:
    """The same path, size and modification time, other boards (a copy with `cp -p`): the manifest's SHA-256 tells."""
    a, b = inputs
    out = tmp_path / "r.csv"
    _stopped_run(capsys, monkeypatch, a, out, cluster.address)
    stat = a.stat()
    a.write_bytes(b.read_bytes())
    os.utime(a, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    status, _, err = classify_cli(capsys, str(a), *FAST, "--out", str(out), "--dask", cluster.address)
    assert status == 2 and not out.exists() and "another input (or this file changed since)" in err
    assert len(_errors(err)) == 1


# ---- case 3: --out is the input --------------------------------------------------------------------------------------


@pytest.mark.parametrize("command, option, target", [
    ("classify", ["--out"], "same"),
    ("classify", ["--out"], "symlink"),
    ("classify", ["--dask", "--out"], "same"),
    ("classify", ["--dask", "--out"], "symlink"),
    ("classify", ["--jobs", "2", "--out"], "hardlink"),
    ("solve", ["--out"], "symlink"),
    ("solve", ["--stats-out"], "same"),
    ("rate", ["--out"], "same"),
])
def test_out_that_is_the_input_is_refused_before_anything_is_written(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, inputs: tuple[Path, Path], command: str,
        option: list[str], target: str) -> None:
    a, b = inputs
    b.unlink()
    before = a.read_bytes()
    out = {"same": a, "symlink": tmp_path / "link.csv", "hardlink": tmp_path / "hard.csv"}[target]
    if target == "symlink":
        out.symlink_to(a)
    elif target == "hardlink":
        os.link(a, out)
    listing = sorted(p.name for p in tmp_path.iterdir())
    extra = list(FAST) if command == "classify" else []
    status = run_command(build_parser().parse_args([command, str(a), *extra, *option, str(out)]))
    printed, err = capsys.readouterr()
    assert status == 2 and printed == ""
    assert err.splitlines() == [(f"error: {option[-1]} {out} is the input file {a}: writing it would replace the "
                                 "boards; choose another name")]
    assert a.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == listing


# ---- case 6: --jobs ------------------------------------------------------------------------------------------------


class _Done:
    def __init__(self, value: object) -> None:
        self.value = value

    def get(self) -> object:
        return self.value


class _RecordingContext:
    """multiprocessing's spawn context as classify uses it, recording each pool's size and answering in this process
    (so that a pool of 100,000 is refused here, never started)."""

    def __init__(self) -> None:
        self.pools: list[int] = []

    def Pool(self, processes: int, initializer: Callable[..., None], initargs: tuple[object, ...]) -> _RecordingContext:
        self.pools.append(processes)
        assert processes <= len(os.sched_getaffinity(0)), f"a pool of {processes} processes"
        initializer(*initargs)
        return self

    def apply_async(self, function: Callable[..., object], args: tuple[object, ...]) -> _Done:
        return _Done(function(*args))

    def __enter__(self) -> _RecordingContext:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


def test_jobs_start_no_more_processes_than_cpus_or_chunks(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "boards.csv"
    path.write_text(_kaggle_rows(200))
    cpus = len(os.sched_getaffinity(0))
    context = _RecordingContext()
    monkeypatch.setattr(answering, "get_context", lambda method: context)
    outs = []
    for jobs, cells, pools in (("1", 2 * 81, []),  # the reference: no pool
                               ("100000", 2 * 81, [min(cpus, 100)]),  # 100 chunks: one process per CPU
                               ("100000", answering.CHUNK_CELLS, [])):  # 200 boards, one chunk: answered here
        monkeypatch.setattr(answering, "CHUNK_CELLS", cells)
        out = tmp_path / f"r{len(outs)}.csv"
        status, printed, err = classify_cli(capsys, str(path), *FAST, "--jobs", jobs, "--out", str(out))
        assert status == 0 and "200 boards" in printed and context.pools == pools, err
        if jobs != "1" and cpus < 100000:
            assert f"note: --jobs 100000: capped at {cpus}, the CPUs this process may use" in err
        context.pools.clear()
        outs.append(out.read_text())
    assert outs[1] == outs[0] and outs[2] == outs[0]


def test_a_local_dask_cluster_gets_no_more_workers_than_cpus(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                             inputs: tuple[Path, Path],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    workers: list[int] = []

    def no_cluster(scheduler: str, count: int) -> None:
        workers.append(count)
        raise KeyboardInterrupt  # record the size, start nothing

    monkeypatch.setattr(dask_runner, "dask_client", no_cluster)
    status, _, _ = classify_cli(capsys, str(inputs[0]), *FAST, "--out", str(tmp_path / "r.csv"), "--dask",
                                "--jobs", "100000")
    assert status == 130 and workers == [min(100000, len(os.sched_getaffinity(0)))]


def test_generate_workers_are_capped_at_the_cpus(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`generate --workers 100000` starts no more processes than there are CPUs (it once forked them all)."""
    from ltn_sudoku.cli import main as cli_main
    from ltn_sudoku.cli.common import usable_cpus

    out = tmp_path / "g.csv"
    status = cli_main(["generate", "--size", "4", "--kind", "open_solvable", "--count", "4", "--workers", "100000",
                       "--out", str(out)])
    assert status == 0 and out.is_file()
    assert f"--workers 100000: capped at {usable_cpus()}" in capsys.readouterr().err
