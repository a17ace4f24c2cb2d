"""Record the pinned figures of tests/test_objective_pinned.py: the training objective's loss, gradient and every
axiom's satisfaction on a fixed seeded batch for each model kind, and the shipped checkpoints' answers on fixed
boards. Rerun only when a change of behaviour is intended (the test exists to catch unintended ones):

    PYTHONPATH=$PWD python scripts/record_objective_pins.py            # writes tests/fixtures/objective_pins.json
    PYTHONPATH=$PWD python scripts/record_objective_pins.py --check    # compare with the file, write nothing

The figures are computed by `pinned_figures()`, which the test imports, so the recorder and the test cannot drift.
`--check` compares within the test's TOLERANCE (measured across CPU kernels: tests/fixtures/drift.md); `--check
--exact` lists every figure that moved at all (bit for bit holds on the CPU that recorded the file).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import torch

if TYPE_CHECKING:
    from scripts._fixtures import Drift

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "fixtures" / "objective_pins.json"
MNIST = ROOT / "data" / "mnist_sample"  # the shipped MNIST subset (data/README.md): no test reads a data home
# the board models' configs pinned: small widths (fast), every switch the shipped runs use somewhere
BOARD_KINDS: dict[str, list[str]] = {
    "4x4_evidence": ["model=4x4", "model.hidden=16", "model.steps=3", "model.kb_every=1"],
    "9x9_evidence": ["model=9x9", "model.hidden=16", "model.steps=2", "model.kb_every=1"],
    "4x4_message_passing": ["model=4x4_mp", "model.hidden=16", "model.steps=3", "model.kb_every=2",
                            "logic=product_mp"],
    "9x9_message_passing": ["model=9x9_mp", "model.hidden=16", "model.steps=3", "model.kb_every=1",
                            "logic=product_mp", "model.exists_last=true", "model.detach_every=2"],
}
BOARD_CHECKPOINTS: tuple[str, ...] = ("4x4", "4x4_evidence", "9x9", "9x9_message_passing")
VISUAL_CHECKPOINTS: tuple[str, ...] = ("visual_4x4", "visual_9x9")
# A float may move by TOLERANCE x max(1, |x|) on another CPU: the largest drift measured across CPU kernels and
# thread counts, against the fixture and between any two of 17 variants, was 2.4e-7 (tests/fixtures/drift.md, made
# by scripts/measure_fixture_drift.py), with a margin of about 12. The digits are compared exactly: their smallest
# decision margin (digit_margins: 0.0039, the 9x9 checkpoint) is 10^4 times that drift.
TOLERANCE = 3e-6
QUANTITIES = ("loss", "satisfaction", "grad_l1", "answers")


def _floats(tensor: torch.Tensor) -> list[float]:
    return [float(x) for x in tensor.detach().double().flatten().tolist()]


def _grad_norms(model: torch.nn.Module) -> dict[str, float]:
    """The gradient's L1 norm per top-level module (which predicate the loss teaches, and how much)."""
    out: dict[str, float] = {}
    for name, child in model.named_children():
        grads = [p.grad.abs().sum() for p in child.parameters() if p.grad is not None]
        out[name] = float(torch.stack(grads).sum()) if grads else 0.0
    direct = [p for name, p in model.named_parameters(recurse=False) if p.grad is not None]
    if direct:
        out["(own)"] = float(sum(p.grad.abs().sum() for p in direct))
    return out


def board_batch(size: int, techniques: list[str]) -> Any:
    from ltn_sudoku.logic.board import data
    from ltn_sudoku.logic.board.labels import resolve_techniques

    solvable = data.generated(size, "open_solvable", 6, seed=11)
    solved = data.BoardSet.concat([solvable, data.solving_states(solvable, seed=11)])
    impossible = data.generated(size, "open_impossible", 4, seed=11)
    return data.label_techniques(data.BoardSet.concat([solved, impossible]), resolve_techniques(techniques, size))


