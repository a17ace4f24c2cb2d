"""The evaluation of a board model: `evaluate(cfg)` (the entry point `python -m ltn_sudoku.evaluate model=9x9
[checkpoint=PATH]` is ltn_sudoku/evaluate.py).

Every metric of docs/design.md §7.2 on held-out boards (generated with evaluate.seed, and any board that also occurs in
the checkpoint's training data removed), with the symbolic engine as the oracle; written to metrics.json and TensorBoard
in the run folder. `evaluate(cfg)` is the plain function tests call.
"""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from omegaconf import DictConfig, OmegaConf
from torch.utils.tensorboard import SummaryWriter

from ltn_sudoku.board import Board
from ltn_sudoku.exact import count_solutions_batch
from ltn_sudoku.io import atomic_write_text, read_boards, strict_json
from ltn_sudoku.logic.board import assess, data, reasoning
from ltn_sudoku.logic.board.data import build_splits
from ltn_sudoku.logic.board.labels import resolve_techniques
from ltn_sudoku.logic.board.literature import LITERATURE_FILES, public_file, read_public
from ltn_sudoku.logic.board.metrics import accuracy, balanced_accuracy, reliability
from ltn_sudoku.logic.board.model import ModelConfig, describe_inputs, load_board_model
from ltn_sudoku.logic.board.search import search_metrics
from ltn_sudoku.logic.checkpoints import shipped_checkpoint
from ltn_sudoku.logic.device import device_of, to_list, to_numpy
from ltn_sudoku.logic.groundings.grounding import one_hot_givens
from ltn_sudoku.logic.kb.axioms import no_solution
from ltn_sudoku.logic.training.runtime import configure_torch, evaluation_folder, run_directory
from ltn_sudoku.paths import DataNotFound, data_file
from ltn_sudoku.questions.tiers import singles_loop_outcome

DEFAULT_GIVENS_BINS: dict[int, list[tuple[int, int]]] = {4: [(4, 6), (7, 8), (9, 10)],
                                                          9: [(17, 23), (24, 29), (30, 35), (36, 40)]}
PUBLIC_SETS: dict[str, str] = {  # evaluate.public names -> files of the data home (paths.data_file; docs/data.md)
    "seventeen_clue": "9x9/17clue_49158.txt", "qqwing_simple": "9x9/qqwing_simple.txt",
    "qqwing_easy": "9x9/qqwing_easy.txt", "qqwing_intermediate": "9x9/qqwing_intermediate.txt",
    "qqwing_expert": "9x9/qqwing_expert.txt",
    "top95": "9x9/top95.txt", "top1465": "9x9/top1465.txt", "forum_hardest": "9x9/forum_hardest_1106.txt",
    **LITERATURE_FILES}  # the learned solvers' literature (docs/results/literature.md)
SEVENTEEN_SAMPLE = "9x9/17clue_sample1000.txt"  # shipped in data/ (data/README.md)
# Figures that hold by construction, reported apart from the learned ones.
BY_CONSTRUCTION: dict[str, str] = {
    "q1_is_correct": "isCorrect on symbolic boards is the constraint axioms' satisfaction on the board's own digits "
                     "with a calibrated threshold: exact by definition, nothing is learned"}


def _without(boards: data.BoardSet, seen: set[tuple[int, ...]]) -> data.BoardSet:
    keep = [i for i, row in enumerate(to_list(boards.puzzles)) if tuple(row) not in seen]
    return boards.select(keep)


def _per_origin(prefix: str, truths: np.ndarray, labels: np.ndarray, origins: tuple[str, ...],
                threshold: float) -> dict[str, float]:
    out = {}
    for origin in sorted(set(origins)):
        mask = np.array([o == origin for o in origins])
        out[f"{prefix}/{origin}/accuracy"] = accuracy(truths[mask] >= threshold, labels[mask])
        out[f"{prefix}/{origin}/count"] = float(mask.sum())
    return out


