"""The Kaggle reader on real rows (the shipped samples, data/kaggle/), corrupted copies, and the fixed split.

Truth: the rows as the csv module reads them, checked here with Board; the split's hashes recomputed with hashlib and
a plain relabelling loop."""

from __future__ import annotations

import csv
import gzip
import hashlib
import logging
import random
import shutil
from pathlib import Path
from typing import Callable

import numpy as np
import pytest
import torch

from ltn_sudoku.board import Board
from ltn_sudoku.io import FormatError, iter_records, parse_board_text, read_records, write_boards
from ltn_sudoku.io.kaggle import KaggleReader, kaggle_files, read_kaggle, set_name_of
from ltn_sudoku.io.split import SPLITS, canonical, split_of, splits_of
from ltn_sudoku.logic.board import data
from ltn_sudoku.paths import DATA_DIR

SAMPLE = DATA_DIR / "kaggle"
LAYOUTS = {  # shipped file -> (set, header, empty symbol)
    "kaggle_1m_sample1000.csv.gz": ("1M", ["quizzes", "solutions"], "0"),
    "kaggle_9m_sample1000.csv.gz": ("9M", ["puzzle", "solution"], "0"),
    "kaggle_3m_sample1000.csv.gz": ("3M", ["id", "puzzle", "solution", "clues", "difficulty"], "."),
}


def csv_rows(path: Path) -> list[list[str]]:
    with gzip.open(path, "rt", newline="") as f:
        return list(csv.reader(f))


def digits(text: str) -> tuple[int, ...]:
    return tuple(0 if ch in ".0" else int(ch) for ch in text)


def really_good(fields: list[str]) -> bool:
    """A 3M row checked the obvious way: 81 characters each, a valid solution that keeps the givens, clues right."""
    quiz, solution = fields[1], fields[2]
    if len(quiz) != 81 or len(solution) != 81 or not set(quiz) <= set(".123456789") or "." in solution:
        return False
    board, full = Board(digits(quiz), 9), Board(digits(solution), 9)
    return (full.is_valid_solution and all(v in (0, s) for v, s in zip(board.values, full.values))
            and int(fields[3]) == board.givens)


def write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines))
    return path


@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_shipped_sample_reads_every_row_of_its_layout(name: str) -> None:
    set_name, header, empty = LAYOUTS[name]
    path = SAMPLE / name
    raw = csv_rows(path)
    assert raw[0] == header
    rows = list(read_kaggle(path))
    assert len(rows) == len(raw) - 1 == 1000
    quiz = next(header.index(h) for h in ("quizzes", "puzzle") if h in header)
    solution = next(header.index(h) for h in ("solutions", "solution") if h in header)
    for line, (row, fields) in enumerate(zip(rows, raw[1:]), start=2):
        assert (row.set_name, row.line, row.path) == (set_name, line, str(path))
        assert row.quiz == digits(fields[quiz]) and row.solution == digits(fields[solution])
        assert empty in fields[quiz] and set(fields[solution]) == set("123456789")
        board, full = Board(row.quiz, 9), Board(row.solution, 9)
        assert full.is_valid_solution and all(v in (0, s) for v, s in zip(board.values, full.values))
        if set_name == "3M":
            assert row.id == fields[0] and row.difficulty == float(fields[4]) and row.givens == int(fields[3])
        else:
            assert row.id is None and row.difficulty is None


def test_plain_and_gzip_read_the_same_rows(tmp_path: Path) -> None:
    source = SAMPLE / "kaggle_9m_sample1000.csv.gz"
    plain = tmp_path / "copy_9m.csv"
    plain.write_bytes(gzip.decompress(source.read_bytes()))
    misnamed = tmp_path / "gzip_named_9m.csv"  # gzip is recognised by its bytes, not its name
    shutil.copy(source, misnamed)
    expected = [(r.quiz, r.solution, r.line) for r in read_kaggle(source)]
    assert [(r.quiz, r.solution, r.line) for r in read_kaggle(plain)] == expected
    assert [(r.quiz, r.solution, r.line) for r in read_kaggle(misnamed)] == expected


