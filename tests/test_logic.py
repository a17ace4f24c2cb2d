"""The knowledge base's truth values on hand-made boards, the operators, the groundings and the networks' invariants.

The symbolic side is the oracle: Board.conflicts, Board.candidates, CandidateGrid.dead_end and the technique finders.
"""

from __future__ import annotations

import dataclasses
import itertools
import pickle

import ltn
import numpy as np
import pytest
import torch

from ltn_sudoku.board import Board, geometry
from ltn_sudoku.candidates import CandidateGrid
from ltn_sudoku.generate import generate
from ltn_sudoku.io import parse_board_text
from ltn_sudoku.logic.board.labels import resolve_techniques, technique_labels
from ltn_sudoku.logic.board.model import INSTANCE_TYPES, ModelConfig, RecommendsHeuristicNet
from ltn_sudoku.logic.groundings.grounding import (
    Grounding,
    TablePredicate,
    encode_boards,
    index_variable,
    one_hot_givens,
    range_variable,
)
from ltn_sudoku.logic.groundings.hasvalue import (
    GROUNDINGS,
    GroundingEntry,
    MessagePassingConfig,
    RecurrentConfig,
    RecurrentHasValue,
    build_has_value,
    grounding_config,
)
from ltn_sudoku.logic.groundings.layers import feature_major_linear, mlp, run_mlp
from ltn_sudoku.logic.kb import operators
from ltn_sudoku.logic.kb.axioms import (
    CONSTRAINT_AXIOMS,
    RULE_AXIOMS,
    board_satisfaction,
    hidden_single_definition,
    is_possible,
    naked_single_definition,
    no_solution,
    rule_axioms,
)
from ltn_sudoku.logic.kb.operators import FAMILIES, AggregLogProduct, AggregMax, build_operators

VALID_4 = parse_board_text("1234341221434321")
VALID_9 = parse_board_text(
    "534678912672195348198342567859761423426853791713924856961537284287419635345286179")


def ops_for(family: str, p_exists: float = 6.0):
    return build_operators({"family": family, "p_forall": 2, "p_exists": p_exists})


def truths(board: Board, family: str, p_exists: float = 6.0) -> dict[str, float]:
    """Per-axiom truth of a closed board's own digits as hasValue."""
    g = Grounding(board.n)
    x = one_hot_givens(encode_boards([board], board.n), board.n)
    return {name: float(t.value[0]) for name, t in rule_axioms(g, ops_for(family, p_exists), x, x).items()}


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("board", [VALID_4, VALID_9], ids=["4x4", "9x9"])
def test_valid_closed_board_satisfies_every_axiom(family: str, board: Board) -> None:
    t = truths(board, family)
    tolerance = 1e-3 if family == "stable_product" else 1e-6
    for name in ("givens", *CONSTRAINT_AXIOMS):
        assert t[name] == pytest.approx(1.0, abs=tolerance), name
    # ∃v with pMean reaches (1/n)^(1/p) on a one-hot cell, its maximum; Gödel's max reaches 1
    best = 1.0 if family == "goedel" else (1 / board.n) ** (1 / 6)
    assert t["cell_has_value"] == pytest.approx(best, abs=1e-3)


@pytest.mark.parametrize("family", FAMILIES)
def test_one_duplicate_breaks_exactly_its_units(family: str) -> None:
    # swap two digits inside row 1 of a valid board: each column (and block 1 for 1,2) now holds a duplicate,
    # row 1 stays a permutation
    rows = VALID_4.rows()
    rows[0][0], rows[0][1] = rows[0][1], rows[0][0]
    board = Board.from_rows(rows)
    assert {c.unit_kind for c in board.conflicts()} == {"col"}
    t = truths(board, family)
    assert t["row"] == pytest.approx(truths(VALID_4, family)["row"])
    assert t["block"] == pytest.approx(truths(VALID_4, family)["block"])
    assert t["col"] < truths(VALID_4, family)["col"] - 1e-3
    if family == "goedel":
        assert t["col"] == 0.0


