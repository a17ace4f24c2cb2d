#!/usr/bin/env python
"""Visual Sudoku (ViSudo-PC shape): LTN vs CNN board classifier vs oracle grounding, by training-set size.

For every split (seed) the boards are made once (ltn_sudoku.logic.visual.data); each training-set size takes the first k
training boards. On the same held-out test boards (MNIST t10k images) it prints, mean ± std over the splits: board
accuracy of the LTN (isCorrect from board labels only), of the CNN baseline (board labels only) and of the oracle
grounding (a digit reader trained with the training cells' digit labels + the exact check); of the LTN's reader and
the oracle's reader followed by exact MAP decoding (the most likely valid grid, ltn_sudoku.logic.visual.decode; τ from the
validation boards' labels): a learned reader + symbolic reasoning, reported as its own column; the permutation-matched
digit accuracy of the LTN's reader and the oracle's; CPU training seconds; decoding milliseconds per board; the
process's peak memory. JSON files of older runs, without the decoding columns, print '–' there.

    python scripts/bench_visual.py --size 4 --train-boards 10 50 100 --splits 5 [--json docs/figures/visual_4x4.json]
    (extra Hydra overrides of the LTN's config after --, e.g. -- logic=product train.epochs=60; the baselines train
    for the same epochs, batch size and learning rate)
    python scripts/bench_visual.py --size 4 --from-json a.json b.json     # one table from runs made in parallel
    python scripts/bench_visual.py --size 9 --rescore-runs runs/9x9_k100_split*   # kept runs, today's decoding
    python scripts/bench_visual.py --size 9 --rescore-runs runs/9x9_k100_split* --clips 1e-6 1e-12  # clips compared
"""

from __future__ import annotations

import argparse
import json
import logging
import resource
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import torch
from omegaconf import open_dict

from ltn_sudoku.logic.config.schema import compose_config
from ltn_sudoku.logic.kinds import load_model, train
from ltn_sudoku.logic.visual.baselines import (
    board_cnn_predict,
    oracle_predict,
    read_digits,
    read_probabilities,
    train_board_cnn,
    train_oracle_reader,
)
from ltn_sudoku.logic.visual.data import VisualData, build_data
from ltn_sudoku.logic.visual.decode import (
    CLIP,
    TIME_LIMIT,
    calibrate_tau,
    calibration_log_likelihood,
    decode_boards,
    map_decoding_metrics,
    margins,
)
from ltn_sudoku.logic.visual.evaluate import BoardScores, digit_accuracy

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # scripts/ as a package, wherever this runs from
from scripts._machine import cpu_name, machine_line  # noqa: E402

MODELS = ("ltn", "cnn", "oracle")


def ltn_config(size: int, k: int, split: int, run_dir: str, overrides: list[str]) -> Any:
    cfg = compose_config([f"model=visual_{size}x{size}", f"data.train_boards={k}", f"seed={split}",
                          "train.progress=false", "threads=1", f"run_dir={run_dir}", *overrides])
    return cfg


class Progress:
    """One line per stage on stdout, with the wall time so far and, once a run is done, the time left: a benchmark of
    many minutes says what it is doing (the LTN's own epochs log through `logging` as INFO lines too)."""

    def __init__(self, runs: int) -> None:
        self.runs, self.done, self.start = runs, 0, time.perf_counter()

    def say(self, text: str) -> None:
        elapsed = time.perf_counter() - self.start
        left = (f", about {elapsed / self.done * (self.runs - self.done) / 60:.0f} min left" if self.done else "")
        print(f"[{elapsed / 60:5.1f} min, run {min(self.done + 1, self.runs)}/{self.runs}{left}] {text}", flush=True)

    def finished_run(self) -> None:
        self.done += 1


