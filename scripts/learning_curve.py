"""The learning curve against compute: hasValue trained on more and more boards, rules-only and supervised, measured
by solved share without search and by wrong guesses of the complete solver (ltn_sudoku/branching). One command that
resumes: a point whose point.json exists is skipped.

    python scripts/learning_curve.py --max-boards 2000                      # CPU: the 1k and 2k points
    python scripts/learning_curve.py --device cuda --max-boards 256000 --budget-minutes 12    # on a lent GPU
    python scripts/learning_curve.py --experiment order_seventeen_clue --min-boards 1000 --max-boards 8000 \
        --eval-sets seventeen_clue --eval-split test --eval-order root --device cuda    # against training states

`--experiment NAME` (a conf/experiment/order_*.yaml): each point is that recipe (the shipped message-passing model
fine-tuned on one set's branch states, `--init-from`) with `data.train.boards_limit` = the point's training states
and a quarter as many generated impossible boards (a fifth of the boards); a point b0 measures the starting
checkpoint itself, untrained. The figures are on held-out puzzles: `--eval-split test` samples the public sets' test
split (the states come from the train split), and `--eval-order root` makes one model call per puzzle
(CachedModelOrder) instead of one per branch node.

Each point is one training run (`python -m ltn_sudoku.train`, a subprocess; one epoch over `boards` training boards,
80 % solvable puzzles and 20 % impossible boards, generated, seeded) written to OUT/<variant>/b<boards>/ with
command.json (the exact command and overrides) beside its checkpoint, then measured on held-out puzzles (the Kaggle
3M test split and a seeded 17-clue sample, the sets of scripts/bench_guidance.py; or generated puzzles of the
model's size, seed 1000, for small models) beside the ascending and fewest-places orders on the same puzzles.
Points run from the smallest up; `--budget-minutes` stops launching points once spent (a run is cut at the budget's
end and left unrecorded). Writes OUT/curve.csv and OUT/curve.png.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from ltn_sudoku.board import Board  # noqa: E402
from ltn_sudoku.branching.orders import Ascending, FewestPlaces, ValueOrder  # noqa: E402
from ltn_sudoku.branching.solver import solve  # noqa: E402
from ltn_sudoku.generate import generate  # noqa: E402
from ltn_sudoku.io import atomic_write_text  # noqa: E402
from ltn_sudoku.logic.board.model_order import CachedModelOrder, ModelOrder  # noqa: E402
from ltn_sudoku.questions.tiers import singles_loop_solves, tiers  # noqa: E402

VARIANTS: dict[str, list[str]] = {"rules_only": ["train.supervised=false"], "supervised": ["train.supervised=true"]}


def eval_boards(sets: list[str], count: int, n: int, split: str | None = None) -> dict[str, list[Board]]:
    """The held-out puzzles of each evaluation set (of its `split` only, when given)."""
    out: dict[str, list[Board]] = {}
    for name in sets:
        if name == "generated":
            out[name] = [r.board for r in generate(n, "open_solvable", count, 1000)]
        elif name == "generated_17_40":  # the headline's puzzles: unique, 17-40 givens, a seed no training uses
            out[name] = [r.board for r in generate(n, "open_solvable", count, 1000, givens=(17, 40))]
        else:
            from bench_guidance import puzzles

            out[name] = puzzles(name, count, 2026, split=split)
    return out


def measure(order: ModelOrder, boards: dict[str, list[Board]], how: str = "node") -> dict[str, float]:
    """Solved share without search (from the puzzle as given: the package's one meaning of solved) beside the
    singles loop's on the same puzzles, per reasoning tier of the puzzles too, and mean wrong guesses of the solver
    with hasValue (a call per branch node, or one per puzzle with `how` = root) and with the ascending and
    fewest-places orders on the same puzzles."""
    out: dict[str, float] = {"boards_seen": float(order.boards_seen or 0)}
    learned: ValueOrder = CachedModelOrder(order) if how == "root" else order
    for name, group in boards.items():
        solved = order.solves(group)
        out[f"{name} solved"] = float(solved.mean())
        singles_key = f"{name} solved singles loop"
        if singles_key not in _BASELINES:
            _BASELINES[singles_key] = float(singles_loop_solves(group).mean())
            _TIERS[name] = tiers(group)
        out[singles_key] = _BASELINES[singles_key]
        for tier in sorted(set(_TIERS[name].tolist())):
            members = _TIERS[name] == tier
            out[f"{name} solved T{tier}"] = float(solved[members].mean())
            out[f"{name} puzzles T{tier}"] = float(members.sum())
        out[f"{name} wrong guesses"] = float(np.mean([solve(b, learned).wrong_guesses for b in group]))
        for label, hand in (("ascending", Ascending()), ("fewest places", FewestPlaces())):
            key = f"{name} wrong guesses {label}"  # the same puzzles at every point: solved once per process
            if key not in _BASELINES:
                _BASELINES[key] = float(np.mean([solve(b, hand).wrong_guesses for b in group]))
            out[key] = _BASELINES[key]
    return out


_BASELINES: dict[str, float] = {}
_TIERS: dict[str, np.ndarray] = {}  # each evaluation set's reasoning tier per puzzle, labelled once per process


def train_command(model: str, logic: str, variant: str, boards: int, device: str, seed: int,
                  run_dir: Path, extra: list[str], init_from: Path | None = None) -> list[str]:
    """One point: one epoch over `boards` fresh generated boards; from scratch with a cosine schedule, or (a chain's
    next point) continuing `init_from` at a constant learning rate."""
    solvable = int(round(boards * 0.8))
    start = [f"train.init_from={init_from}", "train.lr_schedule=constant"] if init_from else \
        ["train.lr_schedule=cosine"]
    return [sys.executable, "-m", "ltn_sudoku.train", f"model={model}", f"logic={logic}",
            f"data.train.solvable={solvable}", f"data.train.impossible={boards - solvable}", "train.epochs=1",
            *start, "train.progress=false", f"device={device}", f"seed={seed}",
            f"run_dir={run_dir}", *VARIANTS[variant], *extra]


def experiment_command(experiment: str, variant: str, states: int, device: str, init_from: str, run_dir: Path,
                       extra: list[str]) -> list[str]:
    """One point of `--experiment`: its recipe on the first `states` branch states (and a quarter as many generated
    impossible boards), fine-tuned from `init_from`."""
    return [sys.executable, "-m", "ltn_sudoku.train", f"+experiment={experiment}",
            f"data.train.boards_limit={states}", f"data.train.impossible={max(1, states // 4)}",
            f"train.init_from={init_from}", "train.progress=false", f"device={device}", f"run_dir={run_dir}",
            *VARIANTS[variant], *extra]


def device_name(device: str) -> str:
    """The machine a point trained on, for the curve's compute axis (a GPU's model name, or the CPU)."""
    if device != "cpu" and torch.cuda.is_available():
        return torch.cuda.get_device_name(0)
    return f"cpu ({platform.processor() or platform.machine()}, {os.cpu_count()} cores)"


def plot(curve: pd.DataFrame, sets: list[str], path: Path) -> None:
    """Solved share (left) and one panel of mean wrong guesses per evaluation set, a line per (experiment, variant)
    measured on it, the hand-made orders on the same puzzles as grey lines."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from _plotting import save

    figure, panels = plt.subplots(1, 1 + len(sets), figsize=(5 * (1 + len(sets)), 4), squeeze=False)
    left, rights = panels[0][0], panels[0][1:]
    keys = ["experiment", "variant"] if "experiment" in curve and curve.experiment.notna().any() else ["variant"]
    if curve.device.nunique() > 1:  # CPU and GPU points of one recipe: a line each
        curve = curve.assign(machine=np.where(curve.device.str.startswith("cpu"), "CPU", "GPU"))
        keys.append("machine")
    for key, group in curve.groupby(keys, dropna=False):
        group = group.sort_values("boards")
        label = " ".join(str(k).removeprefix("order_") for k in (key if isinstance(key, tuple) else (key,)))
        for name, right in zip(sets, rights):
            if group[f"{name} solved"].notna().any():
                left.plot(group.boards, 100 * group[f"{name} solved"], marker="o", label=f"{label}, {name}")
                right.plot(group.boards, group[f"{name} wrong guesses"], marker="o", label=label)
    for name in sets:  # the singles loop on the same puzzles: the baseline of the solved share
        if f"{name} solved singles loop" in curve and curve[f"{name} solved singles loop"].notna().any():
            base = 100 * curve[f"{name} solved singles loop"].mean()
            left.axhline(base, linestyle="--", color="grey", linewidth=1)
            left.annotate(f"singles loop, {name}", (curve.boards.min(), base), fontsize=7)
    for name, right in zip(sets, rights):
        for label, style in (("ascending", "--"), ("fewest places", ":")):
            if f"{name} wrong guesses {label}" in curve:  # fewest places: points measured since issue 40
                base = curve[f"{name} wrong guesses {label}"].mean()
                right.axhline(base, linestyle=style, color="grey", linewidth=1)
                right.annotate(label, (curve.boards.min(), base), fontsize=7)
        right.set_title(name, fontsize=9)
    unit = "training states (branch states)" if keys[0] == "experiment" else "training boards seen"
    for axes, label in ((left, "solved without search (%)"), *((r, "mean wrong guesses") for r in rights)):
        axes.set_xscale("symlog", linthresh=int(min(curve.boards[curve.boards > 0], default=1)))  # b0 drawn at 0
        axes.set_xlim(0 if (curve.boards == 0).any() else curve.boards.min() / 1.5, curve.boards.max() * 1.5)
        axes.set_xlabel(unit)
        axes.set_ylabel(label)
        axes.legend(fontsize=7)
    save(figure, path)


