"""Issue 41 (items 3, 4): the one atomic writer (ltn_sudoku.io.writers) and checksummed checkpoints, each fault case
small: an 8-byte overwrite in a checkpoint (exit 2, one line), a writer SIGKILLed mid-write (the old file kept, its
leftover removed by the next write), SIGTERM mid-write (no leftover), the file mode (the umask's), a run stopped
between an epoch's last.pt and best.pt and resumed (best.pt, last.pt and metrics.json agree), and no package module
writing a file by another way."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import signal
import stat
import struct
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import torch

from ltn_sudoku.cli import main as cli_main
from ltn_sudoku.io.writers import TEMP_SUFFIX, atomic_write_text
from ltn_sudoku.logic.checkpoints import (
    FORMAT,
    VERSION,
    CheckpointError,
    load_checkpoint,
    payload_sha256,
    save_checkpoint,
)
from ltn_sudoku.paths import CHECKPOINTS_DIR, REPO_ROOT

BOARD_4 = "1.34342.2143432."


def written(folder: Path, rows: int = 1000) -> bool:
    """Whether a temporary file there already holds some rows (16 KiB and more)."""
    return any((folder / name).stat().st_size > 16 * rows for name in leftovers(folder))


def leftovers(folder: Path) -> list[str]:
    """Hidden temporary files of any writer, old (mkstemp's) or new."""
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".") and p.name.endswith(TEMP_SUFFIX))


def overwrite_middle_of_largest_tensor(data: bytes, count: int = 8) -> bytes:
    """`count` bytes in the middle of the checkpoint's largest tensor record replaced (the zip stays well-formed,
    only that record's CRC fails): the bytes of two float32 3.4e38."""
    archive = zipfile.ZipFile(io.BytesIO(data))
    record = max((i for i in archive.infolist() if "/data/" in i.filename), key=lambda i: i.file_size)
    name_len, extra_len = struct.unpack("<HH", data[record.header_offset + 26:record.header_offset + 30])
    middle = record.header_offset + 30 + name_len + extra_len + record.file_size // 2
    middle -= middle % 4
    damaged = bytearray(data)
    damaged[middle:middle + count] = (b"\xff\xff\x7f\x7f" * 2)[:count]
    assert bytes(damaged) != data
    return bytes(damaged)


# ---- (5) corrupted checkpoints ---------------------------------------------------------------------------------------
def test_an_eight_byte_overwrite_is_refused_in_one_line_with_exit_2(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.pt"
    bad.write_bytes(overwrite_middle_of_largest_tensor((CHECKPOINTS_DIR / "4x4.pt").read_bytes()))
    weights = torch.load(bad, map_location="cpu", weights_only=True)["state_dict"]  # torch itself loads it
    assert max(float(t.abs().max()) for t in weights.values() if t.is_floating_point()) > 1e38
    with pytest.raises(CheckpointError, match="corrupted: the CRC of its record data/"):
        load_checkpoint(bad)
    status = cli_main(["classify", "--board", BOARD_4, "--no-heuristics", "--checkpoint", str(bad)])
    out, err = capsys.readouterr()
    assert status == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "corrupted" in err and "Traceback" not in err, err


def test_a_checkpoint_whose_content_does_not_match_its_sha256_is_refused(tmp_path: Path) -> None:
    """A consistent zip (CRCs right) of changed content: only the recorded SHA-256 can tell."""
    good = tmp_path / "good.pt"
    save_checkpoint(good, 4, {"a": 1}, {"w": torch.arange(6, dtype=torch.float32)}, {"epoch": 3})
    payload = load_checkpoint(good)
    assert payload["version"] == VERSION == 2 and payload["sha256"] == payload_sha256(payload)
    payload["state_dict"]["w"][2] = 3.4e38
    torch.save(payload, tmp_path / "changed.pt")
    with pytest.raises(CheckpointError, match="does not match its SHA-256"):
        load_checkpoint(tmp_path / "changed.pt")
    payload["state_dict"]["w"][2] = 2.0
    payload["extra"]["epoch"] = 4
    torch.save(payload, tmp_path / "changed_extra.pt")
    with pytest.raises(CheckpointError, match="does not match its SHA-256"):
        load_checkpoint(tmp_path / "changed_extra.pt")


def test_version_1_checkpoints_load_with_their_crcs_checked(tmp_path: Path) -> None:
    old = {"format": FORMAT, "version": 1, "size": 4, "config": {"a": 1}, "state_dict": {"w": torch.ones(64)},
           "extra": {}}
    torch.save(old, tmp_path / "v1.pt")
    assert torch.equal(load_checkpoint(tmp_path / "v1.pt")["state_dict"]["w"], torch.ones(64))
    (tmp_path / "v1_bad.pt").write_bytes(overwrite_middle_of_largest_tensor((tmp_path / "v1.pt").read_bytes()))
    with pytest.raises(CheckpointError, match="corrupted"):
        load_checkpoint(tmp_path / "v1_bad.pt")


def test_shipped_checkpoints_carry_their_checksum() -> None:
    shipped = sorted(CHECKPOINTS_DIR.glob("*.pt"))
    assert shipped
    for path in shipped:
        payload = load_checkpoint(path)  # the checksum and the CRCs checked
        assert payload["version"] == VERSION and payload["sha256"] == payload_sha256(payload), path


# ---- (10) a writer killed mid-write ----------------------------------------------------------------------------------
SLOW_WRITER = """
import sys, time
from pathlib import Path
from ltn_sudoku.cli.results import ResultsFile
with ResultsFile(Path(sys.argv[1])) as out:
    out.write(["x" * 1_000_000 + "\\n"])
    print("writing", flush=True)
    for _ in range(600):
        out.write(["y" * 100_000 + "\\n"])
        time.sleep(0.05)
    out.commit()
"""


@pytest.fixture
def slow_writer(tmp_path: Path) -> Iterator[tuple[Path, subprocess.Popen[str]]]:
    """A process filling results.csv (which holds 'old') through the results writer, slowly, never finishing on its
    own within the test; it has printed 'writing' once its temporary file is open and written to."""
    target = tmp_path / "results.csv"
    target.write_text("old\n")
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    proc = subprocess.Popen([sys.executable, "-c", SLOW_WRITER, str(target)], stdout=subprocess.PIPE, text=True,
                            env=env)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "writing"
        assert leftovers(tmp_path), "the writer's temporary file is in the folder while it writes"
        yield target, proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=30)


