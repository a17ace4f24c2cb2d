"""`ltn-sudoku classify` / `classify-board` end to end: readable reports, JSON Lines, --out files, stdin and --board,
and for every kind of bad input one located error line, exit status 2 and no (or an untouched) output file."""

from __future__ import annotations

import csv
import gc
import io
import json
import subprocess
import sys
import weakref
from pathlib import Path

import pytest
from test_io import BAD_FILES, SEED_4, SEED_9

from ltn_sudoku.cli import build_parser, run_command
from ltn_sudoku.cli.allocator import keep_large_arrays_in_heap
from ltn_sudoku.paths import DATA_DIR
from tests.script_loader import load_script

SEED_9_SOLUTION = "281465973496173582357892614549627831623918457178354269734286195815749326962531748"
IMPOSSIBLE_9 = "12345678." + "." * 35 + "9" + "." * 36
JSON_KEYS = {"index", "line", "size", "closed", "valid", "conflicts", "solvable", "solutions", "solution", "moves"}


def classify_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Run the command in-process (main() would change this process's SIGPIPE handling): (status, stdout, stderr)."""
    try:
        status = run_command(build_parser().parse_args(["classify", *argv]))
    except SystemExit as e:  # argparse's own usage errors
        status = int(e.code or 0)
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture
def three_boards(tmp_path: Path) -> Path:
    """A line file with a unique, an impossible and a closed valid board, between comments."""
    path = tmp_path / "three.txt"
    path.write_text(f"# three kinds\n{SEED_9}\n\n{IMPOSSIBLE_9}\n# closed\n{SEED_9_SOLUTION}\n")
    return path


# ---- good input ----------------------------------------------------------------------------------------------------
def test_text_report_of_the_seed_example(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = classify_cli(capsys, str(DATA_DIR / "examples" / "seed_9x9.csv"))
    assert status == 0 and err == ""
    assert "seed_9x9.csv: 9x9, 34 givens, open" in out
    assert "| 2 . 1 | 4 . . | . . . |" in out and f"Solution: {SEED_9_SOLUTION}" in out
    assert "r1c2: 3! 7! 8 9!" in out


def test_multi_board_text_reports_name_each_board(capsys: pytest.CaptureFixture[str], three_boards: Path) -> None:
    status, out, _ = classify_cli(capsys, str(three_boards))
    assert status == 0
    assert f"{three_boards}, board 2 (line 4): 9x9, 9 givens, open" in out
    assert "No solution because cell r1c9 has no candidate" in out
    assert "Q1 valid solution: yes" in out


def test_json_lines_for_a_multi_board_file(capsys: pytest.CaptureFixture[str], three_boards: Path) -> None:
    status, out, _ = classify_cli(capsys, str(three_boards), "--json")
    assert status == 0
    objects = [json.loads(line) for line in out.splitlines()]
    assert [o["index"] for o in objects] == [0, 1, 2] and [o["line"] for o in objects] == [2, 4, 6]
    assert all(JSON_KEYS <= set(o) for o in objects)
    unique, impossible, closed = objects
    assert (unique["solvable"], unique["solutions"], unique["solution"]) == (True, 1, SEED_9_SOLUTION)
    assert sum(not m["dead_end"] for m in unique["moves"]) == 47  # one live digit per empty cell
    assert (impossible["solvable"], impossible["solutions"], impossible["solution"]) == (False, 0, None)
    assert all(m["dead_end"] for m in impossible["moves"])
    assert impossible["no_solution_reason"] == "cell r1c9 has no candidate"
    assert (closed["closed"], closed["valid"], closed["solvable"], closed["moves"]) == (True, True, None, [])


def _untimed(result: dict[str, object]) -> dict[str, object]:
    """A result without Q3's measured finder times, which differ from run to run."""
    stats = [{k: v for k, v in row.items() if k != "time_s"} for row in result.get("stats", [])]  # type: ignore[union-attr]
    return {**result, "stats": stats}


def test_out_jsonl_matches_json_and_out_csv_is_flat(capsys: pytest.CaptureFixture[str], three_boards: Path,
                                                   tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _, printed, _ = classify_cli(capsys, str(three_boards), "--json")
    status, out, _ = classify_cli(capsys, str(three_boards), "--out", str(tmp_path / "r.jsonl"))
    assert status == 0
    written = [json.loads(line) for line in (tmp_path / "r.jsonl").read_text().splitlines()]
    assert [_untimed(d) for d in written] == [_untimed(json.loads(line)) for line in printed.splitlines()]
    assert out.strip().endswith(f"-> {tmp_path / 'r.jsonl'}") and "1 unique" in out and "1 impossible" in out
    status, _, _ = classify_cli(capsys, str(three_boards), "--out", str(tmp_path / "sub" / "r.csv"))
    rows = list(csv.DictReader(open(tmp_path / "sub" / "r.csv", newline="")))
    assert status == 0 and len(rows) == 3
    assert JSON_KEYS | {"dead_ends"} <= set(rows[0])
    assert (rows[0]["solution"], rows[0]["moves"], rows[0]["dead_ends"]) == (SEED_9_SOLUTION, "98", "51")
    assert [p.name for p in tmp_path.joinpath("sub").iterdir()] == ["r.csv"]  # no temporary file left


def test_board_option_and_stdin(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    status, out, _ = classify_cli(capsys, "--board", "1.34 34.2 2143 432.", "--json")
    board = json.loads(out)
    assert status == 0 and board["solution"] == "1234341221434321" and board["index"] == 0
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(f"{SEED_4}\n{SEED_4}\n".encode())))
    status, out, _ = classify_cli(capsys, "-", "--json")
    assert status == 0 and [json.loads(line)["board"] for line in out.splitlines()] == [SEED_4] * 2


def test_forced_format(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(DATA_DIR / "examples" / "unique_16x16.csv")
    status, out, _ = classify_cli(capsys, path, "--format", "grid", "--json")
    assert status == 0 and json.loads(out)["size"] == 16
    status, _, err = classify_cli(capsys, path, "--format", "line")
    assert status == 2 and err.startswith(f"error: {path}:2:1: 47 characters is not a board")


@pytest.mark.parametrize("example", sorted(p.name for p in (DATA_DIR / "examples").glob("*.csv")))
def test_every_example_classifies(capsys: pytest.CaptureFixture[str], example: str) -> None:
    status, out, err = classify_cli(capsys, str(DATA_DIR / "examples" / example), "--json")
    assert status == 0 and err == "" and JSON_KEYS <= set(json.loads(out))


# ---- bad input -----------------------------------------------------------------------------------------------------
def assert_one_error_line(err: str, prefix: str, message: str) -> None:
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"error: {prefix}") and message in err


@pytest.mark.parametrize(("name", "content", "where", "message"), BAD_FILES, ids=[b[0] for b in BAD_FILES])
def test_bad_files_exit_2_with_one_located_line_and_no_output(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str, content: str | bytes,
        where: tuple[int | None, int | None], message: str) -> None:
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    new, old = tmp_path / "new.csv", tmp_path / "old.jsonl"
    old.write_text("previous results\n")
    location = ":".join([str(path), *(str(x) for x in where if x is not None)])
    for out in (new, old):
        status, stdout, err = classify_cli(capsys, str(path), "--out", str(out))
        assert status == 2 and stdout == ""
        assert_one_error_line(err, f"{location}: ", message)
    assert not new.exists() and old.read_text() == "previous results\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([name, "old.jsonl"])  # no temporary file either


@pytest.mark.parametrize(("argv", "prefix", "message"), [
    (["{tmp}/missing.txt"], "{tmp}/missing.txt: ", "no such file"),
    (["{tmp}"], "{tmp}: ", "is a directory"),
    (["--board", "1.34 34.2 2143"], "<board>:1:1: ", "12 characters is not a board"),
    (["--board", "1.34 34.2 2153 432."], "<board>:1:13: ", "digit 5 is out of range for a 4x4 board"),
    (["--board", "1.34 34.2 2143 432.", "--format", "grid"], "--format applies to files", ""),
    (["{example}", "--out", "{tmp}/results.txt"], "--out {tmp}/results.txt: ", "expected one of .csv, .jsonl"),
    (["{example}", "--out", "{tmp}"], "--out {tmp}: ", "is a directory"),
])
def test_bad_arguments_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: list[str], prefix: str,
                              message: str) -> None:
    example = str(DATA_DIR / "examples" / "seed_4x4.csv")
    status, out, err = classify_cli(capsys, *(a.format(tmp=tmp_path, example=example) for a in argv))
    assert status == 2 and out == ""
    assert_one_error_line(err, prefix.format(tmp=tmp_path), message)


def test_empty_stdin(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"")))
    status, _, err = classify_cli(capsys, "-")
    assert status == 2
    assert_one_error_line(err, "<stdin>: ", "empty file")


