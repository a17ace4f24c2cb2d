"""Measurements of the human-technique engine, the figures of docs/techniques.md.

Each subcommand is one part of the issue's Measure section; --limit N runs a quick version on N puzzles per corpus.

    overview   every registered technique: family, score, level, HoDoKu codes (the table of docs/techniques.md)
    soundness  every step of the engine's path, and every step of every finder on sampled states, checked against the
               unique solution (17-clue sample, QQWing levels, top1465, generated 4x4 and 16x16 puzzles)
    reglib     HoDoKu's regression library: pass rate per technique code, failing cases listed
    stages     pure-logic solve rate (Engine(fallback=False)) on top95/top1465 with the families added in HoDoKu's steps
    levels     our level/score against HoDoKu 2.2's ratings (confusion table, agreement, correlation), CPU time per
               puzzle and the MemoryTracker's time share per finder
    hodoku     CPU seconds per puzzle of our engine and of hodoku-py on the same puzzles in this run, solve rates
    sat        SAT effort (python-sat) without extra clauses and with the unit clauses of singles / of the basic
               families path / of the engine path

    .venv/bin/python scripts/bench_techniques.py soundness --corpora top1465 qqwing_expert [--limit 50] [--save F.json]
    .venv/bin/python scripts/bench_techniques.py merge F1.json F2.json      # one soundness table of several runs
    .venv/bin/python scripts/bench_techniques.py reglib
    .venv/bin/python scripts/bench_techniques.py stages --files top95 top1465 [--stages 1 2 3 4 5]
    .venv/bin/python scripts/bench_techniques.py levels --files top95 top1465
    .venv/bin/python scripts/bench_techniques.py hodoku --limit 100
    .venv/bin/python scripts/bench_techniques.py sat --limit 300

Times are CPU seconds (time.process_time) measured in the same process, so ratios hold on a noisy shared machine;
numba-compiled parts are warmed up on one puzzle before any timing.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache, partial
from pathlib import Path
from typing import Callable, Iterable, Sequence

import pandas as pd

from ltn_sudoku.board import Board
from ltn_sudoku.candidates import CandidateGrid, Step
from ltn_sudoku.cnf import solve_cnf
from ltn_sudoku.exact import solve
from ltn_sudoku.generate import generate
from ltn_sudoku.paths import data_file
from ltn_sudoku.questions.engine import LEVELS, SEARCH_TECHNIQUE, Engine, SolveResult
from ltn_sudoku.questions.memory import MemoryTracker
from ltn_sudoku.techniques.base import Technique
from ltn_sudoku.techniques.hodoku import RegCase, answering_techniques, case_finder, load_cases
from ltn_sudoku.techniques.registry import all_techniques
from ltn_sudoku.techniques.soundness import assert_sound, run_pure, sample_puzzles

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # scripts/ as a package, wherever this runs from
from scripts._machine import machine_line  # noqa: E402

Pair = tuple[Board, Board]  # (puzzle, its unique solution)
PairLoader = Callable[[int | None, int], list[Pair]]  # (limit, seed) -> pairs
SINGLES: tuple[str, ...] = ("Full House", "Naked Single", "Hidden Single")


def cpu_timed(call: Callable[[], object]) -> tuple[object, float]:
    """(result, CPU seconds) of one call."""
    start = time.process_time()
    value = call()
    return value, time.process_time() - start


def markdown(frame: pd.DataFrame) -> str:
    """A DataFrame as a GitHub table (no tabulate dependency)."""
    head = "| " + " | ".join(map(str, frame.columns)) + " |"
    rule = "|" + "|".join("---:" if pd.api.types.is_numeric_dtype(frame[c]) else "---" for c in frame.columns) + "|"
    rows = ["| " + " | ".join(map(str, row)) + " |" for row in frame.itertuples(index=False)]
    return "\n".join([head, rule, *rows])


def pct(part: float, whole: float) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


def warm_up() -> None:
    """Compile the numba kernels (exact solver, forcing chains) before anything is timed."""
    puzzle = sample_puzzles("9x9/top95.txt")[0]
    Engine().solve(puzzle)
    for technique in all_techniques():
        technique.finder(CandidateGrid.from_board(puzzle))


# =====================================================================================================================
# 0. Overview of the registry
# =====================================================================================================================
def overview() -> str:
    """Every registered technique in the engine's order, with what the registry says of it."""
    from ltn_sudoku.techniques.registry import priority

    rows = [{"#": i, "technique": t.name, "family": t.family, "score": t.score, "level": t.level,
             "HoDoKu codes": ", ".join(t.hodoku_codes), "order key": f"{priority(t):g}",
             "assumes uniqueness": "yes" if t.uniqueness else "", "min side": t.min_n}
            for i, t in enumerate(all_techniques(), 1)]
    return markdown(pd.DataFrame(rows))