def test_a_changed_digit_lowers_every_unit_it_breaks() -> None:
    board = VALID_9.with_value(40, VALID_9[40] % 9 + 1)
    kinds = {c.unit_kind for c in board.conflicts()}
    assert kinds == {"row", "col", "box"}
    t, ok = truths(board, "product"), truths(VALID_9, "product")
    for axiom in ("row", "col", "block"):
        assert t[axiom] < ok[axiom]


def test_is_correct_truth_separates_valid_from_invalid_boards() -> None:
    boards = [r.board for r in generate(4, "closed_valid", 20, seed=3) + generate(4, "closed_invalid", 20, seed=3)]
    g = Grounding(4)
    ops = ops_for("stable_product")
    x = one_hot_givens(encode_boards(boards, 4), 4)
    score = board_satisfaction(ops, rule_axioms(g, ops, x, x), CONSTRAINT_AXIOMS)
    valid = torch.tensor([b.is_valid_solution for b in boards])
    assert score[valid].min() > score[~valid].max()


# ---- operators ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("family, and_type, forall_type", [
    ("product", ltn.fuzzy_ops.AndProd, ltn.fuzzy_ops.AggregPMeanError),
    ("stable_product", ltn.fuzzy_ops.AndProd, ltn.fuzzy_ops.AggregPMeanError),
    ("lukasiewicz", ltn.fuzzy_ops.AndLuk, ltn.fuzzy_ops.AggregPMeanError),
    ("goedel", ltn.fuzzy_ops.AndMin, ltn.fuzzy_ops.AggregMin),
])
def test_operator_families(family: str, and_type: type, forall_type: type) -> None:
    ops = ops_for(family)
    assert isinstance(ops.And.connective_op, and_type)
    assert isinstance(ops.forall_op, forall_type)
    if family == "goedel":
        assert isinstance(ops.exists_op, AggregMax)
    if family in ("product", "stable_product"):
        assert ops.And.connective_op.stable == (family == "stable_product")


def test_operator_switching_changes_truth_values() -> None:
    x = torch.tensor([0.3, 0.8])
    values = {}
    for family in FAMILIES:
        ops = ops_for(family)
        a, b = (ltn.core.LTNObject(x[i:i + 1], ["v"]) for i in range(2))
        values[family] = float(ops.And(a, b).value)
    assert values["product"] == pytest.approx(0.24)
    assert values["lukasiewicz"] == pytest.approx(0.1)
    assert values["goedel"] == pytest.approx(0.3)
    assert values["stable_product"] != values["product"]


def test_unknown_family_is_an_error() -> None:
    with pytest.raises(ValueError, match="unknown logic family"):
        build_operators({"family": "zadeh"})


def test_goedel_ignores_p_and_a_retired_logic_knob_is_refused() -> None:
    for retired in ({"schedule": {"p_forall_end": 3, "p_exists_end": 5, "epochs": 3}}, {"labelled_forall": "family"}):
        with pytest.raises(ValueError, match=f"logic.{next(iter(retired))}=.*retired"):
            build_operators({"family": "product", "p_forall": 1, "p_exists": 1, **retired})
    build_operators({"family": "product", "schedule": None, "labelled_forall": "log_product"})  # as checkpoints hold
    goedel = build_operators({"family": "goedel"})
    v = index_variable("v", torch.arange(3))
    truth = ltn.core.LTNObject(torch.tensor([0.2, 0.9, 0.5]), ["v"])
    assert float(goedel.forall([v], truth).value) == pytest.approx(0.2)
    assert float(goedel.exists([v], ltn.core.LTNObject(truth.value, ["v"])).value) == pytest.approx(0.9)


