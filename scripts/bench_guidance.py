"""Wrong guesses of the complete LTN-side solver (ltn_sudoku/branching) per value order, and CaDiCaL's conflicts with
and without the model's phases: every order and model on the same puzzles, side by side, in one process.

    python scripts/bench_guidance.py                                   # the issue's sizes (hours on 2 shared cores)
    python scripts/bench_guidance.py --sizes top1465=200,forum_hardest_1905=100 --out-dir outputs/bench_guidance
    python scripts/bench_guidance.py --sets seventeen_clue --limit 2 --checkpoints checkpoints/9x9.pt   # smoke
    python scripts/bench_guidance.py --shipped --variants root,batch --no-cadical --seed 20261127 \
        --record docs/results/guidance/cheap_orders                   # the cheap orders, with paired intervals

Learned orders (`--variants`, for every checkpoint): `node` a model call per branch node (ModelOrder), `root` one call
per puzzle whose ranking is reused down the tree, `batch` the same root calls made ahead in one batched pass over
the set's puzzles (each puzzle charged its share of the pass's CPU and wall time), `refreshK` a new call below a node
with K or more digits placed since the model's last call on the path, `lazyK` the fewest-places order until the
search has left K refuted branches, then the model's ranking from a call there (CachedModelOrder: easy puzzles cost
no call); `@STEPS` after any of them answers after STEPS refinement steps instead of the checkpoint's eval_steps.

Sets: a seeded sample of the 17-clue puzzles, top1465, a seeded sample of forum_hardest_1905 (SE >= 11), and real 3M
Kaggle rows of the fixed test split (ltn_sudoku/io/split.py): held out, since the shipped models train only on rows of
the train and validation splits. For each puzzle every order runs the same solver (propagation by the KB's crisp
rules, branching on the cell with fewest digits) to its first solution, checked against the exact solver's; per set
and order: mean / median / p95 of wrong guesses (backtracks), nodes, order calls (model calls for the learned
orders) and CPU and wall seconds per puzzle, with the mean CPU as a ratio of the ascending order's. CaDiCaL
(python-sat) solves each puzzle's CNF with its default phases, with each model's most probable digit as phases
(hasValue on the givens: one model call, not in CaDiCaL's CPU) and with the solution's digits (the oracle).
Every learned order is set against every hand-made order on the same puzzles (paired.csv): mean, median and p95 of
wrong guesses, the paired 95 % bootstrap interval of the mean difference (scripts/render_docs.py's, so the pages and
this table agree; "tie" when it holds 0), the share of puzzles where the learned order is worse, and wall seconds per
puzzle (model included) beside the ascending order's in the same run.
Writes per-puzzle rows (CSV, as it goes), the summaries (JSON, CSV) and a plot of mean wrong guesses per order and set;
`--record PREFIX` also writes the committed result files (PREFIX_rows.csv.gz, PREFIX_paired.csv, PREFIX_solver.csv and
PREFIX.json with the command, date and machine).
"""

from __future__ import annotations

import argparse
import csv
import datetime
import gzip
import json
import os
import platform
import re
import resource
import shlex
import sys
import time
from pathlib import Path
from typing import Any, Iterator

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from render_docs import paired_bootstrap, verdict  # noqa: E402

from ltn_sudoku.board import Board  # noqa: E402
from ltn_sudoku.branching.linear import LinearOrder  # noqa: E402
from ltn_sudoku.branching.orders import FewestPlaces, Oracle, ValueOrder, hand_made_orders  # noqa: E402
from ltn_sudoku.branching.phases import cadical_effort  # noqa: E402
from ltn_sudoku.branching.solver import solve  # noqa: E402
from ltn_sudoku.exact import solve_batch  # noqa: E402
from ltn_sudoku.io import AtomicFile, atomic_write_text, iter_records  # noqa: E402
from ltn_sudoku.io.kaggle import KaggleReader  # noqa: E402
from ltn_sudoku.io.progress import progress  # noqa: E402
from ltn_sudoku.io.split import splits_of  # noqa: E402
from ltn_sudoku.logic.board.model_order import CachedModelOrder, ModelOrder  # noqa: E402
from ltn_sudoku.paths import DATA_DIR, data_file  # noqa: E402
from scripts._machine import cpu_name, machine_line  # noqa: E402