def training_boards(config: dict[str, Any]) -> set[tuple[int, ...]]:
    """Every board of the checkpoint's training and validation data (regenerated from its config)."""
    cfg = OmegaConf.create(config)
    splits = build_splits(cfg, ModelConfig.from_cfg(config["model"]))
    return {tuple(row) for s in (splits.train, splits.val_open, splits.val_closed) for row in to_list(s.puzzles)}


def _print_other_questions(metrics: dict[str, float]) -> None:
    """The sections after the solving tables, each once under its own title: recommendsHeuristic, dead-end moves,
    the LTN-guided search, isCorrect (the figures docs/ltn.md's Evaluation section lists)."""
    def section(title: str, prefix: str) -> None:
        keys = sorted(k for k in metrics if k.startswith(prefix))
        if keys:
            print(f"\n{title}\n" + "\n".join(f"  {k.removeprefix(prefix)}: {metrics[k]:.3f}" for k in keys))

    section("isCorrect on closed boards (every invalid kind)", "q1_is_correct/")
    section("recommendsHeuristic (decision: truth >= 0.5; baseline: always yes)", "heuristics/")
    section("dead-end moves (every basic-rule candidate move; truth: the exact solver's count)", "dead_end/")
    section("LTN-guided search within the node budget (17-clue and subtle impossible boards)", "search/")


def _silent_summary(metrics: dict[str, float]) -> str:
    """hasSolution where the singles loop is silent; with one class only there is no balanced accuracy to compare."""
    key = "q2_has_solution_singles_silent"
    impossible, count = metrics[f"{key}/impossible"], metrics[f"{key}/count"]
    if 0 < impossible < count:
        return f"balanced accuracy {metrics[f'{key}/balanced_accuracy']:.3f} (the loop: 0.5)"
    return (f"accuracy {metrics[f'{key}/accuracy']:.3f} (one class only: no balanced "
            "accuracy; the loop calls them all solvable)")


def seen_boards(payload: dict[str, Any], kaggle_path: str | None) -> set[tuple[int, ...]]:
    """The training and validation boards of a checkpoint and of every run it was warm-started from (its lineage),
    with the Kaggle path of this command (a checkpoint's own paths are never followed)."""
    configs = [payload["config"], *payload.get("extra", {}).get("lineage", [])]
    return set().union(*(training_boards({**c, "data": {**c["data"], "kaggle_path": kaggle_path}}) for c in configs))


Source = tuple[str, list[Board], dict[str, np.ndarray]]  # name, puzzles, extra per-puzzle columns


def solving_sources(cfg: DictConfig, n: int, seed: int, seen: set[tuple[int, ...]]) -> list[Source]:
    """The puzzles hasValue is measured on, by origin: generated over the whole givens range, public sets from the
    shared data (9x9), and held-out real Kaggle rows when a path is given. Boards seen in training are removed."""
    e = cfg.evaluate
    bins = _bins(cfg, n)
    span = (bins[0][0], bins[-1][1])
    generated = _without(data.generated(n, "open_solvable", int(e.solving), seed + 1, givens=span), seen)
    sources: list[Source] = [("generated", generated.boards(), {})]
    if n == 9:
        for name, count in (e.get("public") or {}).items():
            if int(count) <= 0:
                continue
            try:
                source, path = public_file(str(name), PUBLIC_SETS)  # a shipped stand-in under its own name
            except DataNotFound as missing:  # a full set not fetched: the tables go on without it, and say so
                print(f"evaluate.public.{name} skipped: {missing}")
                continue
            boards = sample_public(read_public(path), int(count), seed)
            sources.append((source, [b for b in boards if tuple(b.values) not in seen], {}))
    if n == 9 and e.get("kaggle_path"):  # held-out real rows: the test split, a sample of each Kaggle set
        rows = _without(data.kaggle_sample(str(e.kaggle_path), "test", 10 ** 9, seed), seen)
        for name in sorted(set(rows.origins)):
            members = np.random.default_rng([seed, 3]).permutation(np.flatnonzero(np.array(rows.origins) == name))
            rated = ~np.isnan(to_numpy(rows.difficulty)[members])  # rated 3M rows first: the difficulty table needs them
            pick = np.sort(np.concatenate([members[rated], members[~rated]])[: int(e.kaggle_limit)])
            subset = rows.select(pick)
            sources.append((f"kaggle_{name}", subset.boards(), {"difficulty": to_numpy(subset.difficulty)}))
    return sources


