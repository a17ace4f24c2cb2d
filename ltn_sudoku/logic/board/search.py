"""LTN-guided search: the learned hasValue as propagator and value order, with backtracking within a node budget.

    result = guided_search(model, board, budget=256)    # result.verdict: "solved" | "refuted" | "exhausted"

A node is a set of facts (the givens plus the digits placed so far). Expanding it refines hasValue on the facts
(answering steps), optionally clamps the open cells the model is sure of (hasValue > clamp_threshold; off by
default, see below) into the facts, and reads the outcome off the rule axioms evaluated crisply on what it holds:
- solved: the decoded board (facts + hasValue's argmax elsewhere) satisfies every rule axiom and keeps the givens;
- contradiction: the facts break a rule (two equal digits in a unit), or the seed's NoSolution axiom holds on them
  (an open cell whose every digit a peer already holds, or a digit with no place left in a unit that lacks it);
- otherwise it branches on one open cell, trying its digits in the model's own order (most probable first), skipping
  digits a peer already holds; all children of a node are refined in one batch, and the search goes depth first,
  best child first. The cell is the one with the fewest digits no peer holds, ties to the model's surest
  (`fewest_digits`, the default), or the one the model is least sure of (`least_sure`). Measured with the first
  9x9 checkpoint on 20 17-clue puzzles (budget 256): fewest_digits solved 16 (median 30 nodes), least_sure 3.
The budget counts refined boards (the root is one). The search never calls the exact solver, the technique engine or
the candidate grid (tests/test_search.py enforces it); a found board is checked with Board.is_valid_solution.

Verdicts are reported beside the learned hasSolution truth, never mixed into it. Without clamping, "refuted" means
that every assignment of the branched cells ended in a broken rule: a proof, whatever the model believes. Clamping
trusts the model's sure cells, so a wrong sure cell can refute a solvable puzzle: with clamp_threshold 0.999 the first
9x9 checkpoint refuted 5 of 20 solvable 17-clue puzzles, which is why it is off by default.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import torch

from ltn_sudoku.board import Board
from ltn_sudoku.logic.board.inference import is_valid_assignment
from ltn_sudoku.logic.board.model import LtnSudoku
from ltn_sudoku.logic.device import device_of, to_list
from ltn_sudoku.logic.groundings.grounding import one_hot_givens
from ltn_sudoku.logic.kb.axioms import CONSTRAINT_AXIOMS, CRISP, board_satisfaction, no_solution, rule_axioms

VERDICTS: tuple[str, ...] = ("solved", "refuted", "exhausted")


@dataclass(frozen=True)
class SearchResult:
    """What the guided search found on one board, and what it cost."""

    verdict: str  # one of VERDICTS
    board: Board | None  # the solution found (checked), or None
    nodes: int  # boards refined, the root included
    branches: int  # nodes whose children were made
    cpu_seconds: float

    def as_dict(self) -> dict[str, object]:
        return {"verdict": self.verdict, "solution": self.board.to_line() if self.board is not None else None,
                "nodes": self.nodes, "branches": self.branches, "cpu_seconds": round(self.cpu_seconds, 4)}


def _broken(model: LtnSudoku, facts: torch.Tensor) -> torch.Tensor:
    """(batch,) bool: the facts break a rule, or NoSolution holds on them (crisp truths of the rule axioms)."""
    one_hot = one_hot_givens(facts, model.n)
    clash = board_satisfaction(CRISP, rule_axioms(model.grounding, CRISP, one_hot, one_hot),
                               CONSTRAINT_AXIOMS[1:]) < 0.5
    return clash | (no_solution(model.grounding, one_hot) > 0.5)


def _expand(model: LtnSudoku, facts: torch.Tensor, steps: int | None,
            clamp_threshold: float) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """Refine a batch of nodes: (facts after clamping, hasValue, solved mask, contradicted mask)."""
    n = model.n
    with torch.no_grad():
        assignment = model.refine(one_hot_givens(facts, n), steps)[-1]
    top, digit = assignment.max(-1)
    sure = (facts == 0) & (top > clamp_threshold)
    clamped = torch.where(sure, digit + 1, facts)
    decoded = torch.where(clamped > 0, clamped, digit + 1)
    solved = is_valid_assignment(model, one_hot_givens(facts, n), one_hot_givens(decoded, n))
    broken = _broken(model, clamped) & ~solved
    return torch.where(solved[:, None], decoded, clamped), assignment, solved, broken


BRANCH_RULES: tuple[str, ...] = ("least_sure", "fewest_digits")


def _children(model: LtnSudoku, facts: torch.Tensor, assignment: torch.Tensor, branch_on: str) -> torch.Tensor:
    """The children of one node: one open cell set to each digit no peer holds, most probable first. The cell is the
    one the model is least sure of (`least_sure`), or the one with the fewest digits no peer holds, ties to the
    model's surest (`fewest_digits`: fewer children per branch)."""
    open_cells = facts == 0
    top = assignment.max(-1).values
    if branch_on == "least_sure":
        score = torch.where(open_cells, top, torch.full_like(top, 2.0))
    else:
        free = one_hot_givens(facts, model.n).transpose(0, 1) @ model.grounding.peer.T  # (n, N): peers holding v
        count = (free.T == 0).sum(-1).to(top.dtype)
        score = torch.where(open_cells, count - top, torch.full_like(top, float(model.n + 2)))
    cell = int(score.argmin())
    held = (model.grounding.peer[cell] > 0) & (facts > 0)
    taken = set(to_list(facts[held]))
    order = [v + 1 for v in to_list(assignment[cell].argsort(descending=True)) if v + 1 not in taken]
    kids = facts.repeat(len(order), 1)
    kids[torch.arange(len(order), device=facts.device), cell] = torch.tensor(order, dtype=facts.dtype,
                                                                            device=facts.device)
    return kids


