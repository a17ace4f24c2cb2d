"""The message-passing hasValue: equivariant under digit relabelling, givens clamped, no hand-made evidence, no
solution in its rules-only training, and a tiny run through train -> evaluate with the tier and givens tables."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
import torch
from omegaconf import DictConfig
from torch import nn

from ltn_sudoku.generate import generate
from ltn_sudoku.logic.board import data
from ltn_sudoku.logic.board.evaluate import evaluate
from ltn_sudoku.logic.board.labels import resolve_techniques
from ltn_sudoku.logic.board.model import LtnSudoku, ModelConfig
from ltn_sudoku.logic.board.objective import objective
from ltn_sudoku.logic.config.schema import compose_config
from ltn_sudoku.logic.groundings.grounding import Grounding, encode_boards, one_hot_givens
from ltn_sudoku.logic.groundings.hasvalue import MessagePassingConfig, build_has_value
from ltn_sudoku.logic.groundings.hasvalue.message_passing import GruGates, MessagePassingHasValue, gru_gates
from ltn_sudoku.logic.kb.operators import build_operators
from ltn_sudoku.logic.kinds import train

TINY = ["model=4x4_mp", "model.hidden=8", "model.message_dim=4", "model.steps=3", "model.eval_steps=4",
        "model.kb_every=1", "model.solution_hidden=4", "model.heuristic_hidden=4",
        "model.techniques=[Naked Single,Hidden Single]", "logic=product", "logic.p_forall=2", "logic.p_exists=4",
        "data.train.solvable=24", "data.train.impossible=8", "data.val.solvable=8", "data.val.impossible=8",
        "data.val.closed_valid=4", "data.val.closed_invalid=4", "train.batch_size=8", "train.progress=false"]


def config(run_dir: Path, *overrides: str) -> DictConfig:
    return compose_config([*TINY, f"run_dir={run_dir}", *overrides])


def _net(n: int) -> MessagePassingHasValue:
    torch.manual_seed(0)
    net = build_has_value(Grounding(n), MessagePassingConfig(hidden=8, layers=2, message_dim=4, steps=3))
    assert isinstance(net, MessagePassingHasValue)
    return net


@pytest.mark.parametrize("n", [4, 9])
def test_equivariant_under_digit_relabelling_and_givens_clamped(n: int) -> None:
    values = encode_boards([r.board for r in generate(n, "open_solvable", 4, seed=2)], n)
    net = _net(n)
    plain = net(one_hot_givens(values, n))[-1]
    filled = values > 0
    assert torch.equal(plain[filled], one_hot_givens(values, n)[filled])
    assert torch.allclose(plain.sum(-1), torch.ones_like(plain[..., 0]))
    for perm in itertools.islice(itertools.permutations(range(1, n + 1)), 1, 4):
        relabel = torch.tensor([0, *perm])
        permuted = net(one_hot_givens(relabel[values], n))[-1]
        assert torch.allclose(permuted[..., [p - 1 for p in perm]], plain, atol=1e-5)
    assert not torch.allclose(plain[~filled], torch.full_like(plain[~filled], 1 / n))  # it does answer something


def test_reads_no_hand_made_evidence(monkeypatch: pytest.MonkeyPatch) -> None:
    def forbidden(*_: object, **__: object) -> None:
        raise AssertionError("the message-passing grounding must not read symbolic evidence")

    for name in ("possible", "elsewhere_in_units"):
        monkeypatch.setattr(Grounding, name, forbidden)
    values = encode_boards([r.board for r in generate(9, "open_solvable", 2, seed=4)], 9)
    _net(9)(one_hot_givens(values, 9))


def test_scrambled_solutions_give_bit_identical_rules_only_training(tmp_path: Path) -> None:
    cfg = config(tmp_path)
    torch.manual_seed(0)
    model = LtnSudoku(ModelConfig.from_cfg(cfg.model))
    ops = build_operators(cfg.logic)
    solvable = data.solving_states(data.generated(4, "open_solvable", 9, seed=5), seed=5)
    batch = data.label_techniques(data.BoardSet.concat([solvable, data.generated(4, "open_impossible", 5, seed=5)]),
                                  resolve_techniques(model.config.techniques, 4))
    scrambled = replace(batch, solutions=batch.solutions.flip(0).flip(-1))

    def grads(boards: data.BoardSet, supervised: bool) -> list[torch.Tensor]:
        model.zero_grad()
        objective(model, ops, boards, supervised=supervised).loss.backward()
        return [p.grad.clone() for p in model.has_value.parameters()]

    assert all(torch.equal(a, b) for a, b in zip(grads(batch, False), grads(scrambled, False)))
    assert not all(torch.equal(a, b) for a, b in zip(grads(batch, True), grads(scrambled, True)))


def test_tiny_run_trains_evaluates_and_states_its_inputs(tmp_path: Path) -> None:
    train(config(tmp_path / "run", "train.epochs=1"))
    metrics = evaluate(config(tmp_path / "eval", f"checkpoint={tmp_path / 'run' / 'best.pt'}", "evaluate.closed=8",
                              "evaluate.open=24", "evaluate.solving=24", "evaluate.dead_end_puzzles=2",
                              "evaluate.search.puzzles=4", "evaluate.search.impossible=4"))
    report = json.loads((tmp_path / "eval" / "metrics.json").read_text())
    assert "no candidate or single evidence" in report["inputs"]["hasValue"]
    assert "no crisp verdict" in report["inputs"]["hasSolution"]
    assert "q1_is_correct" in report["by_construction"]
    assert {"tier", "givens", "source"} <= set(report["tables"])
    assert "tier_T1/model" in metrics and "tier_T1/singles" in metrics and "givens_9-10/engine_≤T2" in metrics
    assert "q2_has_solution_givens_4_6/balanced_accuracy" in metrics
    assert "heuristics/always_yes_macro_f1" in metrics
    assert metrics["search/wrong_solved"] == 0 and metrics["search/false_refutations"] == 0
    assert "search/solved" in metrics and "search/refuted" in metrics


def _reference_step(net: MessagePassingHasValue, hidden: torch.Tensor, givens: torch.Tensor,
                    assignment: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """One step as the module docstring defines it, applied to the modules as they read (the implementation before
    issue 50): node inputs concatenated, each relation's mean over explicit partner matrices built from the cells'
    rows, columns and blocks, the update MLP on [node | means], nn.GRUCell, the read-out. hidden: (nodes, d)."""
    batch, cells, n = givens.shape
    k = net.k
    rows, cols = torch.arange(cells) // n, torch.arange(cells) % n
    blocks = rows // k * k + cols // k
    same_row, same_col = rows[:, None] == rows[None], cols[:, None] == cols[None]
    same_block, other = blocks[:, None] == blocks[None], ~torch.eye(cells, dtype=torch.bool)
    partners = [same_row & same_block & other, same_row & ~same_block, same_col & same_block & other,
                same_col & ~same_block, same_block & ~same_row & ~same_col]
    filled = givens.sum(-1, keepdim=True).expand_as(givens)
    node = torch.cat([hidden.view(batch, cells, n, -1), torch.stack([givens, filled, assignment], -1)], -1)
    messages = net.message(node).view(batch, cells, n, len(partners) + 1, -1)  # (b, c, v, relation, m)
    digits = (1 - torch.eye(n, dtype=givens.dtype))
    means = [torch.einsum("vw,bcwm->bcvm", digits, messages[..., 0, :]) / max(1, n - 1)]
    for r, mask in enumerate(partners, start=1):
        means.append(torch.einsum("cd,bdvm->bcvm", mask.to(givens.dtype), messages[..., r, :])
                     / max(1, int(mask[0].sum())))
    update = net.update_in(torch.cat([node, *means], -1))
    hidden = net.cell(update.reshape(-1, update.shape[-1]), hidden)
    return hidden, net.readout(hidden).view(batch, cells, n)


@pytest.mark.parametrize(("n", "layers"), [(4, 1), (9, 2), (9, 3)])
def test_the_step_computes_the_defined_network(n: int, layers: int) -> None:
    """The rearranged step (stacked products, group sums, folded layers, GruGates, feature-major) is the network its
    docstring defines, in values and gradients, on every update depth (float64: rounding apart)."""
    torch.manual_seed(1)
    net = build_has_value(Grounding(n), MessagePassingConfig(hidden=6, layers=layers, message_dim=3, steps=3))
    assert isinstance(net, MessagePassingHasValue)
    net = net.double()
    net.cpu_part_nodes = None
    for p in net.parameters():  # non-zero biases everywhere, so that every folded bias is checked
        p.data.normal_(0, 0.5)
    givens = one_hot_givens(encode_boards([r.board for r in generate(n, "open_solvable", 3, seed=3)], n), n).double()
    assignment = givens + (1 - givens.sum(-1, keepdim=True)) / n
    hidden = torch.randn(givens.numel(), 6, dtype=torch.float64)
    expected_hidden, expected = _reference_step(net, hidden, givens, assignment)
    state = (hidden.T.contiguous(), torch.zeros_like(givens))
    (found_hidden, _), found = net.step(state, net.fixed_inputs(givens, givens.sum(-1, keepdim=True)), assignment)
    assert torch.allclose(found, expected, atol=1e-10) and torch.allclose(found_hidden.T, expected_hidden, atol=1e-10)
    weights = torch.randn_like(found)
    expected_grads = torch.autograd.grad((expected * weights).sum(), list(net.parameters()))
    found_grads = torch.autograd.grad((found * weights).sum(), list(net.parameters()))
    for name, a, b in zip([name for name, _ in net.named_parameters()], expected_grads, found_grads):
        assert torch.allclose(a, b, atol=1e-9), name


def test_gru_gates_are_a_gru_cell_with_its_gradient() -> None:
    """GruGates (feature-major, its backward written out) is nn.GRUCell: values equal and gradcheck passes."""
    torch.manual_seed(2)
    cell = nn.GRUCell(4, 4).double()
    inputs, hidden = torch.randn(7, 4, dtype=torch.float64), torch.randn(7, 4, dtype=torch.float64)
    x = (inputs @ cell.weight_ih.T).T.contiguous()  # the input product; its reset / update biases join h's
    h = (hidden @ cell.weight_hh.T + cell.bias_hh + torch.cat([cell.bias_ih[:8], torch.zeros(4)])).T.contiguous()
    bias = cell.bias_ih[8:]
    assert torch.allclose(GruGates.apply(x, h, bias, hidden.T.contiguous()).T, cell(inputs, hidden))
    operands = [t.detach().clone().requires_grad_() for t in (x, h, bias, hidden.T.contiguous())]
    assert torch.autograd.gradcheck(GruGates.apply, operands)


def test_the_plain_gru_gates_are_gru_gates_with_their_gradient() -> None:
    """gru_gates (what torch.compile sees) computes GruGates' values and gradients (float64: rounding apart)."""
    torch.manual_seed(3)
    d, nodes = 5, 11
    operands = [torch.randn(3 * d, nodes, dtype=torch.float64), torch.randn(3 * d, nodes, dtype=torch.float64),
                torch.randn(d, dtype=torch.float64), torch.randn(d, nodes, dtype=torch.float64)]
    eager = [t.clone().requires_grad_() for t in operands]
    plain = [t.clone().requires_grad_() for t in operands]
    out_eager, out_plain = GruGates.apply(*eager), gru_gates(*plain)
    assert torch.allclose(out_eager, out_plain, atol=1e-12)
    weights = torch.randn_like(out_eager)
    for a, b in zip(torch.autograd.grad((out_eager * weights).sum(), eager),
                    torch.autograd.grad((out_plain * weights).sum(), plain)):
        assert torch.allclose(a, b, atol=1e-12)


