"""Training end to end on tiny models: train -> checkpoint -> evaluate -> predict, resume, a 2-job sweep, errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from omegaconf import DictConfig

from ltn_sudoku.board import Board
from ltn_sudoku.cli import build_parser, run_command
from ltn_sudoku.io import parse_board_text
from ltn_sudoku.logic.board.evaluate import evaluate
from ltn_sudoku.logic.board.predict import LtnPredictor
from ltn_sudoku.logic.checkpoints import CheckpointError, load_checkpoint, save_checkpoint
from ltn_sudoku.logic.config.schema import compose_config
from ltn_sudoku.logic.kinds import train
from ltn_sudoku.paths import REPO_ROOT

TINY = [
    "model.hidden=8", "model.steps=2", "model.eval_steps=3", "model.kb_every=2", "model.solution_hidden=4",
    "model.heuristic_hidden=4", "model.techniques=[Naked Single,Hidden Single,Naked Pair]",
    "data.train.solvable=24", "data.train.impossible=8", "data.val.solvable=8", "data.val.impossible=8",
    "data.val.closed_valid=4", "data.val.closed_invalid=4", "train.batch_size=8", "train.progress=false",
]
TINY_EVAL = ["evaluate.closed=8", "evaluate.open=24", "evaluate.solving=8", "evaluate.dead_end_puzzles=2",
             "evaluate.search.puzzles=4", "evaluate.search.impossible=2"]


def config(run_dir: Path, *overrides: str) -> DictConfig:
    return compose_config(["model=4x4", f"run_dir={run_dir}", *TINY, *overrides])


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = tmp_path_factory.mktemp("run")
    train(config(run, "train.epochs=1"))
    return run


def test_a_run_writes_checkpoints_metrics_and_tensorboard(trained: Path) -> None:
    assert (trained / "last.pt").is_file() and (trained / "best.pt").is_file()
    metrics = json.loads((trained / "metrics.json").read_text())
    for key in ("val/solve/board_accuracy", "val/solve/singles_loop", "val/has_solution/accuracy",
                "val/is_correct/accuracy", "val/heuristics/macro_f1", "train/boards_per_cpu_second"):
        assert key in metrics
    events = list((trained / "tb").rglob("events.out.tfevents.*"))
    assert len(events) >= 2  # the run's scalars and its hparams
    payload = load_checkpoint(trained / "best.pt", 4)
    assert payload["config"]["model"]["size"] == 4
    assert set(payload["extra"]) >= {"is_correct_threshold", "has_solution_threshold", "techniques"}
    assert (trained / "best.pt").stat().st_size < 2_000_000


def test_tensorboard_shows_hasvalue_on_fixed_validation_boards(trained: Path) -> None:
    """Each validation draws hasValue on 4 fixed solvable validation boards (render/raster.py) into TensorBoard's
    images, and logs what validation and the pictures cost."""
    import io

    from PIL import Image
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    from ltn_sudoku.render.raster import hasvalue_image

    (events,) = [e for e in (trained / "tb").glob("events.out.tfevents.*")]
    run = EventAccumulator(str(events), size_guidance={"images": 0}).Reload()
    (image,) = run.Images("val/hasValue")  # one epoch: one validation
    pixels = np.asarray(Image.open(io.BytesIO(image.encoded_image_string)).convert("RGB"))
    one = hasvalue_image(np.zeros(16, dtype=int), np.full((16, 4), 0.25))  # the size of one board's picture
    assert pixels.shape[0] >= one.shape[0] and pixels.shape[1] >= 4 * one.shape[1]  # four boards side by side
    assert pixels.std() > 20  # drawn, not blank
    tags = run.Tags()["scalars"]
    assert {"time/validation_seconds", "time/pictures_seconds"} <= set(tags)


def test_checkpoint_to_evaluate_to_predict(trained: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    metrics = evaluate(config(tmp_path, f"checkpoint={trained / 'best.pt'}", *TINY_EVAL))
    printed = capsys.readouterr().out  # each section once, under its own title, and where the files went
    assert printed.count("hasSolution by givens") == 1 and "solving by has_solution" not in printed
    for title in ("hasValue solving by tier", "recommendsHeuristic", "dead-end moves", "isCorrect on closed boards",
                  f"evaluation written to {tmp_path / 'metrics.json'}"):
        assert printed.count(title) == 1, title
    for key in ("q1_is_correct/accuracy", "q2_has_solution/accuracy", "q2_has_solution/subtle/accuracy",
                "solve/board_accuracy", "dead_end/accuracy", "heuristics/macro_f1",
                "cost/inference_boards_per_cpu_second"):
        assert key in metrics, key
    assert json.loads((tmp_path / "metrics.json").read_text())["metrics"]["solve/count"] == metrics["solve/count"]
    assert metrics["checkpoint/eval_steps"] == 3  # the tiny model's model.eval_steps
    longer = evaluate(config(tmp_path / "longer", f"checkpoint={trained / 'best.pt'}", *TINY_EVAL,
                             "evaluate.eval_steps=7"))
    assert longer["checkpoint/eval_steps"] == 7
    predictor = LtnPredictor.load(trained / "best.pt")
    open_board, closed_board = parse_board_text("1.3....2.1......"), parse_board_text("1234341221434321")
    answers = predictor.answer_batch([open_board, closed_board])
    assert answers == [predictor.answer(open_board), predictor.answer(closed_board)]
    first, second = answers
    assert first["isCorrect"] is None and set(first["hasSolution"]) == {"truth", "decision"}
    assert {(m["row"], m["col"], m["digit"]) for m in first["moves"]} == {
        (c // 4, c % 4, d) for c in open_board.empty_cells for d in open_board.candidates(c)}
    assert all(0 <= m["confidence"] <= 1 and 0 <= m["dead_end"]["probability"] <= 1 for m in first["moves"])
    assert set(first["recommendsHeuristic"]) == {"Naked Single", "Hidden Single", "Naked Pair"}
    assert second["hasSolution"] is None and isinstance(second["isCorrect"]["decision"], bool)


def test_resume_continues_where_the_run_stopped(trained: Path, tmp_path: Path) -> None:
    straight = tmp_path / "straight"
    train(config(straight, "train.epochs=2", "train.patience=5"))
    resumed = tmp_path / "resumed"
    train(config(resumed, "train.epochs=2", "train.patience=5", f"train.resume={trained / 'last.pt'}"))
    a = load_checkpoint(straight / "last.pt")["state_dict"]
    b = load_checkpoint(resumed / "last.pt")["state_dict"]
    assert load_checkpoint(resumed / "last.pt")["extra"]["epoch"] == 1
    for key in a:
        assert torch.allclose(a[key], b[key], atol=1e-6), key


def test_init_from_starts_from_the_checkpoint_weights(trained: Path, tmp_path: Path) -> None:
    train(config(tmp_path, "train.epochs=1", "train.lr=1e-12", "train.heuristic_lr=1e-12",
                 f"train.init_from={trained / 'last.pt'}"))
    source = load_checkpoint(trained / "last.pt")["state_dict"]
    warm = load_checkpoint(tmp_path / "last.pt")
    assert warm["extra"]["epoch"] == 0  # epochs count from 0: a warm start is not a resume
    for key, value in source.items():
        assert torch.allclose(value.float(), warm["state_dict"][key].float(), atol=1e-6), key


def test_a_warm_start_carries_its_parents_boards_into_the_held_out_check(trained: Path, tmp_path: Path) -> None:
    """Evaluation must hold out the boards the parent run trained on too, not only the warm-started run's own."""
    from ltn_sudoku.logic.board.evaluate import seen_boards, training_boards

    child = tmp_path / "child"
    train(config(child, "train.epochs=1", "seed=7", f"train.init_from={trained / 'last.pt'}"))
    parent = load_checkpoint(trained / "last.pt")
    payload = load_checkpoint(child / "best.pt")
    assert payload["extra"]["lineage"] == [parent["config"]]
    assert load_checkpoint(child / "last.pt")["extra"]["lineage"] == [parent["config"]]
    own, inherited = training_boards(payload["config"]), training_boards(parent["config"])
    assert inherited - own  # seed 7 draws other boards: the parent's would otherwise escape the check
    assert seen_boards(payload, None) == own | inherited


