"""Every axiom in SatAgg is alive: under every logic file (conf/logic/*.yaml) and with every board model kind
(evidence, message passing), each axiom that enters SatAgg on real batches has a truth that moves between batches
and a non-zero gradient with respect to the model's parameters. An axiom that the groundings fix (the `by
construction` entries of ltn_sudoku/logic/kb/theory.py: givens clamped, one digit per cell under Łukasiewicz with a
softmax hasValue) must be out of SatAgg and reported apart, never as a `sat/` figure.

Before the fix (p_exists = 1 in the lukasiewicz, product, goedel and stable_product files) this failed: ∃ as a pMean
with p = 1 over a softmax hasValue is the constant 1/n, so cell_has_value and unit_has_digit read 1/n with zero
gradient under every family but Gödel, and Łukasiewicz's one_value_per_cell read 1.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from ltn_sudoku.logic.board import data
from ltn_sudoku.logic.board.labels import resolve_techniques
from ltn_sudoku.logic.board.model import LtnSudoku, ModelConfig
from ltn_sudoku.logic.board.objective import objective
from ltn_sudoku.logic.config.schema import compose_config
from ltn_sudoku.logic.kb.aggregate import BatchResult
from ltn_sudoku.logic.kb.operators import build_operators
from ltn_sudoku.logic.kb.theory import BOARD_THEORY
from ltn_sudoku.logic.training.loop import axiom_gradient_norms

LOGICS = sorted(p.stem for p in (Path(__file__).resolve().parents[1] / "conf" / "logic").glob("*.yaml"))
BOARD_MODELS = ("4x4", "4x4_mp")  # the evidence and the message-passing hasValue (the 9x9 files differ in widths)
TINY = {"4x4": ["model.hidden=8", "model.steps=3", "model.kb_every=1"],
        "4x4_mp": ["model.hidden=8", "model.message_dim=4", "model.steps=3", "model.kb_every=1"]}


def _batch(seed: int, techniques: list[str]) -> data.BoardSet:
    solvable = data.solving_states(data.generated(4, "open_solvable", 12, seed=seed), seed=seed)
    impossible = data.generated(4, "open_impossible", 6, seed=seed)
    return data.label_techniques(data.BoardSet.concat([solvable, impossible]), resolve_techniques(techniques, 4))


def _results(logic: str, model_name: str, supervised: bool) -> tuple[LtnSudoku, list[BatchResult]]:
    cfg = compose_config([f"model={model_name}", f"logic={logic}", *TINY[model_name]])
    torch.manual_seed(0)
    model = LtnSudoku(ModelConfig.from_cfg(cfg.model))
    ops = build_operators(cfg.logic)
    techniques = list(cfg.model.techniques)
    return model, [objective(model, ops, _batch(seed, techniques), supervised) for seed in (3, 4)]


@pytest.mark.parametrize("model_name", BOARD_MODELS)
@pytest.mark.parametrize("logic", LOGICS)
def test_every_axiom_in_satagg_moves_and_has_gradient(logic: str, model_name: str) -> None:
    model, (first, second) = _results(logic, model_name, supervised=True)
    trained = set(first.truths)
    assert trained, "no axiom in SatAgg"
    norms = axiom_gradient_norms(model, first.truths)
    # a constant's gradient is float noise (3e-10 for p_exists = 1's cell_has_value); the smallest living one at
    # initialisation is product's one_value_per_cell near a uniform softmax (5e-7)
    dead = {name: norm for name, norm in norms.items() if not norm > 1e-8}
    assert not dead, f"logic={logic} model={model_name}: zero gradient for {sorted(dead)}"
    constant = sorted(name for name in first.satisfaction if name.split(" ")[0] in trained
                      and abs(first.satisfaction[name] - second.satisfaction[name]) < 1e-7)
    assert not constant, f"logic={logic} model={model_name}: the same truth on two batches: {constant}"


@pytest.mark.parametrize("logic", LOGICS)
def test_axioms_fixed_by_construction_are_reported_apart(logic: str) -> None:
    """givens always, one_value_per_cell under Łukasiewicz: out of SatAgg and of `satisfaction`, in `constant`."""
    family = str(compose_config([f"logic={logic}"]).logic.family)
    _, (result, _) = _results(logic, "4x4_mp", supervised=False)
    fixed = {a.name for a in BOARD_THEORY.axioms if a.constant_under(family)}
    assert "givens" in fixed and ("one_value_per_cell" in fixed) == (family == "lukasiewicz")
    assert fixed == set(result.constant)
    assert not fixed & (set(result.satisfaction) | set(result.truths))
    assert all(abs(v - 1.0) < 1e-3 for v in result.constant.values())  # stable product projects 1 to 1 - eps


def test_the_check_fails_on_a_dead_existential() -> None:
    """The liveness test is not vacuous: p_exists = 1 (the files before the fix) makes cell_has_value the constant
    1/n with zero gradient, and the check sees it."""
    cfg = compose_config(["model=4x4_mp", "logic=product", "logic.p_exists=1", *TINY["4x4_mp"]])
    torch.manual_seed(0)
    model = LtnSudoku(ModelConfig.from_cfg(cfg.model))
    ops = build_operators(cfg.logic)
    first, second = (objective(model, ops, _batch(seed, list(cfg.model.techniques))) for seed in (3, 4))
    assert first.satisfaction["cell_has_value"] == pytest.approx(0.25, abs=1e-6)
    assert first.satisfaction["cell_has_value"] == pytest.approx(second.satisfaction["cell_has_value"], abs=1e-7)
    assert axiom_gradient_norms(model, first.truths)["cell_has_value"] < 1e-8


@pytest.mark.parametrize("exists_axioms", [True, False])
def test_the_existential_switch_takes_both_out_of_satagg_and_keeps_reporting_them(exists_axioms: bool) -> None:
    """model.exists_axioms=false (model=9x9's choice, docs/results/sweeps.md): cell_has_value and unit_has_digit
    leave SatAgg (no truth on the graph, no gradient from them) and are still reported as `sat/` figures; true puts
    both in (unit_has_digit also needs model.unit_axiom)."""
    cfg = compose_config(["model=4x4", "logic=lukasiewicz", f"model.exists_axioms={str(exists_axioms).lower()}",
                          *TINY["4x4"]])
    torch.manual_seed(0)
    model = LtnSudoku(ModelConfig.from_cfg(cfg.model))
    result = objective(model, build_operators(cfg.logic), _batch(3, list(cfg.model.techniques)))
    existentials = {"cell_has_value", "unit_has_digit"}
    assert (existentials <= set(result.truths)) == exists_axioms
    assert not exists_axioms or axiom_gradient_norms(model, result.truths)["cell_has_value"] > 1e-8
    assert existentials & set(result.truths) == (existentials if exists_axioms else set())
    assert existentials <= {name.split(" ")[0] for name in result.satisfaction}  # reported either way
