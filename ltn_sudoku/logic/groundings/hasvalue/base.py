"""What every recurrent hasValue grounding shares: the refinement loop (`RecurrentHasValue`: clamped givens, bounded
logits). Their configs (`GroundingConfig`, `RecurrentConfig`) are ltn_sudoku/logic/config/groundings.py."""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from ltn_sudoku.logic.groundings.grounding import Grounding

LOGIT_BOUND = 10.0


def bounded(logits: torch.Tensor) -> torch.Tensor:
    """Logits squashed into ±LOGIT_BOUND: hasValue never reaches exactly 0 or 1 on an open cell, so an exactly
    satisfied formula (whose pMeanError root has an infinite derivative) cannot arise from a confident model."""
    return LOGIT_BOUND * torch.tanh(logits / LOGIT_BOUND)


def bounded_softmax(logits: torch.Tensor) -> torch.Tensor:
    """The softmax over digits of the bounded logits, as exp / sum: the logits lie within ±LOGIT_BOUND, so no maximum
    need be subtracted, and torch's CPU softmax over a last dimension of 9 is about 12x slower than these two
    element-wise passes (the same values to float rounding)."""
    e = bounded(logits).exp()
    return e / e.sum(-1, keepdim=True)


class RecurrentHasValue(nn.Module):
    """hasValue(c, v | b) for a whole batch: (batch, N, n) one-hot givens -> soft assignments after each step.

    Subclasses define the recurrent state (`initial_state`), what every step reads that depends on the givens alone
    (`fixed_inputs`, computed once per forward pass, not once per step) and one refinement step (`step`), which
    returns the new state and the step's logits over digits; this class turns the logits into distributions with the
    givens clamped. `DESCRIPTION` says what a step reads (metrics.json's `inputs`).
    """

    DESCRIPTION = ""
    cpu_part_nodes: int | None = None  # refine this many nodes at a time on the CPU (None: the whole batch)

    def __init__(self, grounding: Grounding, config: Any) -> None:
        super().__init__()
        self.grounding = grounding
        self.config = config
        self._compiled_advance: Any = None  # `compile`: the compiled step, used by forward

    def initial_state(self, givens: torch.Tensor) -> Any:
        raise NotImplementedError

    def fixed_inputs(self, facts: torch.Tensor, filled: torch.Tensor) -> Any:
        """What every step reads that does not change from step to step: by default the one-hot givens `facts`
        (batch, N, n) and `filled` (batch, N, 1). Not part of the state, so never detached."""
        return facts, filled

    def step(self, state: Any, fixed: Any, assignment: torch.Tensor) -> tuple[Any, torch.Tensor]:
        """One refinement step from the state, the fixed inputs and the previous hasValue: (new state, logits
        (batch, N, n))."""
        raise NotImplementedError

    def select_boards(self, state: Any, fixed: Any, rows: torch.Tensor) -> tuple[Any, Any]:
        """The state and fixed inputs of the boards `rows` (indices into the batch) only, for `settle`. By default
        every tensor in them is batch-first; a grounding with another layout says how to cut it."""
        return _rows(state, rows), _rows(fixed, rows)

    def settle(self, givens: torch.Tensor, steps: int | None = None,
               tolerance: float = 0.0) -> tuple[torch.Tensor, torch.Tensor]:
        """hasValue as it answers, each board leaving the refinement at the first step that moves none of its
        truths by more than `tolerance`: (final assignments (batch, N, n), steps each board ran). A board that
        stops there is at a fixed point up to `tolerance`, so its later steps would change its numbers by about
        that much and its decisions not at all (tested on real rows: tests/test_ltn_settle.py); tolerance 0 runs
        every board every step, the same numbers as `forward(...)[-1]`. Inference only (no truncation, no graph
        kept for the boards that left)."""
        steps = steps or self.config.steps
        parts = [self._settle(part, steps, tolerance) for part in self._parts(givens)]
        return torch.cat([p[0] for p in parts]), torch.cat([p[1] for p in parts])

    def _settle(self, givens: torch.Tensor, steps: int, tolerance: float) -> tuple[torch.Tensor, torch.Tensor]:
        facts, filled, assignment, state, fixed = self._start(givens)
        final = torch.empty_like(givens)
        ran = torch.full((givens.shape[0],), steps, dtype=torch.long, device=givens.device)
        rows = torch.arange(givens.shape[0], device=givens.device)  # the boards still refining, as batch indices
        for index in range(steps):
            state, logits = self.step(state, fixed, assignment)
            new = _clamped(facts, filled, logits)
            if tolerance > 0 and index + 1 < steps:
                done = (new - assignment).abs().flatten(1).amax(1) <= tolerance
                if bool(done.any()):
                    final[rows[done]] = new[done]
                    ran[rows[done]] = index + 1
                    keep = (~done).nonzero().squeeze(1)
                    if keep.numel() == 0:
                        return final, ran
                    rows, new, facts, filled = rows[keep], new[keep], facts[keep], filled[keep]
                    state, fixed = self.select_boards(state, fixed, keep)
            assignment = new
        final[rows] = assignment
        return final, ran

    def forward(self, givens: torch.Tensor, steps: int | None = None, detach_every: int = 0) -> list[torch.Tensor]:
        """Soft assignments (batch, N, n) after each refinement step; givens stay clamped.

        With detach_every > 0 (training), the recurrent state is detached every detach_every steps, so each
        segment learns from the losses on its own steps only (deep supervision with truncated backpropagation).
        On the CPU a grounding with `cpu_part_nodes` refines the boards that many (cell, digit) nodes at a time:
        boards never meet inside hasValue, and a step's tensors of a few boards stay in the CPU's caches where a
        whole batch's do not (a GPU takes the batch at once).
        """
        parts = self._parts(givens)
        if len(parts) == 1:
            return self._refine(givens, steps, detach_every)
        return [torch.cat(step) for step in zip(*(self._refine(part, steps, detach_every) for part in parts))]

    def _parts(self, givens: torch.Tensor) -> list[torch.Tensor]:
        """The batch as refined: in parts of `cpu_part_nodes` nodes on the CPU, whole elsewhere or when it fits."""
        per_part = max(1, (self.cpu_part_nodes or givens.numel()) // (givens.shape[1] * givens.shape[2]))
        if givens.device.type != "cpu" or givens.shape[0] <= per_part:
            return [givens]
        return list(givens.split(per_part))

    def _start(self, givens: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, Any, Any]:
        """(facts, filled, the first assignment: givens clamped and uniform elsewhere, the initial state, the fixed
        inputs) of a refinement."""
        filled = givens.sum(-1, keepdim=True)
        return (givens, filled, givens + (1 - filled) / givens.shape[-1], self.initial_state(givens),
                self.fixed_inputs(givens, filled))

    def _refine(self, givens: torch.Tensor, steps: int | None, detach_every: int) -> list[torch.Tensor]:
        facts, filled, assignment, state, fixed = self._start(givens)
        advance = self._compiled_advance or self._advance
        outputs = []
        for index in range(steps or self.config.steps):
            if detach_every and index and index % detach_every == 0:
                state = _detached(state)
                assignment = assignment.detach()
            state, assignment = advance(state, fixed, assignment, facts, filled)
            outputs.append(assignment)
        return outputs

    def _advance(self, state: Any, fixed: Any, assignment: torch.Tensor, facts: torch.Tensor,
                 filled: torch.Tensor) -> tuple[Any, torch.Tensor]:
        """One step and its clamped hasValue: (new state, new assignment); the unit `compile` compiles."""
        state, logits = self.step(state, fixed, assignment)
        return state, _clamped(facts, filled, logits)

    def compile(self, *args: Any, **kwargs: Any) -> None:
        """train.compile: torch.compile one refinement step (`_advance`, with torch.compile's arguments), not the
        whole forward. The forward's Python loop over steps and parts would unroll into one large graph; one step is
        a small graph that the compiler fuses, its backward included (a grounding's hand-written autograd
        Functions, fast in eager mode but opaque to the compiler, step aside under it: `torch.compiler.is_compiling`).
        In place: the module, its parameters and checkpoint keys stay as they are; `settle` (answering) stays eager.
        On 2 CPU cores the 9x9 message-passing training step runs about 1.3x faster than eager after 7-18 CPU s
        of compiling (scripts/bench_train_step.py --compile). With no torch.compile arguments given, on the CPU the
        compiled graphs run under inductor's C++ wrapper (`cpp_wrapper`)."""
        # train.grad_every's per-axiom gradients run backward with retain_graph, which a compiled backward that
        # reuses its saved tensors' memory ("donated buffers", a process-wide setting) refuses
        import torch._functorch.config as functorch_config  # not loaded by `import torch` alone

        functorch_config.donated_buffer = False
        if not args and not {"mode", "options"} & kwargs.keys() and all(p.device.type == "cpu"
                                                                        for p in self.parameters()):
            # on the CPU the compiled graphs are called from C++ instead of a generated Python wrapper: 1.00-1.06x
            # the training step's speed in five runs (scripts/bench_compile_variants.py --variants
            # default,python_wrapper), the same losses
            kwargs["options"] = {"cpp_wrapper": True}
        self._compiled_advance = torch.compile(self._advance, *args, **kwargs)


def _clamped(facts: torch.Tensor, filled: torch.Tensor, logits: torch.Tensor) -> torch.Tensor:
    """hasValue after a step: the givens as they are, the bounded softmax of the step's logits on open cells."""
    return facts + (1 - filled) * bounded_softmax(logits)


def _rows(value: Any, rows: torch.Tensor) -> Any:
    """Every batch-first tensor in a (nested) tuple cut to the batch rows `rows`."""
    if isinstance(value, torch.Tensor):
        return value[rows]
    return type(value)(_rows(v, rows) for v in value)


def _detached(state: Any) -> Any:
    if isinstance(state, torch.Tensor):
        return state.detach()
    return type(state)(_detached(s) for s in state)
