"""The HTML report in a real browser: headless Chromium (the system's, or else Playwright's own, driven by Playwright) opens the sample report of scripts/bench_render.py from disk, steps through it with the keyboard and
takes screenshots. It fails on any console error, on a blank screenshot, or when the candidates and cells a known step
highlights in the DOM (data-cell / data-digit and the role classes, read after each key press) are not the step's.

`make test` installs the browser where it is missing (scripts/ensure_browser.sh: Debian's chromium where apt-get may
run, else Playwright's Chromium); without either the test fails and says how to install one."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import numpy as np
import pytest

from ltn_sudoku.render import chain_links, step_svg
from ltn_sudoku.render.svg import roles_of
from scripts.bench_render import chromium, sample_report

INSTALL = "scripts/ensure_browser.sh .venv/bin/python (make test runs it), then rerun"


def _chromium() -> str | None:
    """The system's Chromium, else None: Playwright's own, when it is installed."""
    path = chromium()
    if path is None:
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            if not Path(p.chromium.executable_path).exists():
                pytest.fail(f"the browser test needs Chromium and none was found: {INSTALL}", pytrace=False)
    return path


def _names(grid: Any, cands: tuple[tuple[int, int], ...]) -> set[tuple[str, int]]:
    return {(grid.geo.cell_name(c), d) for c, d in cands}


def _drawn(page: Any, section: str, role: str) -> set[tuple[str, int]]:
    cells = page.eval_on_selector_all(f"#{section} .stage g.cand.{role}",
                                      "els => els.map(e => [e.dataset.cell, Number(e.dataset.digit)])")
    return {(c, d) for c, d in cells}


def _not_blank(png: bytes, what: str) -> None:
    from PIL import Image

    pixels = np.asarray(Image.open(io.BytesIO(png)).convert("L"), dtype=np.float64)
    assert pixels.size > 10_000 and pixels.std() > 20, f"{what}: a blank screenshot (std {pixels.std():.1f})"


def _rgb(hex_colour: str) -> str:
    r, g, b = (int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgb({r}, {g}, {b})"


def _check_step(page: Any, section: str, grid: Any, step: Any, number: int, total: int) -> None:
    """The DOM shows `step` (found on `grid`): its eliminations and placements exactly, every role and shaded cell
    as the static picture of render/svg.py draws them, the position and text."""
    assert page.inner_text(f"#{section} .pos") == f"step {number} / {total}"
    assert page.inner_text(f"#{section} .caption") == step.text
    assert _drawn(page, section, "elim") == _names(grid, step.eliminations), step.text
    assert _drawn(page, section, "place") == _names(grid, step.placements), step.text
    picture = step_svg(grid, step)
    for role, cands in roles_of(picture).items():
        assert _drawn(page, section, role) == cands, (role, step.text)
    shaded = {(r.get("data-cell"), _rgb(r.get("style", "").split(":")[1])) for r in ET.fromstring(picture).iter(
        "{http://www.w3.org/2000/svg}rect") if r.get("class") == "cell" and r.get("style")}
    assert set(map(tuple, page.eval_on_selector_all(
        f"#{section} .stage rect.cell", "els => els.filter(e => e.style.fill).map(e => [e.dataset.cell, "
        "getComputedStyle(e).fill])"))) == shaded, step.text
    # the digits already placed are the grid's (givens and the path's placements before this step)
    shown = page.eval_on_selector_all(f"#{section} .stage text.given, #{section} .stage text.placed",
                                      "els => els.map(e => [e.dataset.cell, Number(e.dataset.digit)])")
    assert {(c, d) for c, d in shown} == {(grid.geo.cell_name(c), v) for c, v in enumerate(grid.values) if v}
    # and every candidate left on the grid, no more
    cands = page.eval_on_selector_all(f"#{section} .stage g.cand",
                                      "els => els.map(e => [e.dataset.cell, Number(e.dataset.digit)])")
    assert {(c, d) for c, d in cands} == {(grid.geo.cell_name(c), d) for c in grid.empty_cells()
                                          for d in grid.candidates(c)}


@contextmanager
def _page(report: Path) -> Iterator[Any]:
    """The report opened from disk in headless Chromium; fails afterwards on any console error, page error or failed
    request (none may load: the page is self-contained)."""
    executable = _chromium()
    from playwright.sync_api import sync_playwright

    errors: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1100, "height": 900})
            page.on("console", lambda m: errors.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(f"page error: {e}"))
            page.on("requestfailed", lambda r: errors.append(f"request failed: {r.url}"))
            page.goto(report.as_uri())
            yield page
        finally:
            browser.close()
    assert not errors, "\n".join(errors)


@pytest.mark.slow  # ~5-8 s: Chromium's start and the sample board's answers (make test runs it, test-fast does not)
def test_report_in_chromium(tmp_path: Path) -> None:
    report = tmp_path / "report.html"
    shows = sample_report(report)
    with _page(report) as page:
        assert page.inner_text("#board-count").strip() == "3"

        # top1465's first board: its path, stepped with the right arrow to the first step with links
        main = shows["board1"]
        steps, grids = main["steps"], main["grids"]
        target = next(i for i, s in enumerate(steps) if s.eliminations and chain_links(s))
        page.click("#board1 .caption")  # the board takes the keys
        _check_step(page, "board1", grids[0], steps[0], 1, len(steps))
        for _ in range(target):
            page.keyboard.press("ArrowRight")
        _check_step(page, "board1", grids[target], steps[target], target + 1, len(steps))
        assert page.locator("#board1 .stage path.link").count() > 0, steps[target].text
        _not_blank(page.locator("#board1 .stage svg").screenshot(), "board 1's chain step")
        page.keyboard.press("ArrowLeft")
        _check_step(page, "board1", grids[target - 1], steps[target - 1], target, len(steps))
        page.keyboard.press("End")
        assert page.inner_text("#board1 .pos") == f"end ({len(steps)} steps)"
        assert page.locator("#board1 .stage g.cand").count() == 0  # the path solved the board
        # the LTN picture: the cells marked wrong are those whose most likely digit is not the solution's
        wrong = page.eval_on_selector_all('#board1 .ltn-picture g.ltn-cell[data-wrong="1"]',
                                          "els => els.map(e => e.dataset.cell)")
        assert set(wrong) == main["wrong"] and wrong
        _not_blank(page.locator("#board1 .ltn-picture svg").screenshot(), "the LTN picture")

        # HoDoKu's fish case (a fin, base and cover lines) and chain case (strong and weak links), opened by a click
        for section in ("board2", "board3"):
            (step,), (grid,) = shows[section]["steps"], shows[section]["grids"]
            page.click(f"#{section} summary")
            page.wait_for_selector(f"#{section} .stage svg")  # the toggle event draws it
            _check_step(page, section, grid, step, 1, 1)
            page.keyboard.press("ArrowRight")
            assert page.locator(f"#{section} .stage g.cand.elim").count() == 0
            page.keyboard.press("ArrowLeft")
            _check_step(page, section, grid, step, 1, 1)
            _not_blank(page.locator(f"#{section} .stage svg").screenshot(), f"{section}'s step")
        assert _drawn(page, "board2", "fin"), "the finned fish shows no fin"
        assert page.eval_on_selector_all("#board2 .stage rect.cell", "els => els.filter(e => e.style.fill).length")
        links = page.eval_on_selector_all("#board3 .stage path.link", "els => els.map(e => e.getAttribute('class'))")
        assert "link strong" in links and "link weak" in links
        _not_blank(page.screenshot(full_page=True), "the whole page")


@pytest.mark.slow  # ~3 s: Chromium's start
def test_classify_board_page_in_chromium(tmp_path: Path) -> None:
    """The page classify-board --html writes (its header's count filled by the page from the footer) opens with no
    error, and the keyboard steps its first board's path."""
    from ltn_sudoku.cli import main

    boards = tmp_path / "boards.txt"
    seed = "2.14.....4...7358..5....6....9.2.8.1.23.1..5...8354..97..28.....15..93.6.6....74."
    boards.write_text(f"{seed}\n{seed.replace('2', '.', 1)}\n")
    report = tmp_path / "classify.html"
    assert main(["classify", str(boards), "--html", str(report)]) == 0
    with _page(report) as page:
        assert page.inner_text("#board-count").strip() == "2"
        page.click("#board1 .caption")
        total = int(page.inner_text("#board1 .pos").split("/")[1])
        page.keyboard.press("ArrowRight")
        assert page.inner_text("#board1 .pos") == f"step 2 / {total}"
        _not_blank(page.locator("#board1 .stage svg").screenshot(), "classify-board's first board")
        assert page.locator("#board1 .ltn-picture svg").count() == 1