def _seventeen_clue() -> Path:
    """The 17-clue list of the data home, else the sample of it that ships in data/ (the search's sparse puzzles)."""
    try:
        return data_file(PUBLIC_SETS["seventeen_clue"])
    except DataNotFound:
        print(f"evaluate.search: the full 17-clue list is not in the data home; using the shipped {SEVENTEEN_SAMPLE}")
        return data_file(SEVENTEEN_SAMPLE)


def sample_public(boards: list[Board], count: int, seed: int) -> list[Board]:
    """A seeded random sample of a public file's puzzles (all of them when the file has no more)."""
    if len(boards) <= count:
        return boards
    pick = np.random.default_rng([seed, 9]).choice(len(boards), size=count, replace=False)
    return [boards[i] for i in sorted(pick)]


def _bins(cfg: DictConfig, n: int) -> list[tuple[int, int]]:
    e = cfg.evaluate
    return [tuple(b) for b in e.givens_bins] if e.givens_bins else DEFAULT_GIVENS_BINS.get(n, [(0, n * n)])


def config_problem(cfg: DictConfig) -> str | None:
    """An evaluate.* setting that would leave a table without boards, as one line naming the key, or None (checked
    before any work: evaluate.open=1 was a KeyError once every board was answered): givens bins of [low, high] within
    the board, and enough open boards for a solvable and both impossible kinds in every bin."""
    e, n = cfg.evaluate, int(cfg.model.size)
    if e.givens_bins:
        spans = OmegaConf.to_container(e.givens_bins) if OmegaConf.is_config(e.givens_bins) else e.givens_bins
        if not (isinstance(spans, list) and all(isinstance(b, list) and len(b) == 2 and all(isinstance(v, int)
                for v in b) and 0 <= b[0] <= b[1] <= n * n for b in spans)):
            return f"evaluate.givens_bins={spans}: expected [[low, high], ...] with 0 <= low <= high <= {n * n}"
    bins = len(_bins(cfg, n))
    if int(e.open) < 4 * bins:
        return (f"evaluate.open={int(e.open)}: at least {4 * bins} (each of the {bins} givens bins needs a solvable "
                "board and one of each impossible kind: 4 per bin)")
    return None