@pytest.mark.parametrize("argv", [[], ["x.txt", "--board", "1.34 34.2 2143 432."]])
def test_source_is_required_and_unique(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    status, out, err = classify_cli(capsys, *argv)
    assert status == 2 and out == "" and "usage:" in err


def test_a_50_megabyte_line_through_the_cli(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "huge.txt"
    with open(path, "wb") as f:
        f.write(b"." * (50 * 1024 * 1024))
    status, _, err = classify_cli(capsys, str(path), "--out", str(tmp_path / "r.csv"))
    assert status == 2 and not (tmp_path / "r.csv").exists()
    assert_one_error_line(err, f"{path}:1: ", "line is longer than")


# ---- the installed entry points, as separate processes ------------------------------------------------------------
def run_process(*code_and_args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *code_and_args], capture_output=True, text=True, timeout=120)


def test_classify_board_script_and_module_entry_points(tmp_path: Path) -> None:
    script = "import sys; from ltn_sudoku.cli import classify_board_main; sys.exit(classify_board_main())"
    done = run_process("-c", script, str(DATA_DIR / "examples" / "seed_4x4.csv"), "--json")
    assert done.returncode == 0 and json.loads(done.stdout)["solution"] == "1234341221434321"
    bad = tmp_path / "bad.txt"
    bad.write_text(f"{SEED_9}\n{SEED_9[:-1]}x\n")
    done = run_process("-m", "ltn_sudoku", "classify", str(bad))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == f"error: {bad}:2:81: unexpected character 'x': expected a digit 1-9, '.' or '0'\n"


# ---- issue 9: crashes, formats, streaming and --jobs ----------------------------------------------------------------
def _rows(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        return list(reader.fieldnames or []), list(reader)


def test_csv_of_mixed_boards_has_one_fixed_header_with_q3_and_ltn_columns(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Item 1 and 2: closed boards (no Q3) before open ones (Q3) crashed the CSV writer; the ltn section was dropped."""
    from ltn_sudoku.cli.results import csv_columns

    boards = tmp_path / "m.csv"
    status = run_command(build_parser().parse_args(
        ["generate", "--size", "4", "--mixed", "--count", "8", "--seed", "1", "--out", str(boards)]))
    assert status == 0
    status, _, err = classify_cli(capsys, str(boards), "--out", str(tmp_path / "res.csv"))
    assert status == 0 and "Traceback" not in err
    header, rows = _rows(tmp_path / "res.csv")
    assert header == csv_columns(heuristics=True, ltn=True) and len(rows) == 8
    _, printed, _ = classify_cli(capsys, str(boards), "--json")
    for row, answer in zip(rows, (json.loads(line) for line in printed.splitlines()), strict=True):
        ltn = answer["ltn"]
        assert row["ltn.available"] == str(ltn["available"])
        if answer["closed"]:
            assert float(row["ltn.isCorrect.truth"]) == ltn["isCorrect"]["truth"] and row["ltn.hasSolution.truth"] == ""
            assert row["level"] == "" and row["moves"] == "0"
        else:
            assert float(row["ltn.hasSolution.truth"]) == ltn["hasSolution"]["truth"]
            assert row["ltn.isCorrect.truth"] == ""
            assert int(row["ltn.moves"]) == len(ltn["moves"]) == int(row["moves"])
            assert row["ltn.recommendsHeuristic"] == ";".join(
                name for name, t in (ltn["recommendsHeuristic"] or {}).items() if t["decision"])
    assert {r["closed"] for r in rows} == {"True", "False"}


def test_cr_only_csv_through_the_cli(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "cr.csv"
    path.write_bytes(f"puzzle\r{SEED_4}\r{SEED_4}\r".encode())
    status, out, err = classify_cli(capsys, str(path), "--json", "--no-ltn", "--no-heuristics")
    assert status == 0 and err == ""
    assert [json.loads(x)["solution"] for x in out.splitlines()] == ["1234341221434321"] * 2


def test_id_lines_and_gzip_keep_the_id(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    import gzip

    path = tmp_path / "ids.txt.gz"
    path.write_bytes(gzip.compress(f"c85255ab {SEED_9} 5.6\nd0 {SEED_9} 7.1\n".encode()))
    status, out, _ = classify_cli(capsys, str(path), "--json", "--no-ltn", "--no-heuristics")
    assert status == 0 and [json.loads(x)["id"] for x in out.splitlines()] == ["c85255ab", "d0"]
    status, _, _ = classify_cli(capsys, str(path), "--no-ltn", "--no-heuristics", "--out", str(tmp_path / "r.csv"))
    assert status == 0 and [r["id"] for r in _rows(tmp_path / "r.csv")[1]] == ["c85255ab", "d0"]


def test_space_separated_grid_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "seed.txt"
    path.write_text("1 . 3 4\n3 4 . 2\n2 1 4 3\n4 3 2 .\n")
    status, out, _ = classify_cli(capsys, str(path), "--json", "--no-ltn", "--no-heuristics")
    assert status == 0 and json.loads(out)["solution"] == "1234341221434321"


@pytest.fixture
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunks of two 9x9 boards, so a few boards exercise several chunks (chunks are cut in the main process)."""
    from ltn_sudoku import answering

    monkeypatch.setattr(answering, "CHUNK_CELLS", 2 * 81)


def test_jobs_keep_input_order(capsys: pytest.CaptureFixture[str], tmp_path: Path, small_chunks: None) -> None:
    boards = [line for line in (DATA_DIR / "9x9/top95.txt").read_text().splitlines() if line.strip()][:9]
    path = tmp_path / "b.txt"
    path.write_text("\n".join(boards) + "\n")
    runs = []
    for jobs in ("1", "2"):
        status, out, _ = classify_cli(capsys, str(path), "--json", "--no-ltn", "--no-heuristics", "--jobs", jobs)
        assert status == 0
        runs.append([json.loads(x) for x in out.splitlines()])
    assert runs[0] == runs[1] and [o["index"] for o in runs[1]] == list(range(9))
    assert [o["board"] for o in runs[1]] == [b.strip() for b in boards]
    status, _, err = classify_cli(capsys, str(path), "--jobs", "0")
    assert status == 2 and "--jobs 0" in err


def test_a_late_bad_line_keeps_out_untouched_and_stops_stdout_there(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, small_chunks: None) -> None:
    path = tmp_path / "late.txt"
    path.write_text(f"{SEED_9}\n" * 4 + f"{SEED_9[:-1]}x\n" + f"{SEED_9}\n")
    for jobs in ("1", "2"):
        status, out, err = classify_cli(capsys, str(path), "--no-ltn", "--no-heuristics", "--jobs", jobs,
                                        "--out", str(tmp_path / "r.csv"))
        assert status == 2 and out == "" and f"{path}:5:81: unexpected character 'x'" in err
        assert sorted(p.name for p in tmp_path.iterdir()) == ["late.txt"]
    status, out, err = classify_cli(capsys, str(path), "--no-ltn", "--no-heuristics", "--json")
    assert status == 2 and len(out.splitlines()) == 4 and f"{path}:5:81" in err


def test_large_boards_say_what_the_default_analysis_left_out(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = classify_cli(capsys, str(DATA_DIR / "examples" / "unique_16x16.csv"), "--json", "--no-ltn")
    answer = json.loads(out)
    assert status == 0 and "on 16x16 boards only Singles" in answer["heuristics_limit"]
    assert "Forcing Chains" in answer["heuristics_limit"] and "--full-analysis" in answer["heuristics_limit"]
    assert answer["dead_end_limit"] is None and all(m["dead_end"] is not None for m in answer["moves"])
    status, out, _ = classify_cli(capsys, str(DATA_DIR / "examples" / "seed_9x9.csv"), "--json", "--no-ltn",
                                  "--full-analysis")
    assert status == 0 and json.loads(out)["heuristics_limit"] is None


def test_readme_and_demo_name_real_files_and_the_seed_board() -> None:
    """Items 4 and 5: the README's classify-board commands name files that exist and boards without conflicts; the
    demo's 4x4 board is the seed's example (data/examples/seed_4x4.csv)."""
    import re

    from ltn_sudoku.io import parse_board_text, read_boards
    from ltn_sudoku.paths import REPO_ROOT

    readme = (REPO_ROOT / "README.md").read_text()
    paths = re.findall(r"classify-board (data/\S+)", readme)
    assert paths and all((REPO_ROOT / p).is_file() for p in paths), paths
    boards = re.findall(r'classify-board --board "([^"]+)"', readme)
    assert boards and all(parse_board_text(b).is_consistent for b in boards)
    seed = read_boards(DATA_DIR / "examples" / "seed_4x4.csv")[0]
    demo = re.search(r'^SEED_4 = "([^"]+)"', (REPO_ROOT / "scripts" / "demo.py").read_text(), re.M)
    assert demo is not None and parse_board_text(demo.group(1)) == seed


def _bench_classify_script():  # type: ignore[no-untyped-def]
    """scripts/bench_classify.py as a module (scripts are not a package)."""
    return load_script("bench_classify")


def test_bench_classify_sparse_section_times_the_default_command(capsys: pytest.CaptureFixture[str]) -> None:
    """scripts/bench_classify.py --sections sparse end to end on two sparse 16x16 boards: one row, two boards."""
    script = _bench_classify_script()
    assert script.main(["--sections", "sparse", "--sparse-sizes", "16", "--per-file", "2"]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("sparse 16x16"))
    n, count, worst_cpu, mean_cpu, worst_wall, limited = row.split()[-6:]
    assert (n, count) == ("16", "2") and 0 < float(mean_cpu) <= float(worst_cpu) and 0 <= int(limited) <= 2


@pytest.fixture
def kaggle_1m_home(kaggle_data_home: Path):  # type: ignore[no-untyped-def]
    """scripts/bench_classify.py as a module, with the test's data home (conftest.kaggle_data_home): the script reads
    the first rows of the data home's full Kaggle 1M copy, here the shipped sample's 1,000 real 1M rows."""
    return _bench_classify_script()


@pytest.mark.slow
def test_bench_classify_dataset_section_on_a_few_rows(capsys: pytest.CaptureFixture[str], kaggle_1m_home) -> None:
    """scripts/bench_classify.py --sections dataset --dataset-rows 4 (about a minute: each run a fresh process with
    torch, Dask a LocalCluster): one row per run, the same results files, and the Dask-vs---jobs-2 verdict."""
    pytest.importorskip("distributed")
    script = kaggle_1m_home
    assert script.main(["--sections", "dataset", "--dataset-rows", "4", "--runs", "jobs2", "dask2"]) == 0
    out = capsys.readouterr().out
    assert "on 4 real rows" in out and "every run's results file is the same" in out
    runs = [line.split()[:2] for line in out.splitlines() if line.startswith(("--jobs", "--dask")) and ":" not in line]
    assert runs == [["--jobs", "2"], ["--dask", "--jobs"]]
    assert "--dask --jobs 2: wall" in out and "20 %" in out


@pytest.mark.slow
def test_bench_classify_allocator_section_shows_dasks_page_faults(capsys: pytest.CaptureFixture[str],
                                                                  kaggle_1m_home) -> None:
    """scripts/bench_classify.py --sections allocator on 50 rows (four child processes, about 15 s): Dask's default
    MALLOC_TRIM_THRESHOLD_ makes the same answers fault far more pages than no variable, and the MALLOC_MMAP_THRESHOLD_
    that --dask adds undoes it (the cause of the Dask workers' system time, docs/cli.md); classify-board's own
    setting faults fewer pages than none."""
    script = kaggle_1m_home
    assert script.main(["--sections", "allocator", "--dataset-rows", "50"]) == 0
    out = capsys.readouterr().out
    faults = {name: int(line.split()[-2].replace(",", "")) for line in out.splitlines()
              for name in script.ALLOCATOR_ENVIRONMENTS if line.startswith(name)}
    none, dask, _raised, fixed, own = (faults[name] for name in script.ALLOCATOR_ENVIRONMENTS)
    assert dask > 1.5 * none and dask > 1.5 * fixed
    assert own < none  # classify-board's mallopt keeps the LTN's batch tensors in the heap


def test_the_command_keeps_large_arrays_in_the_heap_where_glibc_allows(monkeypatch: pytest.MonkeyPatch) -> None:
    """cli/allocator.py sets glibc's thresholds (in a child process, so that this one stays as it was); elsewhere it
    says it did nothing."""
    code = "from ltn_sudoku.cli.allocator import keep_large_arrays_in_heap as keep; raise SystemExit(0 if keep() else 3)"
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0  # Linux with glibc, as CI
    monkeypatch.setattr(sys, "platform", "darwin")
    assert keep_large_arrays_in_heap() is False


def test_the_command_sets_the_allocator_before_answering(capsys: pytest.CaptureFixture[str], three_boards: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[bool] = []
    monkeypatch.setattr("ltn_sudoku.cli.classify.prepare_answering_process", lambda: calls.append(True))
    status, out, _ = classify_cli(capsys, str(three_boards), "--json", "--no-ltn", "--no-heuristics")
    assert status == 0 and len(out.splitlines()) == 3 and calls == [True]


def test_an_answering_process_freezes_its_start_up_objects() -> None:
    """cli/allocator.prepare_answering_process (in a child process: a freeze is for the process's life): the objects
    alive before it are out of the collector's reach afterwards, and the malloc thresholds are set."""
    code = ("import gc; from ltn_sudoku.cli import allocator; before = gc.get_freeze_count(); "
            "allocator.prepare_answering_process(); "
            "raise SystemExit(0 if before == 0 and gc.get_freeze_count() > 10_000 and allocator.keep_large_arrays_in_heap()"
            " else 3)")
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


def test_the_benchmark_empties_frozen_caches_as_well() -> None:
    """bench_classify.forget_board_caches after the benchmark froze its start-up objects as the command does: a
    technique cache made before the freeze (as the finders' module-level caches are) is emptied all the same (the
    collector does not list frozen objects), and the process stays frozen; a weak proxy whose object is gone (which
    isinstance cannot look at) is passed over."""
    from ltn_sudoku.techniques.cache import StateCache

    cache: StateCache[int, int] = StateCache()
    cache.get(1, lambda: 1)
    gone = StateCache()  # type: ignore[var-annotated]
    dead = weakref.proxy(gone)
    del gone
    gc.freeze()
    try:
        _bench_classify_script().forget_board_caches()
        assert cache.get(1, lambda: 2) == 2 and gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
    assert type(dead) is weakref.ProxyType


def test_bench_classify_q3profile_section_lists_the_costliest_techniques(capsys: pytest.CaptureFixture[str]) -> None:
    """scripts/bench_classify.py --sections q3profile on 3 top1465 rows: the totals line, then --top technique rows
    whose shares are percentages in falling order of cost."""
    script = _bench_classify_script()
    assert script.main(["--sections", "q3profile", "--sample", "3", "--top", "3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any(line.startswith("Q3 (default) on 3 top1465 rows") for line in lines)
    rows = lines[lines.index(next(line for line in lines if line.startswith("technique"))) + 1:]
    rows = [row for row in rows if row.strip() and row.split()[-2].endswith("%")]
    assert len(rows) == 3
    costs = [float(row.split()[-3]) for row in rows]
    assert costs == sorted(costs, reverse=True) and costs[0] > 0


@pytest.mark.slow
def test_bench_classify_kaggle_section_sets_a_baseline_commit_beside_this_tree(
        capsys: pytest.CaptureFixture[str], kaggle_1m_home) -> None:
    """scripts/bench_classify.py --sections kaggle --baseline FOLDER on 3 real 1M rows: one child process a side
    (here the baseline folder is this checkout, whose compiled code is cached; a revision is unpacked by
    bench_first_run.baseline_tree, tested below), one row per part with both sides' figures and their ratio."""
    script = kaggle_1m_home
    root = Path(script.__file__).resolve().parents[1]
    assert script.main(["--sections", "kaggle", "--baseline", str(root), "--sample", "3", "--repeat", "1",
                        "--sides-passes", "1", "--kaggle-sets", "Kaggle 1M"]) == 0
    out = capsys.readouterr().out
    rows = [line.split() for line in out.splitlines() if line.startswith("Kaggle 1M")]
    assert [" ".join(row[2:-3]) for row in rows] == list(script.KAGGLE_PARTS)
    for row in rows:
        before, after, ratio = float(row[-3]), float(row[-2]), float(row[-1].rstrip("x"))
        # the figures are printed to 0.01 ms: on a part of a few hundredths of a ms the rounding alone moves the ratio
        rounding = 0.005 / before + 0.005 / after
        assert before > 0 and after > 0 and ratio == pytest.approx(before / after, rel=0.02 + rounding, abs=0.01)
    assert f"@{root}" in out


def test_a_baseline_revision_is_unpacked_as_a_whole_tree(tmp_path: Path) -> None:
    """bench_first_run.baseline_tree (what --baseline REV runs): the committed tree of HEAD, package, checkpoints and
    data, in a folder of its own; a revision git cannot read is a one-line exit."""
    script = load_script("bench_first_run")
    tree = script.baseline_tree("HEAD", tmp_path)
    assert (tree / "ltn_sudoku" / "__init__.py").is_file() and (tree / "checkpoints" / "9x9.pt").is_file()
    assert not (tree / ".git").exists()
    with pytest.raises(SystemExit, match="cannot read commit"):
        script.baseline_tree("no-such-revision", tmp_path / "other")