def test_compile_asks_for_the_cpp_wrapper_on_the_cpu_only_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    """RecurrentHasValue.compile without arguments: on the CPU inductor's C++ wrapper (`cpp_wrapper`); a caller's own
    mode or options are passed as given, with nothing added."""
    asked: list[dict[str, object]] = []
    monkeypatch.setattr(torch, "compile", lambda fn, *args, **kwargs: asked.append(kwargs) or fn)
    net = _net(4)
    net.compile()
    net.compile(mode="max-autotune-no-cudagraphs")
    net.compile(options={"cpp_wrapper": False})
    assert asked == [{"options": {"cpp_wrapper": True}}, {"mode": "max-autotune-no-cudagraphs"},
                     {"options": {"cpp_wrapper": False}}]


@pytest.mark.slow  # torch.compile on the CPU: about 30 CPU s
def test_a_compiled_step_refines_and_learns_as_the_eager_one() -> None:
    """train.compile compiles one refinement step (RecurrentHasValue.compile): the same assignments and parameter
    gradients as eager mode within float32 rounding, in parts on the CPU, with the plain GRU gates compiled in."""
    net = _net(9)
    values = encode_boards([r.board for r in generate(9, "open_solvable", 5, seed=7)], 9)
    givens = one_hot_givens(values, 9)
    net.cpu_part_nodes = 3 * 81 * 9  # parts of 3 and 2 boards: two shapes
    weights = [torch.randn_like(givens) for _ in range(3)]

    def run() -> tuple[list[torch.Tensor], list[torch.Tensor]]:
        outputs = net(givens)
        loss = sum((out * w).sum() for out, w in zip(outputs, weights))
        return [o.detach() for o in outputs], list(torch.autograd.grad(loss, list(net.parameters())))

    eager_outputs, eager_grads = run()
    net.compile()
    assert net._compiled_advance is not None
    compiled_outputs, compiled_grads = run()
    for a, b in zip(eager_outputs, compiled_outputs):
        assert torch.allclose(a, b, atol=1e-5)
    for a, b in zip(eager_grads, compiled_grads):
        assert torch.allclose(a, b, atol=1e-4, rtol=1e-4)
    net._compiled_advance = lambda *a: pytest.fail("answering ran the compiled step")  # settle stays eager
    assert torch.allclose(net.settle(givens)[0], eager_outputs[-1], atol=1e-5)


