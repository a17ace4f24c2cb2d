"""Issue 41, items 2, 5 and 8: the training and evaluation side loses nothing and answers a user's mistake in one line.

Each case of the issue's table, small: a run folder another run holds, or holds finished (two real processes: one
holding it, one refused), run folders of runs started in the same second; train.init_from a checkpoint of another
architecture, refused before any data is made; a resume with a changed recipe, refused naming the key; data files
that are missing, hold a garbage row, a bad byte (located by line, in a plain or a gzipped CSV) or boards of another
size; a givens range the generators cannot meet; a model size that contradicts the model file; evaluate on a damaged
checkpoint. Every refusal is one line `error: ...` and exit status 2.
"""

from __future__ import annotations

import dataclasses
import gzip
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from omegaconf import DictConfig

from ltn_sudoku.io import FormatError, read_records
from ltn_sudoku.logic.board.model import ModelConfig
from ltn_sudoku.logic.checkpoints import CheckpointError, load_checkpoint
from ltn_sudoku.logic.config.schema import compose_config
from ltn_sudoku.logic.errors import ConfigError
from ltn_sudoku.logic.kinds import KINDS, train
from ltn_sudoku.paths import CHECKPOINTS_DIR, DATA_DIR, REPO_ROOT
from tests.test_train import TINY, config

ENV = {**os.environ, "PYTHONWARNINGS": "ignore", "PYTHONPATH": str(REPO_ROOT)}
TRAIN = [sys.executable, "-m", "ltn_sudoku.train", "model=4x4", *TINY]
KAGGLE_SAMPLE = DATA_DIR / "kaggle" / "kaggle_3m_sample1000.csv.gz"
NO_GENERATED = ["data.train.solvable=0", "data.train.impossible=0", "data.val.solvable=0", "data.val.impossible=0",
                "data.val.closed_valid=0", "data.val.closed_invalid=0", "data.kaggle_rows.train=10",
                "data.kaggle_rows.val=2"]


def one_line_refusal(returncode: int, stderr: str, *words: str) -> str:
    """The one line of a refusal (exit 2), checked to name every word."""
    assert returncode == 2, stderr[-3000:]
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), stderr[-3000:]
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


def refused_before_hydra(capsys: pytest.CaptureFixture[str], argv: list[str], *words: str) -> str:
    """`python -m ltn_sudoku.train ARGV`'s checks before Hydra starts, in this process: one line, exit 2."""
    from ltn_sudoku.train import check_run_folder

    with pytest.raises(SystemExit) as info:
        check_run_folder(argv)
    return one_line_refusal(int(info.value.code or 0), capsys.readouterr().err, *words)


