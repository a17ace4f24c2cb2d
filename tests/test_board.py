"""Board model: geometry, conflicts, candidates for every supported size."""

import pickle

import pytest

from ltn_sudoku.board import SUPPORTED_SIZES, Board, BoardError, geometry
from ltn_sudoku.io import parse_board_text

SEED_9 = "2.14.....4...7358..5....6....9.2.8.1.23.1..5...8354..97..28.....15..93.6.6....74."


@pytest.mark.parametrize("n", SUPPORTED_SIZES)
def test_geometry_every_size(n: int) -> None:
    g = geometry(n)
    assert len(g.units) == 3 * n
    assert all(len(u) == n and len(set(u)) == n for u in g.units)
    k = g.k
    assert all(len(p) == 3 * n - 2 * k - 1 for p in g.peers)
    # every cell is in exactly one row, one column, one box
    for c in range(n * n):
        assert sum(c in u for u in g.units) == 3
    assert g.peer_matrix.sum() == n * n * (3 * n - 2 * k - 1)


def test_conflicts_reported_per_unit_and_digit() -> None:
    b = parse_board_text("1134" "3412" "2143" "4321")
    conflicts = b.conflicts()
    kinds = {(c.unit_kind, c.unit_index, c.digit) for c in conflicts}
    assert ("row", 0, 1) in kinds and ("col", 1, 1) in kinds and ("box", 0, 1) in kinds
    row = next(c for c in conflicts if c.unit_kind == "row")
    assert row.cells == (0, 1)
    assert "r1c1,r1c2" in row.describe()
    assert not b.is_valid_solution


def test_valid_closed_board() -> None:
    b = parse_board_text("1234" "3412" "2143" "4321")
    assert b.is_closed and b.is_valid_solution and b.conflicts() == []


def test_candidates_follow_the_basic_rule() -> None:
    b = parse_board_text(SEED_9)
    assert b.candidates(1) == [3, 7, 8, 9]
    assert b.candidates(0) == []
    masks = b.candidate_masks()
    assert [d for d in range(1, 10) if masks[1] >> (d - 1) & 1] == [3, 7, 8, 9]


@pytest.mark.parametrize("values", [[0] * 15, [5] + [0] * 15, [0] * 80 + [10]])
def test_bad_boards_raise(values: list[int]) -> None:
    with pytest.raises(BoardError):
        Board(values)


def test_board_is_immutable_and_hashable() -> None:
    b = Board.empty(4)
    with pytest.raises(AttributeError):
        b.n = 9  # type: ignore[misc]
    assert b.with_value(0, 1)[0] == 1 and b[0] == 0
    assert len({b, Board.empty(4)}) == 1


@pytest.mark.parametrize("n", [4, 9])
def test_bytes_path_builds_the_same_board_as_a_list(n: int) -> None:
    values = [(3 * i + i // n) % (n + 1) for i in range(n * n)]  # every digit 0..n somewhere
    from_list = Board(values, n)
    for board in (Board(bytes(values), n), Board.from_cell_bytes(bytes(values), n)):
        assert board == from_list and hash(board) == hash(from_list)
        assert board.values == tuple(values) and all(type(v) is int for v in board.values)
        assert board.cell_bytes() == bytes(values) == from_list.cell_bytes()
    parsed = Board.from_cell_bytes(bytes(values), n)
    assert pickle.loads(pickle.dumps(parsed)) == from_list
    with pytest.raises(AttributeError):
        parsed._cells = bytes(n * n)  # type: ignore[misc]


@pytest.mark.parametrize("cells, n", [(bytes([10] + [0] * 80), 9), (bytes([5] + [0] * 15), 4), (bytes(80), 9),
                                      (bytes([1] * 15 + [200]), 4)])
def test_bad_cell_bytes_raise_like_a_list(cells: bytes, n: int) -> None:
    with pytest.raises(BoardError) as from_list:
        Board(list(cells), n)
    for build in (Board, Board.from_cell_bytes):
        with pytest.raises(BoardError) as got:
            build(cells, n)
        assert str(got.value) == str(from_list.value)


def test_from_string_keeps_the_parsed_cells_for_the_exact_path() -> None:
    board = parse_board_text(SEED_9)
    assert board.cell_bytes() == bytes(board.values) and board == Board(list(board.values))
    assert Board(list(board.values)).cell_bytes() == board.cell_bytes()


def test_a_parsed_board_builds_its_values_on_first_use_only() -> None:
    """from_cell_bytes leaves `values` unset (a count reads the bytes); every way of reading a board still works."""
    fresh = lambda: Board.from_cell_bytes(bytes([1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 0]), 4)  # noqa: E731
    expected = Board([1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 0])
    assert pickle.loads(pickle.dumps(fresh())) == expected
    assert fresh() == expected and hash(fresh()) == hash(expected) and fresh()[15] == 0 and list(fresh()) == list(
        expected)
    board = fresh()
    assert board.values is board.values  # built once, then an ordinary slot
    with pytest.raises(AttributeError, match="no attribute 'valeus'"):
        board.valeus  # noqa: B018


def test_draw_marks_highlighted_cells() -> None:
    b = parse_board_text("1134" "3412" "2143" "4321")
    text = b.draw(highlight=[0, 1])
    assert text.count("*") == 2 and text.startswith("+")


@pytest.mark.parametrize("n", [4, 9, 16, 25])
def test_is_consistent_says_what_conflicts_lists(n: int) -> None:
    """is_consistent decides in one pass what `conflicts()` lists: no conflict. Checked on valid grids, on grids with
    one cell changed (a clash in a row, a column, a box or several), on sparse boards with clashing givens, and on
    empty boards, of each size."""
    import random

    from ltn_sudoku.exact import random_solutions

    rng = random.Random(n)
    boards: list[Board] = [Board.empty(n)]
    for grid in random_solutions(n, 6, seed=n):
        values = [int(v) for v in grid]
        boards.append(Board(values, n))
        for _ in range(8):
            changed = list(values)
            changed[rng.randrange(n * n)] = rng.randint(1, n)
            boards.append(Board(changed, n))
            sparse = [v if rng.random() < 0.3 else 0 for v in changed]
            boards.append(Board(sparse, n))
    verdicts = [b.is_consistent for b in boards]
    assert verdicts == [not b.conflicts() for b in boards]
    assert verdicts.count(True) > 5 and verdicts.count(False) > 5
