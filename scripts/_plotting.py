"""Figures of the scripts: one headless matplotlib set-up and one way to save (matplotlib is the `plot` extra)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def new_axes(figsize: tuple[float, float]) -> tuple[Any, Any]:
    """(figure, axes) drawn without a display."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=figsize)


def save(figure: Any, path: Path) -> None:
    """Lay out, write as PNG at 120 dpi (creating the folder), and free the figure."""
    import matplotlib.pyplot as plt

    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=120)
    plt.close(figure)