SETS: dict[str, str] = {"seventeen_clue": "9x9/17clue_49158.txt", "top1465": "9x9/top1465.txt",
                        "forum_hardest_1905": "9x9/forum_hardest_1905_se11.txt",
                        "kaggle_3m_test": "kaggle/kaggle_3m_first13211_noratings.csv.gz"}
SHIPPED: dict[str, str] = {"seventeen_clue": "9x9/17clue_sample1000.txt", "top1465": "9x9/top1465.txt",  # --shipped
                           "forum_hardest_1905": "9x9/forum_hardest_1905_se11_first200.txt",
                           "kaggle_3m_test": "kaggle/kaggle_3m_sample1000.csv.gz"}
ISSUE_SIZES: dict[str, int] = {"seventeen_clue": 1000, "top1465": 1465, "forum_hardest_1905": 500,
                               "kaggle_3m_test": 1000}
CHECKPOINTS = ("checkpoints/9x9.pt", "checkpoints/9x9_message_passing.pt")
STATS = ("wrong_guesses", "nodes", "order_calls", "model_calls", "cpu_s", "wall_s")
VARIANT = re.compile(r"(node|root|batch|refresh([1-9]\d*)|lazy([1-9]\d*))(?:@([1-9]\d*))?")
LEARNED = ("hasValue", "learned")  # learned orders' names start so (model_order.default_name, LinearOrder.load); the
# rest but the oracle are hand-made
ROW_COLUMNS = ["set", "puzzle", "order", "wrong_guesses", "nodes", "model_calls", "wall_s"]  # --record
SAT_STATS = ("conflicts", "decisions", "cpu_s")


def puzzles(name: str, count: int, seed: int, shipped: bool = False, skip: int = 0,
            split: str | None = None) -> list[Board]:
    """`count` puzzles of a set: a seeded sample of a public file (streamed twice: count, then keep), or the first
    rows of the Kaggle file's test split after `skip` of them; `shipped`: from the samples shipped under data/ (no
    data home needed). `split` (train / val / test, ltn_sudoku/io/split.py): only that split's puzzles of a public file,
    and of the Kaggle file that split instead of test: the per-set orders train on the train split (
    scripts/make_branch_states.py --set) and are measured on the test split (--split test)."""
    path = DATA_DIR / SHIPPED[name] if shipped else data_file(SETS[name])
    if name == "kaggle_3m_test":
        kept: list[Board] = []
        for chunk in KaggleReader(path).chunks():
            rows = chunk.quizzes[splits_of(chunk.quizzes) == (split or "test")]
            dropped = min(skip, len(rows))
            skip -= dropped
            kept.extend(Board(row.tolist(), 9) for row in rows[dropped:][: count - len(kept)])
            if len(kept) >= count:
                break
        return kept
    eligible = split_members(path, split)
    picks = np.random.default_rng([seed, len(eligible)]).choice(len(eligible), size=min(count, len(eligible)),
                                                                 replace=False)  # None: the sample of earlier runs
    chosen = set(eligible[picks].tolist())
    return [r.board for i, r in enumerate(iter_records(path)) if i in chosen]


def split_members(path: Path, split: str | None, chunk: int = 8192) -> np.ndarray:
    """The indices of a file's puzzles in `split` (every index when None), read in chunks of `chunk` puzzles."""
    if split is None:
        return np.arange(sum(1 for _ in iter_records(path)))
    found: list[np.ndarray] = []
    rows: list[list[int]] = []
    start = 0
    for last, record in enumerate(iter_records(path), 1):
        rows.append(list(record.board.values))
        if len(rows) == chunk:
            found.append(start + np.flatnonzero(splits_of(np.array(rows)) == split))
            start, rows = last, []
    if rows:
        found.append(start + np.flatnonzero(splits_of(np.array(rows)) == split))
    return np.concatenate(found) if found else np.zeros(0, np.int64)


def parse_sizes(text: str) -> dict[str, int]:
    sizes = dict(ISSUE_SIZES)
    for item in filter(None, text.split(",")):
        name, _, value = item.partition("=")
        if name not in SETS or not value.isdigit():
            raise SystemExit(f"bench_guidance: --sizes item {item!r}: expected SET=COUNT with SET one of "
                             f"{', '.join(SETS)}")
        sizes[name] = int(value)
    return sizes


