"""Benchmarks and figures of the pictures (ltn_sudoku/render), three sections (pick with --sections):

- cpu: the CPU cost of the HTML report against answering the same boards without it, on top1465 (data/9x9, the whole
  list ships): per board, classify() (Q1/Q2 and Q3, the symbolic answers classify-board --no-ltn gives) and its JSON
  dict, then the report's share: the step-through data (report_pictures) and the board's section (HtmlReport.add).
  CPU seconds (time.process_time), the ratio extra / answering (target <= 10 %). --boards N: the first N boards.
- memory: the peak resident memory (ru_maxrss) of a child process that answers and writes the report of 100 and of
  1,000 boards (qqwing_expert.txt, 1,000 boards with solving paths of 20-60 steps, answered faster than top1465):
  flat when both peaks are about equal.
- images: hasvalue_images (the TensorBoard picture) of 4 fixed boards against one hasValue pass of the shipped 4x4
  and 9x9 models over data/samples' open boards (--val-boards, 200 ship), CPU seconds and the share (target <= 5 %).
- cases: every case of HoDoKu's regression library that the package answers (1,053, the 4 `-x` cases among them,
  which expect no step): the case's step drawn (render/svg.py step_svg), and the candidates drawn as eliminated and
  placed compared with the step's (for a merged case, both steps of the pair); the count that match and the time.
- training: real training runs (4x4 defaults, 2 epochs; 9x9 defaults with 400 training boards, 1 epoch) and the
  share of each validation the TensorBoard pictures took, from the run's own scalars time/pictures_seconds and
  time/validation_seconds (wall seconds, the training loop's measurement; target <= 5 %).
- figures: the screenshots of docs/figures (a chain step, a fish step, an LTN board, and two steps drawn alone),
  headless Chromium (/usr/bin/chromium) on the sample report (`sample_report`, which tests/test_render_browser.py opens too).

    .venv/bin/python scripts/bench_render.py --sections cpu [--boards 1465]
    .venv/bin/python scripts/bench_render.py --sections memory
    .venv/bin/python scripts/bench_render.py --sections images [--val-boards 200]
    .venv/bin/python scripts/bench_render.py --sections cases
    .venv/bin/python scripts/bench_render.py --sections training
    .venv/bin/python scripts/bench_render.py --sections figures [--out docs/figures]
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from ltn_sudoku.candidates import CandidateGrid, Step
from ltn_sudoku.exact import solve
from ltn_sudoku.io import parse_board_text
from ltn_sudoku.paths import DATA_DIR
from ltn_sudoku.questions.engine import build
from ltn_sudoku.questions.q3 import Q3Answer
from ltn_sudoku.questions.report import classify
from ltn_sudoku.render.ltn import hasvalue_svg
from ltn_sudoku.render.report import HtmlReport, report_pictures, step_pictures
from ltn_sudoku.render.svg import roles_of, step_svg
from ltn_sudoku.techniques.hodoku import answering_techniques, case_finder, load_cases
from ltn_sudoku.techniques.registry import all_techniques

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # scripts/ as a package, wherever this runs from
from scripts._machine import machine_line  # noqa: E402

CHROMIUM = Path("/usr/bin/chromium")


def chromium() -> str | None:
    """The system's Chromium, or None for Playwright's own (scripts/ensure_browser.sh installs one of them)."""
    found = CHROMIUM if CHROMIUM.exists() else shutil.which("chromium") or shutil.which("chromium-browser")
    return None if found is None else str(found)
STEP_FIGURES = {"0707": "step_discontinuous_nice_loop.png", "0311": "step_finned_swordfish.png"}  # HoDoKu codes
FIGURE_LTN_BOARD = 10  # qqwing_expert.txt's 11th board: the shipped 9x9 model wrong in 4 of 53 cells, unsure in 18
FISH_CASE, CHAIN_CASE = "0310", "0707"  # HoDoKu's Finned X-Wing (a fin) and a Discontinuous Nice Loop (links)


def puzzles(name: str, limit: int | None = None) -> list[str]:
    """The puzzle lines of a file of data/9x9 (comments skipped)."""
    lines = [s.strip() for s in (DATA_DIR / "9x9" / name).read_text().splitlines()]
    out = [s for s in lines if s and not s.startswith("#")]
    return out[:limit] if limit is not None else out


@cache
def answering() -> dict[str, list[Any]]:
    """HoDoKu code -> the techniques answering it (built once)."""
    return answering_techniques(all_techniques())


def case_step(code: str) -> tuple[CandidateGrid, Step]:
    """The grid and the step of the first HoDoKu regression case of a technique code (the step whose effects are the
    case's; as tests/test_render.py draws them)."""
    case = next(c for c in load_cases(codes=[code]) if not c.must_fail)
    steps = case_finder(case, answering())(case.grid())
    assert steps, f"{code}: the finder found nothing on line {case.line}"
    wanted = (case.eliminations, case.placements)
    return case.grid(), next((s for s in steps if case._effects(s) == wanted), steps[0])


def ltn_truths(solution: list[int], n: int, wrong: int, seed: int = 7) -> np.ndarray:
    """Plausible hasValue truths for the sample report (no model: the test runs without torch): the solution's digit
    most likely with a random truth, except in `wrong` random cells, where another digit wins."""
    rng = np.random.default_rng(seed)
    t = rng.uniform(0.0, 0.3, (n * n, n))
    for c, v in enumerate(solution):
        t[c, v - 1] = rng.uniform(0.45, 1.0)
    for c in rng.choice(n * n, wrong, replace=False):
        other = (solution[c] % n) + 1
        t[c, other - 1] = t[c, solution[c] - 1] + 0.1
    return np.clip(t, 0, 1)


def sample_report(path: Path, ltn_svg: str | None = None) -> dict[str, Any]:
    """The sample report: top1465's first board (its whole path, with an LTN picture), HoDoKu's fish case and its
    chain case. Returns what each board shows: {section id: {"steps": [Step, ...] drawn per position, "grids":
    [the grid each step was found on], "wrong": the LTN picture's wrong cells}}."""
    line = puzzles("top1465.txt", 1)[0]
    board = parse_board_text(line)
    report = classify(board, engine=build())
    answers = {"index": 0, "line": 1, "id": None, **report.as_dict()}
    pictures = report_pictures(report)
    assert pictures is not None
    solution = list(solve(board).values)
    truths = ltn_truths(solution, board.n, wrong=6)
    if ltn_svg is None:
        ltn_svg = hasvalue_svg(board, truths, solution, title="hasValue (sample truths)")
    top = truths.argmax(axis=1) + 1
    wrong = {f"r{c // 9 + 1}c{c % 9 + 1}" for c in range(81) if not board.values[c] and top[c] != solution[c]}
    path_steps = [s for sec in report.sections if isinstance(sec, Q3Answer) for s in sec.result.steps]
    grids = []
    grid = CandidateGrid.from_board(board)
    for step in path_steps:
        grids.append(grid.copy())
        grid.apply(step)
    shows: dict[str, Any] = {"board1": {"steps": path_steps, "grids": grids, "wrong": wrong}}
    with HtmlReport(path, title="ltn-sudoku sample report") as html:
        html.add(answers, pictures, ltn_svg)
        for i, code in enumerate((FISH_CASE, CHAIN_CASE), 2):
            grid, step = case_step(code)
            html.add({"index": i - 1, "id": f"HoDoKu case {code}", "size": 9, "board": grid.to_board().to_line(),
                      "steps": [step.as_dict(grid.geo)]}, step_pictures(grid, [step]))
            shows[f"board{i}"] = {"steps": [step], "grids": [grid], "wrong": set()}
    return shows


def cpu(boards: int | None) -> None:
    lines = puzzles("top1465.txt", boards)
    engine = build()
    answer_s = extra_s = 0.0
    with tempfile.TemporaryDirectory() as tmp, HtmlReport(Path(tmp) / "top1465.html") as html:
        for i, line in enumerate(lines):
            t0 = time.process_time()
            report = classify(parse_board_text(line), engine=engine)
            answers = {"index": i, "line": i + 1, "id": None, **report.as_dict()}
            json.dumps(answers)
            t1 = time.process_time()
            html.add(answers, report_pictures(report))
            t2 = time.process_time()
            answer_s += t1 - t0
            extra_s += t2 - t1
        html.close()
        size = (Path(tmp) / "top1465.html").stat().st_size
    print(f"cpu: top1465, {len(lines)} boards: answering {answer_s:.1f} CPU s ({answer_s / len(lines) * 1e3:.0f} ms "
          f"per board), the HTML report {extra_s:.2f} CPU s ({extra_s / len(lines) * 1e3:.1f} ms per board): "
          f"+{100 * extra_s / answer_s:.1f} % (target <= 10 %); file {size / 1e6:.1f} MB "
          f"({size / len(lines) / 1e3:.0f} kB per board)")


def _child_memory(boards: int) -> None:
    """Run in a child: answer and write the report of the first `boards` boards of qqwing_expert; print the peak."""
    engine = build()
    with tempfile.TemporaryDirectory() as tmp, HtmlReport(Path(tmp) / "r.html") as html:
        for i, line in enumerate(puzzles("qqwing_expert.txt", boards)):
            report = classify(parse_board_text(line), engine=engine)
            html.add({"index": i, **report.as_dict()}, report_pictures(report))
    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


def memory() -> None:
    peaks = {}
    for boards in (100, 1000):
        out = subprocess.run([sys.executable, __file__, "--child-memory", str(boards)], check=True,
                             capture_output=True, text=True).stdout
        peaks[boards] = int(out.split()[-1]) / 1024
    print(f"memory: peak resident memory (MiB) answering and writing the report: 100 boards {peaks[100]:.0f}, "
          f"1,000 boards {peaks[1000]:.0f} ({peaks[1000] / peaks[100]:.2f}x)")


def images(val_boards: int) -> None:
    """hasvalue_images of 4 boards against one validation pass of the shipped model (the learned wing is imported
    here, never by ltn_sudoku.render). The pass is a lower bound of the training loop's validation: one hasValue
    refinement (reach) over the open boards of data/samples, where validate() also calibrates, scores the closed
    boards, the heuristics and the loss: the share printed is an upper bound."""
    from ltn_sudoku.render.raster import hasvalue_images

    for size in (4, 9):
        truths, puzzles_, solutions, val_s = _validation_pass(size, val_boards)
        t0 = time.process_time()
        for _ in range(5):
            hasvalue_images(puzzles_[:4], truths[:4], solutions[:4])
        img_s = (time.process_time() - t0) / 5
        print(f"images: {size}x{size}: hasvalue_images of 4 boards {img_s * 1e3:.1f} CPU ms; one hasValue pass over "
              f"{len(puzzles_)} validation boards {val_s:.2f} CPU s: {100 * img_s / val_s:.2f} % (target <= 5 %)")


def case_steps(case: Any, answering: Any) -> list[Step] | None:
    """The step(s) a regression case asks for, found on its grid: one step, the pair of a merged case, none for a
    `-x` case (whose finder must find nothing); None when the finder does not answer the case."""
    found = case_finder(case, answering)(case.grid())
    if case.must_fail:
        return [] if not found else None
    if case.merged:
        return next(([a, b] for i, a in enumerate(found) for b in found[i + 1:] if set(a.cells) & set(b.cells)
                     and frozenset(a.eliminations) | frozenset(b.eliminations) == case.eliminations), None)
    wanted = (case.eliminations, case.placements)
    return next(([s] for s in found if case._effects(s) == wanted), None)


def drawn_as(grid: CandidateGrid, step: Step, expected: Step) -> bool:
    """The candidates step_svg marks eliminated and placed in its drawing of `step` are exactly `expected`'s (the
    step the case's file asks for: case_steps checks the found step's effects against the file)."""
    roles = roles_of(step_svg(grid, step))
    names = grid.geo.cell_name
    return (roles.get("elim", set()) == {(names(c), d) for c, d in expected.eliminations}
            and roles.get("place", set()) == {(names(c), d) for c, d in expected.placements})


def cases() -> None:
    t0 = time.process_time()
    total = drawn = 0
    wrong: list[str] = []
    for case in load_cases():
        if case.code not in answering():
            continue
        total += 1
        steps = case_steps(case, answering())
        if steps is not None and all(drawn_as(case.grid(), step, step) for step in steps):
            drawn += 1
        else:
            wrong.append(f"{case.code} (line {case.line})")
    print(f"cases: HoDoKu's regression library, {total} cases of the codes answered: {drawn} drawn with exactly the "
          f"step's eliminations and placements ({time.process_time() - t0:.1f} CPU s)"
          + (f"; not: {', '.join(wrong)}" if wrong else ""))


TRAINING_RUNS = {"4x4": ["model=4x4", "train.epochs=2"],
                 "9x9": ["model=9x9", "train.epochs=1", "data.train.solvable=300", "data.train.impossible=100"]}


def training() -> None:
    """The pictures' share of each validation in real runs, read back from their TensorBoard scalars."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    for name, overrides in TRAINING_RUNS.items():
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run([sys.executable, "-m", "ltn_sudoku.train", *overrides, f"run_dir={tmp}",
                            "train.progress=false"], check=True, capture_output=True)
            for events in sorted(Path(tmp, "tb").glob("events.out.tfevents.*")):
                run = EventAccumulator(str(events), size_guidance={"images": 0}).Reload()
                if "time/pictures_seconds" not in run.Tags()["scalars"]:
                    continue  # the hparams file
                val = [e.value for e in run.Scalars("time/validation_seconds")]
                pics = [e.value for e in run.Scalars("time/pictures_seconds")]
                shares = ", ".join(f"{100 * p / v:.1f} %" for p, v in zip(pics, val))
                print(f"training: {name} ({' '.join(overrides)}): validation {', '.join(f'{v:.2f}' for v in val)} s, "
                      f"pictures {', '.join(f'{1e3 * p:.0f}' for p in pics)} ms: {shares} (target <= 5 %); "
                      f"{len(run.Images('val/hasValue'))} images")


def _validation_pass(size: int, boards: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """hasValue's truths of the shipped model on up to `boards` open boards of data/samples, and that pass's CPU
    seconds (torch held to one thread, as CPU time on a shared machine)."""
    import torch

    from ltn_sudoku.io import read_records
    from ltn_sudoku.logic.board.inference import reach
    from ltn_sudoku.logic.checkpoints import shipped_checkpoint
    from ltn_sudoku.logic.device import to_numpy
    from ltn_sudoku.logic.kinds import load_model

    torch.set_num_threads(1)
    loaded = load_model(shipped_checkpoint(size), size)
    records = read_records(DATA_DIR / "samples" / f"{size}x{size}_open_solvable.csv")[:boards]
    puzzles_ = np.array([r.board.values for r in records])
    solutions = np.array([parse_board_text(r.fields["solution"]).values for r in records])
    t0 = time.process_time()
    with torch.no_grad():
        truths = to_numpy(reach(loaded.model, loaded.ops, torch.as_tensor(puzzles_)).final.reshape(
            len(records), size * size, size))
    return truths, puzzles_, solutions, time.process_time() - t0


def figures(out: Path) -> None:
    """Screenshots of a chain step and a fish step of the sample report, and of an LTN board: the shipped 9x9 model's
    hasValue (through classify-board --json) on a QQWing "expert" board where it is sure of most cells, unsure of some
    and wrong in a few (on top1465's first board it is wrong in 43 of 63 empty cells, on the generated boards of
    data/samples sure and right everywhere: both show less), into `out`."""
    from playwright.sync_api import sync_playwright

    from ltn_sudoku import classify, load_model

    board = parse_board_text(puzzles("qqwing_expert.txt")[FIGURE_LTN_BOARD])
    report = classify(board, model=load_model("9x9"))  # what classify-board answers, as objects
    answer = report.sections[-1]
    answers = report.as_dict(moves=False)
    ltn = answer.picture(report.solution)  # type: ignore[attr-defined]
    assert ltn is not None, "the model gave no LTN answer"
    names = ("report_fish_step.png", "report_chain_step.png", "ltn_board.png", *STEP_FIGURES.values())
    with tempfile.TemporaryDirectory() as tmp:
        page_path = Path(tmp) / "sample.html"
        sample_report(page_path)
        ltn_path = Path(tmp) / "ltn.html"
        with HtmlReport(ltn_path, title="LTN") as html:
            html.add({"index": 0, **answers}, None, ltn, answer.html())  # type: ignore[attr-defined]
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium(), headless=True)
            page = browser.new_page(viewport={"width": 1100, "height": 900}, device_scale_factor=1.5)
            page.goto(page_path.as_uri())
            for sec, name in (("board2", names[0]), ("board3", names[1])):
                page.click(f"#{sec} summary")
                page.wait_for_selector(f"#{sec} .stage svg")
                page.locator(f"#{sec} .path").screenshot(path=str(out / name))
            page.goto(ltn_path.as_uri())
            page.locator("#board1 .ltn-picture svg").screenshot(path=str(out / names[2]))
            for code, name in STEP_FIGURES.items():  # docs/techniques.md's two steps, drawn alone by step_svg
                svg_path = Path(tmp) / f"{code}.html"
                svg_path.write_text(f"<!DOCTYPE html><html><body style='margin:0'>{step_svg(*case_step(code))}"
                                    "</body></html>")
                page.goto(svg_path.as_uri())
                page.locator("svg").first.screenshot(path=str(out / name))
            browser.close()
    print(f"figures: {', '.join(str(out / n) for n in names)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sections", nargs="+", default=["cpu", "memory", "images"],
                        choices=["cpu", "memory", "images", "cases", "training", "figures"])
    parser.add_argument("--boards", type=int, default=None, help="cpu: the first N boards of top1465 (default all)")
    parser.add_argument("--val-boards", type=int, default=200)
    parser.add_argument("--out", type=Path, default=Path("docs/figures"))
    parser.add_argument("--child-memory", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_memory:
        _child_memory(args.child_memory)
        return
    print(machine_line())
    for section in args.sections:
        {"cpu": lambda: cpu(args.boards), "memory": memory, "images": lambda: images(args.val_boards),
         "training": training, "cases": cases,
         "figures": lambda: figures(args.out)}[section]()


if __name__ == "__main__":
    main()