def test_sigkill_mid_write_keeps_the_old_file_and_the_next_write_removes_the_leftover(
        slow_writer: tuple[Path, subprocess.Popen[str]]) -> None:
    target, proc = slow_writer
    proc.send_signal(signal.SIGKILL)
    assert proc.wait(timeout=30) == -signal.SIGKILL  # reaped: its pid is no longer alive
    assert target.read_text() == "old\n"
    (stale,) = leftovers(target.parent)
    atomic_write_text(target, "new\n")
    assert target.read_text() == "new\n"
    assert leftovers(target.parent) == []
    assert stale.startswith(".results.csv.") and f".{proc.pid}." in stale  # recognisable: .<name>.<pid>.<host>...


def test_a_live_writers_temporary_file_is_left_alone(slow_writer: tuple[Path, subprocess.Popen[str]]) -> None:
    target, proc = slow_writer
    atomic_write_text(target, "mine\n")  # another writer of the same file, alive: its file is not a leftover
    assert target.read_text() == "mine\n" and len(leftovers(target.parent)) == 1
    assert proc.poll() is None


def test_this_process_s_own_open_temporary_file_is_left_alone(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Same pid: a file being written now is no leftover, even under a relative path."""
    from ltn_sudoku.io.writers import AtomicFile

    monkeypatch.chdir(tmp_path)
    with AtomicFile("a.txt") as first:
        first.write("one\n")
        atomic_write_text("a.txt", "two\n")
        assert first.temp is not None and first.temp.exists()
        first.commit()
    assert Path("a.txt").read_text() == "one\n" and leftovers(tmp_path) == []


def test_sigterm_mid_write_leaves_no_temporary_file(slow_writer: tuple[Path, subprocess.Popen[str]]) -> None:
    target, proc = slow_writer
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 128 + signal.SIGTERM  # SystemExit(143): unwound through the writer's cleanup
    assert target.read_text() == "old\n"
    assert leftovers(target.parent) == []


def test_sigterm_during_classify_out_leaves_no_temporary_file(tmp_path: Path) -> None:
    """The command itself: `ltn-sudoku classify BOARDS --out results.csv` stopped by SIGTERM while it writes."""
    boards = tmp_path / "boards.txt"
    boards.write_text((BOARD_4 + "\n") * 200_000)
    out = tmp_path / "results.csv"
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "ltn_sudoku", "classify", str(boards), "--out", str(out),
                             "--no-ltn", "--no-heuristics"], env=env, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        # rows already in the temporary file: past the first use of the compiled kernel, whose numba callbacks (a
        # cold cache in a fresh clone) swallow an exception raised inside them, the SIGTERM's SystemExit included
        while not written(tmp_path) and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert written(tmp_path) and proc.poll() is None, "classify finished before it could be stopped"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 128 + signal.SIGTERM
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert not out.exists() and leftovers(tmp_path) == []


# ---- (11) file mode --------------------------------------------------------------------------------------------------
@pytest.fixture
def umask_027() -> Iterator[int]:
    old = os.umask(0o027)
    try:
        yield 0o640
    finally:
        os.umask(old)


def test_every_written_file_gets_the_umasks_mode(tmp_path: Path, umask_027: int) -> None:
    from ltn_sudoku.cli.results import ResultsFile

    save_checkpoint(tmp_path / "last.pt", 4, {}, {"w": torch.ones(2)})
    atomic_write_text(tmp_path / "metrics.json", "{}\n")
    with ResultsFile(tmp_path / "results.csv") as results:
        results.write(["a,b\n"])
        results.commit()
    for name in ("last.pt", "metrics.json", "results.csv"):
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == umask_027, name


# ---- (4) a run stopped between last.pt and best.pt -------------------------------------------------------------------
def test_a_run_stopped_between_last_and_best_resumes_consistently(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Epoch 2 improves; the run dies after its last.pt, before its best.pt. Resumed (epoch 3 made worse, so it
    cannot rewrite best.pt by itself), best.pt holds epoch 2, as last.pt and metrics.json say; a resume of the run
    with nothing left to train mends best.pt too."""
    from ltn_sudoku.logic.board.task import BoardTask
    from ltn_sudoku.logic.kinds import train
    from tests.test_train import config

    run = tmp_path / "run"
    # a real SIGKILL, in a training process of its own, right after epoch 2's last.pt and before its best.pt
    child = f"""
import os, signal
from pathlib import Path
from ltn_sudoku.logic.kinds import train
from ltn_sudoku.logic.training import loop as trainer
from tests.test_train import config
real_save = trainer.save_checkpoint
def dying_save(path, *args, **kwargs):
    extra = args[3] if len(args) > 3 else kwargs.get("extra")
    if Path(path).name == "best.pt" and extra["epoch"] == 1:
        os.kill(os.getpid(), signal.SIGKILL)
    real_save(path, *args, **kwargs)
trainer.save_checkpoint = dying_save
train(config(Path({str(run)!r}), "train.epochs=3", "train.patience=5"))
"""
    done = subprocess.run([sys.executable, "-c", child], cwd=REPO_ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == -signal.SIGKILL, done.stderr[-2000:]
    last = load_checkpoint(run / "last.pt")
    assert last["extra"]["epoch"] == 1 and last["extra"]["best_metrics"]["train/epoch"] == 2  # epoch 2 was best
    assert load_checkpoint(run / "best.pt")["extra"]["epoch"] == 0  # the stop: best.pt is still epoch 1
    finished = tmp_path / "finished"
    shutil.copytree(run, finished)

    real_validate = BoardTask.validate

    def worse_later(self: BoardTask, epoch: int) -> dict[str, float]:
        metrics = real_validate(self, epoch)
        if epoch == 2:
            metrics[self.monitor] = -1.0e9 if self.monitor != "val/loss" else 1.0e9
        return metrics

    monkeypatch.setattr(BoardTask, "validate", worse_later)
    train(config(run, "train.epochs=3", "train.patience=5", f"train.resume={run / 'last.pt'}"))
    last_now, best = load_checkpoint(run / "last.pt"), load_checkpoint(run / "best.pt")
    assert best["extra"]["epoch"] == 1 and best["extra"]["metrics"] == last["extra"]["metrics"]
    assert last_now["extra"]["epoch"] == 2 and last_now["extra"]["best_epoch"] == 1
    for key, weights in last["state_dict"].items():
        assert torch.equal(best["state_dict"][key], weights), key
    monitor = f"train/best_{best['config']['train']['monitor'].replace('/', '_')}"
    recorded = json.loads((run / "metrics.json").read_text())
    assert recorded[monitor] == pytest.approx(best["extra"]["metrics"][best["config"]["train"]["monitor"]])

    train(config(finished, "train.epochs=2", "train.patience=5", f"train.resume={finished / 'last.pt'}"))
    assert load_checkpoint(finished / "best.pt")["extra"]["epoch"] == 1  # nothing to train: best.pt mended all the same
    assert leftovers(run) == [] and leftovers(finished) == []


# ---- one writer ------------------------------------------------------------------------------------------------------
# Package modules that may write files by another way than ltn_sudoku.io.writers, and why: the whole file (None) or
# only its lines holding a marker.
ALLOWED: dict[str, str | None] = {
    "ltn_sudoku/io/writers.py": None,  # the writer itself
    # a download's .part is appended to across runs (resumable) and handed to pooch, which checks it and moves it
    # into place: not an atomic write; every file fetch makes goes through the writer
    "ltn_sudoku/datasets/fetch.py": "self.part",
    # OUT.lock, RUN/train.lock: a lock file, created in place (O_EXCL) and flocked; a renamed file could not be one
    "ltn_sudoku/io/locks.py": "O_EXCL",
}
DIRECT_WRITE = re.compile(r"""open\([^)]*["'][rbt]*[wax+][bt+]*["']|\.write_text\(|\.write_bytes\(|"""
                          r"""torch\.save\((?![^,]+,\s*f\))|os\.replace\(|\.replace\(run_dir|mkstemp\(|"""
                          r"""shutil\.(?:copy|copyfile|copy2|move)\(|\.to_parquet\(|savefig\(|np\.save|os\.open\([^)]*O_CREAT""")


def test_no_package_module_writes_a_file_but_through_the_writer() -> None:
    offenders = []
    for path in sorted((REPO_ROOT / "ltn_sudoku").rglob("*.py")):
        name = path.relative_to(REPO_ROOT).as_posix()
        if name in ALLOWED and ALLOWED[name] is None:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#")[0]
            if DIRECT_WRITE.search(code) and not (ALLOWED.get(name) and ALLOWED[name] in code):
                offenders.append(f"{name}:{number}: {line.strip()}")
    assert offenders == [], "\n".join(offenders)
