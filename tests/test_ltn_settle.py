"""Answering refines each board only until it settles (RecurrentHasValue.settle, classify-board's default): checked
against the plain refinement loop it shortcuts, on real Kaggle rows and the shipped checkpoints of both groundings."""

from __future__ import annotations

import itertools
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from ltn_sudoku.board import Board
from ltn_sudoku.io.kaggle import read_kaggle
from ltn_sudoku.logic.board.model import LtnSudoku, load_board_model
from ltn_sudoku.logic.board.predict import SETTLE_TOLERANCE, LtnAnswers
from ltn_sudoku.logic.groundings.grounding import encode_boards, one_hot_givens
from ltn_sudoku.paths import CHECKPOINTS_DIR, DATA_DIR
from tests.script_loader import load_script

KAGGLE_SAMPLES = sorted((DATA_DIR / "kaggle").glob("*.csv.gz"))


def _rows(count: int) -> list[Board]:
    """The first `count` real rows of each shipped Kaggle sample (1M, 3M, 9M)."""
    return [r.board for f in KAGGLE_SAMPLES for r in itertools.islice(read_kaggle(f), count)]


def _model(name: str) -> LtnSudoku:
    model, _, _ = load_board_model(CHECKPOINTS_DIR / name)
    return model.eval()


def _givens(model: LtnSudoku, boards: list[Board]) -> torch.Tensor:
    return one_hot_givens(encode_boards(boards, model.n, "cpu"), model.n)


@pytest.mark.parametrize("checkpoint", ["9x9.pt", "9x9_message_passing.pt"])
def test_tolerance_zero_is_the_whole_refinement(checkpoint: str) -> None:
    model = _model(checkpoint)
    givens = _givens(model, _rows(2))
    with torch.inference_mode():
        final, ran = model.settle(givens, tolerance=0.0)
        assert torch.equal(final, model.refine(givens)[-1])
    assert ran.tolist() == [model.config.eval_steps] * len(givens)


@pytest.mark.parametrize(("checkpoint", "per_set"), [("9x9.pt", 16), ("9x9_message_passing.pt", 3)])
def test_each_board_stops_where_its_own_refinement_settles(checkpoint: str, per_set: int) -> None:
    """The batch is cut as boards leave it; each board's answer is still the plain loop's assignment at the step
    where that board's own change first fell to the tolerance (within float rounding of other batch sizes)."""
    model = _model(checkpoint)
    givens = _givens(model, _rows(per_set))
    tolerance = 1e-3 if checkpoint == "9x9.pt" else 1e-2
    with torch.inference_mode():
        steps = model.refine(givens)
        final, ran = model.settle(givens, tolerance=tolerance)
    start = givens + (1 - givens.sum(-1, keepdim=True)) / model.n
    change = torch.stack([(after - before).abs().flatten(1).amax(1)
                          for before, after in zip([start, *steps], steps)], dim=1)  # (boards, steps)
    assert (ran < model.config.eval_steps).any(), "no board settled: the test shows nothing"
    for board, k in enumerate(ran.tolist()):
        assert torch.allclose(final[board], steps[k - 1][board], atol=1e-4)
        if k < model.config.eval_steps:
            assert change[board, k - 1] <= tolerance * 1.5  # settled where the plain loop settles
        assert (change[board, :k - 1] > tolerance * 0.5).all()  # and not long before


def test_settled_answers_decide_as_every_step_on_real_rows() -> None:
    """classify-board's LTN section with its default tolerance against every board refined all the way, on 32 rows
    of each shipped Kaggle sample: the same decisions, every number within a few times the tolerance."""
    bench = load_script("bench_classify_ltn")  # its `decided` and `largest_difference` say what an answer decides
    boards = _rows(32)
    settled = [a.ltn_dict() for a in LtnAnswers().sections(boards)]
    full = [a.ltn_dict() for a in LtnAnswers(tolerance=0.0).sections(boards)]
    assert [bench.decided(a) for a in settled] == [bench.decided(a) for a in full]
    assert max(bench.largest_difference(a, b) for a, b in zip(settled, full)) <= 10 * SETTLE_TOLERANCE
    predictor = LtnAnswers().predictor(9)
    assert predictor is not None
    with torch.inference_mode():
        _, ran = predictor.model.settle(_givens(predictor.model, boards[:32]), tolerance=SETTLE_TOLERANCE)
    assert ran.float().mean() < predictor.model.config.eval_steps * 0.8  # Kaggle 1M rows settle early


def test_classify_ltn_tolerance_option(tmp_path: Path) -> None:
    """--ltn-tolerance 0 answers as every step; a negative one is a usage error before any work."""
    board = DATA_DIR / "examples" / "multiple_solutions_9x9.csv"
    command = [sys.executable, "-m", "ltn_sudoku", "classify", str(board), "--no-heuristics", "--json"]
    full = subprocess.run([*command, "--ltn-tolerance", "0"], capture_output=True, text=True, timeout=300)
    assert full.returncode == 0, full.stderr[-2000:]
    assert '"hasSolution"' in full.stdout or '"isCorrect"' in full.stdout
    bad = subprocess.run([*command, "--ltn-tolerance", "-1"], capture_output=True, text=True, timeout=300)
    assert bad.returncode == 2 and "--ltn-tolerance" in bad.stderr
