"""Board generators: every class and kind re-verified by the pure-Python exact search (an independent backend),
reproducibility by seed (also across processes and worker counts), givens ranges, CSV round trips, bad options."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from ltn_sudoku.board import Board
from ltn_sudoku.candidates import CandidateGrid
from ltn_sudoku.exact import count_solutions
from ltn_sudoku.generate import (
    CLASSES,
    CSV_COLUMNS,
    IMPOSSIBLE_KINDS,
    INVALID_KINDS,
    KINDS,
    GenerationError,
    LabelledBoard,
    default_givens,
    generate,
    generate_mixed,
    read_csv,
    to_frame,
    write_csv,
)
from ltn_sudoku.generate.grids import candidates, dead_ends, forced_cells, random_symmetry
from ltn_sudoku.generate.open_boards import dig_unique
from ltn_sudoku.generate.solver import count_batch, random_grids
from ltn_sudoku.io import FormatError, read_records
from ltn_sudoku.paths import DATA_DIR

EXPECTED_COUNT = {"closed_valid": 1, "closed_invalid": 0, "open_impossible": 0}
ALL_KINDS = [(label, kind) for label in CLASSES for kind in KINDS[label]]


def python_count(board: Board) -> int:
    return count_solutions(board, 2, backend="python")


def assert_label_true(r: LabelledBoard) -> None:
    """The label and kind of one board, checked against the pure-Python solver and the basic rule."""
    count = python_count(r.board)
    expected = EXPECTED_COUNT.get(r.label, 1 if r.kind == "unique" else 2)
    assert count == expected, f"{r.label}/{r.kind} has {count} solutions: {r.board.to_line()}"
    if r.label.startswith("closed"):
        assert r.board.is_closed
    else:
        assert not r.board.is_closed and r.board.is_consistent
    if count == 0:
        assert r.solution is None
    else:
        assert r.solution is not None and r.solution.is_valid_solution
        assert all(v in (0, s) for v, s in zip(r.board.values, r.solution.values))
    if r.label == "open_impossible":
        dead_end = CandidateGrid.from_board(r.board).dead_end()
        assert (dead_end is not None) == (r.kind == "obvious"), f"{r.kind}: dead end {dead_end}"


def fixable_by_one_change(board: Board) -> bool:
    n = board.n
    return any(board.with_value(c, d).is_valid_solution for c in range(n * n) for d in range(1, n + 1))


def fixable_by_one_swap(board: Board) -> bool:
    suspects = sorted({c for conflict in board.conflicts() for c in conflict.cells})
    for a in suspects:
        for b in range(board.cell_count):
            if board[a] != board[b] and board.with_values([(a, board[b]), (b, board[a])]).is_valid_solution:
                return True
    return False


def assert_kind_shape(r: LabelledBoard) -> None:
    """What each invalid kind promises beyond 'no solution'."""
    if r.kind == "change":
        assert fixable_by_one_change(r.board)
    elif r.kind == "swap":
        assert fixable_by_one_swap(r.board)
    elif r.kind == "latin_blocks":
        kinds = {c.unit_kind for c in r.board.conflicts()}
        assert kinds == {"box"}, kinds


@pytest.mark.parametrize("label,kind", ALL_KINDS)
@pytest.mark.parametrize("size,count", [(4, 16), (9, 6)])
def test_every_class_and_kind_is_true(size: int, count: int, label: str, kind: str) -> None:
    records = generate(size, label, count, seed=11, kind=kind, unique=kind != "multiple")
    assert len(records) == count
    assert {(r.label, r.kind) for r in records} == {(label, kind)}
    for r in records:
        assert r.board.n == size
        assert_label_true(r)
        assert_kind_shape(r)
    if label.startswith("open"):
        low, high = default_givens(size)
        assert all(low <= r.board.givens <= high for r in records)


def test_sixteen_by_sixteen_every_class() -> None:
    records = generate_mixed(16, 8, seed=5)
    assert Counter(r.label for r in records) == {label: 2 for label in CLASSES}
    for r in records:
        assert r.board.n == 16
        assert_label_true(r)


def test_pure_python_backend_makes_true_labels() -> None:
    records = generate_mixed(9, 12, seed=2, backend="python")
    assert len(records) == 12
    for r in records:
        assert_label_true(r)


def test_mixed_is_balanced_and_kinds_are_mixed() -> None:
    records = generate_mixed(4, 400, seed=3, unique=False)
    labels = Counter(r.label for r in records)
    assert labels == {label: 100 for label in CLASSES}
    kinds = Counter((r.label, r.kind) for r in records)
    assert all(kinds[("closed_invalid", k)] == 25 for k in INVALID_KINDS)
    assert all(kinds[("open_impossible", k)] == 50 for k in IMPOSSIBLE_KINDS)
    assert kinds[("open_solvable", "unique")] == kinds[("open_solvable", "multiple")] == 50
    first_half = Counter(r.label for r in records[:200])
    assert all(30 <= first_half[label] <= 70 for label in CLASSES), first_half  # shuffled, not in blocks


def fingerprint(records: list[LabelledBoard]) -> str:
    return hashlib.sha256(to_frame(records).to_csv(index=False).encode()).hexdigest()


def test_same_seed_same_boards_other_seed_other_boards() -> None:
    first = generate_mixed(9, 40, seed=7)
    assert generate_mixed(9, 40, seed=7) == first
    assert generate_mixed(9, 40, seed=8) != first
    assert generate(9, "open_impossible", 6, seed=7) == generate(9, "open_impossible", 6, seed=7)


def test_same_boards_in_another_process_and_with_workers() -> None:
    records = generate_mixed(9, 24, seed=21)
    code = ("from ltn_sudoku.generate import generate_mixed, to_frame; import hashlib; "
            "print(hashlib.sha256(to_frame(generate_mixed(9, 24, seed=21)).to_csv(index=False).encode()).hexdigest())")
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert other == fingerprint(records)
    assert generate_mixed(9, 24, seed=21, workers=2) == records


@pytest.mark.parametrize("label,kind", [("open_solvable", "unique"), ("open_solvable", "multiple"),
                                        ("open_impossible", "obvious"), ("open_impossible", "subtle")])
def test_givens_range_is_respected(label: str, kind: str) -> None:
    records = generate(9, label, 12, seed=4, kind=kind, unique=kind == "unique", givens=(30, 32))
    assert {r.board.givens for r in records} <= {30, 31, 32}
    for r in records:
        assert_label_true(r)


def test_givens_spread_over_the_range() -> None:
    records = generate(9, "open_solvable", 200, seed=1, givens=(28, 40))
    counts = Counter(r.board.givens for r in records)
    assert set(counts) == set(range(28, 41))  # every count of the range occurs
    assert max(counts.values()) < 40


def test_no_large_fraction_of_duplicates() -> None:
    nine = generate_mixed(9, 400, seed=9)
    assert len({r.board for r in nine}) == 400
    four = generate(4, "open_solvable", 300, seed=9)
    assert len({r.board for r in four}) == 300  # skipped while new ones keep coming
    assert len({r.board for r in generate(4, "closed_valid", 400, seed=9)}) == 288  # every 4x4 grid, then repeats


@pytest.mark.parametrize("kwargs,message", [
    ({"size": 10, "label": "closed_valid"}, "unsupported size 10"),
    ({"label": "open"}, "unknown class"),
    ({"label": "closed_invalid", "kind": "shuffle"}, "unknown kind 'shuffle'"),
    ({"label": "open_solvable", "kind": "multiple"}, "unique=True allows only"),
    ({"label": "closed_valid", "count": -1}, "count must be >= 0"),
    ({"label": "closed_valid", "seed": -3}, "seed must be >= 0"),
    ({"label": "closed_valid", "givens": (30, 36)}, "open boards only"),
    ({"label": "open_solvable", "givens": (36, 30)}, "impossible for 9x9"),
    ({"label": "open_solvable", "givens": (30, 81)}, "impossible for 9x9"),
    ({"label": "open_solvable", "givens": (10, 16)}, "needs at least 17"),
    ({"label": "open_impossible", "givens": (10, 17)}, "needs at least 18"),
    ({"label": "open_solvable", "backend": "gpu"}, "unknown backend"),
    ({"label": "open_solvable", "workers": 0}, "workers must be >= 1"),
])
def test_bad_options_are_clear_errors(kwargs: dict[str, object], message: str) -> None:
    args = {"size": 9, "count": 3, **kwargs}
    with pytest.raises(GenerationError, match=message):
        generate(args.pop("size"), args.pop("label"), args.pop("count"), **args)  # type: ignore[arg-type]


def test_unreachable_givens_range_gives_up() -> None:
    with pytest.raises(GenerationError, match="gave up"):
        generate(9, "open_solvable", 1, seed=0, givens=(17, 18))


def test_mixed_rejects_a_kind() -> None:
    with pytest.raises(TypeError, match="kind"):
        generate_mixed(9, 4, kind="swap")


def test_csv_round_trip_and_table_format(tmp_path: Path) -> None:
    records = generate_mixed(9, 16, seed=1) + generate_mixed(9, 4, seed=2, unique=False)
    path = tmp_path / "boards.csv"
    write_csv(path, records)
    assert read_csv(path) == records
    table = read_records(path, fmt="table")
    assert [t.board for t in table] == [r.board for r in records]
    frame = to_frame(records)
    assert list(frame.columns) == list(CSV_COLUMNS)
    assert frame["givens"].tolist() == [r.board.givens for r in records]
    assert (frame["solution"] == "").tolist() == [r.solution is None for r in records]
    sixteen = generate_mixed(16, 4, seed=1)
    write_csv(path, sixteen)
    assert read_csv(path) == sixteen


def test_read_csv_rejects_a_bad_label(tmp_path: Path) -> None:
    path = tmp_path / "bad.csv"
    write_csv(path, generate(4, "closed_valid", 2, seed=1))
    path.write_text(path.read_text().replace("closed_valid", "closed_maybe", 1))
    with pytest.raises(FormatError, match=r"bad.csv:2: label 'closed_maybe'"):
        read_csv(path)


@pytest.mark.parametrize("size", [4, 9])
@pytest.mark.parametrize("label", CLASSES)
def test_shipped_samples_are_true(size: int, label: str) -> None:
    records = read_csv(DATA_DIR / "samples" / f"{size}x{size}_{label}.csv")
    assert 100 <= len(records) <= 300
    assert {r.label for r in records} == {label} and {r.kind for r in records} == set(KINDS[label])
    for r in records:
        assert r.board.n == size
        assert_label_true(r)


def test_shipped_generated_kaggle_layout_sample() -> None:
    path = DATA_DIR / "generated_9x9_quizzes_solutions.csv"
    assert path.read_text().startswith("quizzes,solutions\n")
    records = read_records(path)
    assert len(records) == 1000 and len({r.board for r in records}) == 1000
    for r in records:
        assert 30 <= r.board.givens <= 36
        assert python_count(r.board) == 1
        assert r.solution is not None and r.solution.is_valid_solution
        assert all(v in (0, s) for v, s in zip(r.board.values, r.solution.values))


# ---- building blocks -------------------------------------------------------------------------------------------------
def random_partial_boards(n: int, count: int, seed: int) -> np.ndarray:
    """Consistent boards with random givens plus one random extra digit where the basic rule allows it."""
    rng = np.random.default_rng(seed)
    grids = random_grids(n, count, seed, "auto")
    keep = rng.random(grids.shape) < rng.uniform(0.2, 0.6, size=(count, 1))
    boards = np.where(keep, grids, 0).astype(np.int8)
    cand = candidates(boards, n)
    for i in range(count):
        cells, digits = np.nonzero(cand[i])
        if len(cells):
            j = rng.integers(len(cells))
            boards[i, cells[j]] = digits[j] + 1
    return boards


@pytest.mark.parametrize("n", [4, 9, 16])
def test_batch_basic_rule_matches_candidate_grid(n: int) -> None:
    boards = random_partial_boards(n, 150, seed=n)
    cand = candidates(boards, n)
    found = dead_ends(boards, n)
    for i, row in enumerate(boards):
        board = Board(row.tolist(), n)
        masks = [int(sum(1 << d for d in np.flatnonzero(cand[i, c]))) for c in range(n * n)]
        assert masks == board.candidate_masks()
        assert found[i] == (CandidateGrid.from_board(board).dead_end() is not None)
    assert 0 < found.sum() < len(found)  # both outcomes occur


@pytest.mark.parametrize("n", [4, 9, 16])
def test_symmetries_keep_grids_valid_and_puzzles_matched(n: int) -> None:
    rng = np.random.default_rng(0)
    grids = random_grids(n, 20, 3, "auto")
    puzzles = np.where(rng.random(grids.shape) < 0.5, grids, 0).astype(np.int8)
    new_puzzles, new_grids = random_symmetry([puzzles, grids], n, rng)
    for p, g, old in zip(new_puzzles, new_grids, puzzles):
        assert Board(g.tolist(), n).is_valid_solution
        assert np.all((p == 0) | (p == g))
        assert (p == 0).sum() == (old == 0).sum()
    assert not np.array_equal(new_grids, grids)


def test_dig_ends_where_a_one_cell_at_a_time_dig_ends() -> None:
    n, m = 9, 12
    grids = random_grids(n, m, 5, "auto")
    targets = np.random.default_rng(1).integers(22, 36, size=m)
    dug = dig_unique(grids, targets, n, np.random.default_rng(2), "auto")
    order = np.argsort(np.random.default_rng(2).random((m, n * n)), axis=1)  # the dig's first draw
    for i in range(m):
        puzzle = grids[i].copy()
        for cell in order[i]:
            if (puzzle != 0).sum() == targets[i]:
                break
            trial = puzzle.copy()
            trial[cell] = 0
            if python_count(Board(trial.tolist(), n)) == 1:
                puzzle = trial
        assert np.array_equal(dug[i], puzzle)


def test_count_batch_backends_agree() -> None:
    boards = random_partial_boards(9, 60, seed=3)
    assert np.array_equal(count_batch(boards, 9, 2, "auto"), count_batch(boards, 9, 2, "python"))


@pytest.mark.parametrize("n", [4, 9])
def test_python_random_grids_are_valid_and_reproducible(n: int) -> None:
    grids = random_grids(n, 10, 4, "python")
    assert all(Board(g.tolist(), n).is_valid_solution for g in grids)
    assert np.array_equal(grids, random_grids(n, 10, 4, "python"))
    assert len({g.tobytes() for g in grids}) > 1


@pytest.mark.slow
def test_many_boards_of_every_kind_are_true() -> None:
    """A larger sweep than the fast tests: every kind at 4x4, 9x9 and 16x16, re-verified by the pure-Python search."""
    for size, count in [(9, 16000), (4, 4000), (16, 200)]:
        for r in generate_mixed(size, count, seed=123, unique=False):
            assert_label_true(r)


@pytest.mark.parametrize("n", [4, 9, 16])
def test_forced_cells_follow_the_basic_rule_and_keep_the_solution(n: int) -> None:
    rng = np.random.default_rng(n)
    grids = random_grids(n, 120, n, "auto")
    boards = np.where(rng.random(grids.shape) < rng.uniform(0.3, 0.9, size=(120, 1)), grids, 0).astype(np.int8)
    rows = np.arange(120)
    cells = rng.integers(0, n * n, size=120)
    boards[rows, cells] = 0
    forced = forced_cells(boards, cells, grids[rows, cells], n)
    assert 0 < forced.sum() < len(forced)
    for board_row, cell, digit, is_forced, grid in zip(boards, cells, grids[rows, cells], forced, grids):
        board = Board(board_row.tolist(), n)
        grid_state = CandidateGrid.from_board(board)
        naked = grid_state.candidates(int(cell)) == (digit,)
        hidden = any(grid_state.places(u, int(digit)) == 1 << int(cell) for u in board.geometry.units_of_cell[cell])
        assert is_forced == (naked or hidden)
        if is_forced and n < 16:  # placing the given back is forced, so the solutions of board and board+given agree
            with_given = board.with_value(int(cell), int(digit))
            assert python_count(board) == python_count(with_given)