def corrupted_copy(tmp_path: Path) -> tuple[Path, dict[int, str]]:
    """The 3M sample as plain CSV with five bad rows: line -> what the error must say."""
    lines = gzip.decompress((SAMPLE / "kaggle_3m_sample1000.csv.gz").read_bytes()).decode().splitlines()
    bad: dict[int, str] = {}

    def corrupt(line: int, change: Callable[[list[str]], None], says: str) -> None:
        fields = lines[line - 1].split(",")
        change(fields)
        lines[line - 1] = ",".join(fields)
        bad[line] = says

    def swap_two_solution_cells(f: list[str]) -> None:  # cells 0 and 9 (a column): rows stay valid, columns not
        s = list(f[2])
        s[0], s[1] = s[1], s[0]
        f[2] = "".join(s)

    def wrong_given(f: list[str]) -> None:
        cell = next(i for i, ch in enumerate(f[1]) if ch != ".")
        f[1] = f[1][:cell] + str(int(f[1][cell]) % 9 + 1) + f[1][cell + 1:]

    corrupt(5, lambda f: f.__setitem__(2, f[2][:80]), "solution has 80 characters")
    corrupt(10, lambda f: f.__setitem__(1, "x" + f[1][1:]), "quiz character 1 is 'x'")
    corrupt(20, swap_two_solution_cells, "solution is not a valid grid")
    corrupt(30, wrong_given, "solution does not complete the quiz")
    corrupt(40, lambda f: f.__setitem__(3, str(int(f[3]) + 1)), "clues is")
    return write_lines(tmp_path / "kaggle_3m_corrupted.csv", lines), bad


def test_a_bad_row_is_an_error_naming_file_and_line(tmp_path: Path) -> None:
    path, bad = corrupted_copy(tmp_path)
    lines = path.read_text().splitlines()
    good = gzip.decompress((SAMPLE / "kaggle_3m_sample1000.csv.gz").read_bytes()).decode().splitlines()
    assert all(really_good(ln.split(",")) for ln in good[1:])
    for line, says in bad.items():  # each corruption alone in a file, so that it is that file's first error
        assert not really_good(lines[line - 1].split(","))
        single = write_lines(tmp_path / f"one_{line}.csv", [*good[: line - 1], lines[line - 1], *good[line:]])
        with pytest.raises(FormatError) as info:
            list(read_kaggle(single))
        assert str(info.value).startswith(f"{single}:{line}: {says}"), str(info.value)