def open_boards_by_givens(n: int, per_bin: int, bins: list[tuple[int, int]], seed: int) -> data.BoardSet:
    """Balanced open boards in every givens bin: half solvable, a quarter each obviously and subtly impossible."""
    sets = [data.generated(n, label, count, seed + 7 * i, givens=span, kind=kind)
            for i, span in enumerate(bins)
            for label, count, kind in (("open_solvable", per_bin // 2, None),
                                       ("open_impossible", per_bin // 4, "obvious"),
                                       ("open_impossible", per_bin // 4, "subtle"))]
    return data.BoardSet.concat(sets)


def has_solution_by_givens(truths: np.ndarray, labels: np.ndarray, givens: np.ndarray, threshold: float,
                           bins: list[tuple[int, int]], refuted: np.ndarray) -> tuple[dict[str, float], pd.DataFrame]:
    """hasSolution's balanced accuracy, AUROC and calibration error in every givens bin and on all boards, beside
    the singles loop's (impossible exactly when it meets a dead end) balanced accuracy on the same boards."""
    out: dict[str, float] = {}
    rows = []
    groups = [(f"{low}-{high}", f"q2_has_solution_givens_{low}_{high}", (givens >= low) & (givens <= high))
              for low, high in bins]
    for name, key, mask in [*groups, ("all", "q2_has_solution", np.ones_like(labels, dtype=bool))]:
        if not mask.any():
            continue
        out.update(assess.binary_metrics(key, truths[mask], labels[mask], threshold))
        out[f"{key}/balanced_accuracy"] = balanced_accuracy(truths[mask] >= threshold, labels[mask])
        out[f"{key}/singles_balanced_accuracy"] = balanced_accuracy(~refuted[mask], labels[mask])
        rows.append({"givens": name, "boards": int(mask.sum()), "balanced_accuracy": out[f"{key}/balanced_accuracy"],
                     "auroc": out[f"{key}/auroc"], "ece": out[f"{key}/ece"],
                     "singles_loop_balanced_accuracy": out[f"{key}/singles_balanced_accuracy"]})
    return out, pd.DataFrame(rows).set_index("givens")


def evaluate(cfg: DictConfig) -> dict[str, float]:
    """All metrics of one checkpoint on held-out boards; also written to metrics.json and TensorBoard."""
    configure_torch(cfg)
    run_dir = evaluation_folder(run_directory(cfg))  # never over a training's metrics.json (issue 49)
    size = int(cfg.model.size)
    path = Path(str(cfg.checkpoint)) if cfg.checkpoint else shipped_checkpoint(size)
    model, ops, payload = load_board_model(path, size, cfg.device_resolved)
    if cfg.evaluate.get("eval_steps"):
        model.config = replace(model.config, eval_steps=int(cfg.evaluate.eval_steps))
    n, e, seed = model.n, cfg.evaluate, int(cfg.evaluate.seed)
    seen = seen_boards(payload, cfg.data.get("kaggle_path"))
    bins = _bins(cfg, n)
    half = lambda count: int(count) // 2  # noqa: E731
    closed = _without(data.BoardSet.concat([data.generated(n, "closed_valid", half(e.closed), seed),
                                            data.generated(n, "closed_invalid", half(e.closed), seed)]), seen)
    open_boards = _without(open_boards_by_givens(n, int(e.open) // len(bins), bins, seed), seen)
    metrics: dict[str, float] = {"heldout/removed_seen_boards": float(
        int(e.closed) + len(bins) * (int(e.open) // len(bins) // 2 + 2 * (int(e.open) // len(bins) // 4))
        - len(closed) - len(open_boards))}

    truths, labels = assess.is_correct_scores(model, ops, closed)
    threshold = float(model.is_correct_threshold)
    metrics.update(assess.binary_metrics("q1_is_correct", truths, labels, threshold))
    metrics.update(_per_origin("q1_is_correct", truths, labels, closed.origins, threshold))

    truths, labels = assess.has_solution_scores(model, ops, open_boards)
    threshold = float(model.has_solution_threshold)
    metrics.update(_per_origin("q2_has_solution", truths, labels, open_boards.origins, threshold))
    givens = to_numpy((open_boards.puzzles > 0).sum(-1))
    refuted = singles_loop_outcome(to_numpy(open_boards.puzzles), n)[1]
    by_givens, has_solution_table = has_solution_by_givens(truths, labels, givens, threshold, bins, refuted)
    metrics.update(by_givens)
    silent = ~refuted  # where the 20-line baseline cannot tell (it calls them all solvable)
    metrics.update(assess.binary_metrics("q2_has_solution_singles_silent", truths[silent], labels[silent], threshold))
    metrics["q2_has_solution_singles_silent/balanced_accuracy"] = balanced_accuracy(
        truths[silent] >= threshold, labels[silent])
    metrics["q2_has_solution_singles_silent/impossible"] = float((labels[silent] == 0).sum())
    print(f"\nhasSolution by givens (balanced open boards: half solvable, a quarter each obviously / subtly "
          f"impossible; reads {model.config.solution_inputs!r} inputs; baseline: the singles loop, impossible when "
          f"it meets a dead end)\n{has_solution_table.to_string(float_format=lambda x: f'{x:.3f}')}\n"
          f"where the singles loop meets no dead end ({int(silent.sum())} boards, "
          f"{int(metrics['q2_has_solution_singles_silent/impossible'])} impossible): {_silent_summary(metrics)}")
    for i, (predicted, observed, count) in enumerate(reliability(truths, labels)):
        metrics.update({f"q2_has_solution_reliability/{i}/predicted": predicted,
                        f"q2_has_solution_reliability/{i}/observed": observed,
                        f"q2_has_solution_reliability/{i}/count": float(count)})
    if model.config.solution_inputs == "symbolic":  # the boards whose impossibility the crisp NoSolution input misses
        values = open_boards.puzzles.to(device_of(model))
        silent = to_numpy(no_solution(model.grounding, one_hot_givens(values, n)) < 0.5)
        metrics.update(assess.binary_metrics("q2_has_solution_no_solution_silent", truths[silent], labels[silent],
                                             threshold))

    rows = pd.concat([reasoning.solving_rows(model, name, boards, progress=bool(e.get("progress", False)),
                                             extra=extra)
                      for name, boards, extra in solving_sources(cfg, n, seed, seen)], ignore_index=True)
    tables = {"tier": reasoning.by_tier(rows), "givens": reasoning.by_givens(rows, bins),
              "source": reasoning.by_source(rows), "has_solution": has_solution_table}
    if "difficulty" in rows and rows["difficulty"].notna().any():
        tables["difficulty"] = reasoning.by_difficulty(rows)
    for name, table in tables.items():
        metrics.update(reasoning.flat(name, table))
        if name != "has_solution":  # printed above, under its own title
            print(f"\nhasValue solving by {name} (solved = hasValue's answer from the puzzle as given is the "
                  f"solution, after {model.config.eval_steps} steps; baselines on the same puzzles)\n"
                  f"{table.to_string(float_format=lambda x: f'{x:.3f}')}")
    generated = data.generated(n, "open_solvable", int(e.solving), seed + 1, givens=(bins[0][0], bins[-1][1]))
    metrics.update(assess.solving(model, _without(generated, seen)))

    if int(e.search.puzzles) > 0:  # LTN-guided search: sparse solvable and subtle impossible boards
        span, count = (bins[0][0], bins[0][1]), int(e.search.puzzles)
        solvable = (sample_public(read_boards(_seventeen_clue()), count, seed) if n == 9
                    else data.generated(n, "open_solvable", count, seed + 5, span).boards())
        impossible = data.generated(n, "open_impossible", int(e.search.impossible), seed + 5, span, kind="subtle")
        boards = [*solvable, *impossible.boards()]
        boards = [b for b in boards if tuple(b.values) not in seen]
        counts = count_solutions_batch(np.array([b.values for b in boards]), limit=1).tolist()
        metrics.update(search_metrics(model, boards, counts, int(e.search.budget)))

    techniques = resolve_techniques(model.config.techniques, n)
    states = data.label_techniques(data.solving_states(_without(generated, seen), seed), techniques)
    metrics.update(assess.heuristics(model, states))
    dead = _without(generated, seen)
    metrics.update(assess.dead_ends(model, ops, dead.select(range(min(len(dead), int(e.dead_end_puzzles))))))
    metrics.update(assess.inference_speed(model, ops, _without(generated, seen)))
    trained = payload["extra"].get("metrics", {})
    for key in ("train/cpu_seconds", "train/boards_seen", "train/boards_per_cpu_second", "train/epoch"):
        if key in trained:
            metrics[key.replace("train/", "cost/train_")] = float(trained[key])
    metrics["checkpoint/is_correct_threshold"] = float(model.is_correct_threshold)
    metrics["checkpoint/has_solution_threshold"] = float(model.has_solution_threshold)
    metrics["checkpoint/eval_steps"] = float(model.config.eval_steps)

    _print_other_questions(metrics)
    writer = SummaryWriter(str(run_dir / "tb"))
    for name, value in metrics.items():
        if math.isfinite(value):
            writer.add_scalar(f"eval/{name}", value, 0)
    writer.close()
    report = {"checkpoint": str(path), "inputs": describe_inputs(model.config),
              "by_construction": BY_CONSTRUCTION, "tables": {k: t.reset_index().to_dict("records")
                                                             for k, t in tables.items()}, "metrics": metrics}
    atomic_write_text(run_dir / "metrics.json", strict_json.dumps(report, indent=2, sort_keys=True, default=float) + "\n")
    print(f"\nevaluation written to {run_dir / 'metrics.json'} (TensorBoard: {run_dir / 'tb'})")
    return metrics
