"""Board formats: round trips of every format at every tested size, auto-detection, the shipped data files, and a
clear located FormatError for every kind of bad input."""

from __future__ import annotations

import io
import random
import re
from pathlib import Path

import pytest

from ltn_sudoku.board import Board
from ltn_sudoku.exact import random_solutions, solve
from ltn_sudoku.io import (
    FORMATS,
    MAX_LINE_CHARS,
    FormatError,
    atomic_write_text,
    boards_to_text,
    decode_cells,
    detect_format,
    encode_cells,
    format_board,
    iter_records,
    parse_board_text,
    read_boards,
    read_records,
    read_stream_records,
    write_boards,
)
from ltn_sudoku.paths import DATA_DIR

SEED_9 = "2.14.....4...7358..5....6....9.2.8.1.23.1..5...8354..97..28.....15..93.6.6....74."
SEED_4 = "1.3434.22143432."


def sample_boards(n: int, count: int = 3, seed: int = 0) -> list[Board]:
    """Random boards of side n: one closed grid, the others with a random share of their cells emptied."""
    rng = random.Random(seed)
    boards = []
    for i, grid in enumerate(random_solutions(n, count, seed=seed)):
        values = [0 if i and rng.random() < 0.3 + 0.2 * i else int(v) for v in grid]
        boards.append(Board(values, n))
    return boards


def write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


# ---- round trips ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [4, 9, 16, 25])
@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_round_trips_and_is_detected(tmp_path: Path, fmt: str, n: int) -> None:
    if fmt == "kaggle" and n != 9:
        with pytest.raises(ValueError, match="9x9"):
            boards_to_text(sample_boards(n), fmt)
        return
    boards = sample_boards(n, seed=n)
    path = tmp_path / f"boards.{fmt}"
    write_boards(path, boards, fmt)
    assert detect_format(path.read_text().splitlines()) == fmt
    assert read_boards(path) == boards
    assert read_boards(path, fmt) == boards


def test_kaggle_and_table_solutions_round_trip(tmp_path: Path) -> None:
    boards = sample_boards(9, seed=3)
    payload = [Board(random_solutions(9, 1, seed=3)[0].tolist())] * len(boards)  # any 9x9 grid: a table's payload
    own = [solve(b) for b in boards]  # a Kaggle file's solutions are verified to complete the quiz (io.kaggle)
    for fmt, sols in (("kaggle", own), ("table", payload)):
        path = tmp_path / f"with_solutions.{fmt}.csv"
        write_boards(path, boards, fmt, sols)
        records = read_records(path)
        assert [r.board for r in records] == boards
        assert [r.solution for r in records] == sols


def test_kaggle_writer_solves_when_no_solution_is_given(tmp_path: Path) -> None:
    path = tmp_path / "k.csv"
    write_boards(path, [parse_board_text(SEED_9)], "kaggle")
    record = read_records(path)[0]
    assert record.solution is not None and record.solution.to_line() == (
        "281465973496173582357892614549627831623918457178354269734286195815749326962531748")


@pytest.mark.parametrize("n", [4, 9, 16, 25])
def test_cell_strings_round_trip(n: int) -> None:
    for board in sample_boards(n, seed=n + 1):
        assert decode_cells(encode_cells(board)) == board
        assert decode_cells(encode_cells(board, empty="0")) == board
        assert decode_cells(format_board(board, "table")) == board
        assert parse_board_text(format_board(board, "grid")) == board
        if n <= 9:  # a drawing of larger boards separates values only by spaces, which the parser ignores
            assert parse_board_text(board.draw()) == board


def test_grid_writer_aligns_two_digit_values() -> None:
    text = format_board(sample_boards(16, seed=2)[1], "grid")
    assert all(len(field) == 2 for line in text.splitlines() for field in line.split(","))


def test_atomic_write_leaves_the_old_file_on_failure(tmp_path: Path) -> None:
    path = write(tmp_path, "out.txt", "old\n")
    with pytest.raises(UnicodeEncodeError):
        atomic_write_text(path, "new \ud800")  # a lone surrogate cannot be encoded: the write fails midway
    assert path.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]  # no temporary file left behind