# =====================================================================================================================
# 1. Soundness
# =====================================================================================================================
def _file_pairs(relative: str, default: int | None) -> PairLoader:
    def load(limit: int | None, seed: int) -> list[Pair]:
        count = default if limit is None else (limit if default is None else min(limit, default))
        pairs = []
        for puzzle in sample_puzzles(relative, count, seed):
            solution = solve(puzzle)
            if solution is not None:
                pairs.append((puzzle, solution))
        return pairs
    return load


def _generated_pairs(n: int, default: int, givens: tuple[int, int] | None = None) -> PairLoader:
    def load(limit: int | None, seed: int) -> list[Pair]:
        count = default if limit is None else min(limit, default)
        return [(b.board, b.solution) for b in generate(n, "open_solvable", count, seed, givens=givens)]
    return load


# name -> loader(limit, seed); the default sizes add up to 10,425 unique puzzles
CORPORA: dict[str, PairLoader] = {
    "17clue": _file_pairs("9x9/17clue_49158.txt", 3000),
    "qqwing_simple": _file_pairs("9x9/qqwing_simple.txt", None),
    "qqwing_easy": _file_pairs("9x9/qqwing_easy.txt", None),
    "qqwing_intermediate": _file_pairs("9x9/qqwing_intermediate.txt", None),
    "qqwing_expert": _file_pairs("9x9/qqwing_expert.txt", None),
    "top1465": _file_pairs("9x9/top1465.txt", None),
    "gen4x4": _generated_pairs(4, 1500),
    "gen16x16": _generated_pairs(16, 100),
    "gen16x16_hard": _generated_pairs(16, 60, givens=(100, 110)),
}


