"""Puzzles made to order: puzzles per CPU second for every technique as the hardest step (9x9), the target being
>= 1 per CPU second for every technique of tiers 1-4 (issue 48).

    .venv/bin/python scripts/bench_made_to_order.py                  # every technique, Brute Force too
    .venv/bin/python scripts/bench_made_to_order.py --cpu 10 --count 20 --techniques "X-Wing,Swordfish"
    .venv/bin/python scripts/bench_made_to_order.py --resume       # measure the techniques rates.csv lacks

For each technique, ltn_sudoku.questions.made_to_order.Maker (what `ltn-sudoku generate --hardest` runs) makes puzzles
until --count are accepted or --cpu CPU seconds are spent, in three settings: the default (fresh puzzles, neighbours
of accepted puzzles and near misses, neighbours of HoDoKu's exemplars), without exemplars (`--no-exemplars`), and
fresh puzzles only (`--neighbours 0`). The rate is accepted puzzles per CPU second of this process
(time.process_time, the engine's ratings included); `families` counts the distinct solution grids (fresh puzzles or
exemplars) the accepted puzzles grew from. Writes docs/results/made_to_order/rates.csv and rates.json (commands,
date, CPU model, peak memory) after every technique, and prints the Markdown table of docs/generators.md.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shlex
import sys
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ltn_sudoku.io.writers import atomic_write_text  # noqa: E402
from ltn_sudoku.questions.engine import SEARCH_TECHNIQUE  # noqa: E402
from ltn_sudoku.questions.made_to_order import Maker, Order  # noqa: E402
from ltn_sudoku.techniques.families import family_of  # noqa: E402
from ltn_sudoku.techniques.registry import all_techniques, by_name  # noqa: E402
from scripts._machine import cpu_name, peak_rss_mb  # noqa: E402

OUT = ROOT / "docs" / "results" / "made_to_order"
TARGET_TIERS = (1, 2, 3, 4)
TARGET_RATE = 1.0  # puzzles per CPU second
SETTINGS: dict[str, dict[str, object]] = {
    "default": {},
    "no exemplars": {"exemplars": False},
    "fresh only": {"neighbours": 0},
}


def machine() -> str:
    """The CPU's model and this machine's cores, for the result files."""
    return f"{cpu_name()}, {os.cpu_count()} cores (shared with other work: CPU time, not wall time, is measured)"


def measure(technique: str, setting: str, count: int, cpu_limit: float, seed: int) -> dict[str, object]:
    """One technique's run in one setting: accepted puzzles, their families, CPU seconds, candidates rated."""
    maker = Maker(Order(hardest=technique), 9, seed, **SETTINGS[setting])  # type: ignore[arg-type]
    start = time.process_time()
    families: set[int] = set()
    accepted = 0
    for made in maker.rounds():
        accepted += len(made)
        families.update(m.family for m in made)
        if accepted >= count or time.process_time() - start > cpu_limit:
            break
    cpu = time.process_time() - start
    tier = 6 if technique == SEARCH_TECHNIQUE else family_of(by_name(technique).family).tier
    return {"technique": technique, "tier": tier, "setting": setting, "puzzles": accepted, "families": len(families),
            "cpu_s": round(cpu, 2), "per_cpu_s": round(accepted / cpu, 3), "rated": sum(maker.rated.values()),
            **{f"found_{origin}": found for origin, found in maker.found.items()}}


def table(frame: pd.DataFrame) -> str:
    """One row per technique: each setting's puzzles per CPU second (puzzles, families), and the target's verdict on
    the default setting (what `generate --hardest` does)."""
    header = ["technique", "tier", *[f"{s}: per CPU s (puzzles / families / CPU s)" for s in SETTINGS],
              "target (tiers 1-4: >= 1/s)"]
    lines = ["| " + " | ".join(header) + " |", "|---|---:|" + "---:|" * len(SETTINGS) + "---|"]
    for (tier, technique), group in frame.groupby(["tier", "technique"], sort=False):
        by_setting = group.set_index("setting")
        cells = [f"{r.per_cpu_s:.2f} ({r.puzzles} / {r.families} / {r.cpu_s:.1f})"
                 for r in (by_setting.loc[s] for s in SETTINGS)]
        rate = float(by_setting.loc["default"].per_cpu_s)
        target = ("met" if rate >= TARGET_RATE else "**missed**") if tier in TARGET_TIERS else "-"
        lines.append(f"| {technique} | {tier} | " + " | ".join(cells) + f" | {target} |")
    return "\n".join(lines) + "\n"


def write(rows: list[dict[str, object]], meta: dict[str, object]) -> None:
    """The rows so far and their provenance, rewritten after every technique (a stopped run keeps its rows)."""
    OUT.mkdir(parents=True, exist_ok=True)
    atomic_write_text(OUT / "rates.csv", pd.DataFrame(rows).to_csv(index=False))
    atomic_write_text(OUT / "rates.json", json.dumps(meta, indent=2) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=20, help="puzzles per technique and setting (default 20)")
    parser.add_argument("--cpu", type=float, default=6.0,
                        help="CPU seconds per technique and setting at most, checked between rounds (default 6)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--techniques", help="comma-separated names or aliases (default: all, and Brute Force)")
    parser.add_argument("--resume", action="store_true",
                        help="keep the rows of docs/results/made_to_order/rates.csv and measure the other techniques")
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs/results/ alone")
    args = parser.parse_args(argv)
    names = ([SEARCH_TECHNIQUE if t.strip() == SEARCH_TECHNIQUE else by_name(t).name
              for t in args.techniques.split(",")] if args.techniques
             else [t.name for t in all_techniques() if t.min_n <= 9] + [SEARCH_TECHNIQUE])
    rows: list[dict[str, object]] = []
    commands: list[str] = []
    previous: dict[str, object] = {}
    if args.resume and (OUT / "rates.csv").is_file():
        rows = pd.read_csv(OUT / "rates.csv").to_dict("records")
        previous = json.loads((OUT / "rates.json").read_text())
        commands = list(previous["commands"])  # type: ignore[call-overload]
    done = {str(r["technique"]) for r in rows}
    ran = [*commands, shlex.join(["python", *sys.argv])]
    meta: dict[str, object] = {
        "commands": ran, "date": datetime.date.today().isoformat(),
        "machine": machine(), "count": args.count, "cpu_limit_s": args.cpu, "seed": args.seed, "file": "rates.csv"}
    if args.resume and commands and "note" in previous:
        meta["note"] = previous["note"]
    next(Maker(Order(hardest="Naked Single"), 9, 0).puzzles())  # compile the exact kernel before any clock runs
    for name in (n for n in names if n not in done):
        for setting in SETTINGS:
            rows.append(measure(name, setting, args.count, args.cpu, args.seed))
            print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
        meta["peak_rss_mib"] = round(peak_rss_mb())
        if not args.no_write:
            write(rows, meta)
    frame = pd.DataFrame(rows).sort_values(["tier"], kind="stable")
    print(table(frame))
    print(f"{meta['machine']}; peak RSS {meta.get('peak_rss_mib')} MiB; {'; '.join(ran)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
