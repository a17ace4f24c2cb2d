"""docs/results/learned.md: what the LTN learns, by reasoning tier (scripts/render_docs.py renders it from
docs/results/learned/, written by scripts/bench_learned_tiers.py --record and scripts/learning_curve.py --record)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

TIER_ORDER = ("T1 singles", "T2 + locked candidates", "T3 + subsets", "T4 + fish/wings/single-digit/colouring/uniqueness",
              "T5 + chains/ALS/Sue de Coq", "T6 forcing chains or search", "all")
SET_TITLES = {"generated_17_40": "Generated unique puzzles, 17-40 givens (held out)",
              "kaggle_3m_test": "Real Kaggle 3M rows (fixed test split)",
              "seventeen_clue": "17-clue puzzles (seeded sample)"}


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def tier_tables(tiers: pd.DataFrame, models: dict[str, dict[str, object]]) -> list[str]:
    """Per set: a row per tier, the singles loop's solved share, then each model's with its paired difference from
    the singles loop [95 % interval], and the engine's ceiling (by the tiers' definition)."""
    out: list[str] = []
    learned = [m for m in tiers.solver.unique() if m != "singles loop"]
    for name, part in tiers.groupby("set", sort=False):
        out += [f"### {SET_TITLES.get(str(name), str(name))}", ""]
        header = ["tier", "puzzles", "singles loop", *[f"{m} (minus singles [95 %])" for m in learned],
                  "engine ≤ tier (by definition)"]
        out += [_row(header), _row(["---"] + ["---:"] * (len(header) - 1))]
        for tier in [t for t in TIER_ORDER if t in set(part.tier)]:
            rows = part[part.tier == tier].set_index("solver")
            base = rows.loc["singles loop"]
            cells = [tier, f"{int(base.puzzles)}", f"{100 * base.solved:.1f} %"]
            for model in learned:
                r = rows.loc[model]
                cells.append(f"{100 * r.solved:.1f} % ({100 * r['minus singles']:+.1f} "
                             f"[{100 * r.low:+.1f}, {100 * r.high:+.1f}])")
            ceiling = "—" if tier == "all" else ("0 % (search)" if tier.startswith("T6") else "100 %")
            out.append(_row(cells + [ceiling]))
        out.append("")
    out += ["Models and what they read:", ""]
    out += [f"- **{label}**: `{m['checkpoint']}`, {m['hasvalue']} grounding, {m['inputs']}; "
            f"{'supervised (its training reads the solutions: a reference)' if m['supervised'] else 'rules only'}"
            for label, m in models.items()]
    return out + [""]


CURVE_COMMAND = ("python scripts/learning_curve.py --chain --variants rules_only,supervised --min-boards 1000 "
                 "--max-boards 256000 --chain-step 16000 --eval-sets generated_17_40,kaggle_3m_test --eval-split test "
                 "--eval-order root --eval-puzzles 200 --out-dir checkpoints/curve --record docs/results/learned/curve")
INTRO = ("The package's question, answered where it is hardest to fool: the learned hasValue models that get no crisp "
         "input (message passing trained by the rules alone, and the same trained with the solutions as a "
         "reference), each beside the singles loop and the engine on the same held-out puzzles, broken down by the "
         "reasoning tier each puzzle needs ([tiers](../tiers.md)). The row where learning stops is the answer. "
         "Solved means one thing everywhere in the package: the model's answer from the puzzle as given (its most "
         "probable digit in every empty cell, no search) is the solution. Each learned cell shows the solved share "
         "and, in brackets, the paired difference from the singles loop in points with its 95 % bootstrap "
         "interval. The evidence grounding, which reads hand-made symbolic evidence, is a propagator with "
         "hand-made features: it is shown for what it is, not as what LTN learns.")


def curve_section(frame: pd.DataFrame) -> list[str]:
    """The chain's points (scripts/learning_curve.py --chain --record): solved per set beside the singles loop,
    against boards seen and CPU seconds."""
    out = ["## The learning curve against compute", "",
           "One continuing run per variant (rules only; supervised), message passing 9x9 (`model=9x9_mp "
           "logic=product_mp`), each point training only the boards it adds (fresh generated boards, 80 % solvable "
           "puzzles as solving states, 20 % impossible) from the previous point's weights at a constant learning "
           "rate; measured on the same held-out puzzles at every point (200 generated 17-40-given puzzles, 200 real "
           "Kaggle 3M test-split rows). Compute is the training's CPU seconds (validation and measurement not "
           "counted). The run resumes from the last recorded point (`checkpoints/curve/`), on the CPU or, with "
           "`--device cuda`, on a GPU.", "", f"Command: `{CURVE_COMMAND}`", "",
           "![learning curve](learned/curve.png)", ""]
    cols = [c for c in ("variant", "training", "cpu_s", "set", "solved", "singles loop") if c in frame]
    out += [_row(cols), _row(["---"] * len(cols))]
    for row in frame[cols].itertuples(index=False):
        out.append(_row([f"{100 * v:.1f} %" if c in ("solved", "singles loop") else
                         (f"{v:,.0f}" if isinstance(v, float) else str(v)) for c, v in zip(cols, row)]))
    return out + [""]


def render(folder: Path) -> str:
    meta = json.loads((folder / "learned.json").read_text(encoding="utf-8"))
    tiers = pd.read_csv(folder / "tiers.csv")
    out = ["# What the LTN learns, by reasoning tier", "",
           "<!-- generated by scripts/render_docs.py from docs/results/learned/: edit that, then run the script -->",
           "", INTRO, "",
           f"Command: `{meta['command']}`  ",
           f"Date: {meta['date']}; machine: {meta['machine']}; {meta['cpu_s']} CPU s, peak memory {meta['peak_mib']} "
           f"MiB; held-out check: {meta['removed_seen']} generated puzzles were training or validation boards of a "
           f"model and were removed.", ""]
    out += tier_tables(tiers, meta["models"])
    if (folder / "curve.csv").is_file():
        out += curve_section(pd.read_csv(folder / "curve.csv"))
    findings = folder / "findings.md"  # written by hand from the figures above: what they say
    if findings.is_file():
        out += ["## Reading", "", findings.read_text(encoding="utf-8").strip(), ""]
    return "\n".join(out)
