"""Property-based fuzzing of every input path (hypothesis), shared by tests/test_fuzz.py (a small profile) and
scripts/fuzz.py (the long run reported in docs/testing.md).

Each target takes generated input: text mutated from real encodings of real boards (so that most inputs are nearly
valid and reach deep into the parsers) or arbitrary text and bytes. The property is the same everywhere: either a
correct answer (checked against the board it was made from, or the exact solver), or a clear error, i.e. the
library's own error type with a one-line message, or for a command exit status 2 with one line on stderr; never a
traceback, and never an output file left behind by a failing command.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import tempfile
from collections import Counter
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import torch
from hypothesis import strategies as st

from ltn_sudoku.board import Board, BoardError
from ltn_sudoku.exact import count_solutions
from ltn_sudoku.generate import CLASSES, generate
from ltn_sudoku.io import FORMATS, FormatError, boards_to_text, parse_board_text, read_records, records_from_lines

COUNTS: Counter[str] = Counter()  # inputs tried per target (the script reports them)
OTHER = "\u00e9\u00a0\u200b\x00\ufeff"  # accents, no-break and zero-width spaces, NUL, a BOM
ALPHABET = "0123456789.*-_ |+,;#\t\r\nabcxXo" + OTHER


# The test profile holds what is fixed: an error of the right type, no traceback, a non-empty first line. STRICT (the
# script) also asks for exactly one line; the multi-line messages it finds are listed in docs/testing.md.
STRICT = False


def one_line(message: str) -> bool:
    text = message.strip()
    return bool(text) and "Traceback" not in message and (not STRICT or "\n" not in text)


@cache
def pool() -> tuple[Board, ...]:
    """Real boards of both sizes and all four classes (open solvable and impossible, closed valid and invalid)."""
    return tuple(r.board for n in (4, 9) for label in CLASSES for r in generate(n, label, 6, seed=18))


def _mutate(text: str, edits: list[tuple[int, int, str]]) -> str:
    """Apply (position, operation, character) edits: 0 replace, 1 insert, 2 delete."""
    chars = list(text)
    for position, operation, char in edits:
        i = position % (len(chars) + 1)
        if operation == 0 and i < len(chars):
            chars[i] = char
        elif operation == 1:
            chars.insert(i, char)
        elif chars and i < len(chars):
            del chars[i]
    return "".join(chars)


EDITS = st.lists(st.tuples(st.integers(0, 400), st.integers(0, 2), st.sampled_from(ALPHABET)), max_size=4)


@st.composite
def board_texts(draw: st.DrawFn) -> tuple[str, Board | None]:
    """(text, the board it encodes when it was left intact): encodings of a real board, mutated or not, or junk."""
    choice = draw(st.integers(0, 9))
    if choice == 0:
        return draw(st.text(max_size=120)), None
    if choice == 1:
        return draw(st.text(alphabet=ALPHABET, max_size=100)), None
    board = draw(st.sampled_from(pool()))
    style = draw(st.sampled_from(["line", "grid", "spaced", "rows"]))
    if style == "line":
        text = boards_to_text([board], "line").strip()
    elif style == "grid":
        text = boards_to_text([board], "grid").strip()
    elif style == "spaced":
        text = " ".join(boards_to_text([board], "line").strip())
    else:
        text = "\n".join("".join(str(v) if v else "." for v in row) for row in board.rows())
    edits = draw(EDITS)
    return _mutate(text, edits), (board if not edits else None)


@st.composite
def file_texts(draw: st.DrawFn) -> tuple[str, str, list[Board] | None]:
    """(text, format, boards when intact): a file of 1-3 real boards in one format, mutated or not."""
    fmt = draw(st.sampled_from(FORMATS))
    n = 9 if fmt == "kaggle" else draw(st.sampled_from([4, 9]))  # the Kaggle format holds 9x9 boards only
    boards = draw(st.lists(st.sampled_from([b for b in pool() if b.n == n]), min_size=1, max_size=3))
    text = boards_to_text(boards, fmt)
    edits = draw(EDITS)
    return _mutate(text, edits), fmt, (boards if not edits else None)


def _error_is_clear(e: BaseException) -> None:
    assert isinstance(e, (FormatError, BoardError)), f"{type(e).__name__}: {e}"
    assert one_line(str(e)), repr(str(e))


# ---- targets: each returns normally when the property holds and raises AssertionError otherwise ----------------------
def board_text(case: tuple[str, Board | None]) -> None:
    """parse_board_text: --board TEXT of the commands."""
    COUNTS["board text"] += 1
    text, expected = case
    try:
        board = parse_board_text(text)
    except Exception as e:  # noqa: BLE001 - the property is about which exceptions escape
        _error_is_clear(e)
        assert expected is None, f"intact board refused: {text!r}: {e}"
        return
    assert board.n in (1, 4, 9, 16, 25, 36, 49, 64, 81, 100) and len(board.values) == board.n ** 2
    if expected is not None:
        assert board.values == expected.values, text


def file_lines(case: tuple[tuple[str, str, list[Board] | None], str | None]) -> None:
    """records_from_lines: the line, grid, Kaggle and table readers, with the given or a detected format."""
    COUNTS["file readers"] += 1
    (text, written, expected), fmt = case
    try:
        records = records_from_lines(text.splitlines(), "fuzz.txt", fmt or "auto")
    except Exception as e:  # noqa: BLE001
        _error_is_clear(e)
        assert expected is None or fmt not in (None, written), f"intact {written} file refused: {e}"
        return
    if expected is not None and fmt in (None, written):
        assert [r.board.values for r in records] == [b.values for b in expected]


def file_bytes(case: tuple[bytes, bool]) -> None:
    """read_records on a file of arbitrary bytes (encodings, NULs, BOMs, gzip)."""
    COUNTS["file bytes"] += 1
    data, gzipped = case
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / ("boards.csv.gz" if gzipped else "boards.txt")
        path.write_bytes(gzip.compress(data) if gzipped else data)
        try:
            read_records(path)
        except Exception as e:  # noqa: BLE001
            _error_is_clear(e)


@cache
def kaggle_pool(seed: int) -> list:
    return generate(9, "open_solvable", 4, seed=seed)


KAGGLE_HEADERS = ["quizzes,solutions", "puzzle,solution", "id,puzzle,solution,clues,difficulty",
                  "puzzle,solution,blanks"]


@st.composite
def kaggle_texts(draw: st.DrawFn) -> tuple[str, list[tuple[tuple[int, ...], tuple[int, ...]]] | None]:
    """A Kaggle CSV of 1-3 real 9x9 puzzles with their solutions in one of the layouts, mutated or not."""
    header = draw(st.sampled_from(KAGGLE_HEADERS))
    empty = "." if header.startswith("id") else "0"
    records = kaggle_pool(draw(st.integers(0, 3)))[: draw(st.integers(1, 3))]
    rows = []
    for i, r in enumerate(records):
        quiz = "".join(str(v) if v else empty for v in r.board.values)
        solution = "".join(map(str, r.solution.values))
        clues = sum(1 for v in r.board.values if v)
        extra = {"quizzes,solutions": [], "puzzle,solution": [], "puzzle,solution,blanks": [str(81 - clues)],
                 "id,puzzle,solution,clues,difficulty": [str(clues), "1.5"]}[header]
        rows.append(",".join(([f"id{i}"] if header.startswith("id") else []) + [quiz, solution] + extra))
    text = header + "\n" + "\n".join(rows) + "\n"
    edits = draw(EDITS)
    expected = [(r.board.values, r.solution.values) for r in records]
    return _mutate(text, edits), (expected if not edits else None)


def kaggle_csv(case: tuple[str, list | None]) -> None:
    """kaggle.read_kaggle (the streaming reader of the public Kaggle CSVs)."""
    from ltn_sudoku.io.kaggle import read_kaggle

    COUNTS["kaggle reader"] += 1
    text, expected = case
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "sudoku-1m.csv"
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        try:
            rows = list(read_kaggle(path))
        except Exception as e:  # noqa: BLE001
            _error_is_clear(e)
            assert expected is None, f"intact Kaggle file refused: {e}"
            return
    if expected is not None:
        assert [(tuple(r.quiz), tuple(r.solution)) for r in rows] == [(tuple(q), tuple(s)) for q, s in expected]


# ---- the commands, in process -----------------------------------------------------------------------------------
def run_main(main: Callable[[list[str]], int], argv: list[str]) -> tuple[int, str, str]:
    """Exit status, stdout and stderr of a command's main function; any exception but SystemExit escapes."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(argv)
        except SystemExit as e:  # argparse's usage errors, config checks
            status = e.code if isinstance(e.code, int) else 2
    return int(status or 0), out.getvalue(), err.getvalue()


