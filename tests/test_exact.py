"""The exact solvers: known answers, edge cases, and the three backends agreeing on thousands of random boards."""

from __future__ import annotations

import numpy as np
import pytest

from ltn_sudoku.board import SUPPORTED_SIZES, Board, geometry
from ltn_sudoku.exact import (
    BACKENDS,
    count_solutions,
    count_solutions_batch,
    random_solutions,
    solutions,
    solve,
    solve_batch,
)
from ltn_sudoku.io import parse_board_text, read_boards
from ltn_sudoku.paths import DATA_DIR

SEED_9 = "2.14.....4...7358..5....6....9.2.8.1.23.1..5...8354..97..28.....15..93.6.6....74."
SEED_9_SOLUTION = "281465973496173582357892614549627831623918457178354269734286195815749326962531748"
SEED_4 = "1.34 34.2 2143 432."
SEED_4_SOLUTION = "1234341221434321"
GRIDS_4x4 = 288  # all valid 4x4 grids


def agreeing_backends() -> list[str]:
    """The backends the random-board checks compare; plain backtracking is exponential on sparse or impossible boards
    and has its own agreement test (tests/test_exact_backends.py)."""
    return [b for b in BACKENDS if b not in ("auto", "backtracking")]


def assert_solution_of(solution: Board, puzzle: Board) -> None:
    """A valid complete grid that keeps every given."""
    assert solution.is_valid_solution
    assert all(g == 0 or g == s for g, s in zip(puzzle.values, solution.values))


def random_puzzles(n: int, count: int, seed: int, holes: tuple[float, float] = (0.3, 0.85)) -> list[Board]:
    """Puzzles with 0, 1 and many solutions: random grids with a random share of holes in the range `holes`, a
    fifth with one given overwritten."""
    rng = np.random.default_rng(seed)
    boards = []
    for grid in random_solutions(n, count, seed):
        puzzle = grid.copy()
        puzzle[rng.random(n * n) < rng.uniform(*holes)] = 0
        if rng.random() < 0.2:
            puzzle[rng.integers(n * n)] = rng.integers(1, n + 1)
        boards.append(Board(puzzle.tolist(), n))
    return boards


# ---- known answers ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("text", "answer"), [(SEED_9, SEED_9_SOLUTION), (SEED_4, SEED_4_SOLUTION)])
def test_seed_puzzles_have_their_one_solution(backend: str, text: str, answer: str) -> None:
    board = parse_board_text(text)
    assert count_solutions(board, 2, backend) == 1
    assert count_solutions(board, 5, backend) == 1
    solved = solve(board, backend)
    assert solved is not None and solved.to_line() == answer
    assert [s.to_line() for s in solutions(board, 3, backend)] == [answer]


@pytest.mark.parametrize("backend", BACKENDS)
def test_empty_board_counts_up_to_the_limit(backend: str) -> None:
    assert count_solutions(Board.empty(4), 1000, backend) == GRIDS_4x4
    found = solutions(Board.empty(4), 1000, backend)
    assert len({s.values for s in found}) == GRIDS_4x4
    for limit in (1, 2, 3):
        assert count_solutions(Board.empty(9), limit, backend) == limit
        sols = solutions(Board.empty(9), limit, backend)
        assert len({s.values for s in sols}) == limit and all(s.is_valid_solution for s in sols)


@pytest.mark.parametrize("backend", BACKENDS)
def test_full_boards(backend: str) -> None:
    valid = parse_board_text(SEED_9_SOLUTION)
    assert count_solutions(valid, 2, backend) == 1 and solve(valid, backend) == valid
    swapped = list(valid.values)
    swapped[0], swapped[1] = swapped[1], swapped[0]  # still full, now with repeats in two columns and boxes
    invalid = Board(swapped)
    assert count_solutions(invalid, 2, backend) == 0
    assert solve(invalid, backend) is None and solutions(invalid, 2, backend) == []


@pytest.mark.parametrize("backend", BACKENDS)
def test_inconsistent_and_dead_givens_have_no_solution(backend: str) -> None:
    clash = Board.empty(9).with_values([(0, 5), (8, 5)])  # 5 twice in row 1
    assert count_solutions(clash, 2, backend) == 0
    # consistent givens, but r1c4 can hold nothing: 1..4 sit in its row, 5..9 in its column
    dead = Board.empty(9).with_values([(0, 1), (1, 2), (2, 3), (4, 4)] + [(9 * r + 3, 4 + r) for r in range(1, 6)])
    assert dead.is_consistent
    assert count_solutions(dead, 2, backend) == 0
    assert solve(dead, backend) is None


@pytest.mark.parametrize("backend", BACKENDS)
def test_limit_must_be_positive(backend: str) -> None:
    with pytest.raises(ValueError, match="limit"):
        count_solutions(Board.empty(4), 0, backend)


def test_unknown_backend_is_named() -> None:
    with pytest.raises(ValueError, match="unknown solver backend 'fast'"):
        count_solutions(Board.empty(4), 2, "fast")