@dataclass
class SoundnessTally:
    """Steps checked per technique, on engine paths and in surveys of every finder, and every failure seen."""

    puzzles: int = 0
    not_unique: int = 0
    logic_only: int = 0
    guessed: int = 0
    states: int = 0
    path: Counter = field(default_factory=Counter)
    survey: Counter = field(default_factory=Counter)
    survey_time: Counter = field(default_factory=Counter)
    failed: Counter = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)
    cpu_s: float = 0.0

    def add(self, other: SoundnessTally) -> None:
        for name in ("puzzles", "not_unique", "logic_only", "guessed", "states", "cpu_s"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for name in ("path", "survey", "survey_time", "failed"):
            getattr(self, name).update(getattr(other, name))
        self.failures += other.failures

    def to_json(self) -> dict[str, object]:
        return {name: dict(value) if isinstance(value, Counter) else value for name, value in vars(self).items()}

    @classmethod
    def from_json(cls, data: dict) -> SoundnessTally:
        tally = cls(**{k: v for k, v in data.items() if not isinstance(v, dict)})
        for name in ("path", "survey", "survey_time", "failed"):
            setattr(tally, name, Counter(data[name]))
        return tally


def _check(tally: SoundnessTally, grid: CandidateGrid, steps: Iterable[Step], solution: Board, where: str,
           into: Counter) -> None:
    """assert_sound on each step; a failure is counted and kept, not raised, so the sweep reports every one."""
    for step in steps:
        into[step.technique] += 1
        try:
            assert_sound(grid, [step], solution, where)
        except AssertionError as failure:
            tally.failed[step.technique] += 1
            tally.failures.append(str(failure).splitlines()[0])


SURVEY_MODES: tuple[str, ...] = ("mixed", "hard")


def survey_state(steps: Sequence[Step], rng: random.Random, mode: str = "mixed") -> int:
    """The index of a path state to run every finder on. 'hard': a state just before a step beyond singles (where the
    advanced finders matter; no single applies there), or any state when the path needed singles only. 'mixed': half
    the time such a state, half the time any state of the path (so that singles are surveyed too)."""
    hard = [i for i, step in enumerate(steps) if step.technique not in SINGLES]
    if not hard or (mode == "mixed" and rng.random() < 0.5):
        return rng.randrange(len(steps))
    return rng.choice(hard)


def sweep_puzzle(engine: Engine, puzzle: Board, solution: Board, rng: random.Random, survey_share: float,
                 tally: SoundnessTally, survey_mode: str = "mixed") -> None:
    """Check every step of the engine's path; with probability `survey_share`, every finder's every step at one
    state of the path (run_pure also checks that no finder changes the grid)."""
    tally.puzzles += 1
    result = engine.solve(puzzle)
    if result.solutions != 1:
        tally.not_unique += 1
        return
    tally.logic_only += result.logic_only
    tally.guessed += result.guessed
    where = f"in {puzzle.to_line()}"
    if result.solved and result.final != solution:
        tally.failures.append(f"final grid differs from the solution {where}")
    survey_at = survey_state(result.steps, rng, survey_mode) if result.steps and rng.random() < survey_share else -1
    grid = CandidateGrid.from_board(puzzle)
    for i, step in enumerate(result.steps):
        if i == survey_at:
            tally.states += 1
            for technique in engine.techniques(puzzle.n, unique=True):
                try:
                    found, seconds = cpu_timed(partial(run_pure, grid, technique.finder))
                except AssertionError as failure:  # the finder mutated the grid
                    tally.failed[technique.name] += 1
                    tally.failures.append(str(failure).splitlines()[0] + f" {where}")
                    continue
                tally.survey_time[technique.name] += seconds
                _check(tally, grid, found, solution, f"(survey {where})", tally.survey)  # type: ignore[arg-type]
        if step.technique != SEARCH_TECHNIQUE:
            _check(tally, grid, [step], solution, f"(path {where})", tally.path)
        grid.apply(step)


def run_soundness(corpora: Sequence[str], limit: int | None, survey_share: float, seed: int,
                  survey_mode: str = "mixed") -> dict[str, SoundnessTally]:
    engine = Engine()
    tallies: dict[str, SoundnessTally] = {}
    for name in corpora:
        pairs = CORPORA[name](limit, seed)
        tally = SoundnessTally()
        rng = random.Random(seed)
        start = time.process_time()
        for puzzle, solution in pairs:
            try:
                sweep_puzzle(engine, puzzle, solution, rng, survey_share, tally, survey_mode)
            except Exception as error:  # an unsound step may leave the engine in a contradiction
                tally.failures.append(f"{type(error).__name__}: {error} in {puzzle.to_line()}")
        tally.cpu_s = time.process_time() - start
        tallies[name] = tally
        print(f"{name}: {tally.puzzles} puzzles, {sum(tally.path.values())} path steps, "
              f"{sum(tally.survey.values())} survey steps on {tally.states} states, {len(tally.failures)} failures, "
              f"{tally.cpu_s:.0f} s", flush=True)
    return tallies


def soundness_report(tallies: dict[str, SoundnessTally]) -> str:
    total = SoundnessTally()
    for tally in tallies.values():
        total.add(tally)
    corpus_rows = [{"corpus": name, "puzzles": t.puzzles, "not unique": t.not_unique, "logic only": t.logic_only,
                    "with search": t.guessed, "path steps": sum(t.path.values()), "surveyed states": t.states,
                    "survey steps": sum(t.survey.values()), "failures": len(t.failures), "CPU s": round(t.cpu_s)}
                   for name, t in [*tallies.items(), ("total", total)]]
    order = [t.name for t in all_techniques()]
    names = sorted(set(total.path) | set(total.survey) | set(order),
                   key=lambda name: order.index(name) if name in order else len(order))
    technique_rows = [{"technique": name, "path steps": total.path[name], "survey steps": total.survey[name],
                       "unsound": total.failed[name],
                       "survey ms/call": round(1000 * total.survey_time[name] / total.states, 2) if total.states else 0}
                      for name in names]
    lines = [markdown(pd.DataFrame(corpus_rows)), "", markdown(pd.DataFrame(technique_rows))]
    if total.failures:
        lines += ["", f"{len(total.failures)} failures (first 30):", *total.failures[:30]]
    return "\n".join(lines)


# =====================================================================================================================
# 2. HoDoKu regression library
# =====================================================================================================================
@lru_cache(maxsize=None)
def reglib_techniques() -> dict[str, list[Technique]]:
    """Library code -> the registered techniques answering it (two for siamese fish)."""
    return answering_techniques(all_techniques())


def reglib_case_passes(case: RegCase) -> bool:
    """Run the finder(s) answering the case's code with the options HoDoKu's tester sets, and judge the steps."""
    return case.passes(run_pure(case.grid(), case_finder(case, reglib_techniques())))


@dataclass
class CodeResult:
    code: str
    technique: str
    cases: int
    fail_cases: int  # the '-x' cases: nothing must be found
    passed: int
    failing_lines: list[int]
    cpu_s: float

    @property
    def rate(self) -> float:
        return self.passed / self.cases


def run_reglib(codes: Iterable[str] | None = None) -> tuple[list[CodeResult], Counter]:
    """Per implemented code, the pass rate; and the number of cases per code we do not implement."""
    answering = reglib_techniques()
    cases = load_cases()
    wanted = set(codes) if codes else None
    results: dict[str, CodeResult] = {}
    missing: Counter = Counter()
    for case in cases:
        if wanted is not None and case.code not in wanted:
            continue
        if case.code not in answering:
            missing[case.code] += 1
            continue
        name = " + ".join(t.name for t in answering[case.code])
        result = results.setdefault(case.code, CodeResult(case.code, name, 0, 0, 0, [], 0.0))
        ok, seconds = cpu_timed(partial(reglib_case_passes, case))
        result.cases += 1
        result.fail_cases += case.must_fail
        result.passed += bool(ok)
        result.cpu_s += seconds
        if not ok:
            result.failing_lines.append(case.line)
    return sorted(results.values(), key=lambda r: r.code), missing


def reglib_report(results: list[CodeResult], missing: Counter) -> str:
    rows = [{"code": r.code, "technique": r.technique, "cases": r.cases, "of them -x": r.fail_cases,
             "passed": r.passed, "rate": pct(r.passed, r.cases), "failing lines": " ".join(map(str, r.failing_lines)),
             "CPU ms/case": round(1000 * r.cpu_s / r.cases, 1)} for r in results]
    cases = sum(r.cases for r in results)
    passed = sum(r.passed for r in results)
    x_cases = sum(r.fail_cases for r in results)
    lines = [markdown(pd.DataFrame(rows)), "",
             f"total: {passed}/{cases} cases pass ({pct(passed, cases)}), -x cases included ({x_cases}); "
             f"{sum(r.rate == 1 for r in results)}/{len(results)} codes at 100%"]
    if missing:
        lines.append("codes of the library with no registered technique (cases): "
                     + ", ".join(f"{code} ({count})" for code, count in sorted(missing.items())))
    return "\n".join(lines)


# =====================================================================================================================
# 3. Pure-logic solve rate by family
# =====================================================================================================================
# Cumulative stages with HoDoKu 2.2's share of top1465 solved at each (docs/data.md).
STAGES: tuple[tuple[str, frozenset[str], float], ...] = (
    ("singles + intersections + subsets", frozenset({"Singles", "Intersections", "Subsets"}), 21.0),
    ("+ fish, wings, single-digit, colouring, uniqueness",
     frozenset({"Basic Fish", "Finned Fish", "Single Digit Patterns", "Wings", "Coloring", "Uniqueness"}), 33.0),
    ("+ X/XY-chains, nice loops, AIC (+ Remote Pair)", frozenset({"Chains and Loops"}), 49.0),
    ("+ ALS family, Sue de Coq", frozenset({"Almost Locked Sets", "Miscellaneous"}), 66.0),
    ("+ forcing chains/nets", frozenset({"Forcing Chains"}), 98.8),
)
FILES: dict[str, str] = {"top95": "9x9/top95.txt", "top1465": "9x9/top1465.txt"}


def stage_techniques(stage: int) -> list[Technique]:
    """The techniques of stages 1..stage, in the default order; a family no stage names is an error."""
    families = frozenset().union(*(families for _, families, _ in STAGES[:stage]))
    every = frozenset().union(*(families for _, families, _ in STAGES))
    unknown = {t.family for t in all_techniques()} - every
    if unknown:
        raise RuntimeError(f"families without a stage: {sorted(unknown)}")
    return [t for t in all_techniques() if t.family in families]


def file_puzzles(name: str, limit: int | None, seed: int) -> list[Board]:
    return sample_puzzles(FILES[name], limit, seed)


def run_stages(files: Sequence[str], stages: Sequence[int], limit: int | None, seed: int) -> str:
    warm_up()
    rows = []
    for name in files:
        puzzles = file_puzzles(name, limit, seed)
        for stage in stages:
            engine = Engine(stage_techniques(stage), fallback=False)
            results, seconds = cpu_timed(lambda: [engine.solve(p) for p in puzzles])
            solved = sum(r.solved for r in results)  # type: ignore[union-attr]
            label, _, hodoku = STAGES[stage - 1]
            rows.append({"file": name, "stage": f"{stage}. {label}", "puzzles": len(puzzles), "solved": solved,
                         "share": pct(solved, len(puzzles)), "HoDoKu 2.2 on top1465": f"{hodoku}%",
                         "CPU s/puzzle": round(seconds / len(puzzles), 3)})
            print(rows[-1], flush=True)
    return markdown(pd.DataFrame(rows))


# =====================================================================================================================
# 4. Levels against HoDoKu's ratings (+ our speed and the tracker's time shares)
# =====================================================================================================================
def hodoku_ratings(name: str) -> pd.DataFrame:
    return pd.read_csv(data_file(f"ratings/{name}_hodoku220_ratings.csv"), dtype={"bruteforce": str}).set_index(
        "puzzle")


def level_table(ours: pd.Series, theirs: pd.Series, our_score: pd.Series, their_score: pd.Series) -> str:
    """Confusion table (ours x HoDoKu's), exact and within-one agreement, score correlations."""
    confusion = pd.crosstab(pd.Categorical(ours, LEVELS), pd.Categorical(theirs, LEVELS), dropna=False)
    confusion.index.name = "ours \\ HoDoKu"
    table = confusion.reset_index().rename(columns={"row_0": "ours \\ HoDoKu"})
    table.columns = ["ours \\ HoDoKu", *LEVELS]
    gap = (ours.map(LEVELS.index) - theirs.map(LEVELS.index)).abs()
    pearson = our_score.corr(their_score)
    spearman = our_score.rank().corr(their_score.rank())  # Spearman's rho without scipy
    return "\n".join([markdown(table), "",
                      f"exact agreement {pct((gap == 0).sum(), len(gap))}, within one level "
                      f"{pct((gap <= 1).sum(), len(gap))}; score correlation Pearson {pearson:.3f}, "
                      f"Spearman {spearman:.3f} ({len(gap)} puzzles)"])


def run_levels(files: Sequence[str], limit: int | None, seed: int, top: int) -> str:
    warm_up()
    out = []
    for name in files:
        ratings = hodoku_ratings(name)
        tracker = MemoryTracker()
        engine = Engine(tracker=tracker)
        rows = []
        for puzzle in file_puzzles(name, limit, seed):
            result, seconds = cpu_timed(partial(engine.solve, puzzle))
            assert isinstance(result, SolveResult)
            rating = ratings.loc[puzzle.to_line()]
            rows.append({"ours": result.level, "hodoku": rating.level, "our_score": result.score,
                         "hodoku_score": rating.score, "guessed": result.guessed,
                         "hodoku_bf": rating.bruteforce == "bf", "cpu_s": seconds})
        frame = pd.DataFrame(rows)
        count = len(frame)
        both_bf = (frame.guessed & frame.hodoku_bf).sum()
        out += [f"### {name} ({count} puzzles)", "",
                level_table(frame.ours, frame.hodoku, frame.our_score, frame.hodoku_score), "",
                f"solved by logic alone: ours {pct(count - frame.guessed.sum(), count)}, HoDoKu "
                f"{pct(count - frame.hodoku_bf.sum(), count)}; search needed by both: {both_bf}, by us only "
                f"{(frame.guessed & ~frame.hodoku_bf).sum()}, by HoDoKu only "
                f"{(~frame.guessed & frame.hodoku_bf).sum()}",
                f"CPU s per puzzle (our engine, fallback on): mean {frame.cpu_s.mean():.3f}, median "
                f"{frame.cpu_s.median():.3f}, max {frame.cpu_s.max():.2f}; total {frame.cpu_s.sum():.0f} s", "",
                tracker_shares(tracker, top), ""]
        print("\n".join(out[-8:]), flush=True)
    return "\n".join(out)


def tracker_shares(tracker: MemoryTracker, top: int) -> str:
    """The finders that dominate the engine's time (tracker time is wall-clock per finder call)."""
    stats = tracker.stats_frame()
    stats["share"] = stats.time_s / stats.time_s.sum()
    stats = stats.sort_values("time_s", ascending=False).head(top)
    rows = [{"finder": s.technique, "calls": s.tried, "found": s.found, "applied": s.applied,
             "ms/call": round(1000 * s.time_s / s.tried, 2), "time share": f"{100 * s.share:.1f}%"}
            for s in stats.itertuples()]
    return markdown(pd.DataFrame(rows))


# =====================================================================================================================
# 5. Speed against hodoku-py
# =====================================================================================================================
def run_hodoku(limit: int, seed: int) -> str:
    try:
        import hodoku
        from hodoku.core.types import SolutionType
    except ModuleNotFoundError:
        raise SystemExit("the hodoku section needs hodoku-py: pip install -e '.[bench]'") from None

    puzzles = file_puzzles("top1465", limit, seed)
    ratings = hodoku_ratings("top1465")
    solver = hodoku.Solver()
    engine = Engine()
    warm_up()
    solver.solve(puzzles[0].to_line())
    rows = []
    for puzzle in puzzles:
        line = puzzle.to_line()
        ours, our_s = cpu_timed(partial(engine.solve, puzzle))
        theirs, their_s = cpu_timed(partial(solver.solve, line))
        assert isinstance(ours, SolveResult)
        brute = any(step.type == SolutionType.BRUTE_FORCE for step in theirs.steps)  # type: ignore[attr-defined]
        rows.append({"our_s": our_s, "their_s": their_s, "our_logic": ours.logic_only,
                     "their_logic": theirs.solved and not brute,  # type: ignore[attr-defined]
                     "same_level": ours.level == theirs.level.name.capitalize(),  # type: ignore[attr-defined]
                     "matches_java": theirs.score == ratings.loc[line].score})  # type: ignore[attr-defined]
        print(f"{len(rows):4d} ours {our_s:.3f} s  hodoku-py {their_s:.2f} s", flush=True)
    f = pd.DataFrame(rows)
    table = pd.DataFrame([
        {"solver": "ltn_sudoku Engine()", "mean CPU s": round(f.our_s.mean(), 3), "median": round(f.our_s.median(), 3),
         "max": round(f.our_s.max(), 2), "solved by logic": pct(f.our_logic.sum(), len(f))},
        {"solver": "hodoku-py Solver().solve", "mean CPU s": round(f.their_s.mean(), 3),
         "median": round(f.their_s.median(), 3), "max": round(f.their_s.max(), 2),
         "solved by logic": pct(f.their_logic.sum(), len(f))},
    ])
    return "\n".join([f"{len(f)} top1465 puzzles (random sample, seed {seed}), both solvers in this process", "",
                      markdown(table), "",
                      f"speed-up (hodoku-py mean / ours mean): {f.their_s.mean() / f.our_s.mean():.1f}x; per puzzle "
                      f"median of ratios {(f.their_s / f.our_s.clip(lower=1e-4)).median():.1f}x",
                      f"same level as hodoku-py: {pct(f.same_level.sum(), len(f))}; hodoku-py's score equals HoDoKu "
                      f"2.2.0's (ratings CSV): {pct(f.matches_java.sum(), len(f))}"])


# =====================================================================================================================
# 6. SAT effort with heuristic clauses
# =====================================================================================================================
def steps_before_search(result: SolveResult) -> list[Step]:
    """The engine's path up to (not including) its first Brute Force step."""
    steps = []
    for step in result.steps:
        if step.technique == SEARCH_TECHNIQUE:
            break
        steps.append(step)
    return steps


def run_sat(files: Sequence[str], limit: int | None, seed: int, solver: str) -> str:
    singles = Engine(list(SINGLES), fallback=False)
    basic = Engine(stage_techniques(2), fallback=False)
    engine = Engine()
    out = []
    for name in files:
        rows = []
        for puzzle in file_puzzles(name, limit, seed):
            variants = {"none": [], "singles": singles.solve(puzzle).steps,
                        "stages 1-2 path (until stuck)": basic.solve(puzzle).steps,
                        "engine path": steps_before_search(engine.solve(puzzle))}
            for variant, steps in variants.items():
                effort = solve_cnf(puzzle, steps, solver=solver)
                assert effort.satisfiable
                rows.append({"clauses": variant, "unit clauses": sum(len(s.placements) + len(s.eliminations)
                                                                     for s in steps),
                             "conflicts": effort.conflicts, "decisions": effort.decisions,
                             "propagations": effort.propagations})
        frame = pd.DataFrame(rows)
        base = frame[frame.clauses == "none"]
        table = []
        for variant, group in frame.groupby("clauses", sort=False):
            row: dict[str, object] = {"extra clauses": variant,
                                      "mean unit clauses": round(group["unit clauses"].mean())}
            for counter in ("conflicts", "decisions", "propagations"):
                mean, median = group[counter].mean(), group[counter].median()
                row[f"{counter} mean"] = round(mean, 1)
                row[f"{counter} median"] = median
                row[f"{counter} ratio"] = f"{mean / base[counter].mean():.3f}" if base[counter].mean() else "-"
            table.append(row)
        out += [f"### {name} ({len(base)} puzzles, {solver})", "", markdown(pd.DataFrame(table)), ""]
        print("\n".join(out[-4:]), flush=True)
    return "\n".join(out)


# =====================================================================================================================
def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=0)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("overview", help="the registered techniques as a table")

    p = sub.add_parser("soundness", help="every step checked against the unique solution")
    p.add_argument("--corpora", nargs="+", choices=list(CORPORA), default=list(CORPORA))
    p.add_argument("--limit", type=int, help="at most N puzzles per corpus")
    p.add_argument("--survey", type=float, default=0.25, help="share of puzzles with every finder run at one state")
    p.add_argument("--survey-states", choices=SURVEY_MODES, default="mixed", help="which path states are surveyed")
    p.add_argument("--save", type=Path, help="write the tallies as JSON (merge several runs with 'merge')")

    p = sub.add_parser("merge", help="one soundness report of several --save files")
    p.add_argument("files", nargs="+", type=Path)

    p = sub.add_parser("reglib", help="HoDoKu regression library per technique code")
    p.add_argument("--codes", nargs="*")

    p = sub.add_parser("stages", help="pure-logic solve rate by cumulative families")
    p.add_argument("--files", nargs="+", choices=list(FILES), default=list(FILES))
    p.add_argument("--stages", nargs="+", type=int, choices=range(1, len(STAGES) + 1),
                   default=list(range(1, len(STAGES) + 1)))
    p.add_argument("--limit", type=int)

    p = sub.add_parser("levels", help="levels and scores against HoDoKu 2.2, our speed, tracker time shares")
    p.add_argument("--files", nargs="+", choices=list(FILES), default=list(FILES))
    p.add_argument("--limit", type=int)
    p.add_argument("--top", type=int, default=15, help="finders listed by time share")

    p = sub.add_parser("hodoku", help="our engine and hodoku-py on the same top1465 puzzles")
    p.add_argument("--limit", type=int, default=100)

    p = sub.add_parser("sat", help="SAT effort with and without the steps as unit clauses")
    p.add_argument("--files", nargs="+", choices=list(FILES), default=list(FILES))
    p.add_argument("--limit", type=int, default=None)
    p.add_argument("--solver", default="minisat22")

    args = parser.parse_args(argv)
    print(machine_line())
    if args.command == "overview":
        print(overview())
    elif args.command == "soundness":
        tallies = run_soundness(args.corpora, args.limit, args.survey, args.seed, args.survey_states)
        if args.save:
            args.save.write_text(json.dumps({k: t.to_json() for k, t in tallies.items()}))
        print(soundness_report(tallies))
    elif args.command == "merge":
        merged: dict[str, SoundnessTally] = {}
        for path in args.files:
            for name, data in json.loads(path.read_text()).items():
                merged.setdefault(name, SoundnessTally()).add(SoundnessTally.from_json(data))
        print(soundness_report(merged))
    elif args.command == "reglib":
        print(reglib_report(*run_reglib(args.codes)))
    elif args.command == "stages":
        print(run_stages(args.files, args.stages, args.limit, args.seed))
    elif args.command == "levels":
        print(run_levels(args.files, args.limit, args.seed, args.top))
    elif args.command == "hodoku":
        print(run_hodoku(args.limit, args.seed))
    elif args.command == "sat":
        print(run_sat(args.files, args.limit, args.seed, args.solver))


if __name__ == "__main__":
    main()