def parse_shard(text: str) -> tuple[int, int]:
    """`I/N` -> (I, N): this process runs the puzzles whose index in the set's sample is I modulo N."""
    index, _, count = text.partition("/")
    if not (index.isdigit() and count.isdigit()) or not 0 <= int(index) < int(count):
        print(f"bench_guidance: --shard {text!r}: expected I/N with 0 <= I < N", file=sys.stderr)
        raise SystemExit(2)
    return int(index), int(count)


def shard_indices(count: int, shard: tuple[int, int]) -> range:
    """The indices of a set's sample that this shard runs."""
    return range(shard[0], count, shard[1])


def learned_orders(models: list[ModelOrder], spec: str) -> tuple[list[ValueOrder], set[str]]:
    """The learned orders of `--variants` (module docstring), each for every model, and the names of the batched
    ones (ValueError on an item that is none of them)."""
    orders: list[ValueOrder] = []
    batched: set[str] = set()
    for item in filter(None, spec.split(",")):
        match = VARIANT.fullmatch(item)
        if match is None:
            raise ValueError(f"--variants item {item!r}: expected node, root, batch, refreshK or lazyK (K >= 1), "
                             "each optionally followed by @STEPS")
        kind, refresh, lazy, steps = match.groups()
        for model in models:
            base = model if steps is None else model.with_steps(int(steps))
            if kind == "node":
                orders.append(base)
            elif lazy is not None:
                orders.append(CachedModelOrder(base, after=int(lazy), fallback=FewestPlaces()))
            elif kind == "batch":
                orders.append(CachedModelOrder(base, name=f"{base.name} root call batched"))
                batched.add(orders[-1].name)
            else:
                orders.append(CachedModelOrder(base, None if refresh is None else int(refresh)))
    return orders, batched


def rows_of_set(name: str, boards: list[Board], orders: list[ValueOrder], models: list[ModelOrder],
                bar: Any, shard: tuple[int, int] = (0, 1), batched: frozenset[str] = frozenset(),
                cadical: bool = True) -> Iterator[dict[str, object]]:
    """One row per (puzzle, order) and per (puzzle, CaDiCaL phases), for the puzzles of this shard (rows keep the
    puzzle's index in the whole sample, so shards merge with --from-rows). A batched order answers the shard's root
    states in one pass first; each puzzle's row carries its share of that pass's CPU and wall seconds."""
    indices = shard_indices(len(boards), shard)
    counts, solutions = solve_batch(np.array([boards[i].values for i in indices]).reshape(len(indices), -1), 2)
    share: dict[str, tuple[float, float]] = {}
    for order in orders:
        if order.name in batched and isinstance(order, CachedModelOrder) and len(indices):
            wall, cpu = time.perf_counter(), time.process_time()
            order.prefetch([boards[i] for i in indices])
            share[order.name] = ((time.perf_counter() - wall) / len(indices),
                                 (time.process_time() - cpu) / len(indices))
    for index, count, solution in zip(indices, counts, solutions):
        board = boards[index]
        if count != 1:
            raise SystemExit(f"bench_guidance: {name} puzzle {index} has {count} solutions (expected 1)")
        for order in orders:
            calls = getattr(order, "calls", 0)
            extra_wall, extra_cpu = share.get(order.name, (0.0, 0.0))
            wall = time.perf_counter()
            result = solve(board, order)
            yield {"set": name, "puzzle": index, "kind": "solver", "order": order.name,
                   "correct": result.verdict == "solved" and list(result.solutions[0].values) == solution.tolist(),
                   "wrong_guesses": result.wrong_guesses, "nodes": result.nodes, "order_calls": result.order_calls,
                   "model_calls": getattr(order, "calls", 0) - calls, "cpu_s": result.cpu_seconds + extra_cpu,
                   "wall_s": time.perf_counter() - wall + extra_wall}
        if not cadical:
            bar.update(1)
            continue
        oracle = (solution[:, None] == np.arange(1, 10)[None, :]).astype(np.float32)
        phases = [("CaDiCaL default phases", None), ("CaDiCaL oracle phases", oracle)]
        phases += [(f"CaDiCaL phases {m.name}", m.probabilities(np.array([board.values]))[0]) for m in models]
        for label, preference in phases:
            effort = cadical_effort(board, preference)
            yield {"set": name, "puzzle": index, "kind": "cadical", "order": label,
                   "correct": effort.solution is not None and list(effort.solution.values) == solution.tolist(),
                   "conflicts": effort.conflicts, "decisions": effort.decisions, "cpu_s": effort.cpu_seconds}
        bar.update(1)