def test_out_of_range_truths_are_refused() -> None:
    ops = ops_for("product")
    with pytest.raises(ValueError, match="range"):
        ops.Not(ltn.core.LTNObject(torch.tensor([1.5]), ["v"]))


def _operands(shapes: list[tuple[str, ...]], sizes: dict[str, int], seed: int) -> list[torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    return [torch.rand(tuple(sizes[v] for v in labels), generator=generator, dtype=torch.float64).requires_grad_()
            for labels in shapes]


@pytest.mark.parametrize("family", FAMILIES)
def test_connectives_broadcast_to_ltntorchs_values_and_gradients(family: str) -> None:
    """operators._broadcast_connective (no copy of the operands into one shape) gives what LTNtorch's own
    Connective.__call__ gives: the same variables, values to the bit in a contiguous tensor, and the same gradients,
    for operands over other, shared, reordered or no variables; and LTNtorch's errors."""
    ops = ops_for(family)
    sizes = {"b": 3, "c": 5, "v": 4}
    cases = [[("b", "c"), ("c", "v")], [("b", "c", "v"), ("v", "b")], [("c", "v"), ("v", "c")], [("b",), ()],
             [(), ("b", "c")], [("c",)], [("v", "b", "c")]]
    for seed, shapes in enumerate(cases):
        connectives = [ops.Not] if len(shapes) == 1 else [ops.And, ops.Or, ops.Implies, ops.Equiv]
        for connective in connectives:
            results = []
            for call in (operators._LTN_CONNECTIVE, operators._broadcast_connective):
                leaves = _operands(shapes, sizes, seed)
                out = call(connective, *[ltn.core.LTNObject(x, list(labels)) for x, labels in zip(leaves, shapes)])
                weights = torch.rand(out.value.shape, generator=torch.Generator().manual_seed(seed),
                                     dtype=torch.float64)
                grads = torch.autograd.grad((out.value * weights).sum(), leaves, allow_unused=True)
                results.append((out, grads))
            (theirs, their_grads), (ours, our_grads) = results
            assert ours.free_vars == theirs.free_vars, (shapes, connective)
            assert ours.value.is_contiguous() and torch.equal(ours.value, theirs.value), (shapes, connective)
            for mine, expected in zip(our_grads, their_grads):
                assert (mine is None) == (expected is None)
                assert mine is None or torch.allclose(mine, expected, rtol=1e-12, atol=1e-15), (shapes, connective)
    with pytest.raises(ValueError, match="two operands"):
        ops.And(ltn.core.LTNObject(torch.rand(3), ["b"]))
    with pytest.raises(ValueError, match="range"):
        ops.And(ltn.core.LTNObject(torch.rand(3), ["b"]), ltn.core.LTNObject(torch.tensor([2.0]), ["c"]))


@pytest.mark.parametrize("family", FAMILIES)
def test_the_knowledge_base_is_the_same_with_ltntorchs_connectives(family: str,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Every rule axiom on soft 9x9 assignments, with the broadcasting connectives and with LTNtorch's: the same
    truths to the bit."""
    g = Grounding(9)
    givens = one_hot_givens(encode_boards([VALID_9, parse_board_text("0" * 81)], 9), 9)
    soft = torch.softmax(torch.randn(2, 81, 9, generator=torch.Generator().manual_seed(3)) * 3, -1)
    ours = {k: t.value for k, t in rule_axioms(g, ops_for(family), soft, givens).items()}
    monkeypatch.setattr(ltn.Connective, "__call__", operators._LTN_CONNECTIVE)
    theirs = {k: t.value for k, t in rule_axioms(g, ops_for(family), soft, givens).items()}
    assert ours.keys() == theirs.keys() and all(torch.equal(ours[k], theirs[k]) for k in ours)


# ---- groundings --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [4, 9])
def test_fixed_predicates_are_the_geometry(n: int) -> None:
    g, geo = Grounding(n), geometry(n)
    c1, c2 = index_variable("c1", torch.arange(n * n)), index_variable("c2", torch.arange(n * n))
    for predicate, attribute in zip(g.unit_predicates().values(), ("row", "col", "box")):
        table = predicate(c1, c2).value.reshape(n * n, n * n)
        expected = np.equal.outer(getattr(geo, attribute), getattr(geo, attribute))
        assert np.array_equal(table.numpy().astype(bool), expected)
    assert np.array_equal(g.peer.numpy().astype(bool), geo.peer_matrix)


def test_table_predicate_matches_ltn_broadcasting_and_diagonal_quantification() -> None:
    table = torch.rand(3, 5, 4)
    b, c = index_variable("b", torch.arange(3)), index_variable("c", torch.arange(5))
    v = index_variable("v", torch.arange(4))
    reference = ltn.Predicate(func=lambda i, j, k: table[i.reshape(-1), j.reshape(-1), k.reshape(-1)])
    ours, theirs = TablePredicate(table)(b, c, v), reference(b, c, v)
    assert ours.free_vars == theirs.free_vars
    assert torch.allclose(ours.value, theirs.value)
    x, y = ltn.diag(index_variable("x", torch.tensor([0, 1, 2])), index_variable("y", torch.tensor([4, 3, 2])))
    square = torch.rand(5, 5)
    diagonal = TablePredicate(square)(x, y)
    assert diagonal.free_vars == ["diag_x_y"]
    assert torch.allclose(diagonal.value, square[[0, 1, 2], [4, 3, 2]])


def test_a_whole_range_variable_reads_its_axis_as_it_is() -> None:
    """range_variable: a TablePredicate reads an axis the variable covers whole without gathering it, with the
    values and gradients of the gather; a range shorter than the axis, a diagonal pair of range variables and a
    plain variable over the same ids still select what they name."""
    table = torch.rand(3, 5, 4, requires_grad=True)
    b, c, v = range_variable("b", 3, "cpu"), range_variable("c", 5, "cpu"), range_variable("v", 4, "cpu")
    ours = TablePredicate(table)(b, c, v)
    gathered = TablePredicate(table)(*(index_variable(x, torch.arange(k)) for x, k in (("b", 3), ("c", 5), ("v", 4))))
    assert ours.value is table and ours.free_vars == gathered.free_vars == ["b", "c", "v"]
    assert torch.equal(ours.value, gathered.value)
    weights = torch.rand(3, 5, 4)
    assert torch.equal(*(torch.autograd.grad((x.value * weights).sum(), table)[0] for x in (ours, gathered)))
    short = TablePredicate(table)(b, range_variable("c", 2, "cpu"), v)
    assert torch.equal(short.value, table[:, :2])
    x, y = ltn.diag(range_variable("x", 5, "cpu"), range_variable("y", 5, "cpu"))
    square = torch.rand(5, 5)
    assert torch.equal(TablePredicate(square)(x, y).value, square.diagonal())


@pytest.mark.parametrize("inputs", [9, 32])
def test_a_feature_major_linear_layer_is_addmm(inputs: int) -> None:
    """layers.feature_major_linear (a product and an in-place add) against torch.addmm with the bias broadcast:
    values and the gradients of weight, bias and input."""
    generator = torch.Generator().manual_seed(inputs)
    weight, bias, x = (torch.randn(*shape, generator=generator, requires_grad=True)
                       for shape in ((32, inputs), (32,), (inputs, 5000)))
    grad = torch.randn(32, 5000, generator=generator)
    ours = feature_major_linear(weight, bias, x)
    ours_grads = torch.autograd.grad(ours, (weight, bias, x), grad)
    theirs = torch.addmm(bias[:, None], weight, x)
    theirs_grads = torch.autograd.grad(theirs, (weight, bias, x), grad)
    assert torch.allclose(ours, theirs, rtol=1e-6, atol=1e-6)
    assert all(torch.allclose(a, b, rtol=1e-6, atol=1e-5) for a, b in zip(ours_grads, theirs_grads))


@pytest.mark.parametrize("layers", [1, 2])
def test_run_mlp_is_the_sequential(layers: int) -> None:
    """layers.run_mlp (in-place bias adds and ReLUs) against the nn.Sequential it runs, on node-major instances
    (batch, instances, features) as recommendsHeuristic's heads read them: values and every gradient."""
    torch.manual_seed(layers)
    net = mlp(13, 32, layers, 1)
    x = torch.randn(4, 972, 13, requires_grad=True)
    grad = torch.randn(4, 972, 1)
    ours = run_mlp(net, x)
    ours_grads = torch.autograd.grad(ours, (x, *net.parameters()), grad)
    theirs = net(x)
    theirs_grads = torch.autograd.grad(theirs, (x, *net.parameters()), grad)
    assert ours.shape == theirs.shape and torch.allclose(ours, theirs, rtol=1e-6, atol=1e-6)
    assert all(torch.allclose(a, b, rtol=1e-5, atol=1e-5) for a, b in zip(ours_grads, theirs_grads))


def test_the_evidence_mlp_answers_in_blocks_as_it_trains(monkeypatch: pytest.MonkeyPatch) -> None:
    """EvidenceHasValue's answering MLP, a block of nodes at a time without autograd, against the whole-batch MLP
    that training runs: the same values (to float rounding) on a batch of several blocks and a short last one, and a
    refinement step without gradients equals one with them."""
    from ltn_sudoku.logic.board.predict import torch_threads
    from ltn_sudoku.logic.groundings.hasvalue import evidence

    monkeypatch.setattr(evidence, "MLP_BLOCK_NODES", 700)  # 5,000 nodes: seven blocks, the last one 100 nodes
    torch.manual_seed(3)
    model = evidence.EvidenceHasValue(Grounding(9), RecurrentConfig("evidence", 32, 2, 4))
    x = torch.rand(evidence.OPEN_FEATURES, 5000)
    with torch.no_grad():
        whole, blocks = model._mlp(x.clone()), model._mlp_in_blocks(x)
    assert blocks.shape == whole.shape == (1, 5000)
    assert torch.allclose(blocks, whole, rtol=1e-6, atol=1e-6)
    givens = one_hot_givens(encode_boards(_mixed_boards(9)[:12], 9), 9)
    trained = model(givens, steps=3)[-1]
    with torch.inference_mode(), torch_threads(1):  # the blocks run on one thread, as classify-board answers
        answered = model(givens, steps=3)[-1]
    assert torch.allclose(answered, trained.detach(), rtol=1e-6, atol=1e-7)


def _mixed_boards(n: int) -> list[Board]:
    records = generate(n, "open_solvable", 30, seed=11) + generate(n, "open_impossible", 30, seed=11)
    return [r.board for r in records]


@pytest.mark.parametrize("n", [4, 9])
def test_is_possible_and_no_solution_match_the_candidate_grid(n: int) -> None:
    boards = _mixed_boards(n)
    g = Grounding(n)
    x = one_hot_givens(encode_boards(boards, n), n)
    possible = is_possible(g, x)
    table = possible.value.permute([possible.free_vars.index(k) for k in ("b", "c", "v")])
    dead = no_solution(g, x)
    for i, board in enumerate(boards):
        for cell in range(n * n):
            assert {d + 1 for d in range(n) if table[i, cell, d] > 0.5} == set(board.candidates(cell))
        expected = not board.is_consistent or CandidateGrid.from_board(board).dead_end() is not None
        assert bool(dead[i] > 0.5) == expected


@pytest.mark.parametrize("n", [4, 9])
def test_single_definitions_match_the_finders(n: int) -> None:
    boards = _mixed_boards(n)
    g = Grounding(n)
    x = one_hot_givens(encode_boards(boards, n), n)
    labels = technique_labels(boards, resolve_techniques(["Naked Single", "Hidden Single"], n))
    assert np.array_equal(naked_single_definition(g, x).numpy() > 0.5, labels[:, 0])
    assert np.array_equal(hidden_single_definition(g, x).numpy() > 0.5, labels[:, 1])


def test_every_rule_axiom_is_reported() -> None:
    g = Grounding(4)
    x = one_hot_givens(encode_boards([VALID_4], 4), 4)
    assert tuple(rule_axioms(g, ops_for("product"), x, x)) == RULE_AXIOMS


# ---- hasValue -----------------------------------------------------------------------------------------------------
def _net(n: int = 4, kind: str = "evidence") -> RecurrentHasValue:
    torch.manual_seed(0)
    config = GROUNDINGS[kind].config
    sizes = {"hidden": 8, "layers": 2, "steps": 3, **({"message_dim": 4} if config is MessagePassingConfig else {})}
    return build_has_value(Grounding(n), config(grounding=kind, **sizes))  # type: ignore[arg-type, call-arg]


def test_has_value_clamps_givens_and_outputs_distributions() -> None:
    boards = _mixed_boards(4)[:8]
    x = one_hot_givens(encode_boards(boards, 4), 4)
    out = _net()(x)
    assert len(out) == 3
    filled = x.sum(-1) > 0
    assert torch.equal(out[-1][filled], x[filled])
    assert torch.allclose(out[-1].sum(-1), torch.ones(8, 16))


def test_has_value_treats_boards_independently_and_digits_alike() -> None:
    boards = _mixed_boards(4)[:6]
    values = encode_boards(boards, 4)
    net = _net()
    together = net(one_hot_givens(values, 4))[-1]
    alone = net(one_hot_givens(values[2:3], 4))[-1]
    assert torch.allclose(together[2:3], alone, atol=1e-6)
    for perm in itertools.islice(itertools.permutations(range(1, 5)), 3, 6):
        relabel = torch.tensor([0, *perm])
        permuted = net(one_hot_givens(relabel[values], 4))[-1]
        assert torch.allclose(permuted[..., [p - 1 for p in perm]], together, atol=1e-5)


def test_a_checkpoint_config_with_a_retired_model_knob_is_refused() -> None:
    model = {"size": 4, "eval_steps": 2, "kb_every": 1, "solution_hidden": 4, "heuristic_hidden": 4,
             "techniques": ["Naked Single"], "hidden": 8, "layers": 2, "steps": 3}
    ModelConfig.from_cfg({**model, "digit_dim": 0, "cell_dim": 0, "clamp_every": 0, "clamp_threshold": 0.99})
    for key in ("digit_dim", "cell_dim", "clamp_every"):
        with pytest.raises(ValueError, match=f"model.{key}=4: retired"):
            ModelConfig.from_cfg({**model, key: 4})


def test_log_product_forall_is_the_geometric_mean_and_learns_from_confident_errors() -> None:
    ops = build_operators({"family": "stable_product", "p_forall": 1, "p_exists": 1})
    truths = torch.tensor([0.9, 0.5, 0.2])
    assert torch.allclose(AggregLogProduct()(truths, dim=0), truths.prod() ** (1 / 3))
    mask = torch.tensor([True, False, True])
    assert torch.allclose(AggregLogProduct()(truths, dim=0, mask=mask), torch.tensor((0.9 * 0.2) ** 0.5))
    assert isinstance(ops.labelled_op, AggregLogProduct)
    # facts labelled false: one confidently wrong (logit 8), one right (logit -8)
    logits = torch.tensor([8.0, -8.0], requires_grad=True)
    (1 - AggregLogProduct()(1 - torch.sigmoid(logits), dim=0)).backward()
    wrong, right = logits.grad.abs().tolist()
    assert wrong > 1000 * right  # the error gets the gradient; a mean of truths gives both the same tiny slope
    logits.grad = None
    (1 - (1 - torch.sigmoid(logits)).mean()).backward()
    assert torch.allclose(logits.grad.abs()[0], logits.grad.abs()[1])


def test_each_technique_reads_the_instances_of_its_pattern() -> None:
    names = ["Naked Single", "Locked Candidates Type 1 (Pointing)", "Naked Pair", "Some Future Technique"]
    net = RecommendsHeuristicNet(Grounding(4), names, hidden=4)
    assert [tuple(INSTANCE_TYPES[t] for t in types) for types in net.types] == [
        ("cell",), ("intersection",), ("cell_pair",), INSTANCE_TYPES]
    truths = net(one_hot_givens(encode_boards(_mixed_boards(4)[:5], 4), 4))
    assert truths.shape == (5, 4) and bool(((truths > 0) & (truths < 1)).all())


def test_a_grounding_is_one_registry_entry_that_describes_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    """build_has_value, the model config and describe_inputs read GROUNDINGS only: a new kind needs its class, its
    config dataclass and one entry."""
    from ltn_sudoku.logic.board.model import describe_inputs
    from ltn_sudoku.logic.groundings import hasvalue
    from ltn_sudoku.logic.groundings.hasvalue.evidence import EvidenceHasValue

    class Echo(EvidenceHasValue):
        DESCRIPTION = "the evidence grounding under another name"

    monkeypatch.setitem(hasvalue.GROUNDINGS, "echo", GroundingEntry(RecurrentConfig, Echo, Echo.DESCRIPTION))
    node = {"hasvalue": "echo", "hidden": 8, "layers": 2, "steps": 2}
    assert hasvalue.grounding_config(node) == RecurrentConfig("echo", 8, 2, 2)
    config = ModelConfig(size=4, has_value=RecurrentConfig(grounding="echo", hidden=8, layers=2, steps=2), eval_steps=2,
                         kb_every=1, solution_hidden=4, heuristic_hidden=4, techniques=())
    assert isinstance(build_has_value(Grounding(4), config.has_value), Echo)
    assert describe_inputs(config)["hasValue"] == Echo.DESCRIPTION
    assert all(kind.description for kind in hasvalue.GROUNDINGS.values())


def test_each_grounding_config_is_declared_once_and_the_schema_reads_it() -> None:
    """A grounding's fields and their rules live in its config dataclass alone: every grounding has its model schema,
    which holds them (the same rule objects); a config lacking a field is refused by name; each shipped model file
    composes to the grounding config the code reads, value for value; the composed config pickles (sweep launchers
    send it to their jobs)."""
    from ltn_sudoku.logic.config.groundings import config_fields
    from ltn_sudoku.logic.config.schema import BOARD_SCHEMAS, VisualModelConfig, compose_config

    assert set(BOARD_SCHEMAS) == {kind for kind, entry in GROUNDINGS.items() if entry.reads == "givens"}
    for kind, entry in GROUNDINGS.items():
        schema = BOARD_SCHEMAS.get(kind, VisualModelConfig)
        declared = {f.name: f for f in dataclasses.fields(schema)}
        for spec in config_fields(entry.config):
            assert declared[spec.name].metadata["rule"] is spec.metadata["rule"], (kind, spec.name)
    with pytest.raises(TypeError, match="layers"):
        RecurrentConfig(hidden=8, steps=2)  # type: ignore[call-arg]
    with pytest.raises(KeyError, match="model.layers"):
        grounding_config({"hidden": 8, "steps": 2})
    for name, kind in (("9x9", "evidence"), ("4x4_mp", "message_passing"), ("visual_9x9", "visual")):
        model = compose_config([f"model={name}"]).model
        config = grounding_config(model)
        assert config.grounding == kind
        assert pickle.loads(pickle.dumps(model)) == model
        assert {f.name: getattr(config, f.name) for f in config_fields(config)} == {
            f.name: model[f.name] for f in config_fields(config)}
