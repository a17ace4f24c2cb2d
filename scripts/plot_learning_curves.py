"""Learning curves of training runs from their TensorBoard events: one scalar (validation boards solved by default)
against training boards seen, one line per run. A warm-started run is drawn from where its parent stopped.

    python scripts/plot_learning_curves.py docs/figures/mp_learning_curves.png \
        B=outputs/main/9x9_mp_b D=outputs/main/9x9_mp_d@2523 E=outputs/main/9x9_mp_e@15423+2523

`LABEL=RUN_DIR[@OFFSET[+OFFSET...]]`: OFFSET is the parent's boards seen when the run was warm-started from it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _plotting import new_axes, save


def curve(run: Path, tag: str) -> list[tuple[int, float]]:
    """(step, value) of one scalar in a run's tb/ folder; the step of ltn_sudoku.train's scalars is boards seen."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(run / "tb"))
    events.Reload()
    if tag not in events.Tags()["scalars"]:
        raise SystemExit(f"error: {run / 'tb'} has no scalar {tag!r}")
    return [(e.step, e.value) for e in events.Scalars(tag)]


def parse_run(spec: str) -> tuple[str, Path, int]:
    label, _, rest = spec.partition("=")
    folder, _, offsets = rest.partition("@")
    if not label or not folder:
        raise SystemExit(f"error: {spec!r}: expected LABEL=RUN_DIR[@OFFSET[+OFFSET...]]")
    return label, Path(folder), sum(int(o) for o in offsets.split("+") if o)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("output", type=Path)
    parser.add_argument("runs", nargs="+", help="LABEL=RUN_DIR[@OFFSET[+OFFSET...]]")
    parser.add_argument("--tag", default="val/solve/board_accuracy")
    parser.add_argument("--baseline", type=float, help="a horizontal reference line (e.g. the singles loop's share)")
    parser.add_argument("--baseline-label", default="singles loop")
    args = parser.parse_args()
    figure, axes = new_axes((7, 4))
    for label, folder, offset in map(parse_run, args.runs):
        points = curve(folder, args.tag)
        axes.plot([offset + s for s, _ in points], [100 * v for _, v in points], marker="o", label=label)
        print(label, " ".join(f"{offset + s}:{100 * v:.1f}%" for s, v in points))
    if args.baseline is not None:
        axes.axhline(100 * args.baseline, color="grey", linestyle="--", label=args.baseline_label)
    axes.set_xlabel("training boards seen")
    axes.set_ylabel(f"{args.tag} (%)")
    axes.grid(alpha=0.3)
    axes.legend()
    save(figure, args.output)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
