"""Reliability diagram of hasSolution from evaluation metrics files (python -m ltn_sudoku.evaluate writes them).

    python scripts/plot_reliability.py checkpoints/9x9.metrics.json checkpoints/4x4.metrics.json \
        --out docs/figures/has_solution_reliability.png

Each point is one bin of predicted truth (equal width, tenths): its mean predicted truth against the share of
solvable boards in it, the marker's area proportional to the boards in the bin; the diagonal is perfect
calibration, and the legend gives the expected calibration error (the count-weighted mean gap).
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path


def points(metrics: dict[str, float]) -> list[tuple[float, float, float]]:
    """(predicted, observed, count) per bin from q2_has_solution_reliability/<i>/... keys."""
    bins = sorted({int(m.group(1)) for k in metrics if (m := re.match(r"q2_has_solution_reliability/(\d+)/", k))})
    key = "q2_has_solution_reliability/{}/{}".format
    return [(metrics[key(i, "predicted")], metrics[key(i, "observed")], metrics[key(i, "count")]) for i in bins]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", type=Path, help="metrics.json of an evaluation or a shipped checkpoint")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    from _plotting import new_axes, save

    fig, ax = new_axes((5, 5))
    ax.plot([0, 1], [0, 1], color="grey", linestyle=":", label="perfect calibration")
    for path in args.files:
        report = json.loads(path.read_text())
        metrics = report.get("evaluation", report.get("metrics", {}))
        pts = points(metrics)
        if not pts:
            raise SystemExit(f"{path}: no q2_has_solution_reliability figures (evaluate it with this version)")
        predicted, observed, count = zip(*pts)
        total = sum(count)
        ax.plot(predicted, observed, marker="o", markersize=3,
                label=f"{path.name.split('.')[0]} (ECE {metrics['q2_has_solution/ece']:.3f}, {total:.0f} boards)")
        ax.scatter(predicted, observed, s=[400 * c / total for c in count], alpha=0.3)
    ax.set_xlabel("hasSolution truth (mean in bin)")
    ax.set_ylabel("share of solvable boards in bin")
    ax.set_title("hasSolution reliability on held-out open boards")
    ax.legend(fontsize=8, loc="upper left")
    save(fig, args.out)
    print(f"plot: {args.out}")


if __name__ == "__main__":
    main()