def one_run(data: VisualData, size: int, k: int, split: int, overrides: list[str], keep: Path | None = None,
            progress: Progress | None = None) -> dict[str, dict[str, float]]:
    """Board and digit accuracy and CPU seconds of the three models trained on the first k training boards; the
    LTN's run folder (checkpoints, TensorBoard, metrics.json) is kept under `keep` when given; each stage is announced
    through `progress`."""
    say = progress.say if progress is not None else (lambda text: None)
    sub = VisualData(data.train.select(slice(0, k)), data.val, data.test)
    test = sub.test.boards
    out: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        run_dir = str(keep / f"{size}x{size}_k{k}_split{split}") if keep is not None else scratch
        cfg = ltn_config(size, k, split, run_dir, overrides)
        say(f"split {split}, {k} training boards: training the LTN ({int(cfg.train.epochs)} epochs)")
        start = time.process_time()
        metrics = train(cfg, data=sub)
        out["ltn"] = {"board": metrics["test/board_accuracy"], "digit": metrics["test/digit_accuracy"],
                      "read_check": metrics["test/read_then_check/board_accuracy"],
                      "map": metrics["test/map_decoding/board_accuracy"], "map_tau": metrics["test/map_decoding/tau"],
                      "map_ms": metrics["test/map_decoding/ms_per_board"], "cpu_s": time.process_time() - start}
    t = cfg.train
    say(f"split {split}, {k} training boards: LTN board accuracy {out['ltn']['board']:.3f}; training the CNN baseline")
    start = time.process_time()
    cnn = train_board_cnn(sub.train.boards, int(t.epochs), int(t.batch_size), float(t.lr), split)
    out["cnn"] = {"board": BoardScores.of(board_cnn_predict(cnn, test), test.valid).accuracy,
                  "cpu_s": time.process_time() - start}
    start = time.process_time()
    m = cfg.model
    say(f"split {split}, {k} training boards: CNN board accuracy {out['cnn']['board']:.3f}; training the oracle reader")
    reader = train_oracle_reader(sub.train, int(t.epochs), int(t.batch_size), float(t.lr), split, int(m.channels),
                                 int(m.hidden), int(m.pool))
    out["oracle"] = {"board": BoardScores.of(oracle_predict(reader, test), test.valid).accuracy,
                     "digit": digit_accuracy(read_digits(reader, test), sub.test.digits, size),
                     "cpu_s": time.process_time() - start}
    decoded = map_decoding_metrics(read_probabilities(reader, sub.val.boards), sub.val.boards.valid,
                                   read_probabilities(reader, test), test.valid)
    out["oracle"].update({"map": decoded["test/map_decoding/board_accuracy"],
                          "map_tau": decoded["test/map_decoding/tau"],
                          "map_ms": decoded["test/map_decoding/ms_per_board"]})
    return out


def _cell(values: list[float]) -> str:
    return f"{100 * np.mean(values):5.1f} ± {100 * np.std(values):4.1f}" if values else "–"


def ltn_teaching(cfg: Any) -> str:
    """What the LTN's reader was taught by and how its epoch was chosen (printed above the table, kept in the JSON)."""
    t, m = cfg.train, cfg.model
    parts = ["rule axioms on valid boards"]
    if float(t.abduce_weight) > 0:
        parts.append(f"abduced MAP grids of valid boards from epoch {int(t.abduce_from_epoch)}")
        if float(t.self_train_confident) > 0:
            parts.append(f"invalid boards' readings with p >= {float(t.self_train_confident)}")
    warp = (f"shift {int(t.shift)} px, rotate {float(t.get('rotate', 0.0)):g}°, scale ±{float(t.get('scale', 0.0)):g}"
            + (" once half the valid boards are explained" if bool(t.get("warp_once_explained", False)) else ""))
    return (f"LTN reader (pool {int(m.pool)}, {int(m.channels)} channels) taught by: {'; '.join(parts)}; augmentation: "
            f"{warp}; epoch chosen by {t.monitor}; {int(t.epochs)} epochs, lr {float(t.lr)}; oracle reader: same "
            "architecture, digit labels")


