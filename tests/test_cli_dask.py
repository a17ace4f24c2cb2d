"""`classify-board FILE --dask [SCHEDULER] --out RESULTS` on a 2-worker LocalCluster: the one-machine answers in input
order, each partition written as it finishes so that a stopped run resumes with the missing ones, no row lost or
written twice when a worker is killed mid-run, and a bad row reported by file:line."""

from __future__ import annotations

import gzip
import os
import signal
from pathlib import Path
from typing import Iterator

import pytest
from test_cli_classify import classify_cli

from ltn_sudoku.cli import dask_runner
from ltn_sudoku.paths import DATA_DIR

distributed = pytest.importorskip("distributed")

BOARDS = 14  # 7 partitions of two boards (small_chunks)


@pytest.fixture
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    from ltn_sudoku import answering

    monkeypatch.setattr(answering, "CHUNK_CELLS", 2 * 81)


@pytest.fixture
def boards_file(tmp_path: Path) -> Path:
    """Real Kaggle 3M rows (shipped sample): Q3 does some work on each."""
    with gzip.open(DATA_DIR / "kaggle" / "kaggle_3m_sample1000.csv.gz", "rt") as f:
        lines = f.read().splitlines()[: BOARDS + 1]
    path = tmp_path / "boards.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture
def expected(capsys: pytest.CaptureFixture[str], boards_file: Path, tmp_path: Path, small_chunks: None) -> str:
    """The one-machine results file."""
    out = tmp_path / "one_machine.csv"
    assert classify_cli(capsys, str(boards_file), "--no-ltn", "--out", str(out))[0] == 0
    return _untimed(out.read_text())


@pytest.fixture(scope="module")
def cluster() -> Iterator[tuple[str, distributed.Client]]:
    """A cluster at an address, its workers started with the allocator setting docs/cli.md recommends."""
    import dask

    with dask.config.set({"distributed.nanny.pre-spawn-environ": dask_runner.worker_environ()}), \
            distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                     dashboard_address=None) as local, distributed.Client(local) as client:
        yield local.scheduler_address, client


def _untimed(csv_text: str) -> str:
    """The results without the `stats` column's finder times (they differ from run to run)."""
    import csv
    import io

    rows = list(csv.reader(io.StringIO(csv_text)))
    drop = rows[0].index("stats")
    return "\n".join(",".join(r[:drop] + r[drop + 1:]) for r in rows)


def test_local_cluster_gives_the_one_machine_answers_in_order(capsys: pytest.CaptureFixture[str], boards_file: Path,
                                                             tmp_path: Path, expected: str) -> None:
    out = tmp_path / "dask.csv"
    status, printed, err = classify_cli(capsys, str(boards_file), "--no-ltn", "--out", str(out), "--dask",
                                        "--jobs", "2")
    assert status == 0, err
    assert _untimed(out.read_text()) == expected
    assert f"{BOARDS} boards" in printed and not dask_runner.parts_folder(out).exists()
    lines = [line for line in err.splitlines() if line.startswith("partition ")]  # stderr is no terminal here
    assert len(lines) == BOARDS // 2 and lines[-1].endswith(f"({BOARDS} boards done)")
    assert dask_runner.MMAP_VARIABLE not in err  # the LocalCluster's workers allocate as a --jobs process does