OPTIONS = {"classify": ["--json", "--no-heuristics", "--format line", "--format grid", "--format kaggle",
                         "--format table", "--full-analysis", "--out", "--jobs 0", "--bogus"],
           "solve": ["--json", "--explain", "--no-fallback", "--stats", "--out", "--format grid", "--bogus"],
           "rate": ["--out", "--format line", "--bogus"]}


@st.composite
def commands(draw: st.DrawFn) -> tuple[str, list[str], str, list[Board] | None, bool]:
    """(entry, options, file text, intact boards, with the LTN): a classify / solve / rate call on a board file."""
    text, _, boards = draw(file_texts())
    entry = draw(st.sampled_from(["classify", "classify-board", "solve", "rate"]))
    choices = OPTIONS["classify" if entry == "classify-board" else entry]
    options = [o for group in draw(st.lists(st.sampled_from(choices), max_size=3, unique=True)) for o in group.split()]
    with_ltn = entry.startswith("classify") and draw(st.integers(0, 9)) == 0
    return entry, options, text, boards, with_ltn


def command(case: tuple[str, list[str], str, list[Board] | None, bool]) -> None:
    """ltn-sudoku classify|solve|rate and classify-board on a board file: exit 0 with an answer for every board
    (classify --json checked against the exact solver), or exit 2 with one line; a failing run writes no --out."""
    from ltn_sudoku.cli import classify_board_main, main

    COUNTS["commands"] += 1
    entry, options, text, boards, with_ltn = case
    with tempfile.TemporaryDirectory() as tmp:
        source, out = Path(tmp) / "boards.txt", Path(tmp) / "result.jsonl"
        source.write_text(text, encoding="utf-8", errors="surrogatepass")
        options = [part for o in options for part in (["--out", str(out)] if o == "--out" else [o])]
        if entry.startswith("classify") and not with_ltn:
            options.append("--no-ltn")
        argv = [str(source), *options]
        status, stdout, stderr = (run_main(classify_board_main, argv) if entry == "classify-board"
                                  else run_main(main, [entry, *argv]))
        assert "Traceback" not in stderr, stderr
        assert status in (0, 2), (status, stderr)
        if status == 2:
            last = stderr.strip().splitlines()[-1] if stderr.strip() else ""
            assert "error:" in last and one_line(last), stderr
            usage = stderr.lstrip().startswith("usage:")  # argparse: a usage line, then the error line
            assert usage or one_line(stderr), stderr
            assert not out.exists(), f"a failing run left {out.name}: {out.read_text()[:200]!r}"
            return
        written = out.read_text() if out.exists() else stdout
        assert written.strip(), "exit 0 without an answer"
        if entry.startswith("classify") and "--json" in options and str(out) not in options:
            reports = [json.loads(line) for line in stdout.splitlines() if line.strip()]
            for report in reports:
                board = parse_board_text(report["board"]) if "board" in report else None
                if board is not None and report.get("solutions") is not None and board.n <= 9:
                    assert report["solutions"] == count_solutions(board, 2, backend="dlx"), report["board"]
            if boards is not None:
                assert len(reports) == len(boards)