# ---- reading variants ----------------------------------------------------------------------------------------------
def test_line_files_skip_comments_and_blank_lines_and_keep_line_numbers(tmp_path: Path) -> None:
    path = write(tmp_path, "b.txt", f"# a comment\n\n{SEED_9}\n  # indented comment\n{SEED_9.replace('.', '0')}\r\n")
    records = read_records(path)
    assert [r.line for r in records] == [3, 5]
    assert records[0].board == records[1].board == parse_board_text(SEED_9)


@pytest.mark.parametrize("line", [
    "1.34 34.2 2143 432.",                      # rows separated by spaces
    "0001d2888928 1.3434.22143432.  7.2",       # 'id puzzle rating'
    "1.3434.22143432. ED=7.1/1.2/1.2",          # Sudoku Explainer rating
    "\ufeff1.3434.22143432.",                   # a byte order mark
])
def test_line_variants(tmp_path: Path, line: str) -> None:
    assert read_boards(write(tmp_path, "v.sdm", line + "\n")) == [parse_board_text(SEED_4)]


def test_grid_csv_blocks_with_and_without_blank_lines(tmp_path: Path) -> None:
    a, b = sample_boards(4, count=2, seed=9)
    text = "# two grids\n" + format_board(a, "grid") + "\n" + format_board(b, "grid") + "\n\n" + format_board(a, "grid")
    records = read_records(write(tmp_path, "g.csv", text))
    assert [r.board for r in records] == [a, b, a]
    assert [r.line for r in records] == [2, 6, 11]


def test_grid_csv_accepts_every_empty_spelling(tmp_path: Path) -> None:
    text = "1,,3,4\n3,4,.,2\n2,1,4,3\n4,3,2,00\n"
    assert read_boards(write(tmp_path, "e.csv", text))[0] == parse_board_text(SEED_4)


def test_table_keeps_other_columns_as_fields(tmp_path: Path) -> None:
    path = write(tmp_path, "t.csv", f"id,puzzle,label\n7,{SEED_4},unique\n")
    record = read_records(path)[0]
    assert record.board == parse_board_text(SEED_4) and record.fields == {"id": "7", "label": "unique"}


def test_stream_reads_like_a_file() -> None:
    records = read_stream_records(io.BytesIO(f"{SEED_4}\n{SEED_4}\n".encode()))
    assert len(records) == 2 and records[1].line == 2


@pytest.mark.parametrize(("first_line", "fmt"), [
    ("quizzes,solutions", "kaggle"), ("Puzzle", "table"), ("id,puzzle,rating", "table"), ("id,label", "table"),
    ("1,2,3,4", "grid"), ("1,x,3,4", "grid"),
    (",,,", "grid"), (SEED_9, "line"), ("1.34 34.2 2143 432.", "line"),
])
def test_detect_format(first_line: str, fmt: str) -> None:
    assert detect_format(["# comment", "", first_line]) == fmt


def test_parse_board_text_variants() -> None:
    seed = parse_board_text(SEED_4)
    for text in ["1.34 34.2 2143 432.", "1.34\n34.2\n2143\n432.", "# c\n1,.,3,4\n3,4,,2\n2,1,4,3\n4,3,2,0", seed.draw(),
                 "01000304" "03040002" "02010403" "04030200"]:
        assert parse_board_text(text) == seed


# ---- the shipped data files (data/README.md: whole copies and samples of the public sets) ---------------------------
SHIPPED = [
    ("9x9/top95.txt", 95, 9), ("9x9/hardest11.txt", 11, 9), ("9x9/top1465.txt", 1465, 9),
    ("9x9/17clue_sample1000.txt", 1000, 9), ("9x9/forum_hardest_1106.txt", 375, 9),
    ("9x9/forum_hardest_1905_se11_first200.txt", 200, 9), ("9x9/serg_benchmark_sample2000.txt", 2000, 9),
    ("9x9/qqwing_simple.txt", 1000, 9), ("9x9/qqwing_easy.txt", 1000, 9), ("9x9/qqwing_intermediate.txt", 1000, 9),
    ("9x9/qqwing_expert.txt", 1000, 9), ("9x9/diabolical_se5plus_first200.txt", 200, 9),
    ("generalized/sudoku_rank_3.csv", 3000, 9), ("generalized/sudoku_rank_4.csv", 10, 16),
    ("generalized/sudoku_rank_5.csv", 10, 25), ("generalized/sudoku_rank_6.csv", 10, 36),
    ("generalized/sudoku_rank_7.csv", 6, 49), ("generalized/sudoku_rank_8.csv", 5, 64),
    ("generalized/sudoku_rank_9.csv", 1, 81),
]


