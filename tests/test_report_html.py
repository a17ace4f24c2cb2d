"""The HTML report's writer (ltn_sudoku/render/report.py), without a browser: the page is self-contained, streams
(one section per board, the count patched into the header), leaves no file when the run fails, and its compact step
data replays the solving path exactly (tests/test_render_browser.py checks the same in Chromium)."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from ltn_sudoku.board import Board
from ltn_sudoku.candidates import CandidateGrid
from ltn_sudoku.io import parse_board_text
from ltn_sudoku.questions.report import classify
from ltn_sudoku.render.report import ROLES, HtmlReport, report_pictures, step_pictures

SEED_9 = "2.14.....4...7358..5....6....9.2.8.1.23.1..5...8354..97..28.....15..93.6.6....74."
SEED_4 = "1.34 34.2 2143 432."


def _data(page: str) -> list[dict]:
    return [json.loads(m) for m in re.findall(r'<script type="application/json" class="board-data">(.*?)</script>',
                                              page, re.S)]


class _Links(HTMLParser):
    """Every address the page would load (src / href) and its script elements' types."""

    def __init__(self) -> None:
        super().__init__()
        self.addresses: list[str] = []
        self.scripts: list[str | None] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        self.addresses += [v for k, v in a.items() if k in ("src", "href") and v]
        if tag == "script":
            self.scripts.append(a.get("type"))


def test_report_is_self_contained_and_counts_its_boards(tmp_path: Path) -> None:
    path = tmp_path / "r.html"
    boards = [parse_board_text(SEED_9), parse_board_text(SEED_4)]
    with HtmlReport(path, title="two <boards>") as html:
        for i, board in enumerate(boards):
            report = classify(board)
            html.add({"index": i, "line": i + 1, "id": None, **report.as_dict()}, report_pictures(report))
    page = path.read_text()
    assert re.search(r'<span class="count" id="board-count">2 *</span>', page)
    assert re.search(r"End of the report: <span id=\"footer-count\">2</span> boards.", page) and "two &lt;boards&gt;" in page
    assert page.count('<section class="board"') == 2
    parser = _Links()
    parser.feed(page)
    assert not [a for a in parser.addresses if not a.startswith("data:")], "the page loads something from outside"
    assert parser.scripts.count(None) == 1  # one inline script; the boards' data are JSON blocks
    data = _data(page)
    assert [d["pictures"]["n"] for d in data] == [9, 4]
    assert "</" not in "".join(re.findall(r'class="board-data">(.*?)</script>', page, re.S))