def board_objective(name: str, overrides: list[str], supervised: bool) -> dict[str, Any]:
    from ltn_sudoku.logic.board.model import LtnSudoku, ModelConfig
    from ltn_sudoku.logic.board.objective import objective
    from ltn_sudoku.logic.config.schema import compose_config
    from ltn_sudoku.logic.kb.operators import build_operators

    cfg = compose_config(overrides)
    torch.manual_seed(0)
    model = LtnSudoku(ModelConfig.from_cfg(cfg.model))
    ops = build_operators(cfg.logic)
    batch = board_batch(model.n, list(model.config.techniques))
    result = objective(model, ops, batch, supervised)
    result.loss.backward()
    return {"loss": float(result.loss.detach()), "satisfaction": result.satisfaction, "grad_l1": _grad_norms(model)}


def visual_batch(size: int) -> tuple[torch.Tensor, torch.Tensor]:
    from ltn_sudoku.logic.visual.boards import make_boards
    from ltn_sudoku.logic.visual.mnist import image_pools

    boards = make_boards(size, 6, 3, image_pools(MNIST, size)["val"], "val")
    return torch.from_numpy(boards.boards.images), torch.from_numpy(boards.boards.valid)


def visual_objective(size: int, labels_teach_reader: bool) -> dict[str, Any]:
    from ltn_sudoku.logic.config.schema import compose_config
    from ltn_sudoku.logic.kb.operators import build_operators
    from ltn_sudoku.logic.visual.abduce import NO_GRID
    from ltn_sudoku.logic.visual.model import VisualConfig, VisualLtn
    from ltn_sudoku.logic.visual.objective import objective

    cfg = compose_config([f"model=visual_{size}x{size}", "model.channels=4", "model.hidden=8"])
    torch.manual_seed(0)
    model = VisualLtn(VisualConfig.from_cfg(dict(cfg.model)))
    ops = build_operators(cfg.logic)
    images, valid = visual_batch(size)
    generator = torch.Generator().manual_seed(5)
    abduced = torch.randint(0, size, (len(valid), size * size), generator=generator)
    abduced[~valid] = NO_GRID
    abduced[:, : size] = NO_GRID  # some cells without a grid on every board
    result = objective(model, ops, images, valid, float(cfg.train.rules_weight), labels_teach_reader, abduced,
                       float(cfg.train.abduce_weight))
    result.loss.backward()
    return {"loss": float(result.loss.detach()), "satisfaction": result.satisfaction, "grad_l1": _grad_norms(model)}


def board_inputs(name: str) -> tuple[Any, Any, Any, Any]:
    """A shipped board checkpoint (model, ops) and its pinned boards: 5 open ones, 4 closed ones."""
    from ltn_sudoku.logic.board import data
    from ltn_sudoku.logic.kinds import load_model
    from ltn_sudoku.paths import CHECKPOINTS_DIR

    model, ops, _ = load_model(CHECKPOINTS_DIR / f"{name}.pt")
    n = model.n
    open_boards = data.BoardSet.concat([data.generated(n, "open_solvable", 3, seed=7),
                                        data.generated(n, "open_impossible", 2, seed=7)])
    closed = data.BoardSet.concat([data.generated(n, "closed_valid", 2, seed=7),
                                   data.generated(n, "closed_invalid", 2, seed=7)])
    return model, ops, open_boards, closed


def board_answers(name: str) -> dict[str, Any]:
    from ltn_sudoku.logic.board.inference import decoded, is_correct_truth, reach
    from ltn_sudoku.logic.groundings.grounding import one_hot_givens

    model, ops, open_boards, closed = board_inputs(name)
    with torch.no_grad():
        reached = reach(model, ops, open_boards.puzzles)
        return {"digits": [int(x) for x in decoded(reached.final).flatten().tolist()],
                "has_solution": _floats(reached.has_solution),
                "is_correct": _floats(is_correct_truth(model, ops, closed.puzzles)),
                "recommends": _floats(model.recommends(one_hot_givens(open_boards.puzzles, model.n)))}


def visual_inputs(name: str) -> tuple[Any, Any, torch.Tensor]:
    """A shipped visual checkpoint (model, ops) and the pinned images."""
    from ltn_sudoku.logic.kinds import load_model
    from ltn_sudoku.paths import CHECKPOINTS_DIR

    model, ops, _ = load_model(CHECKPOINTS_DIR / f"{name}.pt")
    return model, ops, visual_batch(model.n)[0]