# ---- agreement -------------------------------------------------------------------------------------------------------
# 16x16 keeps at least 45 % of the givens: sparser boards can send DLX, which has no box-line reduction, into
# minutes-long dead subtrees.
@pytest.mark.parametrize(("n", "count", "holes"),
                         [(4, 1500, (0.3, 0.85)), (9, 800, (0.3, 0.85)), (16, 60, (0.3, 0.55))])
def test_backends_agree_on_random_boards(n: int, count: int, holes: tuple[float, float]) -> None:
    outcomes = set()
    for board in random_puzzles(n, count, seed=n, holes=holes):
        counts = {b: count_solutions(board, 3, b) for b in agreeing_backends()}
        assert len(set(counts.values())) == 1, (board.to_line(), counts)
        outcomes.add(counts["kernel"])
        first = {b: solve(board, b) for b in agreeing_backends()}
        for sol in first.values():
            assert (sol is None) == (counts["kernel"] == 0)
            if sol is not None:
                assert_solution_of(sol, board)
        if counts["kernel"] == 1:
            assert len({s.values for s in first.values() if s is not None}) == 1
    assert {0, 1, 3} <= outcomes  # the sample really holds impossible, unique and multiple boards


def test_batch_agrees_with_single_calls() -> None:
    boards = random_puzzles(9, 400, seed=7)
    puzzles = np.array([b.values for b in boards])
    for limit in (1, 2, 3):
        counts, firsts = solve_batch(puzzles, limit)
        assert counts.tolist() == [count_solutions(b, limit, "python") for b in boards]
        assert count_solutions_batch(puzzles, limit).tolist() == counts.tolist()
        for board, c, first in zip(boards, counts, firsts):
            if c:
                assert_solution_of(Board(first.tolist()), board)
            else:
                assert not first.any()


@pytest.mark.parametrize("n", SUPPORTED_SIZES)
def test_every_size_from_random_grids(n: int) -> None:
    """Each side 4..81: a random grid with a third of its cells emptied; the backends agree, and a unique answer is
    the grid itself."""
    grid = random_solutions(n, 1, seed=n)[0]
    puzzle = grid.copy()
    puzzle[np.random.default_rng(n).random(n * n) < 1 / 3] = 0
    board = Board(puzzle.tolist(), n)
    found = {backend: solutions(board, 2, backend) for backend in agreeing_backends()}
    assert len({len(sols) for sols in found.values()}) == 1, {b: len(s) for b, s in found.items()}
    for sols in found.values():
        assert sols
        for sol in sols:
            assert_solution_of(sol, board)
        if len(sols) == 1:
            assert sols[0].values == tuple(grid.tolist())


@pytest.mark.parametrize("rank", range(3, 10))
def test_generalized_puzzles_have_one_solution(rank: int) -> None:
    """Generalized puzzles (9x9 .. 81x81): each unique, the kernel's solution valid and the same as the pure-Python
    search's (which has box-line reduction too, so none of them takes it long)."""
    boards = read_boards(DATA_DIR / f"generalized/sudoku_rank_{rank}.csv")[:3]
    counts, firsts = solve_batch(np.array([b.values for b in boards]), 2)
    assert counts.tolist() == [1] * len(boards)
    for board, first in zip(boards, firsts):
        assert_solution_of(Board(first.tolist()), board)
        assert [s.values for s in solutions(board, 2, "python")] == [tuple(first.tolist())]


# ---- batch API -------------------------------------------------------------------------------------------------------
def test_batch_shapes_and_types() -> None:
    clash = Board.empty(9).with_values([(0, 1), (1, 1)])
    puzzles = np.array([parse_board_text(SEED_9).values, [0] * 81, clash.values], dtype=np.int8)
    counts, firsts = solve_batch(puzzles)
    assert counts.dtype == np.int64 and counts.tolist() == [1, 2, 0]
    assert firsts.shape == (3, 81) and np.issubdtype(firsts.dtype, np.integer)
    assert "".join(map(str, firsts[0])) == SEED_9_SOLUTION
    assert not firsts[2].any()
    empty_counts, empty_firsts = solve_batch(np.zeros((0, 16), dtype=np.int64))
    assert empty_counts.shape == (0,) and empty_firsts.shape == (0, 16)