def test_step_data_replays_the_path(tmp_path: Path) -> None:
    board = parse_board_text(SEED_9)
    report = classify(board)
    steps = next(s.result.steps for s in report.sections if hasattr(s, "result"))
    pictures = step_pictures(board, steps)
    assert pictures is not None and len(pictures.steps) == len(steps)
    n = board.n
    grid = CandidateGrid.from_board(board)
    alive = {c * n + d - 1 for c in grid.empty_cells() for d in grid.candidates(c)}
    values = list(board.values)
    for step, item in zip(steps, pictures.steps, strict=True):
        roles = {(k // n, k % n + 1): ROLES[r] for k, r in item["r"]}
        assert {cd for cd, r in roles.items() if r == "elim"} == set(step.eliminations)
        assert {cd for cd, r in roles.items() if r == "place"} == set(step.placements)
        assert all(k in alive for k, _ in item["r"])  # a role only on a candidate the board still shows
        alive -= set(item["x"])
        for c, v in item["p"]:
            values[c] = v
        grid.apply(step)
        assert alive == {c * n + d - 1 for c in grid.empty_cells() for d in grid.candidates(c)}, step.text
    assert values == list(grid.values) and 0 not in values


def test_pictures_cap_lists_the_rest_as_text(tmp_path: Path) -> None:
    board = parse_board_text(SEED_9)
    report = classify(board)
    answers = report.as_dict()
    total = len(answers["steps"])  # type: ignore[arg-type]
    pictures = report_pictures(report, max_steps=5)
    assert pictures is not None and len(pictures.steps) == 5 and pictures.left_out == total - 5
    with HtmlReport(tmp_path / "r.html") as html:
        html.add(answers, pictures)
    (data,) = _data((tmp_path / "r.html").read_text())
    assert len(data["texts"]) == total - 5 and data["pictures"]["leftOut"] == total - 5


def test_a_failed_run_leaves_no_file(tmp_path: Path) -> None:
    path = tmp_path / "r.html"
    path.write_text("the old report")
    with pytest.raises(RuntimeError), HtmlReport(path) as html:
        html.add({"index": 0, **classify(parse_board_text(SEED_4)).as_dict()})
        raise RuntimeError("stopped half way")
    assert path.read_text() == "the old report" and [p.name for p in tmp_path.iterdir()] == ["r.html"]


def test_boards_without_a_path_still_render(tmp_path: Path) -> None:
    closed = Board([1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1], 4)
    clash = Board([1, 1] + [0] * 14, 4)
    assert step_pictures(clash, []) is None
    with HtmlReport(tmp_path / "r.html") as html:
        for board in (closed, clash):
            report = classify(board)
            assert report_pictures(report) is None
            html.add(report.as_dict(), None, None)
    page = (tmp_path / "r.html").read_text()
    assert "closed, valid" in page and "open, givens conflict" in page and 'class="path"' not in page


def test_classify_board_html_is_the_json_answers_as_a_page(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """classify-board --html: one section per board in input order, each board's step-through the same path as its
    --json answers, the LTN picture where the LTN answered, the count in the footer. The writer is picklable (with
    --jobs or --dask it runs in the worker processes)."""
    import pickle

    from ltn_sudoku.cli import main
    from ltn_sudoku.cli.results import HtmlWriter

    boards = tmp_path / "boards.txt"
    boards.write_text(f"{SEED_9}\n{SEED_9.replace('2', '.', 1)}\n")
    assert main(["classify", str(boards), "--json"]) == 0
    answers = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    html = tmp_path / "r.html"
    assert main(["classify", str(boards), "--html", str(html)]) == 0
    assert f"-> {html}" in capsys.readouterr().out
    page = html.read_text()
    assert page.count('<section class="board"') == 2 and 'id="footer-count">2<' in page
    data = _data(page)
    assert [len(d["pictures"]["steps"]) for d in data] == [len(a["steps"]) for a in answers]
    assert all(d["ltn"] and "<svg" in d["ltn"] for d in data)  # the shipped 9x9 model answered each board
    writer = HtmlWriter("t")
    assert pickle.loads(pickle.dumps(writer)) == writer
    assert main(["classify", str(boards), "--html", str(tmp_path / "r.txt")]) == 2
    assert "expected a file name ending in .html" in capsys.readouterr().err
    assert main(["classify", str(boards), "--html", str(html), "--out", str(tmp_path / "r.csv")]) == 2


def test_solve_explain_html_draws_every_step(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """ltn-sudoku solve --explain --html: one section per board, its step-through the path --json prints."""
    from ltn_sudoku.cli import main

    boards = tmp_path / "boards.txt"
    boards.write_text(f"{SEED_9}\n{SEED_9.replace('2', '.', 1)}\n")
    assert main(["solve", str(boards), "--json"]) == 0
    answers = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    html = tmp_path / "solve.html"
    assert main(["solve", str(boards), "--explain", "--html", str(html)]) == 0
    assert f"2 boards, every step drawn -> {html}" in capsys.readouterr().out
    page = html.read_text()
    assert page.count('<section class="board"') == 2 and re.search(r'id="board-count">2 *<', page)
    assert [len(d["pictures"]["steps"]) for d in _data(page)] == [len(a["steps"]) for a in answers]
    assert main(["solve", str(boards), "--html", str(html)]) == 2  # --html goes with --explain