def _ratio(value: float, base: float) -> float:
    return value / base if base > 0 else float("nan")


def summarise(frame: pd.DataFrame, kind: str, stats: tuple[str, ...], baseline: str) -> pd.DataFrame:
    """Per set and order: puzzles, correct share, mean / median / p95 of each statistic, the last one's mean over
    the baseline's (and for CaDiCaL the conflicts' too)."""
    part = frame[frame.kind == kind]
    out = []
    for (name, order), group in part.groupby(["set", "order"], sort=False):
        row: dict[str, object] = {"set": name, "order": order, "puzzles": len(group),
                                  "correct": float(group.correct.mean())}
        for stat in stats:
            values = group[stat].astype(float)
            row.update({f"{stat} mean": values.mean(), f"{stat} median": values.median(),
                        f"{stat} p95": values.quantile(0.95)})
        base = part[(part.set == name) & (part.order == baseline)]
        row[f"{stats[-1]} / {baseline}"] = _ratio(group[stats[-1]].mean(), base[stats[-1]].mean())
        if kind == "cadical":
            row["conflicts / default"] = _ratio(group.conflicts.mean(), base.conflicts.mean())
        out.append(row)
    return pd.DataFrame(out)


def paired_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Per set, every learned order against every hand-made order (neither learned nor the oracle) on the puzzles
    both ran: wrong guesses' mean, median and p95 of each, the paired mean difference (learned - hand-made) with its
    95 % bootstrap interval and verdict, the shares of puzzles where the learned order is worse and better, and the
    mean wall seconds per puzzle of both and of the ascending order on the same puzzles."""
    part = frame[frame.kind == "solver"]
    out = []
    for name, group in part.groupby("set", sort=False):
        guesses = group.pivot_table(index="puzzle", columns="order", values="wrong_guesses", aggfunc="first")
        walls = group.pivot_table(index="puzzle", columns="order", values="wall_s", aggfunc="first")
        names = list(dict.fromkeys(group.order))
        learned = [o for o in names if o.startswith(LEARNED)]
        hand = [o for o in names if not o.startswith(LEARNED) and o != Oracle.name]
        best = min(hand, key=lambda o: float(guesses[o].mean())) if hand else None
        for first in learned:
            for second in hand:
                keep = guesses[[first, second]].dropna().index
                if "ascending" in walls:
                    keep = keep.intersection(walls["ascending"].dropna().index)
                a, b = guesses.loc[keep, first].to_numpy(float), guesses.loc[keep, second].to_numpy(float)
                if not len(a):
                    continue
                mean, low, high = paired_bootstrap(a, b)
                ascending = float(walls.loc[keep, "ascending"].mean()) if "ascending" in walls else float("nan")
                learned_wall = float(walls.loc[keep, first].mean())
                out.append({"set": name, "learned": first, "hand-made": second, "best hand-made": second == best,
                            "puzzles": len(a), "learned mean": a.mean(), "learned median": float(np.median(a)),
                            "learned p95": float(np.percentile(a, 95)), "hand-made mean": b.mean(),
                            "hand-made median": float(np.median(b)), "hand-made p95": float(np.percentile(b, 95)),
                            "difference": mean, "low": low, "high": high,
                            "verdict": {"tie": "tie", "first better": "learned better",
                                        "second better": "learned worse"}[verdict(low, high)],
                            "learned worse share": float((a > b).mean()), "learned better share": float((a < b).mean()),
                            "learned wall_s": learned_wall, "hand-made wall_s": float(walls.loc[keep, second].mean()),
                            "ascending wall_s": ascending, "learned wall / ascending": _ratio(learned_wall, ascending)})
    return pd.DataFrame(out)


def print_paired(paired: pd.DataFrame, name: str) -> None:
    """The paired table of one set: interval and verdict per learned / hand-made pair, costs in milliseconds."""
    part = paired[paired.set == name] if len(paired) else paired
    if part.empty:
        return
    table = pd.DataFrame({
        "learned": part.learned, "vs": part["hand-made"] + np.where(part["best hand-made"], " *", ""),
        "mean": part["learned mean"].map("{:.2f}".format), "med": part["learned median"].map("{:g}".format),
        "p95": part["learned p95"].map("{:.1f}".format), "vs mean": part["hand-made mean"].map("{:.2f}".format),
        "vs med": part["hand-made median"].map("{:g}".format), "vs p95": part["hand-made p95"].map("{:.1f}".format),
        "difference [95 %]": [f"{d:+.2f} [{lo:+.2f}, {hi:+.2f}]" for d, lo, hi in
                              zip(part.difference, part.low, part.high)],
        "verdict": part.verdict, "worse": part["learned worse share"].map("{:.0%}".format),
        "wall ms": (1000 * part["learned wall_s"]).map("{:.1f}".format),
        "asc ms": (1000 * part["ascending wall_s"]).map("{:.1f}".format),
        "/ asc": part["learned wall / ascending"].map("{:.2f}".format)})
    print("learned against hand-made orders (* the best hand-made by mean; difference = learned - hand-made):")
    print(table.to_string(index=False))


def plot(summary: pd.DataFrame, path: Path) -> None:
    """Grouped bars: mean wrong guesses per order (bars) per set (groups), log scale."""
    from _plotting import new_axes, save  # scripts/ is on sys.path (top of this file)

    sets = list(dict.fromkeys(summary.set))
    orders = list(dict.fromkeys(summary.order))
    figure, axes = new_axes((max(8.0, 1.2 * len(sets) * len(orders) / 4), 5.5))
    width = 0.8 / len(orders)
    for k, order in enumerate(orders):
        cells = [summary[(summary.set == s) & (summary.order == order)]["wrong_guesses mean"] for s in sets]
        heights = [float(c.iloc[0]) if len(c) else float("nan") for c in cells]  # an order some set lacks: no bar
        axes.bar(np.arange(len(sets)) + k * width, np.maximum(heights, 0.01), width, label=order)
    axes.set_xticks(np.arange(len(sets)) + 0.4 - width / 2, sets)
    axes.set_yscale("log")
    axes.set_ylabel("mean wrong guesses per puzzle (log; 0 drawn at 0.01)")
    axes.set_title("Complete solver on the KB's crisp rules: wrong guesses per value order")
    axes.legend(fontsize=7, ncol=3, loc="upper center", bbox_to_anchor=(0.5, -0.1))
    save(figure, path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--sets", default=",".join(SETS), help=f"comma-separated, of: {', '.join(SETS)}")
    parser.add_argument("--sizes", default="", help="SET=COUNT,... overriding the issue's sizes "
                        f"({', '.join(f'{k}={v}' for k, v in ISSUE_SIZES.items())})")
    parser.add_argument("--limit", type=int, default=0, help="at most this many puzzles per set (0: no cap)")
    parser.add_argument("--checkpoints", default=",".join(CHECKPOINTS), help="models whose hasValue is an order "
                        "and a phase source, comma-separated ('' for none)")
    parser.add_argument("--linear", default="", help="linear orders' weight files (scripts/distill_order.py), "
                        "comma-separated: learned orders as cheap as a hand-made one")
    parser.add_argument("--variants", default="node,root,batch", help="the learned orders of each checkpoint, "
                        "comma-separated: node, root, batch, refreshK, lazyK, each optionally @STEPS (module docstring)")
    parser.add_argument("--shipped", action="store_true", help="sample the sets from the files shipped under data/ "
                        f"({', '.join(SHIPPED.values())}) instead of the data home's full files")
    parser.add_argument("--kaggle-skip", type=int, default=0, help="skip the first N test-split Kaggle rows (a sample "
                        "disjoint from an earlier run's)")
    parser.add_argument("--split", choices=("test", "train", "val"), default=None, help="sample every set from "
                        "this split of its puzzles (ltn_sudoku/io/split.py; default: the whole public files, the "
                        "Kaggle test split); test: the puzzles no per-set order trained on")
    parser.add_argument("--no-cadical", action="store_true", help="skip CaDiCaL with and without the model's phases")
    parser.add_argument("--record", default="", metavar="PREFIX", help="also write the committed result files "
                        "PREFIX_rows.csv.gz, PREFIX_paired.csv, PREFIX_solver.csv and PREFIX.json")
    parser.add_argument("--no-record-rows", action="store_true", help="with --record, leave out PREFIX_rows.csv.gz "
                        "(the per-puzzle rows stay in --out-dir): for runs whose summaries are enough")
    parser.add_argument("--machine", default="", help="the machine, in words, for --record (default: CPU count, "
                        "architecture and processor as Python sees them)")
    parser.add_argument("--random-seeds", default="0,1,2", help="seeds of the random order, comma-separated")
    parser.add_argument("--seed", type=int, default=2026, help="sampling seed of the public sets")
    parser.add_argument("--out-dir", default="outputs/bench_guidance", help="where the CSV, JSON and plot go")
    parser.add_argument("--shard", default="0/1", help="I/N: run only the puzzles whose index in each set's sample is "
                        "I modulo N (parallel processes; merge their rows.csv with --from-rows)")
    parser.add_argument("--from-rows", type=Path, nargs="+", metavar="ROWS_CSV",
                        help="only summarise earlier runs' rows.csv files: shards and runs with other orders merge "
                        "(a row repeated across files counts once); puzzles that some order lacks are dropped")
    args = parser.parse_args()
    print(machine_line())
    if args.from_rows is not None:
        missing = [str(p) for p in args.from_rows if not p.is_file()]
        if missing:
            print(f"bench_guidance: no such rows file: {', '.join(missing)}", file=sys.stderr)
            raise SystemExit(2)
        frame = pd.concat([pd.read_csv(p) for p in args.from_rows], ignore_index=True)
        frame = complete_puzzles(frame.drop_duplicates(["set", "puzzle", "kind", "order"]))
        runs = [{k: v for k, v in json.loads((p.parent / "summary.json").read_text()).items()
                 if k not in ("solver", "cadical", "paired")} for p in dict.fromkeys(args.from_rows)
                if (p.parent / "summary.json").is_file()]  # the merged runs' own commands, data and machines
        report(frame, {"command": command(), **stamp(args.machine), "runs": runs}, Path(args.out_dir), args.record,
               not args.no_record_rows)
        return
    sets = [s for s in args.sets.split(",") if s]
    unknown = [s for s in sets if s not in SETS]
    if unknown or not sets or args.limit < 0:
        print(f"bench_guidance: unknown set {', '.join(unknown) or '(none given)'}; expected some of "
              f"{', '.join(SETS)}" if unknown or not sets else "bench_guidance: --limit must be >= 0", file=sys.stderr)
        raise SystemExit(2)
    sizes = parse_sizes(args.sizes)
    shard = parse_shard(args.shard)
    if args.limit:
        sizes = {k: min(v, args.limit) for k, v in sizes.items()}
    try:
        seeds = tuple(int(s) for s in args.random_seeds.split(",") if s)
        learned_orders([], args.variants)  # a bad item fails before the models load
        models = [ModelOrder.load(p) for p in args.checkpoints.split(",") if p]
        learned, batched = learned_orders(models, args.variants)
        learned += [LinearOrder.load(p) for p in args.linear.split(",") if p]
    except (ValueError, OSError) as e:
        print(f"bench_guidance: {e}", file=sys.stderr)
        raise SystemExit(2) from None
    orders: list[ValueOrder] = [*hand_made_orders(seeds), *learned, Oracle()]
    out_dir = Path(args.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    boards = {name: puzzles(name, sizes[name], args.seed, args.shipped, args.kaggle_skip, args.split)
              for name in sets}
    started, wall_started = time.process_time(), time.perf_counter()
    rows_path = out_dir / "rows.csv"
    rows: list[dict[str, object]] = []
    columns = ["set", "puzzle", "kind", "order", "correct", *STATS, "conflicts", "decisions"]
    total = sum(len(shard_indices(len(group), shard)) for group in boards.values())
    with rows_path.open("w", newline="") as handle, progress(total=total, unit="puzzle", dynamic_ncols=True) as bar:
        writer = csv.DictWriter(handle, columns)
        writer.writeheader()
        for name in sets:
            bar.set_description(name)
            for row in rows_of_set(name, boards[name], orders, models, bar, shard, frozenset(batched),
                                   not args.no_cadical):
                writer.writerow(row)
                handle.flush()  # a run stopped by a signal (a time limit) keeps every finished row
                rows.append(row)
    info = {"command": command(), **stamp(args.machine), "sizes": {s: len(boards[s]) for s in sets},
            "data": "shipped samples (data/)" if args.shipped else "data home", "seed": args.seed,
            "kaggle_skip": args.kaggle_skip, "split": args.split or "whole files (Kaggle: test)",
            "shard": args.shard, "variants": args.variants, "models": [m.inputs() for m in models],
            "linear": [{k: v for k, v in o.info.items() if k != "features"}
                       for o in learned if isinstance(o, LinearOrder)],
            "cpu_s": time.process_time() - started, "wall_s": time.perf_counter() - wall_started}
    report(pd.DataFrame(rows), info, out_dir, args.record, not args.no_record_rows)


def command() -> str:
    """This run's command line, as a reader would type it from the repository root (quoted for a shell)."""
    return shlex.join(["python", *sys.argv])