def no_data(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make a training fail loudly if it gets as far as building its task (and so its data)."""
    def boom(cfg: DictConfig, data: object = None) -> None:
        raise AssertionError("the task and its data were built before the refusal")

    monkeypatch.setitem(KINDS, "board", dataclasses.replace(KINDS["board"], task=boom))


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished one-epoch tiny run (seed 0)."""
    run = tmp_path_factory.mktemp("finished")
    train(config(run, "train.epochs=1"))
    return run


def kaggle_lines(rows: int) -> list[bytes]:
    """The header and the first `rows` rows of the shipped 3M sample, as lines of bytes."""
    return gzip.decompress(KAGGLE_SAMPLE.read_bytes()).split(b"\n")[: rows + 1]


# ---- case 2: run folders are never shared by accident ------------------------------------------------------------------
def test_a_second_training_is_refused_a_folder_a_live_run_holds_and_a_finished_run_keeps_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Two real processes: the first trains into D (hydra.run.dir=D) and holds it; the second, into D with another
    seed, is refused in one line naming the holder's pid, before Hydra writes into D. Once the first is killed, its
    stale lock is taken over with a note, and D, holding the first run's files, is still refused to another run."""
    folder = tmp_path / "D"
    first = subprocess.Popen([*TRAIN, "train.epochs=1000", "train.patience=1000", f"hydra.run.dir={folder}"],
                             cwd=REPO_ROOT, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not (folder / "last.pt").is_file():
            assert first.poll() is None, first.stderr.read() if first.stderr else ""
            assert time.monotonic() < deadline, "the first run wrote no last.pt"
            time.sleep(0.2)
        overrides = (folder / ".hydra" / "overrides.yaml").read_text()
        second = subprocess.run([*TRAIN, "train.epochs=1", "seed=1", f"hydra.run.dir={folder}"], cwd=REPO_ROOT,
                                env=ENV, capture_output=True, text=True, timeout=300)
        one_line_refusal(second.returncode, second.stderr, f"run folder {folder} is being written by another run",
                         f"pid {first.pid}")
        assert (folder / ".hydra" / "overrides.yaml").read_text() == overrides  # Hydra's files of the first run kept
        assert first.poll() is None  # the first run trains on
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=60)
        if first.stderr:
            first.stderr.close()
    kept = load_checkpoint(folder / "last.pt")
    with pytest.raises(ConfigError, match=f"run folder {folder} holds another run") as info:
        train(config(folder, "train.epochs=1", "seed=1"))
    assert "train.resume=" in str(info.value)  # says how to go on with that run instead
    assert f"note: took over the stale lock {folder / 'train.lock'}: left by pid {first.pid}" in capsys.readouterr().err
    assert load_checkpoint(folder / "last.pt")["config"] == kept["config"] and kept["config"]["seed"] == 0
    assert not (folder / "train.lock").exists()  # the refused run let go of the lock


def test_a_finished_run_folder_is_refused_before_hydra_writes_into_it(finished: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """`train hydra.run.dir=D` (and run_dir=D) on a folder holding a finished run: refused before Hydra starts; a
    resume of that very run into it is allowed."""
    before = sorted(p.name for p in finished.iterdir())
    for where in (f"hydra.run.dir={finished}", f"run_dir={finished}"):
        refused_before_hydra(capsys, ["model=4x4", *TINY, "train.epochs=1", "seed=1", where],
                             f"run folder {finished} holds another run (last.pt, best.pt, metrics.json, tb)")
    assert sorted(p.name for p in finished.iterdir()) == before
    from ltn_sudoku.logic.training.runtime import run_folder_problem

    again = config(finished, "train.epochs=3", f"train.resume={finished / 'last.pt'}")
    assert run_folder_problem(finished, again) is None


def test_an_interrupted_stage_of_a_chain_goes_on_from_its_last_pt(tmp_path: Path) -> None:
    """A stage folder with a last.pt but no metrics.json (stopped part way) is resumed, not trained again from
    scratch into a folder that holds a run (which the trainer would refuse)."""
    from ltn_sudoku.logic.commands.experiments import stage_configs, train_experiment

    final = compose_config(["+experiment=9x9_mp", "train.epochs=1", "data.kaggle_path=null"])
    stages = stage_configs(final, ["train.epochs=1", "data.kaggle_path=null"])
    stopped = tmp_path / "stages" / "9x9_mp_d"
    stopped.mkdir(parents=True)
    (stopped / "last.pt").write_bytes(b"")
    seen: list[tuple[str, object]] = []

    def fake_train(cfg: DictConfig) -> dict[str, float]:
        seen.append((str(cfg.experiment.name), cfg.train.resume))
        return {}

    train_experiment(final, stages, tmp_path, fake_train)
    assert seen == [("9x9_mp_b", None), ("9x9_mp_d", str(stopped / "last.pt")), ("9x9_mp", None)]


FROZEN_CLOCK = """\
import datetime
import runpy

import hydra.core.utils

class Frozen(datetime.datetime):  # Hydra's ${now:...} reads this clock: both runs start in the same microsecond
    @classmethod
    def now(cls, tz=None):
        return cls(2026, 1, 1, 12, 0, 0, 123456)

hydra.core.utils.datetime = Frozen
runpy.run_module("ltn_sudoku.train", run_name="__main__", alter_sys=True)  # as `python -m ltn_sudoku.train` runs
"""


def test_runs_started_in_the_same_second_get_folders_of_their_own(tmp_path: Path) -> None:
    """Two real runs with the default folder pattern, started at the same (frozen) time: each has its own folder,
    with its own checkpoints, metrics and log."""
    script = tmp_path / "frozen_train.py"
    script.write_text(FROZEN_CLOCK)
    runs = [subprocess.Popen([sys.executable, str(script), "model=4x4", *TINY, "train.epochs=1", f"seed={seed}"],
                             cwd=tmp_path, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for seed in (0, 1)]
    for run in runs:
        _, err = run.communicate(timeout=300)
        assert run.returncode == 0, err[-3000:]
    folders = sorted(p for p in (tmp_path / "outputs" / "2026-01-01").iterdir())
    assert len(folders) == 2, folders
    assert all(p.name.startswith("12-00-00-123456_") for p in folders)
    seeds = sorted(load_checkpoint(folder / "last.pt")["config"]["seed"] for folder in folders)
    assert seeds == [0, 1]
    for folder in folders:
        assert json.loads((folder / "metrics.json").read_text())["train/epoch"] == 1
        assert (folder / "train.log").read_text().count("epoch 1/1") == 1
        assert len(list((folder / "tb").glob("events.out.tfevents.*"))) == 1


# ---- case 7: a warm start from another architecture --------------------------------------------------------------------
def test_init_from_a_checkpoint_of_another_architecture_is_refused_before_any_data(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The shipped 4x4 is message passing; model=4x4 is evidence: refused naming the key, before any data."""
    no_data(monkeypatch)
    shipped = CHECKPOINTS_DIR / "4x4.pt"
    with pytest.raises(CheckpointError) as info:
        train(config(tmp_path / "run", "train.epochs=1", f"train.init_from={shipped}"))
    message = str(info.value)
    assert f"train.init_from={shipped}" in message and "model.hasvalue is 'message_passing' there, 'evidence' here" \
        in message and "model=4x4_mp" in message and "\n" not in message
    assert not (tmp_path / "run" / "train.lock").exists()


def test_the_entry_point_refuses_a_warm_start_of_another_architecture_in_one_line(tmp_path: Path) -> None:
    done = subprocess.run([*TRAIN, "train.epochs=1", f"train.init_from={CHECKPOINTS_DIR / '4x4.pt'}",
                           f"hydra.run.dir={tmp_path / 'run'}"], cwd=REPO_ROOT, env=ENV, capture_output=True,
                          text=True, timeout=300)
    one_line_refusal(done.returncode, done.stderr, "train.init_from=", "model.hasvalue")
    assert not (tmp_path / "run" / "last.pt").exists()


# ---- case 8: a resume with a changed recipe ----------------------------------------------------------------------------
def test_a_resume_with_a_changed_recipe_is_refused_naming_the_keys(finished: Path, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """train.lr=0.5 logic=product seed=7 on resume: the old lr would train while the new one is recorded, and the
    data seed would change mid-run. Refused (trainer and entry point), naming each key, before any data."""
    from ltn_sudoku.logic.training.runtime import RESUMABLE, check_resume

    resume = f"train.resume={finished / 'last.pt'}"
    changed = ["train.lr=0.5", "logic=product", "seed=7"]
    no_data(monkeypatch)
    with pytest.raises(ConfigError) as info:
        train(config(tmp_path / "resumed", "train.epochs=2", resume, *changed))
    for key in ("train.lr is 0.003 in that run, 0.5 here", "seed is 0 in that run, 7 here", "logic.family"):
        assert key in str(info.value)
    line = refused_before_hydra(capsys, ["model=4x4", *TINY, "train.epochs=2", resume, "train.lr=0.5",
                                         f"run_dir={tmp_path / 'resumed'}"], "train.lr is 0.003 in that run, 0.5 here")
    assert "seed" not in line.split("; a resume")[0]  # only what changed is named
    recorded = load_checkpoint(finished / "last.pt")["config"]
    allowed = config(tmp_path / "elsewhere", "train.epochs=5", "train.patience=9", "threads=2", "device=cpu", resume)
    check_resume(allowed, recorded, "last.pt")  # the keys a resume may change pass
    assert {"train.epochs", "train.patience", "train.progress", "device", "threads"} <= set(RESUMABLE)


# ---- cases 9 and 11: the data files, the givens, the model size: one line naming the key (and the line) ------------------
@pytest.mark.parametrize(("overrides", "words"), [
    (["model=9x9", "data.kaggle_path=/nonexistent.csv"], ["data.kaggle_path=/nonexistent.csv: no such file"]),
    (["model=9x9", "data.kaggle_path=${data_home:kaggle}"],
     ["data.kaggle_path=", "ltn-sudoku data fetch kaggle-1m kaggle-9m kaggle-3m"]),
    (["model=4x4", f"data.kaggle_path={KAGGLE_SAMPLE}"], ["data.kaggle_path=", "Kaggle rows are 9x9 boards",
                                                          "the model is 4x4"]),
    (["model=4x4", "data.givens=[20,10]"], ["data.givens=[20, 10]", "givens range 20-10 is impossible for 4x4"]),
    (["model=4x4", "data.givens=[[4,8],[3]]"], ["data.givens=", "expected [low, high]"]),
    (["model=4x4", "data.train.boards_path=/nonexistent.txt"], ["data.train.boards_path=/nonexistent.txt: no such"]),
    (["model=9x9", "model.size=4"], ["model.size=4: model=9x9 is a 9x9 model"]),
], ids=["kaggle-missing", "kaggle-not-fetched", "kaggle-for-4x4", "givens-reversed", "givens-shape", "boards-missing",
        "size-against-model"])
def test_config_mistakes_are_refused_before_any_work(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                     overrides: list[str], words: list[str]) -> None:
    refused_before_hydra(capsys, [*overrides, "train.epochs=1", f"run_dir={tmp_path / 'run'}"], *words)
    assert not (tmp_path / "run").exists()


def _splits(tmp_path: Path, *overrides: str) -> None:
    from ltn_sudoku.logic.board.data import build_splits

    cfg = compose_config([*overrides, f"run_dir={tmp_path / 'run'}"])
    build_splits(cfg, ModelConfig.from_cfg(cfg.model))


def test_a_garbage_row_in_a_kaggle_file_or_a_board_file_names_the_key_and_the_line(tmp_path: Path) -> None:
    from ltn_sudoku.logic.board.data import DataError

    lines = kaggle_lines(60)
    lines[31] = b"garbage,row"
    bad = tmp_path / "kaggle_3m_bad.csv"
    bad.write_bytes(b"\n".join(lines) + b"\n")
    with pytest.raises(DataError, match=rf"^data.kaggle_path: {bad}:32: 2 fields: expected 5"):
        _splits(tmp_path, "model=9x9", *NO_GENERATED, f"data.kaggle_path={bad}")
    boards = tmp_path / "boards.txt"
    boards.write_text("1234341221434321\n" + "12" + "x" * 14 + "\n")
    with pytest.raises(DataError, match=rf"^data.train.boards_path: {boards}:2:3: "):
        _splits(tmp_path, "model=4x4", *TINY, f"data.train.boards_path={boards}")


def test_boards_of_another_size_for_the_model_are_refused_at_their_line(tmp_path: Path) -> None:
    from ltn_sudoku.logic.board.data import DataError

    nine = tmp_path / "nine.txt"
    nine.write_text("2.14.....4...7358..5....6....9.2.8.1.23.1..5...8354..97..28.....15..93.6.6....74.\n")
    with pytest.raises(DataError, match=rf"^data.train.boards_path: {nine}:1: a 9x9 board; the model is 4x4"):
        _splits(tmp_path, "model=4x4", *TINY, f"data.train.boards_path={nine}")


@pytest.mark.parametrize("gzipped", [False, True], ids=["csv", "csv.gz"])
def test_a_bad_byte_in_a_kaggle_file_is_located_by_line_and_column(tmp_path: Path, gzipped: bool) -> None:
    """A byte that is not UTF-8 in the middle of a Kaggle CSV: its line and column, not a position in a buffer."""
    from ltn_sudoku.io.kaggle import KaggleReader
    from ltn_sudoku.logic.board.data import DataError

    lines = kaggle_lines(400)
    lines[300] = lines[300][:20] + b"\xff" + lines[300][21:]
    data = b"\n".join(lines) + b"\n"
    path = tmp_path / ("kaggle_3m_badbyte.csv.gz" if gzipped else "kaggle_3m_badbyte.csv")
    path.write_bytes(gzip.compress(data) if gzipped else data)
    with pytest.raises(FormatError) as info:
        list(KaggleReader(path))
    assert str(info.value) == f"{path}:301:21: not UTF-8 text (byte 0xff): expected a Kaggle CSV, plain or gzip"
    with pytest.raises(DataError, match=rf"^data.kaggle_path: {path}:301:21: not UTF-8"):
        _splits(tmp_path, "model=9x9", *NO_GENERATED, f"data.kaggle_path={path}")


def test_a_damaged_gzip_stream_says_after_which_line(tmp_path: Path) -> None:
    """A Kaggle CSV and a board file, gzipped and damaged part way: a FormatError (never zlib's own error) saying
    the last line read."""
    from ltn_sudoku.io.kaggle import KaggleReader

    data = bytearray(gzip.compress(b"\n".join(kaggle_lines(1000)) + b"\n", mtime=0))
    data[len(data) // 2] ^= 0xFF
    path = tmp_path / "kaggle_3m_damaged.csv.gz"
    path.write_bytes(bytes(data))
    with pytest.raises(FormatError, match=r"not a valid gzip file \(.*\), after line \d+ \(the last one read\)"):
        list(KaggleReader(path))
    board = "2.14.....4...7358..5....6....9.2.8.1.23.1..5...8354..97..28.....15..93.6.6....74.\n"
    whole = gzip.compress(board.encode() * 4000, mtime=0)
    cut = tmp_path / "cut.txt.gz"
    cut.write_bytes(whole[: len(whole) // 2])
    with pytest.raises(FormatError, match=r"cut.txt.gz: not a valid gzip file \(.*\), after line \d+ "):
        read_records(cut)


def test_the_entry_point_refuses_a_bad_data_file_in_one_line(tmp_path: Path) -> None:
    """A garbage row found once training has started (the data are read after Hydra starts): one line, exit 2."""
    boards = tmp_path / "boards.txt"
    boards.write_text("1234341221434321\nnot a board\n")
    done = subprocess.run([*TRAIN, "train.epochs=1", f"data.train.boards_path={boards}",
                           f"hydra.run.dir={tmp_path / 'run'}"], cwd=REPO_ROOT, env=ENV, capture_output=True,
                          text=True, timeout=300)
    one_line_refusal(done.returncode, done.stderr, f"data.train.boards_path: {boards}:2")


# ---- case 9: evaluate on a damaged checkpoint ----------------------------------------------------------------------------
def test_evaluate_refuses_a_damaged_checkpoint_in_one_line(finished: Path, tmp_path: Path) -> None:
    damaged = tmp_path / "damaged.pt"
    damaged.write_bytes((finished / "best.pt").read_bytes()[:2000])
    done = subprocess.run([sys.executable, "-m", "ltn_sudoku.evaluate", "model=4x4", f"checkpoint={damaged}",
                           f"hydra.run.dir={tmp_path / 'eval'}"], cwd=REPO_ROOT, env=ENV, capture_output=True,
                          text=True, timeout=300)
    one_line_refusal(done.returncode, done.stderr, f"{damaged}: not a readable checkpoint")