def test_checkpoint_errors(trained: Path, tmp_path: Path) -> None:
    with pytest.raises(CheckpointError, match="no such checkpoint"):
        LtnPredictor.load(tmp_path / "missing.pt")
    broken = tmp_path / "broken.pt"
    broken.write_bytes((trained / "best.pt").read_bytes()[:500])
    with pytest.raises(CheckpointError, match="not a readable checkpoint"):
        LtnPredictor.load(broken)
    with pytest.raises(CheckpointError, match="4x4 model, the boards are 9x9"):
        LtnPredictor.load(trained / "best.pt", size=9)
    foreign = tmp_path / "foreign.pt"
    torch.save({"weights": torch.zeros(2)}, foreign)
    with pytest.raises(CheckpointError, match="not an ltn-sudoku checkpoint"):
        load_checkpoint(foreign)
    with pytest.raises(ValueError, match="9x9 board given to the 4x4 model"):
        LtnPredictor.load(trained / "best.pt").answer(Board.empty(9))
    with pytest.raises(ValueError, match="train.monitor"):
        train(config(tmp_path / "bad", "train.epochs=1", "train.monitor=val/nothing"))


def test_checkpoint_files_are_replaced_atomically(tmp_path: Path) -> None:
    target = tmp_path / "model.pt"
    save_checkpoint(target, 4, {"a": 1}, {"w": torch.ones(2)})
    save_checkpoint(target, 4, {"a": 2}, {"w": torch.zeros(2)})
    assert load_checkpoint(target)["config"] == {"a": 2}
    assert [p.name for p in tmp_path.iterdir()] == ["model.pt"]