@pytest.mark.parametrize(
    ("puzzles", "message"),
    [
        (np.zeros(81, dtype=int), "2-D"),
        (np.zeros((2, 80), dtype=int), "80 cells"),
        (np.full((1, 16), 5), "digits 1..4"),
        (np.full((1, 16), -1), "digits 1..4"),
        (np.zeros((1, 16), dtype=float), "integers"),
    ],
)
def test_batch_rejects_bad_input(puzzles: np.ndarray, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        count_solutions_batch(puzzles)


@pytest.mark.parametrize("n", [pytest.param(n, marks=pytest.mark.slow) if n == 81 else n for n in SUPPORTED_SIZES])
def test_random_solutions_are_valid_and_reproducible(n: int) -> None:
    """Valid, the same for the same seed, another for another seed (81x81 is slow: seconds per grid)."""
    count = 3 if n <= 36 else 1
    grids = random_solutions(n, count, seed=11)
    assert grids.shape == (count, n * n)
    for grid in grids:
        assert Board(grid.tolist(), n).is_valid_solution
    assert np.array_equal(grids, random_solutions(n, count, seed=11))
    assert not np.array_equal(grids[0], random_solutions(n, 1, seed=12)[0])


def test_random_solutions_vary() -> None:
    grids = random_solutions(9, 200, seed=3)
    assert len({g.tobytes() for g in grids}) == 200
    assert len(set(grids[:, 0].tolist())) == 9  # every digit shows up in the first cell


@pytest.mark.parametrize(("n", "count"), [(10, 1), (9, -1)])
def test_random_solutions_reject_bad_arguments(n: int, count: int) -> None:
    with pytest.raises(ValueError):
        random_solutions(n, count, seed=0)


def test_units_of_the_geometry_match_the_board_model() -> None:
    """Guards the kernel's own tables against the Board model's numbering (rows, columns, boxes)."""
    from ltn_sudoku.exact.kernel import _tables

    for n in (4, 9, 16):
        units, peers, cell_units, _ = _tables(n)
        g = geometry(n)
        assert [tuple(u) for u in units.tolist()] == list(g.units)
        assert [tuple(sorted(p)) for p in peers.tolist()] == list(g.peers)
        assert [tuple(u) for u in cell_units.tolist()] == list(g.units_of_cell)


# ---- the 17-clue sample ----------------------------------------------------------------------------------------------
@pytest.mark.slow
def test_kernel_agrees_with_python_search_on_the_17_clue_sample() -> None:
    """The shipped 1,000 of the 49,158 known 17-clue puzzles (data/README.md); `scripts/bench_exact.py` runs the kernel
    on the whole list of the data home."""
    boards = read_boards(DATA_DIR / "9x9/17clue_sample1000.txt")
    assert len(boards) == 1000
    counts, firsts = solve_batch(np.array([b.values for b in boards]), 2)
    assert set(counts.tolist()) == {1}
    for board, first in zip(boards, firsts):
        reference = solutions(board, 2, "python")
        assert len(reference) == 1 and reference[0].values == tuple(first.tolist())


# ---- the install's warm-up -------------------------------------------------------------------------------------------
def test_warmup_compiles_every_entry_point_of_a_classify_run(capsys: pytest.CaptureFixture[str]) -> None:
    """`make install` runs the warm-up so the first classify-board loads machine code: each kernel entry point the
    CLI reaches must have been compiled (or loaded) by it, for the dtype the CLI passes."""
    from ltn_sudoku import warmup
    from ltn_sudoku.exact import kernel

    assert warmup.main() == 0
    assert "CPU s" in capsys.readouterr().out
    for entry, arg_type in ((kernel._solve_rows, "array(int32, 2d, C)"), (kernel._solve_rows_band, "array(int32, 2d, C)"),
                            (kernel._count_cells, "readonly bytes(uint8"),
                            (kernel._count_capped, "array(int32, 1d, C)"),
                            (kernel._root_candidates, "array(int32, 1d, C)"),
                            (kernel.count_solutions_nb, "array(int32, 1d, C)")):
        assert any(str(sig[0]).startswith(arg_type) for sig in entry.signatures), (entry, entry.signatures)


def test_the_bench_command_runs_the_benchmark_script_quick(monkeypatch: pytest.MonkeyPatch) -> None:
    """`ltn-sudoku bench` runs scripts/bench_exact.py's --quick profile with its own --limit and --ranks (the benchmark
    lives in scripts/, not in the library)."""
    import runpy

    from ltn_sudoku.cli import main
    from ltn_sudoku.cli.bench import BENCH_SCRIPT

    calls: list[tuple[str, list[str]]] = []

    def run_path(path: str, run_name: str) -> dict[str, object]:
        return {"main": lambda argv: calls.append((path, argv)) or 0}

    monkeypatch.setattr(runpy, "run_path", run_path)
    assert BENCH_SCRIPT.is_file()
    assert main(["bench", "--limit", "50", "--ranks", "3", "4"]) == 0
    assert calls == [(str(BENCH_SCRIPT), ["--quick", "--limit", "50", "--ranks", "3", "4"])]


def test_tdoku_input_is_the_line_format_with_a_nul() -> None:
    """bench_exact.py --tdoku hands tdoku 81 chars ('.' or '1'..'9') and a NUL, its standard (not pencilmark) input."""
    from scripts.bench_exact import Tdoku

    boards = [parse_board_text(SEED_9), Board.empty(9)]
    text = Tdoku.text(np.array([b.values for b in boards], np.int32))
    assert text.shape == (2, 82) and not text[:, 81].any()
    assert [bytes(row[:81]).decode("ascii") for row in text] == [b.to_line() for b in boards]