def tidy(curve: pd.DataFrame, sets: list[str]) -> pd.DataFrame:
    """One row per (point, evaluation set): the learned order's wrong guesses beside the hand-made ones."""
    rows = []
    for name in sets:
        part = curve[curve[f"{name} solved"].notna()]
        rows.append(pd.DataFrame({
            "experiment": part.get("experiment"), "variant": part.variant, "training": part.boards,
            "device": part.device, "train_wall_s": part.train_wall_s, "set": name,
            "eval_order": part.get("eval_order", "node"), "solved": part[f"{name} solved"],
            "wrong guesses": part[f"{name} wrong guesses"],
            "ascending": part[f"{name} wrong guesses ascending"],
            "fewest places": part.get(f"{name} wrong guesses fewest places"),
            "singles loop": part.get(f"{name} solved singles loop"),
            "cpu_s": part.get("cumulative_cpu_s", part.get("train_cpu_s"))}))
    return pd.concat(rows, ignore_index=True)


def with_cpu_seconds(point: Path) -> dict[str, object]:
    """A point.json with its training's CPU seconds (metrics.json beside it: the compute axis, which wall time on a
    shared machine is not)."""
    row = json.loads(point.read_text())
    metrics = point.with_name("metrics.json")
    if metrics.is_file():
        row["train_cpu_s"] = json.loads(metrics.read_text()).get("train/cpu_seconds")
    return row