def guided_search(model: LtnSudoku, board: Board, budget: int = 256, steps: int | None = None,
                  clamp_threshold: float | None = None, branch_on: str = "fewest_digits") -> SearchResult:
    """Search for a solution of `board` guided by the model, refining at most `budget` boards."""
    if branch_on not in BRANCH_RULES:
        raise ValueError(f"branch_on={branch_on!r}: expected one of {', '.join(BRANCH_RULES)}")
    if board.n != model.n:
        raise ValueError(f"a {board.n}x{board.n} board given to a {model.n}x{model.n} model")
    started = time.process_time()
    model.eval()
    root = torch.tensor([board.values], dtype=torch.long, device=device_of(model))
    nodes, branches = 0, 0
    frontier = [root]  # batches of sibling nodes still to refine, depth first (last = next)
    stack: list[tuple[torch.Tensor, torch.Tensor]] = []  # refined, open nodes: (facts, hasValue), best last
    while frontier or stack:
        if frontier:
            batch = frontier.pop()
            cut = nodes + len(batch) > budget  # the budget ends inside this batch: what is left is not refuted
            batch = batch[: budget - nodes]
            nodes += len(batch)
            facts, assignment, solved, broken = _expand(model, batch, steps,
                                                        2.0 if clamp_threshold is None else clamp_threshold)
            for i in to_list(solved.nonzero().flatten()):
                found = Board(to_list(facts[i]), board.n)
                if found.is_valid_solution and all(g in (0, f) for g, f in zip(board.values, found.values)):
                    return SearchResult("solved", found, nodes, branches, time.process_time() - started)
            if cut:
                return SearchResult("exhausted", None, nodes, branches, time.process_time() - started)
            alive = to_list((~broken & ~solved).nonzero().flatten())
            stack.extend((facts[i], assignment[i]) for i in reversed(alive))  # best child on top
            continue
        if nodes >= budget:
            return SearchResult("exhausted", None, nodes, branches, time.process_time() - started)
        facts, assignment = stack.pop()
        kids = _children(model, facts, assignment, branch_on)
        branches += 1
        if len(kids):
            frontier.append(kids)
    return SearchResult("refuted", None, nodes, branches, time.process_time() - started)


def search_metrics(model: LtnSudoku, boards: list[Board], counts: list[int], budget: int,
                   prefix: str = "search") -> dict[str, float]:
    """Guided search on boards whose solution counts the caller knows (the exact solver, as the oracle): solved share
    of the solvable ones, refuted share of the impossible ones, wrong verdicts, and nodes and CPU per solved board."""
    results = [guided_search(model, board, budget=budget) for board in boards]
    solvable = [r for r, count in zip(results, counts) if count > 0]
    impossible = [r for r, count in zip(results, counts) if count == 0]
    solved = [r for r in solvable if r.verdict == "solved"]
    out = {f"{prefix}/budget": float(budget), f"{prefix}/solvable": float(len(solvable)),
           f"{prefix}/impossible": float(len(impossible)),
           f"{prefix}/false_refutations": float(sum(r.verdict == "refuted" for r in solvable)),
           f"{prefix}/wrong_solved": float(sum(r.verdict == "solved" for r in impossible))}
    if solvable:
        out[f"{prefix}/solved"] = len(solved) / len(solvable)
    if solved:
        out.update({f"{prefix}/median_nodes": float(np.median([r.nodes for r in solved])),
                    f"{prefix}/median_cpu_seconds": float(np.median([r.cpu_seconds for r in solved])),
                    f"{prefix}/p95_cpu_seconds": float(np.percentile([r.cpu_seconds for r in solved], 95))})
    if impossible:
        out[f"{prefix}/refuted"] = sum(r.verdict == "refuted" for r in impossible) / len(impossible)
    return out