def test_skip_bad_skips_counts_and_logs(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path, bad = corrupted_copy(tmp_path)
    reader = KaggleReader(path, skip_bad=True, chunk_rows=7)  # small chunks: bad rows in several chunks
    with caplog.at_level(logging.WARNING, logger="ltn_sudoku.io.kaggle"):
        rows = list(reader)
    assert reader.skipped == len(bad) == 5 and len(rows) == 1000 - 5
    assert {e.line for e in reader.errors} == set(bad)
    assert not {r.line for r in rows} & set(bad)
    assert f"{path}: skipped 5 bad rows" in caplog.text


def test_header_and_file_errors(tmp_path: Path) -> None:
    with pytest.raises(FormatError, match=r"h\.csv:1: header .* lacks a quiz column"):
        list(read_kaggle(write_lines(tmp_path / "h.csv", ["board,answer", "1,2"])))
    with pytest.raises(FormatError, match="empty file"):
        list(read_kaggle(write_lines(tmp_path / "e.csv", [])))
    with pytest.raises(FormatError, match="no such file"):
        KaggleReader(tmp_path / "missing.csv")
    (tmp_path / "empty_dir").mkdir()
    with pytest.raises(FormatError, match="no .csv or .csv.gz|holds no"):
        KaggleReader(tmp_path / "empty_dir")


def test_folder_reads_every_csv_sorted(tmp_path: Path) -> None:
    shutil.copy(SAMPLE / "kaggle_9m_sample1000.csv.gz", tmp_path / "b_9m.csv.gz")
    shutil.copy(SAMPLE / "kaggle_1m_sample1000.csv.gz", tmp_path / "a_1m.csv.gz")
    (tmp_path / "c_3m.csv").write_bytes(gzip.decompress((SAMPLE / "kaggle_3m_sample1000.csv.gz").read_bytes()))
    (tmp_path / "notes.txt").write_text("not a csv")
    assert [f.name for f in kaggle_files(tmp_path)] == ["a_1m.csv.gz", "b_9m.csv.gz", "c_3m.csv"]
    rows = list(read_kaggle(tmp_path))
    assert [r.set_name for r in rows] == ["1M"] * 1000 + ["9M"] * 1000 + ["3M"] * 1000
    assert [r.quiz for r in rows[1000:2000]] == [r.quiz for r in read_kaggle(SAMPLE / "kaggle_9m_sample1000.csv.gz")]


def test_set_names() -> None:
    assert [set_name_of(p) for p in ("kaggle_1m_first24997.csv.gz", "sudoku-3m.csv", "x/9M_part.csv")] == \
        ["1M", "3M", "9M"]
    assert set_name_of("other_sudoku.csv.gz") == "other_sudoku" and set_name_of("sum1m.csv") == "sum1m"


def test_shipped_samples_all_verify_quickly() -> None:
    """All 3,000 real rows of the shipped samples pass verification, read in chunks. (`scripts/make_kaggle_sample.py
    --verify-full` verifies the 49,208 rows of the full copies in the data home: none fails.)"""
    reader = KaggleReader(SAMPLE)
    counts: dict[str, int] = {}
    for chunk in reader.chunks():
        counts[Path(chunk.path).name] = counts.get(Path(chunk.path).name, 0) + len(chunk)
    assert counts == {name: 1000 for name in LAYOUTS}


# ---- the fixed split -------------------------------------------------------------------------------------------------
def plain_split(puzzle: str, fractions: tuple[float, float, float] = (0.8, 0.1, 0.1)) -> str:
    """The split computed the slow, obvious way: relabel by first appearance, SHA-256, first 8 bytes."""
    labels: dict[str, str] = {}
    text = ""
    for ch in puzzle:
        if ch in ".0":
            text += "0"
        else:
            labels.setdefault(ch, str(len(labels) + 1))
            text += labels[ch]
    where = int(hashlib.sha256(text.encode()).hexdigest()[:16], 16) / 2**64
    return "train" if where < fractions[0] else "val" if where < fractions[0] + fractions[1] else "test"


def relabelled(puzzle: str, rng: random.Random) -> str:
    perm = list("123456789")
    rng.shuffle(perm)
    return "".join(perm[int(ch) - 1] if ch not in ".0" else "0" for ch in puzzle)


def sample_puzzles() -> list[str]:
    return ["".join(str(v) for v in r.quiz) for name in sorted(LAYOUTS) for r in read_kaggle(SAMPLE / name)]


def test_split_is_stable() -> None:
    puzzles = sample_puzzles()
    # hard-coded: these must never change, or every machine's held-out rows change with them
    assert [split_of(p) for p in puzzles[:12]] == ["train"] * 7 + ["val"] + ["train"] * 3 + ["test"]
    assert split_of("061400900802500047500609000980007020200930780010050003700004100009080260026001005") == "val"
    assert split_of("902000000063040900000670308400007005009820610076300200500092004017000503000150080") == "test"
    assert [split_of(p) for p in puzzles[:12]] == [plain_split(p) for p in puzzles[:12]]
    assert split_of("0" * 81) == plain_split("0" * 81) == "train"
    assert split_of(puzzles[0]) == split_of(puzzles[0].replace("0", ".")) == split_of(Board(digits(puzzles[0]), 9))
    array = np.array([digits(p) for p in puzzles])
    assert list(splits_of(array)) == [plain_split(p) for p in puzzles]
    assert list(splits_of(array, (0.5, 0.25, 0.25))) == [plain_split(p, (0.5, 0.25, 0.25)) for p in puzzles]
    shares = {s: float(np.mean(splits_of(array) == s)) for s in SPLITS}
    assert abs(shares["train"] - 0.8) < 0.03 and abs(shares["val"] - 0.1) < 0.02 and abs(shares["test"] - 0.1) < 0.02
    with pytest.raises(ValueError, match="summing to 1"):
        split_of(puzzles[0], (0.8, 0.1, 0.2))


def test_split_hashes_known_puzzles_to_known_splits() -> None:
    """Fixed expectations: the canonical string and its SHA-256 prefix written out."""
    puzzle = "004300209005009001070060043006002087190007400050083000600000105003508690042910300"  # 1M, first row
    relabel: dict[str, str] = {}
    canon = "".join("0" if ch == "0" else relabel.setdefault(ch, str(len(relabel) + 1)) for ch in puzzle)
    assert canon.startswith("001200304005004006070080012")
    where = int.from_bytes(hashlib.sha256(canon.encode()).digest()[:8], "big") / 2**64
    assert split_of(puzzle) == ("train" if where < 0.8 else "val" if where < 0.9 else "test")
    assert np.array_equal(canonical(np.array(digits(puzzle))), np.array(digits(canon)))


def test_a_relabelled_puzzle_lands_in_the_same_split() -> None:
    rng = random.Random(5)
    puzzles = sample_puzzles()[::10]
    copies = [relabelled(p, rng) for p in puzzles]
    assert [split_of(c) for c in copies] == [split_of(p) for p in puzzles]
    assert sum(c != p for c, p in zip(copies, puzzles)) > 0.9 * len(puzzles)


def test_no_test_puzzle_or_relabelling_of_one_is_in_train_on_the_real_files() -> None:
    """On the 3,000 shipped rows (`scripts/make_kaggle_sample.py --verify-full` checks the same on the 48,208 distinct
    rows of the full copies in the data home: none in two splits, none moved by a relabelling)."""
    rows = data.kaggle(SAMPLE, 9).puzzles.numpy()
    assert len(rows) == 3000
    where = splits_of(rows)
    keys = {s: {row.tobytes() for row in canonical(rows[where == s])} for s in SPLITS}
    assert not keys["test"] & keys["train"] and not keys["val"] & keys["train"] and not keys["test"] & keys["val"]
    assert (where == "test").sum() > 250 and (where == "val").sum() > 250  # 289 and 303 of the 3,000
    rng = np.random.default_rng(3)
    relabel = np.array([np.concatenate([[0], rng.permutation(9) + 1]) for _ in range(len(rows))])
    copies = np.take_along_axis(relabel, rows, axis=1)  # every row with its digits relabelled at random
    assert (copies != rows).any(axis=1).mean() > 0.99
    assert np.array_equal(splits_of(copies), where)


# ---- data.kaggle -----------------------------------------------------------------------------------------------------
def test_data_kaggle_keeps_set_and_difficulty() -> None:
    boards = data.kaggle(SAMPLE, 9)
    assert len(boards) == 3000 and boards.origins == ("1M",) * 1000 + ("3M",) * 1000 + ("9M",) * 1000
    assert bool((boards.labels == data.SOLVABLE).all())
    rated = csv_rows(SAMPLE / "kaggle_3m_sample1000.csv.gz")[1:]
    assert boards.difficulty[1000:2000].tolist() == [float(r[4]) for r in rated]
    assert bool(torch.isnan(boards.difficulty[:1000]).all() and torch.isnan(boards.difficulty[2000:]).all())
    chosen = boards.select([1500, 5, 2500])
    assert chosen.origins == ("3M", "1M", "9M") and chosen.difficulty[0].item() == float(rated[500][4])
    assert torch.equal(chosen.puzzles[0], torch.tensor(digits(rated[500][1])))
    assert torch.equal(chosen.solutions[0], torch.tensor(digits(rated[500][2])))
    merged = data.BoardSet.concat([chosen, data.generated(9, "open_solvable", 2, seed=1)])
    assert len(merged.difficulty) == 5 and bool(torch.isnan(merged.difficulty[3:]).all())


def test_data_kaggle_split_limit_and_repeats(tmp_path: Path) -> None:
    test_rows = data.kaggle(SAMPLE, 9, split="test")
    assert list(splits_of(test_rows.puzzles.numpy())) == ["test"] * len(test_rows)
    assert 200 < len(test_rows) < 400
    assert len(data.kaggle(SAMPLE, 9, limit=10, split="val")) == 10
    shutil.copy(SAMPLE / "kaggle_3m_sample1000.csv.gz", tmp_path / "a_3m.csv.gz")
    shutil.copy(SAMPLE / "kaggle_3m_sample1000.csv.gz", tmp_path / "b_3m_again.csv.gz")
    assert len(data.kaggle(tmp_path, 9)) == 1000
    with pytest.raises(FormatError, match="9x9"):
        data.kaggle(SAMPLE, 4)


# ---- the same reader behind ltn_sudoku.io (what classify-board reads) ----------------------------------------------
def test_io_reads_real_kaggle_files_through_this_reader(tmp_path: Path) -> None:
    for name in LAYOUTS:
        records = read_records(SAMPLE / name)
        rows = list(read_kaggle(SAMPLE / name))
        assert [(r.board.values, r.line) for r in records] == [(r.quiz, r.line) for r in rows]
        assert [r.solution.values for r in records] == [r.solution for r in rows]  # type: ignore[union-attr]
    path, bad = corrupted_copy(tmp_path)
    with pytest.raises(FormatError, match=rf"{path.name}:{min(bad)}: "):
        list(iter_records(path))
    table = tmp_path / "table.csv"  # io's own 2-digit table with a solution column is not a Kaggle file
    write_boards(table, [parse_board_text("1.3434.22143432.")], "table", [parse_board_text("1234341221434321")])
    assert read_records(table)[0].solution == parse_board_text("1234341221434321")
