"""The two notebooks of docs/notebooks/ run from top to bottom in a fresh kernel (nbclient), as a reader would run
them, and show pictures: the researcher's tour (a model's beliefs beside the engine's answer, evaluation by tier, a
sweep read back from TensorBoard) and the puzzle tour (steps drawn, rating, the HTML report). The committed copies
keep their outputs for the documentation site (mkdocs-jupyter renders them without running them)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "docs" / "notebooks").glob("*.ipynb"))


def test_both_notebooks_are_there_and_in_the_site() -> None:
    assert [p.name for p in NOTEBOOKS] == ["puzzle_tour.ipynb", "researchers_tour.ipynb"]
    site = (ROOT / "mkdocs.yml").read_text()
    assert "mkdocs-jupyter" in site and all(f"notebooks/{p.name}" in site for p in NOTEBOOKS)


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_a_notebook_runs_and_draws(path: Path, tmp_path: Path) -> None:
    nbformat = pytest.importorskip("nbformat")
    from nbclient import NotebookClient

    book = nbformat.read(path, as_version=4)
    started = time.perf_counter()
    NotebookClient(book, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [o for cell in book.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    drawn = sum(("image/svg+xml" in o.get("data", {})) + o.get("data", {}).get("text/html", "").count("<svg")
                for o in outputs)
    assert drawn >= 2, "the tour draws boards (a Board, a Report with its LTN picture, a path's steps)"
    print(f"{path.name}: {time.perf_counter() - started:.1f} s")