@pytest.mark.parametrize(("relative", "count", "n"), SHIPPED)
def test_shipped_files_read_with_the_right_count_and_size(relative: str, count: int, n: int) -> None:
    boards = read_boards(DATA_DIR / relative)
    assert len(boards) == count
    assert {b.n for b in boards} == {n}
    assert all(b.is_consistent and not b.is_closed for b in boards[:50])


def test_every_shipped_puzzle_file_is_read_above() -> None:
    found = sorted(p.relative_to(DATA_DIR).as_posix() for folder in ("9x9", "generalized")
                   for p in (DATA_DIR / folder).iterdir() if p.is_file())  # generalized/paper_times/: records
    assert found == sorted(relative for relative, _, _ in SHIPPED)


def test_diabolical_lines_yield_their_puzzle_token() -> None:
    path = DATA_DIR / "9x9/diabolical_se5plus_first200.txt"
    first = path.read_text().splitlines()[0].split()
    assert read_records(path)[0].board == decode_cells(first[1])


# ---- bad input: one located FormatError each -----------------------------------------------------------------------
BAD_FILES: list[tuple[str, str | bytes, tuple[int | None, int | None], str]] = [
    # name, content, (line, column), a piece of the message
    ("wrong_length.txt", f"{SEED_9}\n{SEED_9}.\n", (2, 1), "82 characters is not a board"),
    ("non_square.txt", "1" * 20 + "\n", (1, 1), "20 characters is not a board"),
    ("digit_out_of_range.txt", "1.3434.22145432.\n", (1, 12), "digit 5 is out of range for a 4x4 board"),
    ("letters.txt", f"{SEED_9[:40]}x{SEED_9[41:]}\n", (1, 41), "unexpected character 'x'"),
    ("two_digit_letters.txt", "01000304" "03040002" "02010403" "0403020a\n", (1, 32), "2 decimal digits per cell"),
    ("two_digit_range.txt", "01000304" "03040002" "02010403" "04030205\n", (1, 31), "value 5 is out of range"),
    ("split_rows_bad.txt", "1.34 34.2 2153 432.\n", (1, 13), "digit 5 is out of range"),
    ("empty.txt", "", (None, None), "empty file"),
    ("only_comments.txt", "# nothing\n\n   \n", (None, None), "empty file"),
    ("mixed_sizes.txt", f"{SEED_9}\n{SEED_4}\n", (2, None), "a 4x4 board in a file of 9x9 boards"),
    ("binary.bin", b"\x7fELF\x02\x01\x01\x00\x00\x00\n", (1, 8), "binary data (NUL byte)"),
    ("image.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", (1, 1), "not UTF-8"),
    ("latin1.txt", "1.34 34.2 2143 432\xe9\n".encode("latin-1"), (1, 19), "not UTF-8"),
    ("truncated_grid.csv", "1,.,3,4\n3,4,.,2\n2,1,4,3\n", (4, None), "ends after 3 rows (end of file)"),
    ("grid_gap.csv", "1,.,3,4\n3,4,.,2\n\n2,1,4,3\n4,3,2,.\n", (3, None), "ends after 2 rows"),
    ("ragged_grid.csv", "1,.,3,4\n3,4,.\n2,1,4,3\n4,3,2,.\n", (2, None), "row has 3 values: expected 4"),
    ("ragged_first_row.csv", "1,.,3\n3,4,.,2\n2,1,4,3\n4,3,2,.\n", (1, None), "row has 3 comma-separated values"),
    ("grid_bad_value.csv", "1,.,3,4\n3,4,x,2\n2,1,4,3\n4,3,2,.\n", (2, 5), "unexpected value 'x'"),
    ("grid_out_of_range.csv", "1,.,3,4\n3,4,.,2\n2,1,4,3\n4,3,2,17\n", (4, 7), "value 17 is out of range"),
    ("kaggle_columns.csv", f"quizzes,solutions\n{SEED_9},\n{SEED_9}\n", (3, None), "1 fields: expected 2"),
    ("kaggle_bad_solution.csv", f"quizzes,solutions\n{SEED_9},{SEED_9[:80]}\n", (2, 83), "80 characters"),
    ("table_no_puzzle.csv", "board_id,puzzle_text\n1,2\n", (1, None), "no puzzle column in header"),
    ("table_header_only.csv", "puzzle\n", (None, None), "no board found"),
]


