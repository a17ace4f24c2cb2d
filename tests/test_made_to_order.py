"""Puzzles made to order (`generate --hardest/--level/--tier`, ltn_sudoku/questions/made_to_order.py) and `rate`'s
hardest technique and filters: every written puzzle is checked again here by the exact solver (unique) and by a
fresh engine (its hardest step, level or tier)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from ltn_sudoku.cli import main
from ltn_sudoku.exact import count_solutions
from ltn_sudoku.io import parse_board_text
from ltn_sudoku.questions.engine import Engine
from ltn_sudoku.questions.made_to_order import Order, make_to_order
from ltn_sudoku.questions.tiers import tier_of

# made by `generate --hardest X-Wing` (seed 0): the engine's path ends with one X-Wing and no harder step
X_WING = ".6..258....78..1......6......3......2......6.4.....95.8...9.....5...2.917....45.."


def _rows(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_generate_hardest_x_wing_writes_five_unique_puzzles_whose_hardest_step_is_x_wing(tmp_path: Path) -> None:
    out, html = tmp_path / "xwing.jsonl", tmp_path / "xwing.html"
    assert main(["generate", "--hardest", "X-Wing", "--count", "5", "--out", str(out), "--html", str(html)]) == 0
    rows = _rows(out)
    assert len(rows) == 5 and len({r["puzzle"] for r in rows}) == 5
    engine = Engine()
    for row in rows:
        board = parse_board_text(str(row["puzzle"]))
        assert count_solutions(board, 2) == 1
        result = engine.solve(board)
        assert result.hardest == row["hardest"] == "X-Wing"
        assert result.final is not None and result.final.to_line() == row["solution"]
        assert [s["technique"] for s in row["steps"]] == [s.technique for s in result.steps]  # type: ignore[union-attr]
        assert row["technique_steps"] == result.technique_counts
    page = html.read_text()
    assert page.count("X-Wing:") >= 5 and all(str(r["puzzle"]) in page for r in rows)


def test_y_wing_is_accepted_and_the_same_seed_gives_the_same_file(tmp_path: Path) -> None:
    first, second = tmp_path / "a.csv", tmp_path / "b.csv"
    for out in (first, second):
        assert main(["generate", "--hardest", "Y-Wing", "--count", "2", "--seed", "3", "--givens", "22-27",
                     "--out", str(out)]) == 0
    assert first.read_text() == second.read_text()
    lines = first.read_text().splitlines()
    assert lines[0].startswith("index,puzzle,solution,givens,hardest") and len(lines) == 3
    assert all(",XY-Wing," in line for line in lines[1:])


def test_level_tier_and_fresh_only_orders() -> None:
    for made in make_to_order(Order(level="Medium"), 2, seed=1):
        assert made.result.level == "Medium" and count_solutions(made.puzzle, 2) == 1
    for made in make_to_order(Order(tier=3), 2, seed=1):
        assert tier_of(made.puzzle) == 3
    capped = make_to_order(Order(hardest="Hidden Single"), 9, seed=4, family_cap=2)
    per_family = Counter(m.family for m in capped)
    assert max(per_family.values()) <= 2 and len({m.solution for m in capped}) == len(per_family) >= 5
    fresh = make_to_order(Order(hardest="Naked Single"), 3, seed=2, neighbours=0)
    assert [m.origin for m in fresh] == ["fresh"] * 3 and len({m.solution for m in fresh}) == 3
    assert all(Engine().solve(m.puzzle).hardest == "Naked Single" for m in fresh)


def test_a_time_limit_writes_the_puzzles_found_and_says_so(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "many.csv"
    assert main(["generate", "--hardest", "Hidden Single", "--count", "100000", "--time-limit", "0.5",
                 "--out", str(out)]) == 1
    lines = out.read_text().splitlines()
    assert lines[0].startswith("index,puzzle") and 1 <= len(lines) - 1 < 100000
    assert f"--time-limit 0.5 s reached: {len(lines) - 1} of 100000 puzzles written" in capsys.readouterr().err


@pytest.mark.parametrize(("argv", "message"), [
    (["--hardest", "Bogus Wing"], "unknown technique 'Bogus Wing'"),
    (["--hardest", "X-Wing,Swordfish"], "expected one technique"),
    (["--hardest", "X-Wing", "--workers", "2"], "--workers is an option of labelled boards"),
    (["--hardest", "X-Wing", "--neighbours", "-1"], "expected 0 or more"),
    (["--hardest", "X-Wing", "--givens", "90-95"], "givens 90-95"),
    (["--kind", "open_solvable", "--html", "r.html"], "--html goes with puzzles made to order"),
    (["--hardest", "X-Wing", "--per-grid", "0"], "expected 1 or more puzzles per solution grid"),
    (["--hardest", "X-Wing", "--time-limit", "0"], "expected a positive number of seconds"),
])
def test_made_to_order_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str],
                                    message: str) -> None:
    assert main(["generate", *argv, "--count", "1", "--out", str(tmp_path / "o.jsonl")]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "o.jsonl").exists()


def test_rate_shows_the_hardest_technique_and_filters_on_it(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "p.txt"
    simple = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
    src.write_text(f"{simple}\n{X_WING}\n")
    assert main(["rate", str(src)]) == 0
    out = capsys.readouterr().out
    assert f"{X_WING}  Hard          872  X-Wing\n" in out and f"{simple}  Easy" in out
    assert main(["rate", "--board", X_WING, "--steps"]) == 0
    assert "\n  steps: Hidden Single=16; Locked Candidates Type 2 (Claiming)=2;" in capsys.readouterr().out
    assert main(["rate", str(src), "--hardest", "x-wings"]) == 0
    out = capsys.readouterr().out
    assert simple not in out and "1 of 2 puzzles match" in out
    csv_out = tmp_path / "r.csv"
    assert main(["rate", str(src), "--uses", "Naked Single", "--level", "Unfair", "--out", str(csv_out)]) == 0
    assert csv_out.read_text() == "puzzle,level,score,guessed,hardest,steps\n"
    jsonl = tmp_path / "r.jsonl"
    assert main(["rate", str(src), "--hardest", "X-Wing", "--out", str(jsonl)]) == 0
    (row,) = _rows(jsonl)
    assert row["hardest"] == "X-Wing" and row["steps"]["X-Wing"] >= 1  # type: ignore[index]