def measure_point(checkpoint: str | Path, variant: str, boards_count: int, train_wall_s: float,
                  boards: dict[str, list[Board]], sets: list[str], args: argparse.Namespace) -> None:
    """Measure one point's checkpoint on the held-out puzzles (drawn once, into `boards`) and write its point.json."""
    order = ModelOrder.load(checkpoint)
    if not boards:
        boards.update(eval_boards(sets, args.eval_puzzles, order.n, args.eval_split))
    point = {"variant": variant, "boards": boards_count, "checkpoint": str(checkpoint), "train_wall_s": train_wall_s,
             "device": device_name(args.device), "experiment": args.experiment or None,
             "eval_split": args.eval_split, "eval_order": args.eval_order, **measure(order, boards, args.eval_order)}
    atomic_write_text(args.out_dir / variant / f"b{boards_count}" / "point.json", json.dumps(point, indent=1) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--model", default="9x9_mp", help="conf/model name (default: message passing, 9x9)")
    parser.add_argument("--logic", default="product_mp")
    parser.add_argument("--variants", default="rules_only,supervised", help=f"of: {', '.join(VARIANTS)}")
    parser.add_argument("--min-boards", type=int, default=1000, help="first point (then doubling)")
    parser.add_argument("--max-boards", type=int, default=2000, help="last point at most")
    parser.add_argument("--device", default="cpu", choices=("cpu", "cuda", "auto"))
    parser.add_argument("--budget-minutes", type=float, default=0, help="stop launching points after (0: none)")
    parser.add_argument("--eval-sets", default="kaggle_3m_test,seventeen_clue",
                        help="kaggle_3m_test, seventeen_clue, top1465, forum_hardest_1905 (9x9) or generated")
    parser.add_argument("--eval-puzzles", type=int, default=100)
    parser.add_argument("--eval-split", choices=("test", "val", "train"), default=None,
                        help="sample the public evaluation sets from this split only (default: the whole files)")
    parser.add_argument("--eval-order", choices=("node", "root"), default="node",
                        help="the learned order measured: a model call per branch node, or one per puzzle")
    parser.add_argument("--experiment", default="", help="points of this conf/experiment recipe (an order_* one), "
                        "fine-tuned from --init-from on the point's number of branch states; a b0 point too")
    parser.add_argument("--init-from", default="checkpoints/9x9_message_passing.pt",
                        help="with --experiment: the checkpoint every point starts from (and b0 measures)")
    parser.add_argument("--chain", action="store_true", help="one continuing run: each point trains only the boards "
                        "it adds (fresh ones, seed + point index) from the previous point's last.pt, so the x axis is "
                        "boards seen by one model and the compute is the sum of the points' training CPU seconds")
    parser.add_argument("--chain-step", type=int, default=4000, help="with --chain: at most this many boards "
                        "between two points (doubling up to it, then linear)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out-dir", type=Path, default=Path("outputs/learning_curve"))
    parser.add_argument("--report", action="store_true", help="train nothing: only the table and plot of the points "
                        "recorded in --out-dir (e.g. after parallel runs, one per variant)")
    parser.add_argument("--record", default="", metavar="PREFIX", help="also write the committed result files: "
                        "PREFIX.csv (one row per point and evaluation set) and PREFIX.png (the plot)")
    parser.add_argument("overrides", nargs="*", help="more trainer overrides for every point (key=value)")
    args = parser.parse_args()
    variants = [v for v in args.variants.split(",") if v]
    sets = [s for s in args.eval_sets.split(",") if s]
    if any(v not in VARIANTS for v in variants) or args.min_boards < 10 or args.max_boards < args.min_boards:
        print(f"learning_curve: variants must be among {', '.join(VARIANTS)} and 10 <= --min-boards <= --max-boards",
              file=sys.stderr)
        raise SystemExit(2)
    points = [args.min_boards * 2 ** i for i in range(64) if args.min_boards * 2 ** i <= args.max_boards]
    if args.chain:  # no point adds more than --chain-step boards: a point is the unit a stopped chain loses
        points = sorted({*points, *range(args.chain_step, args.max_boards + 1, args.chain_step)})
    if args.experiment:
        points = [0, *points]
    deadline = time.monotonic() + 60 * args.budget_minutes if args.budget_minutes else None
    boards: dict[str, list[Board]] = {}
    for index, boards_count in enumerate(points if not args.report else []):
        for variant in variants:
            run_dir = args.out_dir / variant / f"b{boards_count}"
            if (run_dir / "point.json").is_file():
                continue
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                print(f"learning_curve: budget spent before {variant} b{boards_count}", file=sys.stderr)
                break
            if boards_count == 0:  # b0: the starting checkpoint itself, measured untrained
                measure_point(args.init_from, variant, 0, 0.0, boards, sets, args)
                continue
            if args.experiment:
                command = experiment_command(args.experiment, variant, boards_count, args.device, args.init_from,
                                             run_dir, args.overrides)
            elif args.chain:  # the boards this point adds, continuing the previous point's model
                previous = args.out_dir / variant / f"b{points[index - 1]}" / "last.pt" if index else None
                added = boards_count - (points[index - 1] if index else 0)
                command = train_command(args.model, args.logic, variant, added, args.device, args.seed + index,
                                        run_dir, args.overrides, init_from=previous)
            else:
                command = train_command(args.model, args.logic, variant, boards_count, args.device, args.seed,
                                        run_dir, args.overrides)
            run_dir.mkdir(parents=True, exist_ok=True)
            atomic_write_text(run_dir / "command.json", json.dumps({"command": command[1:], "variant": variant,
                                                                    "boards": boards_count}, indent=1) + "\n")
            print(f"learning_curve: {variant} at {boards_count} boards", file=sys.stderr, flush=True)
            started = time.perf_counter()
            try:
                done = subprocess.run(command, timeout=left)
            except subprocess.TimeoutExpired:
                print(f"learning_curve: {variant} b{boards_count} cut by the budget (not recorded)", file=sys.stderr)
                break
            if done.returncode != 0:
                print(f"learning_curve: training failed (exit {done.returncode}): {' '.join(command)}",
                      file=sys.stderr)
                raise SystemExit(1)
            best = run_dir / "best.pt"
            checkpoint = best if best.is_file() and not args.chain else run_dir / "last.pt"  # a chain goes on from last
            measure_point(checkpoint, variant, boards_count, time.perf_counter() - started, boards, sets, args)
    rows = [with_cpu_seconds(p) for p in sorted(args.out_dir.rglob("b*/point.json"))]  # nested: per set
    if not rows:
        print("learning_curve: no point measured yet", file=sys.stderr)
        return
    curve = pd.DataFrame(rows).sort_values(["variant", "boards"])
    if args.chain and "train_cpu_s" in curve:  # one continuing model: its compute is the sum up to each point
        curve["cumulative_cpu_s"] = curve.groupby("variant")["train_cpu_s"].cumsum()
    atomic_write_text(args.out_dir / "curve.csv", curve.to_csv(index=False))
    measured = [c.removesuffix(" solved") for c in curve.columns if c.endswith(" solved")]
    plot(curve, measured, args.out_dir / "curve.png")
    if args.record:
        atomic_write_text(f"{args.record}.csv", tidy(curve, measured).to_csv(index=False, float_format="%.4g"))
        plot(curve, measured, Path(f"{args.record}.png"))
    print(curve.to_string(index=False, float_format=lambda x: f"{x:.3g}"))


if __name__ == "__main__":
    main()