@pytest.mark.parametrize(("name", "content", "where", "message"), BAD_FILES, ids=[b[0] for b in BAD_FILES])
def test_bad_files_raise_a_located_format_error(tmp_path: Path, name: str, content: str | bytes,
                                                where: tuple[int | None, int | None], message: str) -> None:
    path = write(tmp_path, name, content)
    with pytest.raises(FormatError) as info:
        read_records(path)
    error = info.value
    assert error.path == str(path)
    assert (error.line, error.column) == where
    assert message in error.message
    assert "expected" in str(error) and "\n" not in str(error)


def test_forced_format_that_does_not_fit(tmp_path: Path) -> None:
    path = write(tmp_path, "b.txt", SEED_9 + "\n")
    with pytest.raises(FormatError, match=r"b.txt:1: no puzzle column .*expected one of quizzes"):
        read_records(path, "kaggle")
    with pytest.raises(FormatError, match=r"b.txt:1: row has 1 comma-separated values"):
        read_records(path, "grid")
    with pytest.raises(FormatError, match="unknown format 'xml'"):
        read_records(path, "xml")


def test_a_50_megabyte_line_is_refused_without_reading_it_all(tmp_path: Path) -> None:
    path = tmp_path / "huge.txt"
    with open(path, "wb") as f:
        f.write(b"1" * (50 * 1024 * 1024) + b"\n")
    with pytest.raises(FormatError, match=f"huge.txt:1: line is longer than {MAX_LINE_CHARS:,} characters"):
        read_records(path)


def test_missing_file_and_directory(tmp_path: Path) -> None:
    with pytest.raises(FormatError, match="missing.txt: no such file"):
        read_records(tmp_path / "missing.txt")
    with pytest.raises(FormatError, match="is a directory"):
        read_records(tmp_path)


@pytest.mark.parametrize(("text", "message"), [
    ("", "no board found"),
    ("1.34 34.2 2143", "12 characters is not a board"),
    ("1,2,3\n4,5,6\n7,8,9", "row has 3 comma-separated values"),
    ("1.34\n34.2\n21x3\n432.", "<board>:3:3: unexpected character 'x'"),
])
def test_parse_board_text_errors(text: str, message: str) -> None:
    with pytest.raises(FormatError, match=message):
        parse_board_text(text)


@pytest.mark.parametrize(("text", "message"), [
    ("1.3421x33412432.", "<board>:1:7: unexpected character 'x'"),
    ("1.3434.22153432.", "<board>:1:11: digit 5 is out of range for a 4x4 board"),
    ("1.3\x0534.22143432.", "<board>:1:4: unexpected character '\\x05'"),  # a byte value that is a digit's
    ("1.3\x0034.22143432.", "<board>:1:4: unexpected character '\\x00'"),  # and the empty cell's
    ("1.3\u00e934.22143432.", "<board>:1:4: unexpected character '\u00e9'"),
    ("." * 40 + "a" + "." * 40, "<board>:1:41: unexpected character 'a'"),
])
def test_line_strings_with_a_bad_character_are_located(text: str, message: str) -> None:
    """The line-string fast path (translations in C) hands anything but cell characters to the general reader."""
    with pytest.raises(FormatError, match=re.escape(message)):
        parse_board_text(text)


def test_atomic_writes_get_the_usual_file_mode(tmp_path: Path) -> None:
    import os
    import stat

    from ltn_sudoku.io import atomic_write_text

    target = tmp_path / "out.txt"
    atomic_write_text(target, "x\n")
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~mask