def test_two_job_sweep_and_its_table(tmp_path: Path) -> None:
    sweep = tmp_path / "sweep"
    command = [sys.executable, "-m", "ltn_sudoku.train", "-m", "model=4x4", "logic=stable_product,goedel",
               "train.epochs=1", *TINY, f"hydra.sweep.dir={sweep}", "hydra.sweep.subdir=${hydra.job.num}"]
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    subprocess.run(command, cwd=REPO_ROOT, check=True, capture_output=True, env=env, timeout=600)
    assert sorted(p.name for p in sweep.iterdir() if p.is_dir()) == ["0", "1"]
    for job in ("0", "1"):
        assert (sweep / job / "metrics.json").is_file()
    table = tmp_path / "table.csv"
    subprocess.run([sys.executable, "scripts/aggregate_sweep.py", str(sweep), "--csv", str(table), "--plot",
                    str(tmp_path / "plot.png")], cwd=REPO_ROOT, check=True, capture_output=True, env=env, timeout=120)
    import pandas as pd

    frame = pd.read_csv(table)
    assert sorted(frame["logic.family"]) == ["goedel", "stable_product"]
    assert "val/solve/board_accuracy" in frame.columns
    assert (tmp_path / "plot.png").stat().st_size > 0
    # a job recorded before validation logged the singles loop: --singles-loop rebuilds its puzzles from its config
    # and finds the figure the other job (same data config, same puzzles) recorded
    recorded = json.loads((sweep / "0" / "metrics.json").read_text())["val/solve/singles_loop"]
    old = json.loads((sweep / "1" / "metrics.json").read_text())
    del old["val/solve/singles_loop"]
    (sweep / "1" / "metrics.json").write_text(json.dumps(old))
    subprocess.run([sys.executable, "scripts/aggregate_sweep.py", str(sweep), "--csv", str(table), "--singles-loop"],
                   cwd=REPO_ROOT, check=True, capture_output=True, env=env, timeout=300)
    assert pd.read_csv(table)["val/solve/singles_loop"].tolist() == pytest.approx([recorded, recorded])


# ---- classify-board with the LTN beside the symbolic answers ---------------------------------------------------------
def classify_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[dict], str]:
    status = run_command(build_parser().parse_args(["classify", "--json", *argv]))
    out, err = capsys.readouterr()
    return status, [json.loads(line) for line in out.splitlines() if line.strip()], err