def visual_answers(name: str) -> dict[str, Any]:
    model, ops, images = visual_inputs(name)
    with torch.no_grad():
        return {"digits": [int(x) for x in model.read(images).flatten().tolist()],
                "is_correct": _floats(model.is_correct(ops, model.has_value(images)))}


def digit_margins(name: str) -> float:
    """The pinned digits' smallest decision margin: over every cell of the pinned boards, the gap between the truth
    of the digit read (the argmax) and the runner-up's. Far above the truths' drift, the digits are equal on every
    CPU (scripts/measure_fixture_drift.py prints it)."""
    with torch.no_grad():
        if name in VISUAL_CHECKPOINTS:
            model, _, images = visual_inputs(name)
            truths = model.has_value(images)
        else:
            from ltn_sudoku.logic.board.inference import reach

            model, ops, open_boards, _ = board_inputs(name)
            truths = reach(model, ops, open_boards.puzzles).final
        top = truths.double().topk(2, dim=-1).values
        return float((top[..., 0] - top[..., 1]).min())


def pinned_figures() -> dict[str, Callable[[], dict[str, Any]]]:
    """Every pinned figure by name ("objective/<kind>", "answers/<checkpoint>"): the function that computes it."""
    pins: dict[str, Callable[[], dict[str, Any]]] = {}
    for name, overrides in BOARD_KINDS.items():
        pins[f"objective/{name}"] = partial(board_objective, name, overrides, False)
    pins["objective/4x4_evidence supervised"] = partial(board_objective, "4x4", BOARD_KINDS["4x4_evidence"], True)
    for size in (4, 9):
        pins[f"objective/visual_{size}x{size}"] = partial(visual_objective, size, False)
    pins["objective/visual_4x4 labels_teach_reader"] = partial(visual_objective, 4, True)
    pins.update({f"answers/{name}": partial(board_answers, name) for name in BOARD_CHECKPOINTS})
    pins.update({f"answers/{name}": partial(visual_answers, name) for name in VISUAL_CHECKPOINTS})
    return pins


def compute(pin: Callable[[], dict[str, Any]], threads: int = 1) -> dict[str, Any]:
    """One pinned figure, computed on `threads` threads (1: reductions in one fixed order)."""
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        return pin()
    finally:
        torch.set_num_threads(before)


def drifts(expected: Any, got: Any, where: str = "") -> list[Drift]:
    """Every figure of a pin with its quantity and how far it moved, |Δ| / max(1, |x|): the objective's "loss",
    "satisfaction", "grad_l1", the checkpoints' truths ("answers": hasSolution, isCorrect, recommendsHeuristic); the
    digits read are compared exactly (quantity None)."""
    from scripts._fixtures import drift, exactly, is_float, measure

    def classify(place: str, e: Any, g: Any) -> tuple[str | None, float]:
        if not is_float(e, g):
            return exactly(e, g)
        first = place.removeprefix(where).lstrip("/").split("/")[0].split("[")[0]
        return ("answers" if first in ("has_solution", "is_correct", "recommends") else first), drift(e, g)

    return measure(expected, got, classify, where)


def differences(expected: Any, got: Any, tolerance: float, where: str = "") -> list[str]:
    """Every place where `got` differs from `expected`: a float by more than `tolerance` relative to max(1, |x|),
    anything else at all."""
    from scripts._fixtures import beyond

    return beyond(drifts(expected, got, where), dict.fromkeys(QUANTITIES, tolerance))


def check(recorded: dict[str, Any], found: dict[str, Any], tolerance: float) -> list[str]:
    """Every pin's differences (`differences`), and any pin recorded or computed alone."""
    if set(recorded) != set(found):
        return [f"pins {sorted(set(recorded) ^ set(found))} recorded or computed alone"]
    return [d for name in recorded for d in differences(recorded[name], found[name], tolerance, name)]


def main(argv: list[str] | None = None) -> int:
    from scripts._fixtures import record_or_check  # needs PYTHONPATH=$PWD, as the usage above says

    return record_or_check(__doc__.splitlines()[0], FIXTURE,
                           lambda: {name: compute(pin) for name, pin in pinned_figures().items()},
                           lambda recorded, found, exact: check(recorded, found, 0.0 if exact else TOLERANCE), argv)


if __name__ == "__main__":
    sys.exit(main())