# ---- issue 9: line endings, spaced grids, id lines, gzip, UTF-16, streaming ----------------------------------------
def test_cr_only_line_endings_split_lines(tmp_path: Path) -> None:
    """Old Mac files end lines with a lone CR: two 4x4 boards are two boards, not one 32-character line."""
    assert read_boards(write(tmp_path, "cr.txt", f"{SEED_4}\r{SEED_4}\r".encode())) == [parse_board_text(SEED_4)] * 2
    csv_path = write(tmp_path, "cr.csv", f"id,puzzle\r1,{SEED_4}\r2,{SEED_4}\r".encode())
    assert [r.fields["id"] for r in read_records(csv_path)] == ["1", "2"]
    mixed = write(tmp_path, "mixed.txt", f"{SEED_4}\r\n{SEED_4}\r{SEED_4}\n".encode())
    assert [r.line for r in read_records(mixed)] == [1, 2, 3]


def test_crlf_straddling_a_read_chunk(tmp_path: Path) -> None:
    from ltn_sudoku.io.readers import _READ_BYTES

    first = "# " + "x" * (_READ_BYTES - 3) + "\r"  # the CR ends one chunk, its LF starts the next
    path = write(tmp_path, "s.txt", (first + "\n" + SEED_4 + "\r\n").encode())
    assert [r.line for r in read_records(path)] == [2]


def test_space_separated_grids(tmp_path: Path) -> None:
    seed = parse_board_text(SEED_4)
    text = "1 . 3 4\n3 4 . 2\n2 1 4 3\n4 3 2 .\n\n1 . 3 4\n3 4 . 2\n2 1 4 3\n4 3 2 .\n"
    assert read_boards(write(tmp_path, "g.txt", text)) == [seed, seed]
    big = sample_boards(16, count=2, seed=5)[1]
    spaced = "\n".join(" ".join(str(v) if v else "." for v in row) for row in big.rows())
    assert read_boards(write(tmp_path, "g16.txt", spaced + "\n")) == [big]
    assert parse_board_text(spaced) == big
    assert detect_format(["1 . 3 4"]) == "grid" and detect_format(["1 . 3 4 3 4 . 2 2 1 4 3 4 3 2 ."]) == "line"


def test_id_puzzle_rating_lines_keep_the_id(tmp_path: Path) -> None:
    path = DATA_DIR / "9x9/diabolical_se5plus_first200.txt"
    first = path.read_text().splitlines()[0].split()
    record = next(iter_records(path))
    assert record.fields == {"id": first[0], "rating": first[2]}
    lettered = write(tmp_path, "ids.txt", f"c85255ab {SEED_9} 5.6\nd0 {SEED_9} 7.1\n")
    assert detect_format(lettered.read_text().splitlines()) == "line"
    assert [r.fields["id"] for r in read_records(lettered)] == ["c85255ab", "d0"]


def test_gzip_files_and_streams_read_transparently(tmp_path: Path) -> None:
    import gzip

    text = f"# compressed\n{SEED_9}\n{SEED_9}\n"
    path = tmp_path / "b.txt.gz"
    path.write_bytes(gzip.compress(text.encode()))
    plain = read_records(write(tmp_path, "b.txt", text))
    assert read_records(path) == plain
    assert read_stream_records(io.BytesIO(gzip.compress(text.encode()))) == plain
    kaggle = read_records(DATA_DIR / "kaggle/kaggle_3m_sample1000.csv.gz")
    assert len(kaggle) == 1000 and all(r.solution is not None for r in kaggle[:5])


def test_a_truncated_gzip_file_is_a_format_error(tmp_path: Path) -> None:
    import gzip

    data = gzip.compress((SEED_9 + "\n").encode() * 2000)
    path = write(tmp_path, "cut.txt.gz", data[: len(data) // 2])
    with pytest.raises(FormatError, match="cut.txt.gz: not a valid gzip file"):
        read_records(path)


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be"])
def test_utf16_is_named_in_the_error(tmp_path: Path, encoding: str) -> None:
    path = write(tmp_path, "u16.txt", f"{SEED_4}\n{SEED_4}\n".encode(encoding))
    with pytest.raises(FormatError, match="UTF-16 text.*expected UTF-8"):
        read_records(path)


def test_iter_records_streams_the_boards_before_a_bad_line(tmp_path: Path) -> None:
    path = write(tmp_path, "late.txt", f"{SEED_4}\n{SEED_4}\n{SEED_4[:-1]}x\n")
    records = iter_records(path)
    assert next(records).line == 1 and next(records).line == 2
    with pytest.raises(FormatError, match="late.txt:3:16: unexpected character 'x'"):
        next(records)