def print_table(size: int, runs: list[dict[str, Any]], note: str, teaching: str) -> None:
    """Mean ± std over the splits of each training-set size: learned models first, then reader + MAP decoding."""
    splits = sorted({r["split"] for r in runs})
    print(f"\n{size}x{size}, splits {splits}; {note}")
    print(teaching)
    print("LTN = isCorrect (learned); CNN = board classifier (learned); oracle = oracle reader + exact check; "
          "+MAP = that reader + exact MAP decoding (learned reader + symbolic reasoning)")
    print(f"{'boards':>6} | {'splits':>6} | {'LTN board %':>13} | {'CNN board %':>13} | {'oracle board %':>14} | "
          f"{'LTN+MAP board %':>15} | {'oracle+MAP %':>13} | {'LTN digit %':>13} | {'oracle digit %':>14} | "
          f"{'LTN/CNN/oracle CPU s':>20} | {'MAP ms':>6}")
    for k in sorted({r["train_boards"] for r in runs}):
        rows = [r for r in runs if r["train_boards"] == k]
        keys = ("board", "digit", "map", "map_ms", "cpu_s")
        col = {m: {key: [r[m][key] for r in rows if key in r[m]] for key in keys} for m in MODELS}
        cpu = "/".join(f"{np.mean(col[m]['cpu_s']):.0f}" for m in MODELS)
        ms = col["ltn"]["map_ms"] + col["oracle"]["map_ms"]
        print(f"{k:>6} | {len(rows):>6} | {_cell(col['ltn']['board']):>13} | {_cell(col['cnn']['board']):>13} | "
              f"{_cell(col['oracle']['board']):>14} | {_cell(col['ltn']['map']):>15} | "
              f"{_cell(col['oracle']['map']):>13} | {_cell(col['ltn']['digit']):>13} | "
              f"{_cell(col['oracle']['digit']):>14} | {cpu:>20} | {f'{np.mean(ms):.1f}' if ms else '–':>6}")


