"""The SVG renderer (ltn_sudoku/render): one HoDoKu regression case per technique code is drawn, and the candidates
the picture marks as eliminated / placed must be exactly the step's; boards of every size draw all their cells."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from functools import cache

import pytest

from ltn_sudoku.board import Board
from ltn_sudoku.candidates import CandidateGrid
from ltn_sudoku.render import board_svg, chain_links, step_svg
from ltn_sudoku.render.svg import roles_of
from ltn_sudoku.techniques.hodoku import RegCase, answering_techniques, load_cases
from ltn_sudoku.techniques.registry import all_techniques
from scripts.bench_render import case_step  # a code's first case: its grid and step (merged: one of the pair)

SVG = "{http://www.w3.org/2000/svg}"


@cache
def _answering() -> dict[str, list]:
    return answering_techniques(all_techniques())


@cache
def _first_cases() -> dict[str, RegCase]:
    answering = _answering()
    out: dict[str, RegCase] = {}
    for case in load_cases():
        if case.code in answering and not case.must_fail:
            out.setdefault(case.code, case)
    return out


def _names(grid: CandidateGrid, cands: tuple[tuple[int, int], ...]) -> set[tuple[str, int]]:
    return {(f"r{grid.geo.row[c] + 1}c{grid.geo.col[c] + 1}", d) for c, d in cands}


def test_every_answered_code_has_a_case() -> None:
    assert len(_first_cases()) >= 60


@pytest.mark.parametrize("code", sorted({case.code for case in load_cases()} & set(answering_techniques(
    all_techniques()))))
def test_step_svg_marks_exactly_the_steps_effects(code: str) -> None:
    grid, step = case_step(code)
    svg = step_svg(grid, step)
    root = ET.fromstring(svg)  # well-formed
    assert root.tag == f"{SVG}svg"
    roles = roles_of(svg)
    assert roles.get("elim", set()) == _names(grid, step.eliminations), step.text
    assert roles.get("place", set()) == _names(grid, step.placements), step.text
    assert len([r for r in root.iter(f"{SVG}rect") if r.get("class") == "cell"]) == 81
    assert root.find(f"{SVG}title") is not None and root.find(f"{SVG}title").text == step.text  # type: ignore[union-attr]
    links = [p for p in root.iter(f"{SVG}path") if "link" in (p.get("class") or "").split()]
    if any(word in step.technique for word in ("Chain", "Loop", "AIC", "Turbot")) and "ALS" not in step.technique:
        assert links, f"{code}: a chain without drawn links: {step.text}"


def test_nice_loop_links_are_parsed_from_the_text() -> None:
    grid, step = case_step("0707")  # (1)r6c4 = (1-9)r6c5 = (9-2)r3c5 = (2-1)r3c4 = (1)r6c4
    links = chain_links(step)
    assert [link.strong for link in links] == [True, False, True, False, True, False, True]
    assert links[0].source == ((48,), 1) and links[0].target == ((49,), 1)
    assert links[1].source == ((49,), 1) and links[1].target == ((49,), 9)  # inside the cell: (1-9)r6c5
    svg = step_svg(grid, step)
    paths = [p for p in ET.fromstring(svg).iter(f"{SVG}path") if "link" in (p.get("class") or "")]
    assert [p.get("class") for p in paths][:2] == ["link strong", "link weak"]


def test_grouped_and_turbot_links() -> None:
    _, step = case_step("0709")  # ... = (2)r9c56 - (2)r78c4 = ...
    groups = [link.source[0] for link in chain_links(step) if len(link.source[0]) > 1]
    assert (76, 77) in groups and (57, 66) in groups
    _, turbot = case_step("0403")  # r4c7 =2= r4c6 -2- r8c6 =2= r7c5
    assert [(link.source[1], link.strong) for link in chain_links(turbot)] == [(2, True), (2, False), (2, True)]


def test_fish_fins_are_marked() -> None:
    grid, step = case_step("0310")  # Finned X-Wing: 3 r2,r4 c1,c5 fr2c6
    assert roles_of(step_svg(grid, step))["fin"] == {("r2c6", 3)}


@pytest.mark.parametrize("n", [4, 9, 16, 25])
def test_boards_of_every_size_draw_every_cell(n: int) -> None:
    values = [0] * (n * n)
    values[0], values[n + 2 if n > 4 else n + 2] = 1, 2  # two givens
    grid = CandidateGrid.from_board(Board(values, n))
    grid.place(n * n - 1, n)  # one placed digit
    root = ET.fromstring(board_svg(grid))
    cells = [r for r in root.iter(f"{SVG}rect") if r.get("class") == "cell"]
    assert len(cells) == n * n and root.get("data-n") == str(n)
    texts = list(root.iter(f"{SVG}text"))
    assert [t.text for t in texts if t.get("class") == "given"] == ["1", "2"]
    assert [t.get("data-cell") for t in texts if t.get("class") == "placed"] == [f"r{n}c{n}"]
    cands = [g for g in root.iter(f"{SVG}g") if g.get("class") == "cand"]
    assert len(cands) == sum(grid.count(c) for c in grid.empty_cells())


def test_cli_solve_explain_svg_writes_one_picture_per_step(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    from ltn_sudoku.cli import main

    seed = "2.14.....4...7358..5....6....9.2.8.1.23.1..5...8354..97..28.....15..93.6.6....74."
    assert main(["solve", "--board", seed, "--explain", "--svg", str(tmp_path / "svg")]) == 0
    steps = [line for line in capsys.readouterr().out.splitlines() if line.strip()[:1].isdigit() and ". " in line]
    files = sorted((tmp_path / "svg").glob("board1_step*.svg"))
    assert steps and len(files) == len(steps)
    first = ET.parse(files[0]).getroot()
    assert first.find(f"{SVG}title").text == steps[0].split(". ", 1)[1]  # type: ignore[union-attr]
    assert main(["solve", "--board", seed, "--svg", str(tmp_path / "no")]) != 0  # --svg needs --explain
    assert "--svg goes with --explain" in capsys.readouterr().err


def test_every_case_of_the_library_is_drawn_as_its_step() -> None:
    """All 1,053 cases of the codes answered (scripts/bench_render.py --sections cases): each case's step (both of a
    merged pair; none for a -x case) drawn with exactly its eliminations and placements; a step missing one
    elimination is not."""
    import dataclasses

    from scripts.bench_render import case_steps, drawn_as

    answering = _answering()
    cases = [case for case in load_cases() if case.code in answering]
    assert len(cases) == 1053
    for case in cases:
        steps = case_steps(case, answering)
        assert steps is not None, f"{case.code} line {case.line}: the finder does not answer the case"
        assert all(drawn_as(case.grid(), step, step) for step in steps), f"{case.code} line {case.line}"
    grid, step = case_step("0901")  # a drawing that marks another candidate than the step's fails the check
    other = next((c, d) for c in grid.empty_cells() for d in grid.candidates(c) if (c, d) not in step.eliminations)
    assert step.eliminations and not drawn_as(grid, dataclasses.replace(step, eliminations=(other,)), step)