def stamp(machine: str) -> dict[str, str]:
    """The date (UTC) and the machine of a run, for the result files."""
    described = machine or f"{os.cpu_count()} CPUs ({platform.machine()}, {cpu_name()}), model on 1 torch thread"
    return {"date": datetime.datetime.now(datetime.timezone.utc).date().isoformat(), "machine": described}


def complete_puzzles(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows of the puzzles every order and phase setting finished (a cut run's last puzzle is dropped)."""
    per_puzzle = frame.groupby(["set", "puzzle"]).order.transform("size")
    return frame[per_puzzle == frame.groupby("set").order.transform("nunique")]


def report(frame: pd.DataFrame, info: dict[str, object], out_dir: Path, record: str = "",
           record_rows: bool = True) -> None:
    """Summaries (JSON, CSV), the paired table, the plot, and the tables on stdout; with `record`, the committed
    result files too (the per-puzzle rows only with `record_rows`)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    sets = list(dict.fromkeys(frame.set))
    if "model_calls" not in frame:  # rows of a run before the column existed
        frame = frame.assign(model_calls=np.nan)
    solver = summarise(frame, "solver", STATS, "ascending")
    sat = summarise(frame, "cadical", SAT_STATS, "CaDiCaL default phases")
    paired = paired_table(frame)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    info = {**info, "peak_rss_mb": peak, "solver": solver.to_dict("records"), "cadical": sat.to_dict("records"),
            "paired": paired.to_dict("records")}
    atomic_write_text(out_dir / "summary.json", json.dumps(info, indent=1, default=float) + "\n")
    atomic_write_text(out_dir / "solver.csv", solver.to_csv(index=False))
    atomic_write_text(out_dir / "cadical.csv", sat.to_csv(index=False))
    atomic_write_text(out_dir / "paired.csv", paired.to_csv(index=False))
    if record:
        files = [f"{record}_rows.csv.gz"] if record_rows else []
        if record_rows:  # gzip (no name, mtime 0: the same bytes for the same rows): pandas reads it as a CSV
            text = frame[frame.kind == "solver"][ROW_COLUMNS].to_csv(index=False, float_format="%.4g")
            with AtomicFile(files[0], "wb") as out:
                out.write(gzip.compress(text.encode(), mtime=0))
                out.commit()
        atomic_write_text(f"{record}_paired.csv", paired.to_csv(index=False, float_format="%.4g"))
        atomic_write_text(f"{record}_solver.csv", solver.to_csv(index=False, float_format="%.4g"))
        meta = {k: v for k, v in info.items() if k not in ("solver", "cadical", "paired", "peak_rss_mb")}
        meta["files"] = [*files, f"{record}_paired.csv", f"{record}_solver.csv"]
        atomic_write_text(f"{record}.json", json.dumps(meta, indent=1, default=float) + "\n")
    plot(solver, out_dir / "wrong_guesses.png")
    pd.set_option("display.width", 250)
    fmt = {"float_format": lambda x: f"{x:.3g}"}
    for name in sets:
        count = int(frame[frame.set == name].puzzle.nunique())
        print(f"\n== {name}: {count} puzzles ==")
        keep = ["order", "correct", *[f"{s} {a}" for s in STATS[:2] for a in ("mean", "median", "p95")],
                "order_calls mean", "model_calls mean", "cpu_s mean", "cpu_s p95", "wall_s mean", "wall_s / ascending"]
        print(solver[solver.set == name][keep].to_string(index=False, **fmt))
        print_paired(paired, name)
        keep = ["order", "correct", *[f"{s} {a}" for s in SAT_STATS for a in ("mean", "median", "p95")],
                "conflicts / default"]
        if not sat.empty:
            print(sat[sat.set == name][keep].to_string(index=False, **fmt))
    for model in info.get("models", []):  # type: ignore[union-attr]
        print(f"model inputs: {json.dumps(model)}")
    print(f"total CPU {float(info.get('cpu_s', 0)):.0f} s, wall {float(info.get('wall_s', 0)):.0f} s, "
          f"peak memory {peak:.0f} MB; written to {out_dir}/")

if __name__ == "__main__":
    main()
