#!/usr/bin/env python
"""Figure of held-out visual boards with what a visual checkpoint reads: each cell's MNIST image, the read digit in
its corner (green when it is the true digit, red when not), and per board the learned isCorrect against the truth.

    python scripts/plot_visual.py checkpoints/visual_4x4.pt docs/figures/visual_4x4_boards.png [--boards 4]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import torch
from _plotting import new_axes, save

from ltn_sudoku.logic.kinds import load_model
from ltn_sudoku.logic.visual.boards import make_boards
from ltn_sudoku.logic.visual.mnist import image_pools
from ltn_sudoku.logic.visual.train import board_predictions
from ltn_sudoku.paths import data_file


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkpoint", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--boards", type=int, default=4, help="boards to draw (half valid, half invalid)")
    parser.add_argument("--mnist", type=Path, default=None, help="MNIST folder (default: the data home's mnist/)")
    parser.add_argument("--seed", type=int, default=2024, help="test boards' seed (t10k images)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    args.mnist = args.mnist or data_file("mnist")
    model, ops, _ = load_model(args.checkpoint, kind="visual")
    n = model.n
    boards = make_boards(n, args.boards, args.seed, image_pools(args.mnist, n)["test"], "test")
    truth, read = board_predictions(model, ops, boards.boards)
    figure, axes = new_axes((3.2 * args.boards, 3.6))
    axes.remove()  # one subplot per board instead
    for b in range(args.boards):
        ax = figure.add_subplot(1, args.boards, b + 1)
        grid = boards.boards.images[b].reshape(n, n, 28, 28).transpose(0, 2, 1, 3).reshape(n * 28, n * 28)
        ax.imshow(grid, cmap="gray_r")
        for cell in range(n * n):
            r, c = divmod(cell, n)
            right = read[b, cell] == boards.digits[b, cell]
            ax.text(c * 28 + 2, r * 28 + 9, str(read[b, cell]), color="green" if right else "red",
                    fontsize=11 if n == 4 else 6, fontweight="bold")
        k = int(n ** 0.5)
        for line in range(0, n + 1, k):
            ax.axhline(line * 28 - 0.5, color="black", linewidth=1.5)
            ax.axvline(line * 28 - 0.5, color="black", linewidth=1.5)
        verdict = "valid" if truth[b] > 0.5 else "invalid"
        actual = "valid" if boards.boards.valid[b] else f"invalid ({boards.kinds[b]})"
        ax.set_xlabel(f"isCorrect {truth[b]:.2f} → {verdict}\ntruth: {actual}", fontsize=9)
        ax.set_xticks([])
        ax.set_yticks([])
    save(figure, args.out)
    print(f"{args.out}: {args.boards} boards, {int((read == boards.digits).sum())}/{read.size} cells read right "
          f"(digits named after the validation boards)")


if __name__ == "__main__":
    main()