# ---- checkpoints ------------------------------------------------------------------------------------------------
@cache
def shipped_bytes() -> bytes:
    from ltn_sudoku.logic.checkpoints import shipped_checkpoint

    return shipped_checkpoint(4).read_bytes()


@st.composite
def checkpoint_files(draw: st.DrawFn) -> bytes:
    """The shipped 4x4 checkpoint truncated, with bytes changed, or a torch file of another payload; or junk."""
    real = shipped_bytes()
    choice = draw(st.integers(0, 4))
    if choice == 0:
        return real[: draw(st.integers(0, len(real)))]
    if choice == 1:
        data = bytearray(real)
        for _ in range(draw(st.integers(1, 8))):
            data[draw(st.integers(0, len(data) - 1))] = draw(st.integers(0, 255))
        return bytes(data)
    if choice == 2:
        payload = draw(st.dictionaries(st.sampled_from(["format", "version", "size", "config", "state_dict",
                                                        "extra"]),
                                       st.one_of(st.integers(-3, 100), st.text(max_size=8), st.none(),
                                                 st.just("ltn-sudoku-checkpoint"), st.just({}), st.just([1, 2]))))
        buffer = io.BytesIO()
        torch.save(payload, buffer)
        return buffer.getvalue()
    return draw(st.binary(max_size=2000))


