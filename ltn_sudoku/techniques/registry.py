"""All technique finders in one ordered list: the engine's default pipeline.

Each family module exports ``TECHNIQUES: list[Technique]``. The default order follows HoDoKu 2.2's solver order
(its step priorities), so that levels and scores are comparable with HoDoKu's ratings; techniques HoDoKu does not
order (e.g. 3D Medusa) fall in by score. Families that are not importable are an error, not a silent gap.
"""

from __future__ import annotations

import importlib
import re
from functools import lru_cache
from typing import Iterable, Sequence

from ltn_sudoku.techniques.base import Technique

FAMILY_MODULES: tuple[str, ...] = (
    "singles",
    "intersections",
    "subsets",
    "fish",
    "single_digit",
    "wings",
    "coloring",
    "uniqueness",
    "chains",
    "als",
    "sue_de_coq",
    "forcing",
)

# HoDoKu 2.2 solver priorities (lower = tried first), keyed by HoDoKu technique code (Technique.hodoku_codes).
_HODOKU_PRIORITY: dict[str, int] = {
    "0000": 100, "0003": 200, "0002": 300,  # full house, naked single, hidden single
    "0110": 1000, "0111": 1100, "0100": 1200, "0101": 1210,  # locked pair/triple, locked candidates 1/2
    "0200": 1300, "0201": 1400, "0210": 1500, "0211": 1600, "0202": 2000, "0212": 2100,  # subsets
    "0300": 2200, "0301": 2300, "0302": 2400,  # basic fish
    "0703": 2800, "0610": 2900,  # remote pair, BUG+1
    "0400": 3000, "0401": 3100, "0403": 3120, "0402": 3170,  # skyscraper, 2-string kite, turbot, empty rectangle
    "0803": 3200, "0800": 3300, "0801": 3400, "0802": 3450,  # W-, XY-, XYZ-, WXYZ-Wing
    "0600": 3500, "0601": 3600, "0602": 3700, "0603": 3800, "0604": 3900, "0605": 4000,  # uniqueness tests 1-6
    "0606": 4010, "0607": 4020, "0608": 4030,  # hidden rectangle, avoidable rectangles
    "0310": 4100, "0320": 4200, "0311": 4300, "0321": 4400, "0312": 4500, "0322": 4600,  # finned/sashimi fish
    "1101": 5300,  # Sue de Coq
    "0500": 5330, "0501": 5330, "0502": 5360, "0503": 5360, "0507": 5370,  # colouring (3D Medusa: not in HoDoKu)
    "0701": 5400, "0702": 5500, "0706": 5600, "0707": 5600, "0708": 5600,  # X-/XY-chains, nice loops, AIC
    "0709": 5650, "0710": 5650, "0711": 5650,  # grouped nice loops / AIC
    "0901": 5700, "0902": 5800, "0903": 5900, "0904": 6000,  # ALS family
    "0330": 6100, "0331": 6200, "0332": 6300, "0340": 6700, "0341": 6800, "0342": 6900,  # Franken fish
    "0350": 7300, "0351": 7400, "0352": 7500, "0360": 7900, "0361": 8000, "0362": 8100,  # Mutant fish
    "1301": 8500, "1302": 8500, "1303": 8600, "1304": 8600,  # forcing chains, forcing nets
}


def normalise_name(name: str) -> str:
    """'X-Wing' -> 'x wing', 'BUG+1' -> 'bug 1': a key that ignores punctuation and case."""
    return " ".join(re.sub(r"[^a-z0-9]+", " ", name.lower()).split())


def priority(technique: Technique) -> float:
    """HoDoKu's solver priority for the technique's codes; techniques without a known code fall in by score."""
    known = [_HODOKU_PRIORITY[c] for c in technique.hodoku_codes if c in _HODOKU_PRIORITY]
    if known:
        return float(min(known))
    return 1000.0 + technique.score * 20.0 + 0.5


@lru_cache(maxsize=None)
def _load_all() -> tuple[Technique, ...]:
    found: list[Technique] = []
    for module_name in FAMILY_MODULES:
        module = importlib.import_module(f"ltn_sudoku.techniques.{module_name}")
        found.extend(module.TECHNIQUES)
    names = [t.name for t in found]
    duplicates = {n for n in names if names.count(n) > 1}
    if duplicates:
        raise RuntimeError(f"technique names must be unique, repeated: {sorted(duplicates)}")
    order = {t.name: i for i, t in enumerate(found)}
    return tuple(sorted(found, key=lambda t: (priority(t), order[t.name])))


def all_techniques() -> list[Technique]:
    """Every technique of every family, in the default (HoDoKu) order."""
    return list(_load_all())


def technique_names() -> list[str]:
    return [t.name for t in _load_all()]


def resolve(names: Iterable[str] | None = None, *, uniqueness: bool = True, size: int | None = None) -> list[Technique]:
    """Techniques by name (any case/punctuation) in the given order, or all in default order when names is None.

    `uniqueness=False` drops techniques that assume a unique solution; `size` drops those undefined for that side.
    Unknown names raise ValueError listing the valid ones.
    """
    pool = _load_all()
    if names is None:
        chosen: Sequence[Technique] = pool
    else:
        by_key = {normalise_name(t.name): t for t in pool}
        chosen = []
        for name in names:
            t = by_key.get(normalise_name(name))
            if t is None:
                raise ValueError(f"unknown technique {name!r}: expected one of {', '.join(t.name for t in pool)}")
            chosen.append(t)
    return [t for t in chosen if (uniqueness or not t.uniqueness) and (size is None or size >= t.min_n)]
