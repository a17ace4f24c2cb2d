"""What the LTN learns, by reasoning tier: learned hasValue models beside the singles loop and the engine on the same
held-out puzzles, broken down by the hardest technique tier each puzzle needs (ltn_sudoku/questions/tiers.py). The
headline of the README and of docs/results/learned.md.

    python scripts/bench_learned_tiers.py                                  # the shipped models, default sets
    python scripts/bench_learned_tiers.py --model rules_only=checkpoints/9x9_message_passing.pt \\
        --model supervised=outputs/curve_chain/supervised/b8000/last.pt --puzzles 300 --record docs/results/learned

Solved means one thing: the model's answer from the puzzle as given (hasValue's most probable digit in every empty
cell, after the checkpoint's answering steps, no search) is the solution. Each model's row says which inputs it
reads. The singles loop (naked and hidden singles, ~20 lines of numpy) runs on the same puzzles; each learned figure
has its paired 95 % bootstrap interval of the difference from the singles loop (puzzle by puzzle). The engine
restricted to tiers <= k solves every puzzle of tier k by the tiers' definition: it is the ceiling of each row, shown
as such, not a measured figure. Sets: generated unique puzzles with 17-40 givens (seed 1000; any puzzle of a model's
training or validation data, regenerated from its config and lineage, is removed, and the count removed is printed),
real Kaggle 3M rows of the fixed test split, and a seeded sample of the 17-clue list (the data home's files, else the
samples shipped under data/). Peak memory and the CPU are recorded.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from datetime import date
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _machine import cpu_name  # noqa: E402
from render_docs import paired_bootstrap  # noqa: E402

from ltn_sudoku.board import Board  # noqa: E402
from ltn_sudoku.generate import generate  # noqa: E402
from ltn_sudoku.io import atomic_write_text  # noqa: E402
from ltn_sudoku.logic.board.model_order import ModelOrder  # noqa: E402
from ltn_sudoku.logic.checkpoints import load_checkpoint  # noqa: E402
from ltn_sudoku.paths import DataNotFound  # noqa: E402
from ltn_sudoku.questions.tiers import TIER_NAMES, singles_loop_solves, tiers  # noqa: E402

DEFAULT_MODELS = ("rules_only=checkpoints/9x9_message_passing.pt", "evidence=checkpoints/9x9.pt")
SINGLES = "singles loop"
# What each kind of model reads when it answers (docs/ltn.md): the headline leads with models without crisp input.
INPUTS = {"message_passing": "givens only (one-hot), fixed cell relations; no crisp evidence",
          "evidence": "givens + hand-made symbolic evidence (isPossible, places per unit, counts): a propagator"}




def held_out_generated(count: int, checkpoints: list[Path]) -> tuple[list[Board], int]:
    """`count` generated unique 17-40-given puzzles (seed 1000) none of the models trained or validated on."""
    from ltn_sudoku.logic.board.evaluate import seen_boards

    boards = [r.board for r in generate(9, "open_solvable", count, 1000, givens=(17, 40))]
    seen: set[tuple[int, ...]] = set()
    for path in checkpoints:
        seen |= seen_boards(load_checkpoint(path, 9), None)
    kept = [b for b in boards if tuple(b.values) not in seen]
    return kept, len(boards) - len(kept)


def public(name: str, count: int) -> list[Board]:
    """A seeded sample of a public set from the data home, else from the sample shipped under data/."""
    from bench_guidance import puzzles

    try:
        return puzzles(name, count, 2026, split="test")
    except DataNotFound:
        print(f"bench_learned_tiers: {name}: the full set is not in the data home; using the shipped sample",
              file=sys.stderr)
        return puzzles(name, count, 2026, shipped=True)


def solved_rows(sets: dict[str, list[Board]], models: dict[str, Path]) -> pd.DataFrame:
    """One row per (set, puzzle, solver): the puzzle's tier and whether the solver's answer is the solution."""
    frames = []
    for name, boards in sets.items():
        started = time.process_time()
        tier = tiers(boards)
        answers = {SINGLES: singles_loop_solves(boards)}
        print(f"{name}: {len(boards)} puzzles, tiers labelled in {time.process_time() - started:.1f} CPU s",
              file=sys.stderr, flush=True)
        for label, path in models.items():
            started = time.process_time()
            answers[label] = ModelOrder.load(path).solves(boards)
            print(f"  {label}: {answers[label].mean():.1%} solved ({time.process_time() - started:.1f} CPU s)",
                  file=sys.stderr, flush=True)
        for solver, solved in answers.items():
            frames.append(pd.DataFrame({"set": name, "puzzle": np.arange(len(boards)), "tier": tier,
                                        "solver": solver, "solved": solved.astype(int)}))
    return pd.concat(frames, ignore_index=True)


def tier_table(rows: pd.DataFrame) -> pd.DataFrame:
    """Per set, tier (and all tiers) and solver: puzzles, solved share, and the paired difference from the singles
    loop with its interval."""
    out = []
    for (name, solver), part in rows.groupby(["set", "solver"], sort=False):
        base = rows[(rows.set == name) & (rows.solver == SINGLES)].set_index("puzzle").solved
        for tier in [*sorted(part.tier.unique()), "all"]:
            members = part if tier == "all" else part[part.tier == tier]
            mean, low, high = paired_bootstrap(members.solved.to_numpy(), base.loc[members.puzzle].to_numpy())
            out.append({"set": name, "tier": "all" if tier == "all" else TIER_NAMES[int(tier)], "solver": solver,
                        "puzzles": len(members), "solved": members.solved.mean(),
                        "minus singles": mean, "low": low, "high": high})
    return pd.DataFrame(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--model", action="append", metavar="LABEL=CHECKPOINT",
                        help=f"a learned model (repeat; default: {', '.join(DEFAULT_MODELS)})")
    parser.add_argument("--puzzles", type=int, default=300, help="generated held-out puzzles (17-40 givens)")
    parser.add_argument("--kaggle", type=int, default=200, help="Kaggle 3M test-split rows (0 = skip)")
    parser.add_argument("--seventeen", type=int, default=100, help="17-clue puzzles (0 = skip)")
    parser.add_argument("--record", type=Path, default=None, metavar="DIR",
                        help="write DIR/rows.csv.gz (per puzzle), DIR/tiers.csv and DIR/learned.json (provenance)")
    args = parser.parse_args()
    specs = args.model or list(DEFAULT_MODELS)
    models: dict[str, Path] = {}
    for spec in specs:
        label, _, path = spec.partition("=")
        if not path or not Path(path).is_file():
            parser.error(f"--model {spec!r}: expected LABEL=CHECKPOINT with an existing file")
        models[label] = Path(path)
    started = time.process_time()
    generated, removed = held_out_generated(args.puzzles, list(models.values()))
    print(f"generated_17_40: {removed} of {args.puzzles} puzzles were training or validation boards of a model: "
          f"removed", file=sys.stderr)
    sets = {"generated_17_40": generated}
    if args.kaggle:
        sets["kaggle_3m_test"] = public("kaggle_3m_test", args.kaggle)
    if args.seventeen:
        sets["seventeen_clue"] = public("seventeen_clue", args.seventeen)
    rows = solved_rows(sets, models)
    table = tier_table(rows)
    pd.set_option("display.width", 200)
    print(table.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    cpu_s = time.process_time() - started
    print(f"{cpu_s:.0f} CPU s, peak memory {peak_mib:.0f} MiB, CPU: {cpu_name()}")
    if args.record:
        args.record.mkdir(parents=True, exist_ok=True)
        atomic_write_text(args.record / "tiers.csv", table.to_csv(index=False, float_format="%.4f"))
        rows.to_csv(args.record / "rows.csv.gz", index=False)
        inputs = {}
        for label, path in models.items():
            config = load_checkpoint(path, 9)["config"]
            kind = str(config["model"].get("hasvalue", "evidence"))
            inputs[label] = {"checkpoint": str(path), "hasvalue": kind,
                             "inputs": INPUTS.get(kind, ""),
                             "supervised": bool(config["train"].get("supervised", False))}
        meta = {"command": "python scripts/bench_learned_tiers.py " + " ".join(sys.argv[1:]),
                "date": date.today().isoformat(), "machine": f"CPU: {cpu_name()}", "cpu_s": round(cpu_s),
                "peak_mib": round(peak_mib), "removed_seen": removed, "models": inputs,
                "sets": {name: len(boards) for name, boards in sets.items()}}
        atomic_write_text(args.record / "learned.json", json.dumps(meta, indent=1) + "\n")


if __name__ == "__main__":
    main()