def checkpoint(data: bytes) -> None:
    """load_checkpoint and the predictor on a damaged or foreign file: a working model or CheckpointError."""
    from ltn_sudoku.logic.board.predict import LtnPredictor
    from ltn_sudoku.logic.checkpoints import CheckpointError

    COUNTS["checkpoints"] += 1
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.pt"
        path.write_bytes(data)
        try:
            predictor = LtnPredictor.load(path, 4)
            answer = predictor.answer(parse_board_text("1.3....2.1......"))
        except Exception as e:  # noqa: BLE001
            assert isinstance(e, CheckpointError), f"{type(e).__name__}: {str(e)[:300]}"
            assert one_line(str(e)), repr(str(e))
            return
        assert answer["hasSolution"] is not None and 0 <= answer["hasSolution"]["truth"] <= 1


# ---- Hydra overrides ------------------------------------------------------------------------------------------
OVERRIDE_KEYS = ["model.hidden", "model.steps", "model.eval_steps", "model.kb_every", "model.techniques",
                 "model.size", "model.hasvalue", "logic.family", "logic.p_forall", "logic.p_exists",
                 "logic.labelled_forall", "logic.schedule", "model.clamp_threshold", "model.exists_last",
                 "model.solution_hidden", "model.detach_every", "train.epochs", "train.lr", "train.batch_size",
                 "train.lr_schedule",
                 "train.monitor", "train.patience", "data.train.solvable", "data.givens", "data.kaggle_path",
                 "evaluate.seed", "evaluate.open", "evaluate.eval_steps", "seed", "threads", "device", "model",
                 "logic", "checkpoint", "nonexistent.key", "+extra.key", "~train.lr"]
OVERRIDE_VALUES = st.one_of(st.integers(-5, 10_000).map(str), st.floats(allow_nan=True).map(str),
                            st.sampled_from(["null", "abc", "[1,2]", "[Naked Single]", "4x4", "9x9", "goedel", "zadeh",
                                             "cosine", "", "'x'", "${seed}", "${oops}", "{a: 1}", "true", "/nowhere"]),
                            st.text(alphabet=ALPHABET, max_size=12))


@st.composite
def override_lists(draw: st.DrawFn) -> tuple[str, list[str]]:
    entry = draw(st.sampled_from(["train", "evaluate"]))
    overrides = [f"{draw(st.sampled_from(OVERRIDE_KEYS))}={draw(OVERRIDE_VALUES)}"
                 for _ in range(draw(st.integers(1, 3)))]
    return entry, overrides


def hydra_overrides(case: tuple[str, list[str]]) -> None:
    """The entry points' check of a command line (composed against the schema, then the rules between keys), then
    the model and logic built from what passed: a one-line error with exit status 2, or a model."""
    from omegaconf.errors import OmegaConfBaseException

    from ltn_sudoku.logic.board.model import LtnSudoku, ModelConfig
    from ltn_sudoku.logic.commands.check import check_command_line
    from ltn_sudoku.logic.config.schema import compose_config
    from ltn_sudoku.logic.kb.operators import build_operators

    COUNTS["hydra overrides"] += 1
    entry, overrides = case
    status, _, stderr = run_main(lambda _: check_command_line(overrides, entry) or 0, [])
    if status:
        assert status == 2 and one_line(stderr) and stderr.startswith("error:"), stderr
        return
    cfg = compose_config(overrides)  # what passed the check composes
    try:
        model = LtnSudoku(ModelConfig.from_cfg(cfg.model))
        build_operators(cfg.logic)
    except (ValueError, KeyError, OmegaConfBaseException) as e:  # BoardError and the config errors are ValueErrors
        assert not STRICT, f"passed the config check, then {type(e).__name__}: {e}"
        assert str(e).strip(), type(e).__name__
        return
    assert model.n == int(cfg.model.size)


TARGETS: dict[str, tuple[Callable[..., None], Any]] = {
    "board text": (board_text, board_texts()),
    "file readers": (file_lines, st.tuples(file_texts(), st.sampled_from([None, *FORMATS]))),
    "file bytes": (file_bytes, st.tuples(st.binary(max_size=600), st.booleans())),
    "kaggle reader": (kaggle_csv, kaggle_texts()),
    "commands": (command, commands()),
    "checkpoints": (checkpoint, checkpoint_files()),
    "hydra overrides": (hydra_overrides, override_lists()),
}
