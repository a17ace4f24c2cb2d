"""docs/models.md: a model card for every shipped checkpoint (scripts/render_docs.py renders it from checkpoints/:
each checkpoint's config and its metrics.json, written when it was trained and evaluated).

A card says what the model read and was taught by, how it was made (the commands recorded), its figures each beside
a baseline computed on the same boards by the same command, where it fails, and the licences of its training data.
Nothing is typed in by hand: a figure the metrics file does not hold is left out.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ltn_sudoku.logic.board.model import ModelConfig, describe_inputs
from ltn_sudoku.logic.checkpoints import load_checkpoint, model_kind

WEAK = 0.5  # a tier where the model solves less than this share is named among its limits


def _pct(value: float | None) -> str:
    return "not recorded" if value is None else f"{100 * value:.1f} %"


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    return [_row(header), _row(["---"] + ["---:"] * (len(header) - 1)), *map(_row, rows), ""]


def _board_figures(ev: dict[str, Any], tiers: bool) -> list[list[str]]:
    """(question, measure, model, baseline, what the baseline is) rows from an evaluation's metrics."""
    rows: list[list[str]] = []
    if "q1_is_correct/accuracy" in ev:
        count, valid = ev["q1_is_correct/count"], ev.get("q1_is_correct/valid/count", 0)
        majority = max(valid, count - valid) / count if count else None
        rows.append([f"Q1 isCorrect ({count:.0f} closed boards)", "accuracy", _pct(ev["q1_is_correct/accuracy"]),
                     _pct(majority), "the larger class (valid or invalid)"])
    if "q2_has_solution/balanced_accuracy" in ev:
        rows.append([f"Q2 hasSolution ({ev['q2_has_solution/count']:.0f} open boards)", "balanced accuracy",
                     _pct(ev["q2_has_solution/balanced_accuracy"]),
                     _pct(ev.get("q2_has_solution/singles_balanced_accuracy")),
                     "the singles loop (no solution when singles reach a contradiction)"])
    if "solve/board_accuracy" in ev:
        rows.append([f"solving without search ({ev['solve/count']:.0f} unique puzzles)", "boards solved",
                     _pct(ev["solve/board_accuracy"]), "by tier below" if tiers else "not recorded",
                     "the singles loop, the tier-limited engine"])
    if "heuristics/macro_f1" in ev:
        rows.append(["recommendsHeuristic", "macro-F1", _pct(ev["heuristics/macro_f1"]),
                     _pct(ev.get("heuristics/always_yes_macro_f1")), "always yes"])
    if "dead_end/f1" in ev:
        share = ev.get("dead_end/share")
        always = 2 * share / (1 + share) if share else None
        rows.append([f"a move's dead end ({ev['dead_end/moves']:.0f} moves)", "F1", _pct(ev["dead_end/f1"]),
                     _pct(always), "every move a dead end"])
    return rows


def _tiers(tables: dict[str, Any]) -> tuple[list[str], list[str]]:
    """The tier table (model beside the singles loop and the engine) and the tiers where the model is weak."""
    rows, weak = [], []
    for r in tables.get("tier", []):
        ceiling = r.get("engine_≤T5")
        rows.append([str(r["index"]), f"{r['puzzles']:,}", _pct(r["model"]), _pct(r["singles"]), _pct(ceiling),
                     _pct(r.get("model_cells"))])
        if r["model"] < WEAK and r["index"] != "all":
            weak.append(f"{r['index']} ({_pct(r['model'])} of {r['puzzles']:,})")
    if not rows:
        return [], weak
    return _table(["tier", "puzzles", "model solved", "singles loop", "engine ≤ T5", "model cells right"], rows), weak


def board_card(name: str, config: dict[str, Any], metrics: dict[str, Any]) -> list[str]:
    model, data, ev = config["model"], config["data"], metrics.get("evaluation", {})
    inputs = describe_inputs(ModelConfig.from_cfg(model))
    training = metrics.get("training", {})
    kaggle = data.get("kaggle_path")
    source = (f"{data['train']['solvable']:,} generated solvable puzzles (as solving states) and "
              f"{data['train']['impossible']:,} generated impossible boards"
              + (f", plus {data['kaggle_rows']['train']:,} real Kaggle rows (their fixed train split)" if kaggle else "")
              + f"; {training.get('train/boards_seen', 0):,.0f} boards seen in training")
    out = [f"## {name} (`checkpoints/{name}.pt`)", "",
           f"A {model['size']}x{model['size']} board model, experiment `{metrics.get('experiment')}` "
           f"(`{metrics.get('experiment_command', '')}`), best epoch {metrics.get('best_epoch')}.", "",
           f"- **Data**: {source}.",
           f"- **Inputs**: hasValue reads {inputs['hasValue']}; hasSolution reads {inputs['hasSolution']}; "
           f"isCorrect: {inputs['isCorrect']}; recommendsHeuristic reads {inputs['recommendsHeuristic']}.",
           "- **Supervision**: " + ("the solutions (the supervised axiom: a reference run)" if
                                    config["train"].get("supervised") else
                                    "no solutions: the knowledge base's axioms (SatAgg over hasValue); hasSolution's "
                                    "and recommendsHeuristic's labels (solvable or not, which techniques apply) come "
                                    "from the exact engine on each training board")
           + f"; logic `{config['logic'].get('family', '?')}`.",
           f"- **Trained by**: `{metrics.get('train_command', '')}`.",
           f"- **Evaluated by**: `{metrics.get('evaluate_command', '')}` on held-out generated boards"
           + (" and held-out Kaggle rows" if kaggle else "") + ".", "",
           "### Figures beside their baselines", ""]
    tiers, weak = _tiers(metrics.get("tables", {}))
    out += _table(["question", "measure", "model", "baseline", "the baseline"], _board_figures(ev, bool(tiers)))
    if tiers:
        out += ["Solving by reasoning tier (the smallest family of techniques that solves the puzzle; solved = "
                "hasValue's decoded board is the exact solution, no search):", "", *tiers]
    limits = ["no search: a puzzle counts as solved only when one refinement gets every cell right (the complete "
              "solver, `solve --ltn --complete`, adds search and is exact)"]
    if weak:
        limits.append("weak beyond the easy tiers: " + "; ".join(weak))
    q2, singles = ev.get("q2_has_solution/balanced_accuracy"), ev.get("q2_has_solution/singles_balanced_accuracy")
    if q2 is not None and singles is not None and q2 < singles:
        limits.append(f"hasSolution ({_pct(q2)}) is below the singles loop ({_pct(singles)}), a cheap symbolic check")
    limits.append(f"answers {model['size']}x{model['size']} boards only")
    out += ["### Limits", "", *[f"- {line}." for line in limits], "",
            "### Licence", "",
            "The weights: MIT, as the project. Training data: boards made by the package's generators (MIT)"
            + ("; Kaggle rows, whose licences are noted, unconfirmed, in data/kaggle/README.md" if kaggle else "")
            + ".", ""]
    return out