def test_classify_shows_the_ltn_answers(trained: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    boards = tmp_path / "boards.txt"
    boards.write_text("1.34342.2143432.\n1234341221434321\n1234123412341234\n")
    status, (open_board, valid, invalid), _ = classify_json(
        capsys, str(boards), "--checkpoint", str(trained / "best.pt"), "--no-heuristics")
    assert status == 0
    ltn = open_board["ltn"]
    assert ltn["available"] and ltn["checkpoint"].endswith("best.pt")
    assert ltn["isCorrect"] is None and set(ltn["hasSolution"]) == {"truth", "decision"}
    assert {(m["row"], m["col"], m["digit"]) for m in ltn["moves"]} == {
        (m["row"], m["col"], m["digit"]) for m in open_board["moves"]}
    assert set(ltn["recommendsHeuristic"]) == {"Naked Single", "Hidden Single", "Naked Pair"}
    for closed in (valid, invalid):
        assert closed["ltn"]["hasSolution"] is None and isinstance(closed["ltn"]["isCorrect"]["decision"], bool)
    assert run_command(build_parser().parse_args(
        ["classify", str(boards), "--checkpoint", str(trained / "best.pt"), "--no-heuristics"])) == 0
    text_out = capsys.readouterr().out
    assert text_out.count("LTN model:") == 3 and "hasSolution:" in text_out and "isCorrect:" in text_out


def test_classify_without_ltn_or_without_a_model(trained: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, (report,), _ = classify_json(capsys, "--board", "1.34342.2143432.", "--no-ltn", "--no-heuristics")
    assert status == 0 and "ltn" not in report
    pattern_16 = "".join(f"{(4 * (r % 4) + r // 4 + c) % 16 + 1:02d}" for r in range(16) for c in range(16))
    status, (report,), _ = classify_json(capsys, "--board", pattern_16, "--no-heuristics")
    assert status == 0 and report["ltn"]["available"] is False and "16x16" in report["ltn"]["reason"]
    seed_9 = "2.14.....4...7358..5....6....9.2.8.1.23.1..5...8354..97..28.....15..93.6.6....74."
    status, (report,), _ = classify_json(capsys, "--board", seed_9, "--no-heuristics",
                                         "--checkpoint", str(trained / "best.pt"))
    assert status == 0 and report["ltn"]["available"] is False and "4x4 model" in report["ltn"]["reason"]


def test_classify_with_a_broken_checkpoint_exits_2(trained: Path, capsys: pytest.CaptureFixture[str],
                                                   tmp_path: Path) -> None:
    broken = tmp_path / "broken.pt"
    broken.write_bytes((trained / "best.pt").read_bytes()[:300])
    status = run_command(build_parser().parse_args(["classify", "--board", "1.34342.2143432.", "--checkpoint",
                                                    str(broken)]))
    out, err = capsys.readouterr()
    assert status == 2 and out == "" and "not a readable checkpoint" in err and "Traceback" not in err


def test_a_board_file_joins_the_training_puzzles_under_its_stated_origin(tmp_path: Path) -> None:
    """data.train.boards_path: a file's puzzles (here generated 4x4 boards written as lines, without solutions, as
    scripts/make_branch_states.py writes generated branch states) join the training puzzles, their origin recorded
    in metrics.json as the config states it (generated, never Kaggle); an unsolvable board is refused at its line."""
    from ltn_sudoku.generate import generate
    from ltn_sudoku.io import FormatError, write_boards
    from ltn_sudoku.logic.board import data
    from ltn_sudoku.logic.board.model import ModelConfig

    path = tmp_path / "states.txt"
    write_boards(path, [r.board for r in generate(4, "open_solvable", 6, seed=9)])
    cfg = config(tmp_path / "run", "train.epochs=1", f"data.train.boards_path={path}", "data.train.boards_limit=5",
                 "data.train.boards_origin='generated (branch states)'")
    plain = data.build_splits(config(tmp_path / "plain"), ModelConfig.from_cfg(cfg.model))
    splits = data.build_splits(cfg, ModelConfig.from_cfg(cfg.model))
    assert len(splits.train) == len(plain.train) + 5
    assert sum(kind == "generated (branch states)" for kind in splits.train.origins) >= 3  # a third become states
    train(cfg)
    metrics = json.loads((tmp_path / "run" / "metrics.json").read_text())
    assert metrics["data/train_origins"] == ["generated", "generated (branch states)"]
    assert metrics["data/train_boards_path"] == str(path)
    bad = tmp_path / "bad.txt"
    bad.write_text("1234" + "." * 12 + "\n" + "11" + "." * 14 + "\n")
    with pytest.raises(FormatError, match=r"bad.txt:2: a board without a solution"):
        data.from_file(bad, 4, "generated")


def test_the_entry_point_refuses_a_checkpoint_it_cannot_resume_in_one_line(trained: Path, tmp_path: Path) -> None:
    """`python -m ltn_sudoku.train train.resume=best.pt` (no optimizer state) and a damaged train.init_from: exit 2
    and one line naming the file, not a traceback."""
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    broken = tmp_path / "broken.pt"
    broken.write_bytes((trained / "best.pt").read_bytes()[:500])
    for override, expected in ((f"train.resume={trained / 'best.pt'}", "no training state to resume from"),
                               (f"train.init_from={broken}", "not a readable checkpoint")):
        done = subprocess.run([sys.executable, "-m", "ltn_sudoku.train", "model=4x4", f"run_dir={tmp_path / 'run'}",
                               *TINY, "train.epochs=1", override], cwd=REPO_ROOT, capture_output=True, text=True,
                              env=env, timeout=300)
        assert done.returncode == 2, done.stderr
        assert expected in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_validation_prints_the_singles_loop_beside_solved() -> None:
    """val/solve/singles_loop is the singles loop's solved share on the validation puzzles themselves, checked
    against tiers.singles_loop_solves (which tests each reached board with Board.is_valid_solution)."""
    from ltn_sudoku.logic.board import data
    from ltn_sudoku.logic.board.task import singles_loop_share
    from ltn_sudoku.questions.tiers import singles_loop_solves

    puzzles = data.generated(9, "open_solvable", 40, seed=5)
    boards = [Board(row.tolist(), 9) for row in puzzles.puzzles.cpu().numpy()]
    expected = float(singles_loop_solves(boards).mean())
    assert 0.0 < expected < 1.0  # both outcomes occur, so the comparison can fail
    assert singles_loop_share(puzzles, 9) == pytest.approx(expected)
