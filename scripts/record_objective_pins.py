"""Record the pinned figures of tests/test_objective_pinned.py: the training objective's loss, gradient and every
axiom's satisfaction on a fixed seeded batch for each model kind, and the shipped checkpoints' answers on fixed
boards. Rerun only when a change of behaviour is intended (the test exists to catch unintended ones):

    PYTHONPATH=$PWD python scripts/record_objective_pins.py            # writes tests/fixtures/objective_pins.json
    PYTHONPATH=$PWD python scripts/record_objective_pins.py --check    # compare with the file, write nothing

The figures are computed by `pinned_figures()`, which the test imports, so the recorder and the test cannot drift.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from collections.abc import Callable
from functools import partial
from typing import Any

import torch

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "fixtures" / "objective_pins.json"
MNIST = ROOT.parent / "shared" / "data" / "mnist"
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
    from ltn_sudoku.logic import data
    from ltn_sudoku.logic.labels import resolve_techniques

    solvable = data.generated(size, "open_solvable", 6, seed=11)
    solved = data.BoardSet.concat([solvable, data.solving_states(solvable, seed=11)])
    impossible = data.generated(size, "open_impossible", 4, seed=11)
    return data.label_techniques(data.BoardSet.concat([solved, impossible]), resolve_techniques(techniques, size))


def board_objective(name: str, overrides: list[str], supervised: bool) -> dict[str, Any]:
    from ltn_sudoku.logic.model import LtnSudoku, ModelConfig
    from ltn_sudoku.logic.objective import objective
    from ltn_sudoku.logic.operators import build_operators
    from ltn_sudoku.logic.schema import compose_config

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
    from ltn_sudoku.logic.operators import build_operators
    from ltn_sudoku.logic.schema import compose_config
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


def board_answers(name: str) -> dict[str, Any]:
    from ltn_sudoku.logic import data
    from ltn_sudoku.logic.grounding import one_hot_givens
    from ltn_sudoku.logic.inference import decoded, is_correct_truth, reach
    from ltn_sudoku.logic.load import load_model
    from ltn_sudoku.paths import CHECKPOINTS_DIR

    model, ops, _ = load_model(CHECKPOINTS_DIR / f"{name}.pt")
    n = model.n
    open_boards = data.BoardSet.concat([data.generated(n, "open_solvable", 3, seed=7),
                                        data.generated(n, "open_impossible", 2, seed=7)])
    closed = data.BoardSet.concat([data.generated(n, "closed_valid", 2, seed=7),
                                   data.generated(n, "closed_invalid", 2, seed=7)])
    with torch.no_grad():
        reached = reach(model, ops, open_boards.puzzles)
        return {"digits": [int(x) for x in decoded(reached.final).flatten().tolist()],
                "has_solution": _floats(reached.has_solution),
                "is_correct": _floats(is_correct_truth(model, ops, closed.puzzles)),
                "recommends": _floats(model.recommends(one_hot_givens(open_boards.puzzles, n)))}


def visual_answers(name: str) -> dict[str, Any]:
    from ltn_sudoku.logic.load import load_model
    from ltn_sudoku.paths import CHECKPOINTS_DIR

    model, ops, _ = load_model(CHECKPOINTS_DIR / f"{name}.pt")
    images, _ = visual_batch(model.n)
    with torch.no_grad():
        return {"digits": [int(x) for x in model.read(images).flatten().tolist()],
                "is_correct": _floats(model.is_correct(ops, model.has_value(images)))}


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


def compute(pin: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """One pinned figure, computed on one thread (reductions in one fixed order)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return pin()
    finally:
        torch.set_num_threads(threads)


def differences(expected: Any, got: Any, tolerance: float, where: str = "") -> list[str]:
    """Every place where `got` differs from `expected` (numbers: by more than `tolerance`, relative to max(1, |x|))."""
    if isinstance(expected, dict):
        if not isinstance(got, dict) or set(expected) != set(got):
            return [f"{where}: keys {sorted(expected)} != {sorted(got) if isinstance(got, dict) else got!r}"]
        return [d for k in expected for d in differences(expected[k], got[k], tolerance, f"{where}/{k}")]
    if isinstance(expected, list):
        if not isinstance(got, list) or len(expected) != len(got):
            return [f"{where}: length {len(expected)} != {len(got) if isinstance(got, list) else got!r}"]
        return [d for i, (e, g) in enumerate(zip(expected, got)) for d in differences(e, g, tolerance, f"{where}[{i}]")]
    if isinstance(expected, float) or isinstance(got, float):
        if math.isnan(expected) and math.isnan(got):
            return []
        if abs(expected - got) <= tolerance * max(1.0, abs(expected)):
            return []
    elif expected == got:
        return []
    return [f"{where}: expected {expected!r}, got {got!r}"]


def main(argv: list[str] | None = None) -> int:
    from scripts._fixtures import record_or_check  # needs PYTHONPATH=$PWD, as the usage above says

    return record_or_check(__doc__.splitlines()[0], FIXTURE,
                           lambda: {name: compute(pin) for name, pin in pinned_figures().items()},
                           lambda recorded, found: differences(recorded, found, 0.0), argv)


if __name__ == "__main__":
    sys.exit(main())