def rescore_runs(runs: list[Path], clips: list[float], test_seed: int | None = None) -> None:
    """The LTN reader + MAP decoding of kept runs (their best.pt, on the boards their config names) with today's
    decoding and τ, beside the figure and τ in their metrics.json: the same readers, two calibrations. With several
    clips, each one's held-out accuracy, its calibration's validation log-likelihood (what a choice of clip can be
    made on without the test boards) and the held-out errors by board kind. With `test_seed`, fresh held-out boards
    (the same test image pool, boards never scored before) replace the recorded ones."""
    torch.set_num_threads(1)
    now: dict[float, list[float]] = {clip: [] for clip in clips}
    recorded = []
    print(f"{'run':<40} | {'recorded MAP %':>14} | {'recorded τ':>10} | {'clip':>5} | {'MAP now %':>9} | "
          f"{'τ now':>6} | {'val log-lik':>11} | held-out errors by kind")
    for run in runs:
        model, _, payload = load_model(run / "best.pt", kind="visual")
        config = payload["config"]
        data_cfg = {**config["data"], **({} if test_seed is None else {"test_seed": test_seed})}
        data = build_data(model.n, data_cfg, int(config["seed"]))
        limit = float(config["train"].get("decode_time_limit", TIME_LIMIT))  # the run's own decoding budget
        then = json.loads((run / "metrics.json").read_text())
        recorded.append(then["test/map_decoding/board_accuracy"])
        val_probs = read_probabilities(model.reader, data.val.boards)
        test_probs = read_probabilities(model.reader, data.test.boards)
        for clip in clips:
            val_margin = margins(decode_boards(val_probs, time_limit=limit, clip=clip))
            tau = calibrate_tau(val_margin, data.val.boards.valid)
            test_margin = margins(decode_boards(test_probs, time_limit=limit, clip=clip))
            wrong = (test_margin >= -tau) != data.test.boards.valid
            now[clip].append(1 - float(wrong.mean()))
            by_kind = Counter(kind for kind, w in zip(data.test.kinds, wrong) if w)
            print(f"{str(run):<40} | {100 * recorded[-1]:14.1f} | {then['test/map_decoding/tau']:10.2f} | "
                  f"{clip:5.0e} | {100 * now[clip][-1]:9.1f} | {tau:6.2f} | "
                  f"{calibration_log_likelihood(val_margin, data.val.boards.valid, tau):11.1f} | "
                  f"{', '.join(f'{k} {c}' for k, c in sorted(by_kind.items())) or 'none'}", flush=True)
    for clip in clips:
        print(f"{'mean ± std':<40} | {_cell(recorded):>14} | {'':>10} | {clip:5.0e} | {_cell(now[clip]):>9} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, choices=(4, 9), required=True)
    parser.add_argument("--train-boards", type=int, nargs="+", default=[10, 50, 100])
    parser.add_argument("--splits", type=int, default=5)
    parser.add_argument("--first-split", type=int, default=0)
    parser.add_argument("--json", type=Path, help="also write every run's figures here")
    parser.add_argument("--from-json", type=Path, nargs="+", metavar="FILE",
                        help="train nothing: print the table of the runs saved by earlier --json runs (e.g. splits "
                             "run in parallel processes)")
    parser.add_argument("--keep-runs", type=Path, metavar="DIR",
                        help="keep each LTN run's folder (best.pt, metrics.json, tb/) under DIR, e.g. to ship one")
    parser.add_argument("--rescore-runs", type=Path, nargs="+", metavar="RUN",
                        help="train nothing: recompute the reader + MAP column of runs kept by --keep-runs with the "
                             "current decoding and τ calibration, beside the figure each run recorded")
    parser.add_argument("--clips", type=float, nargs="+", default=[CLIP], metavar="P",
                        help="with --rescore-runs: the probability clips to compare (default: the decoder's own)")
    parser.add_argument("--test-seed", type=int, metavar="SEED",
                        help="with --rescore-runs: score fresh held-out boards of this seed instead of the runs' own")
    parser.add_argument("overrides", nargs="*", help="Hydra overrides of the LTN's config (after --)")
    args = parser.parse_args()
    if args.rescore_runs or not args.from_json:  # --from-json: the runs' own CPU, in the table's note
        print(machine_line())
    if args.rescore_runs:
        rescore_runs(args.rescore_runs, args.clips, args.test_seed)
        return
    if args.from_json:
        saved = [json.loads(f.read_text()) for f in args.from_json]
        print_table(args.size, [r for s in saved if s["size"] == args.size for r in s["runs"]],
                    "from " + ", ".join(map(str, args.from_json)) + "; overrides: " +
                    " | ".join(" ".join(s["overrides"]) or "(none)" for s in saved) +
                    "; peak memory " + ", ".join(f"{s['peak_mb']:.0f}" for s in saved) + " MB; CPU " +
                    ", ".join(dict.fromkeys(s.get("cpu", "not recorded") for s in saved)),
                    " | ".join(dict.fromkeys(s.get("ltn_teaching", "LTN teaching not recorded (runs before "
                                                   "abduction: rule axioms on valid boards, pool 2)") for s in saved)))
        return
    torch.set_num_threads(1)
    base = compose_config([f"model=visual_{args.size}x{args.size}", *args.overrides])
    with open_dict(base):
        base.data.train_boards = max(args.train_boards)
    teaching = ltn_teaching(base)
    wall = time.perf_counter()
    runs: list[dict[str, Any]] = []
    progress = Progress(args.splits * len(args.train_boards))
    logging.basicConfig(level=logging.INFO, format="  %(message)s")  # the LTN's epoch lines
    for split in range(args.first_split, args.first_split + args.splits):
        progress.say(f"split {split}: making the boards (MNIST images)")
        data = build_data(args.size, base.data, split)
        for k in args.train_boards:
            result = one_run(data, args.size, k, split, args.overrides, args.keep_runs, progress)
            progress.finished_run()
            runs.append({"split": split, "train_boards": k, **result})
            print(f"split {split} k={k}: " + ", ".join(f"{m} {result[m]['board']:.3f}" for m in MODELS) +
                  f", ltn+map {result['ltn']['map']:.3f}, oracle+map {result['oracle']['map']:.3f}", flush=True)
            if args.json is not None:  # after every run: a stopped benchmark keeps what it measured
                _write(args.json, args.size, args.overrides, runs, teaching)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print_table(args.size, runs, f"{base.data.test_boards} held-out test boards; overrides: "
                f"{' '.join(args.overrides) or '(none)'}; peak memory {peak:.0f} MB, "
                f"wall {time.perf_counter() - wall:.0f} s", teaching)
    if args.json is not None:
        _write(args.json, args.size, args.overrides, runs, teaching)


def _write(path: Path, size: int, overrides: list[str], runs: list[dict[str, Any]], teaching: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    path.write_text(json.dumps({"size": size, "overrides": overrides, "runs": runs, "peak_mb": peak, "cpu": cpu_name(),
                                "ltn_teaching": teaching}, indent=1) + "\n")


if __name__ == "__main__":
    main()