def visual_card(name: str, config: dict[str, Any], metrics: dict[str, Any]) -> list[str]:
    model, data = config["model"], config["data"]
    ev, training = metrics.get("evaluation", {}), metrics.get("training", {})
    n = model["size"]
    rows = [["isCorrect from the images (learned)", "board accuracy", _pct(ev.get("test/board_accuracy")),
             _pct(ev.get("test/read_then_check/board_accuracy")),
             "the same reader's digits checked by the exact rules"],
            ["the reader + exact MAP decoding", "board accuracy", _pct(ev.get("test/map_decoding/board_accuracy")),
             _pct(ev.get("test/read_then_check/board_accuracy")), "the same reader's digits checked by the exact rules"],
            ["the reader (digits, best renaming)", "digit accuracy", _pct(ev.get("test/digit_accuracy")), _pct(1 / n),
             "chance (one digit in n)"]]
    out = [f"## {name} (`checkpoints/{name}.pt`)", "",
           f"A {n}x{n} visual model (ViSudo-PC), experiment `{metrics.get('experiment')}` "
           f"(`{metrics.get('experiment_command', '')}`), best epoch {metrics.get('best_epoch')}.", "",
           f"- **Data**: {data.get('train_boards')} training boards of MNIST training digits (generated boards, half "
           f"valid), {data.get('val_boards')} validation boards; {training.get('train/boards_seen', 0):,.0f} boards "
           "seen; tested on held-out boards of MNIST's t10k digits.",
           f"- **Inputs**: each cell's 28x28 grayscale image ({n * n} per board); a CNN reader is hasValue.",
           "- **Supervision**: board labels only (valid or invalid), no digit labels: the rule axioms on valid "
           "boards, then abduced grids (docs/visual.md).",
           f"- **Trained by**: `{metrics.get('train_command', '')}`.", "",
           "### Figures beside their baselines", "",
           f"On {ev.get('test/boards', 0):.0f} held-out test boards; the CNN board classifier and the oracle reader "
           "trained on the same boards are compared in [Visual Sudoku](visual.md).", ""]
    out += _table(["question", "measure", "model", "baseline", "the baseline"], rows)
    out += ["### Limits", "",
            "- the reader names digits only up to a renaming (the rules cannot tell digits apart): "
            "digit accuracy is measured under the best renaming.",
            f"- isCorrect's valid boards: recall {_pct(ev.get('test/valid_recall'))} against "
            f"{_pct(ev.get('test/invalid_recall'))} on invalid ones.",
            f"- reads {n}x{n} boards of MNIST-like digits only.", "",
            "### Licence", "",
            "The weights: MIT, as the project. Training data: MNIST digits, CC BY-SA 3.0 (Y. LeCun, C. Cortes; "
            "see data/README.md), on boards made by the package's generators.", ""]
    return out


def render(checkpoints: Path) -> str:
    out = ["# Model cards", "",
           "<!-- generated by scripts/render_docs.py from checkpoints/ (each checkpoint's config and metrics.json): "
           "edit those, then run the script -->", "",
           "One card per shipped checkpoint: what it reads, what taught it, how it was made, its figures each beside "
           "a baseline computed by the same command on the same boards, its limits and the licences of its data. "
           "Load any of them with `ltn_sudoku.load_model(name)` ([the models as a Python API](reference/models-api.md)).",
           ""]
    for path in sorted(checkpoints.glob("*.pt")):
        metrics_file = path.with_suffix(".metrics.json")
        if not metrics_file.is_file():
            continue
        config = load_checkpoint(path)["config"]
        metrics = json.loads(metrics_file.read_text())
        card = visual_card if model_kind(config) == "visual" else board_card
        out += card(path.stem, config, metrics)
    return "\n".join(out).rstrip("\n") + "\n"