def test_workers_with_dasks_default_allocator_setting_are_named_once(capsys: pytest.CaptureFixture[str],
                                                                      boards_file: Path, tmp_path: Path,
                                                                      expected: str,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A cluster started elsewhere with Dask's defaults (MALLOC_TRIM_THRESHOLD_ alone) answers the same; the client
    says once how to start its workers without the system-time cost, and a LocalCluster of --dask has the setting."""
    monkeypatch.delenv(dask_runner.MMAP_VARIABLE, raising=False)  # a nanny leaves its workers' variables in this process
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as local:
        out = tmp_path / "dask.csv"
        status, _, err = classify_cli(capsys, str(boards_file), "--no-ltn", "--out", str(out), "--dask",
                                      local.scheduler_address)
    assert status == 0, err
    assert _untimed(out.read_text()) == expected
    assert err.count(dask_runner.ALLOCATOR_NOTE) == 1
    with dask_runner.dask_client(dask_runner.LOCAL, 1) as client:
        environs = client.run(lambda: dict(os.environ)).values()
    assert all(not dask_runner.slow_allocator(environ) for environ in environs)
    assert dask_runner.slow_allocator({dask_runner.TRIM_VARIABLE: "65536"})


def test_a_stopped_run_resumes_with_the_missing_partitions(capsys: pytest.CaptureFixture[str], boards_file: Path,
                                                          tmp_path: Path, expected: str,
                                                          cluster: tuple[str, object],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "dask.csv"
    written: list[int] = []
    write = dask_runner.write_part

    def stop_after_two(folder: Path, index: int, *rest: object) -> None:
        if len(written) == 2:
            raise KeyboardInterrupt
        write(folder, index, *rest)  # type: ignore[arg-type]
        written.append(index)

    monkeypatch.setattr(dask_runner, "write_part", stop_after_two)
    argv = (str(boards_file), "--no-ltn", "--out", str(out), "--dask", cluster[0])
    assert classify_cli(capsys, *argv)[0] == 130
    parts = dask_runner.parts_folder(out)
    assert not out.exists() and len(list(parts.glob("part-*.json"))) == 2
    first = list(written)
    resumed: list[int] = []

    def record(folder: Path, index: int, *rest: object) -> None:
        write(folder, index, *rest)  # type: ignore[arg-type]
        resumed.append(index)

    monkeypatch.setattr(dask_runner, "write_part", record)
    assert classify_cli(capsys, *argv, "--full-survey")[0] == 2  # other options: refused, parts kept
    assert parts.exists()
    assert classify_cli(capsys, *argv)[0] == 0
    assert sorted(first + resumed) == list(range(BOARDS // 2))  # each partition answered once in all
    assert _untimed(out.read_text()) == expected and not parts.exists()


def test_a_killed_worker_loses_and_doubles_no_row(capsys: pytest.CaptureFixture[str], boards_file: Path,
                                                 tmp_path: Path, expected: str,
                                                 cluster: tuple[str, distributed.Client],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    address, client = cluster
    write = dask_runner.write_part
    killed: list[str] = []  # the tasks the killed worker was running or had queued

    def kill_one_worker_once(*args: object) -> None:
        write(*args)  # type: ignore[arg-type]
        if not killed:
            worker, keys = max(client.processing().items(), key=lambda item: len(item[1]))
            pid = client.run(os.getpid, workers=[worker])[worker]
            os.kill(pid, signal.SIGKILL)  # the nanny starts a new worker; Dask recomputes what it held
            killed.extend(str(k) for k in keys)

    monkeypatch.setattr(dask_runner, "write_part", kill_one_worker_once)
    out = tmp_path / "dask.csv"
    status, _, err = classify_cli(capsys, str(boards_file), "--no-ltn", "--out", str(out), "--dask", address)
    assert status == 0, err
    assert killed and _untimed(out.read_text()) == expected


def test_a_bad_row_is_reported_by_file_and_line(capsys: pytest.CaptureFixture[str], boards_file: Path,
                                               tmp_path: Path, cluster: tuple[str, object],
                                               small_chunks: None) -> None:
    lines = boards_file.read_text().splitlines()
    lines[9] = lines[9].replace(",", ",x", 1)
    boards_file.write_text("\n".join(lines) + "\n")
    out = tmp_path / "dask.csv"
    status, _, err = classify_cli(capsys, str(boards_file), "--no-ltn", "--out", str(out), "--dask", cluster[0])
    assert status == 2 and f"{boards_file}:10" in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


@pytest.mark.parametrize("argv", [["--board", "1..."], ["-"], []])
def test_dask_needs_a_file_and_out(capsys: pytest.CaptureFixture[str], boards_file: Path, argv: list[str]) -> None:
    args = argv or [str(boards_file)]
    status, _, err = classify_cli(capsys, *args, "--dask", "--no-ltn")
    assert status == 2 and "--dask answers a board file into --out FILE" in err
