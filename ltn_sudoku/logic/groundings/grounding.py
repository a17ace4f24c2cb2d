"""Groundings of the Sudoku domain for one board side n, the fixed (not learned) part of the LTN.

Individuals are identified by index: boards b (the batch), cells c (0 .. n*n-1), digits v (0 .. n-1 for 1 .. n) and
units u (rows, columns, blocks as in ltn_sudoku.board). Their groundings are tables indexed by those integers:
- the cell constants' fixed positional features G(c) = [one-hot row | one-hot column | one-hot block];
- the boards' givens, one-hot (batch, n*n, n);
- any predicate whose truth values were computed for the whole domain at once (hasValue from the network).
The fixed predicates isSameRow / isSameCol / isSameBlock compare the cells' positional features.
Boards are always the batch dimension of one tensor: no Python loop over boards, cells or digits.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import ltn
import numpy as np
import torch
from ltn.core import LTNObject
from torch import nn

from ltn_sudoku.board import Board, geometry

UNIT_PREDICATES: tuple[str, str, str] = ("isSameRow", "isSameCol", "isSameBlock")


WHOLE_RANGE = "whole_range"  # the attribute `range_variable` sets on a variable: the length of the axis it covers


class TablePredicate:
    """A predicate whose truth values were computed for the whole domain at once (a (d1, d2, ...) table).

    Applied to LTN variables of integer ids it returns what ``ltn.Predicate`` would, one axis per free variable
    (diagonally quantified variables share theirs), but by one gather instead of materialising the cartesian product
    of the individuals: the knowledge base's pairwise axioms cost a third as much this way.
    """

    def __init__(self, table: torch.Tensor) -> None:
        self.table = table

    def __call__(self, *variables: ltn.Variable) -> LTNObject:
        if len(variables) != self.table.dim():
            raise ValueError(f"a table predicate of arity {self.table.dim()} applied to {len(variables)} variables")
        labels = list(dict.fromkeys(var.free_vars[0] for var in variables))
        if len(labels) == len(variables):  # one axis per argument: successive contiguous gathers are fastest
            value = self.table
            for axis, var in enumerate(variables):
                if getattr(var, WHOLE_RANGE, None) != value.shape[axis]:  # a whole axis in order is read as it is
                    value = value.index_select(axis, var.value.reshape(-1))
            return LTNObject(value, labels)
        indices = []
        for var in variables:
            shape = [1] * len(labels)
            shape[labels.index(var.free_vars[0])] = -1
            indices.append(var.value.reshape(shape))
        return LTNObject(self.table[tuple(indices)], labels)


def index_variable(label: str, indices: torch.Tensor) -> ltn.Variable:
    """An LTN variable whose individuals are the integer ids in `indices`, on the device of `indices`.

    LTNtorch moves every variable to its process-wide `ltn.device`, which defaults to CUDA whenever a GPU is present:
    a model answering on the CPU of a GPU machine (classify-board's default) would index CPU tables with CUDA ids.
    LTNtorch's setting is pointed at the individuals' device while the variable is made, so the model's device decides."""
    process_wide = ltn.device
    ltn.device = indices.device
    try:
        return ltn.Variable(label, indices.reshape(-1).long(), add_batch_dim=True)
    finally:
        ltn.device = process_wide


def range_variable(label: str, size: int, device: torch.device | str) -> ltn.Variable:
    """`index_variable` over every id 0 .. size-1 in order (the boards, cells, digits, units of a domain), marked so
    that a TablePredicate reads an axis of that length as it is: the gather it would run is an identity that copies
    the whole table forward and scatters the gradient into zeros backward (a few % of a message-passing training
    step, and of the LTN's answers on classify-board's rows; the same values)."""
    variable = index_variable(label, torch.arange(size, device=device))
    setattr(variable, WHOLE_RANGE, size)
    return variable


def encode_boards(boards: Sequence[Board], n: int, device: torch.device | str = "cpu") -> torch.Tensor:
    """(batch, n*n) long tensor of cell values (0 = empty) on `device`; every board must have side n."""
    wrong = [b.n for b in boards if b.n != n]
    if wrong:
        raise ValueError(f"a {wrong[0]}x{wrong[0]} board given to a {n}x{n} model")
    return torch.tensor(np.array([b.values for b in boards], dtype=np.int64).reshape(len(boards), n * n),
                        device=device)


def one_hot_givens(values: torch.Tensor, n: int) -> torch.Tensor:
    """(batch, n*n) cell values -> (batch, n*n, n) float one-hot givens (all zero for an empty cell)."""
    return nn.functional.one_hot(values.long(), n + 1)[..., 1:].float()


@dataclass
class Domain:
    """Fresh LTN variables over one batch (diagonal quantification relabels variables, so build them per formula)."""

    b: ltn.Variable
    c: ltn.Variable
    c2: ltn.Variable
    v: ltn.Variable
    v2: ltn.Variable
    u: ltn.Variable


class Grounding(nn.Module):
    """The fixed groundings of side n as buffers (they follow the model to its device)."""

    cell_features: torch.Tensor
    peer: torch.Tensor
    unit_membership: torch.Tensor
    peer_pairs: torch.Tensor
    digit_pairs: torch.Tensor
    same_unit_by_type: torch.Tensor
    unit_cells: torch.Tensor

    def __init__(self, n: int) -> None:
        super().__init__()
        geo = geometry(n)
        self.n = n
        self.cells = n * n
        eye = torch.eye(n)
        features = torch.cat([eye[list(geo.row)], eye[list(geo.col)], eye[list(geo.box)]], dim=1)
        self.register_buffer("cell_features", features, persistent=False)
        self.register_buffer("peer", torch.tensor(geo.peer_matrix, dtype=torch.float32), persistent=False)
        self.register_buffer("unit_membership", torch.tensor(geo.unit_matrix, dtype=torch.float32), persistent=False)
        pairs = np.argwhere(geo.peer_matrix)
        self.register_buffer("peer_pairs", torch.tensor(pairs, dtype=torch.long), persistent=False)
        digits = np.argwhere(~np.eye(n, dtype=bool))
        self.register_buffer("digit_pairs", torch.tensor(digits, dtype=torch.long), persistent=False)
        # (3, N, N): distinct cells of the same row / column / block (the 'elsewhere in my unit' sums of the network)
        by_type = torch.stack([self._same(k) for k in range(3)]) * (1 - torch.eye(self.cells))
        self.register_buffer("same_unit_by_type", by_type, persistent=False)
        # (3n, n): the cells of each unit in order (rows, columns, blocks as in unit_membership)
        cells_of = self.unit_membership.nonzero()[:, 1].reshape(3 * n, n)
        self.register_buffer("unit_cells", cells_of, persistent=False)

    def _same(self, unit_type: int) -> torch.Tensor:
        part = self.cell_features[:, unit_type * self.n:(unit_type + 1) * self.n]
        return part @ part.T

    # ---- fixed predicates on cells ------------------------------------------------------------------------------
    def _same_unit_predicate(self, unit_type: int) -> ltn.Predicate:
        n = self.n

        def same(c1: torch.Tensor, c2: torch.Tensor) -> torch.Tensor:
            f1 = self.cell_features[c1.reshape(-1), unit_type * n:(unit_type + 1) * n]
            f2 = self.cell_features[c2.reshape(-1), unit_type * n:(unit_type + 1) * n]
            return (f1 * f2).sum(-1)

        return ltn.Predicate(func=same)

    @property
    def is_same_row(self) -> ltn.Predicate:
        return self._same_unit_predicate(0)

    @property
    def is_same_col(self) -> ltn.Predicate:
        return self._same_unit_predicate(1)

    @property
    def is_same_block(self) -> ltn.Predicate:
        return self._same_unit_predicate(2)

    def unit_predicates(self) -> dict[str, ltn.Predicate]:
        """isSameRow, isSameCol, isSameBlock by name."""
        return {name: self._same_unit_predicate(k) for k, name in enumerate(UNIT_PREDICATES)}

    @property
    def is_peer(self) -> TablePredicate:
        """Distinct cells sharing a unit: the union of the three fixed predicates."""
        return TablePredicate(self.peer)

    @property
    def in_unit(self) -> TablePredicate:
        """inUnit(c, u)."""
        return TablePredicate(self.unit_membership.T)

    # ---- individuals ----------------------------------------------------------------------------------------------
    def domain(self, batch: int) -> Domain:
        """Variables over the boards of a batch, all cells, all digits and all units."""
        dev = self.cell_features.device
        return Domain(b=range_variable("b", batch, dev), c=range_variable("c", self.cells, dev),
                      c2=range_variable("c2", self.cells, dev), v=range_variable("v", self.n, dev),
                      v2=range_variable("v2", self.n, dev), u=range_variable("u", 3 * self.n, dev))

    def peer_pair_variables(self) -> list[ltn.Variable]:
        """(c1, c2) over every ordered pair of distinct cells sharing a unit, diagonally quantified together."""
        return ltn.diag(index_variable("c1", self.peer_pairs[:, 0]), index_variable("c2", self.peer_pairs[:, 1]))

    def digit_pair_variables(self) -> list[ltn.Variable]:
        """(v1, v2) over every ordered pair of distinct digits, diagonally quantified together."""
        return ltn.diag(index_variable("v1", self.digit_pairs[:, 0]), index_variable("v2", self.digit_pairs[:, 1]))

    # ---- tensor evidence used by the networks ------------------------------------------------------------------
    def elsewhere_in_units(self, x: torch.Tensor, unit_kind_first: bool = False) -> torch.Tensor:
        """(batch, N, n) -> (batch, N, n, 3): per unit kind, the sum of x over the other cells of the cell's unit;
        (3, batch, N, n) with `unit_kind_first` (the evidence grounding's feature-major layout)."""
        return torch.einsum("kcd,bdv->kbcv" if unit_kind_first else "kcd,bdv->bcvk", self.same_unit_by_type, x)

    def possible(self, assignment: torch.Tensor, empty: torch.Tensor) -> torch.Tensor:
        """isPossible(c, v) under the product t-norm: c is empty and no peer holds v, Π_peers (1 - hasValue(peer, v)).

        `assignment` (batch, N, n) soft or crisp; `empty` (batch, N, 1). Crisp inputs give the basic-rule candidates.
        """
        log_free = torch.log1p(-assignment.clamp(max=1 - 1e-6))
        return torch.exp(torch.einsum("cd,bdv->bcv", self.peer, log_free)) * empty