def test_compile_works_in_a_fresh_interpreter() -> None:
    """`compile` sets torch's process-wide donated-buffer switch: in a fresh process (no other module has loaded
    torch._functorch.config) it must load that module itself."""
    code = ("from ltn_sudoku.logic.groundings.grounding import Grounding\n"
            "from ltn_sudoku.logic.groundings.hasvalue import MessagePassingConfig, build_has_value\n"
            "net = build_has_value(Grounding(4), MessagePassingConfig(hidden=4, layers=1, message_dim=2, steps=1))\n"
            "net.compile()\n"
            "import torch._functorch.config as c\n"
            "assert net._compiled_advance is not None and c.donated_buffer is False\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]


def test_the_cpu_refines_in_parts_with_the_same_answer() -> None:
    """On the CPU, message passing refines `cpu_part_nodes` nodes at a time: the same assignments as the whole batch
    at once, and the givens' part computed once per part, not once per step."""
    net = _net(4)
    values = encode_boards([r.board for r in generate(4, "open_solvable", 9, seed=6)], 4)
    givens = one_hot_givens(values, 4)
    net.cpu_part_nodes = None
    whole = net(givens)
    net.cpu_part_nodes = 2 * 16 * 4  # two 4x4 boards a part: five parts
    calls = []
    original = net.fixed_inputs
    net.fixed_inputs = lambda *a: calls.append(1) or original(*a)  # type: ignore[method-assign]
    parts = net(givens)
    assert len(calls) == 5 and len(parts) == len(whole)
    assert all(torch.allclose(a, b, atol=1e-6) for a, b in zip(parts, whole))
