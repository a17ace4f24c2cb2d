"""Every shipped checkpoint has a model card in docs/models.md (scripts/_model_cards_page.py, rendered by
scripts/render_docs.py): data, inputs, supervision, figures beside their baselines read from the checkpoint's
metrics.json, limits and licence; the page is the rendering of the files as they are now."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.test_docs import render_docs

ROOT = Path(__file__).resolve().parents[1]


def _page() -> object:
    """scripts/_model_cards_page.py, loaded as render_docs loads its page modules."""
    return render_docs()._page_module("_model_cards_page")


def test_every_checkpoint_has_a_complete_card() -> None:
    page = (ROOT / "docs" / "models.md").read_text()
    assert page == _page().render(ROOT / "checkpoints")  # type: ignore[attr-defined]
    for path in sorted((ROOT / "checkpoints").glob("*.pt")):
        card = page.split(f"## {path.stem} (`checkpoints/{path.stem}.pt`)")[1].split("\n## ")[0]
        for part in ("**Data**", "**Inputs**", "**Supervision**", "### Figures beside their baselines", "### Limits",
                     "### Licence"):
            assert part in card, (path.stem, part)
    assert "CC BY-SA 3.0" in page.split("## visual_9x9")[1]


def test_a_card_reads_its_figures_from_the_metrics_file(tmp_path: Path) -> None:
    for name in ("9x9.pt", "9x9.metrics.json"):
        shutil.copy(ROOT / "checkpoints" / name, tmp_path / name)
    metrics = json.loads((tmp_path / "9x9.metrics.json").read_text())
    metrics["evaluation"]["heuristics/macro_f1"] = 0.123
    metrics["evaluation"]["heuristics/always_yes_macro_f1"] = 0.456
    (tmp_path / "9x9.metrics.json").write_text(json.dumps(metrics))
    card = _page().render(tmp_path)  # type: ignore[attr-defined]
    assert "| recommendsHeuristic | macro-F1 | 12.3 % | 45.6 % | always yes |" in card
