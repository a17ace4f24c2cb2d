"""The shipped models (checkpoints/<n>x<n>.pt) against the figures published beside them (<n>x<n>.metrics.json):
each is evaluated on 100 fresh boards per question, drawn with a seed neither training (0, 1) nor evaluation (1000)
uses, with the symbolic engine as the oracle, and must land within sampling error of its published figure.

Tolerance for a share p measured on k boards: 3 standard errors, sqrt(p (1 - p) / k), with p (1 - p) floored at
1/k so that a published 100 % still allows the odd miss of a 99.x % model (3 misses in 100); macro-F1 over the
techniques gets 0.05. A replaced checkpoint is compared with whatever its metrics.json says.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from ltn_sudoku.logic.board import assess, data
from ltn_sudoku.logic.board.evaluate import DEFAULT_GIVENS_BINS
from ltn_sudoku.logic.board.labels import resolve_techniques
from ltn_sudoku.logic.board.metrics import accuracy
from ltn_sudoku.logic.board.predict import LtnPredictor
from ltn_sudoku.logic.checkpoints import shipped_checkpoint
from ltn_sudoku.logic.kinds import load_model

SEED = 2024
BOARDS = 100


def published(size: int) -> dict[str, float]:
    path = shipped_checkpoint(size).with_suffix(".metrics.json")
    return json.loads(path.read_text())["evaluation"]


def tolerance(p: float, k: int) -> float:
    return 3 * math.sqrt(max(p * (1 - p), 1 / k) / k)


def measured(size: int, steps: int | None) -> dict[str, Any]:
    """The published questions' figures on fresh boards: isCorrect, hasSolution, solving, heuristics."""
    model, ops, _ = load_model(shipped_checkpoint(size), size)
    half = BOARDS // 2
    closed = data.BoardSet.concat([data.generated(size, "closed_valid", half, SEED),
                                   data.generated(size, "closed_invalid", half, SEED)])
    open_boards = data.BoardSet.concat([data.generated(size, "open_solvable", half, SEED),
                                        data.generated(size, "open_impossible", half, SEED)])
    bins = DEFAULT_GIVENS_BINS[size]
    puzzles = data.generated(size, "open_solvable", BOARDS, SEED + 1, givens=(bins[0][0], bins[-1][1]))
    out: dict[str, Any] = {}
    with torch.no_grad():
        truths, labels = assess.is_correct_scores(model, ops, closed)
        out["q1_is_correct/accuracy"] = accuracy(truths >= float(model.is_correct_threshold), labels)
        truths, labels = assess.has_solution_scores(model, ops, open_boards, steps)
        out["q2_has_solution/accuracy"] = accuracy(truths >= float(model.has_solution_threshold), labels)
        out.update(assess.solving(model, puzzles, steps))
        states = data.label_techniques(data.solving_states(puzzles, SEED),
                                       resolve_techniques(model.config.techniques, size))
        out.update(assess.heuristics(model, states))
    return out


def check(size: int) -> None:
    figures = published(size)
    steps = figures.get("checkpoint/eval_steps")  # the steps it was evaluated with (absent: the model's own)
    got = measured(size, int(steps) if steps else None)
    for key in ("q1_is_correct/accuracy", "q2_has_solution/accuracy", "solve/board_accuracy"):
        assert abs(got[key] - figures[key]) <= tolerance(figures[key], BOARDS), (key, got[key], figures[key])
    assert abs(got["heuristics/macro_f1"] - figures["heuristics/macro_f1"]) <= 0.05, got["heuristics/macro_f1"]


def test_the_shipped_models_load_with_their_published_figures() -> None:
    for size in (4, 9):
        predictor = LtnPredictor.for_size(size)
        assert predictor is not None, f"no shipped {size}x{size} model"
        figures = published(size)
        assert figures["solve/count"] >= 100 and np.isfinite(figures["q2_has_solution/accuracy"])


def test_the_shipped_4x4_model_reaches_its_published_figures() -> None:
    check(4)


@pytest.mark.slow
def test_the_shipped_9x9_model_reaches_its_published_figures() -> None:
    check(9)


def test_the_shipped_message_passing_model_answers_through_classify_board(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """classify-board with the message-passing checkpoint: on a dense puzzle its hasValue is the exact solver's
    unique solution (the shipped model solves 74 % of held-out 30-35-given puzzles; this one it solves)."""
    from ltn_sudoku.cli import classify_board_main
    from ltn_sudoku.exact import count_solutions, solve
    from ltn_sudoku.io import parse_board_text
    from ltn_sudoku.paths import CHECKPOINTS_DIR

    puzzle = "..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3.."
    path = tmp_path / "puzzle.txt"
    path.write_text(puzzle + "\n")
    checkpoint = CHECKPOINTS_DIR / "9x9_message_passing.pt"
    assert classify_board_main([str(path), "--checkpoint", str(checkpoint), "--json"]) in (0, None)
    answer = json.loads(capsys.readouterr().out)["ltn"]
    board = parse_board_text(puzzle)
    assert count_solutions(board, 2) == 1
    assert answer["checkpoint"].endswith("9x9_message_passing.pt") and answer["hasSolution"]["decision"] is True
    assert answer["solution"]["board"] == solve(board).to_line()


def test_every_shipped_checkpoint_loads_its_flat_config_into_its_groundings_dataclass() -> None:
    """A checkpoint stores the flat `model` node it was trained with (old keys included); loading maps it through
    the registry onto its grounding's own config dataclass."""
    from ltn_sudoku.logic.groundings.hasvalue import GROUNDINGS, grounding_name
    from ltn_sudoku.paths import CHECKPOINTS_DIR

    expected = {"4x4": "message_passing", "4x4_evidence": "evidence", "9x9": "evidence",
                "9x9_message_passing": "message_passing", "visual_4x4": "visual", "visual_9x9": "visual"}
    assert {path.stem for path in CHECKPOINTS_DIR.glob("*.pt")} == set(expected)
    for name, kind in expected.items():
        model, _, payload = load_model(CHECKPOINTS_DIR / f"{name}.pt")
        assert grounding_name(payload["config"]["model"]) == kind, name
        config = model.config.reader if kind == "visual" else model.config.has_value
        assert type(config) is GROUNDINGS[kind].config and config.grounding == kind, name
        assert all(getattr(config, key) == int(value) for key, value in payload["config"]["model"].items()
                   if key in config.__dataclass_fields__ and key != "grounding"), name
