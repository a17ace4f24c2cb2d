"""All technique finders in one ordered list: the engine's default pipeline.

Each module of a family row (techniques/families.py) exports ``TECHNIQUES: list[Technique]``. The default order
follows HoDoKu 2.2's solver order (the priorities of the rows' HoDoKu codes), so that levels and scores are comparable
with HoDoKu's ratings; techniques HoDoKu does not order fall in by score. A module that is not importable, or a
technique whose family has no row (or a row naming another module), is an error, not a silent gap.
"""

from __future__ import annotations

import importlib
import re
from functools import lru_cache
from typing import Iterable, Sequence

from ltn_sudoku.techniques.base import Technique
from ltn_sudoku.techniques.families import HODOKU_PRIORITY, MODULES, family_of


def normalise_name(name: str) -> str:
    """'X-Wings' -> 'xwing', 'BUG+1' -> 'bug1', 'Simple Colours' -> 'simplecolor': a key that ignores case,
    punctuation and spaces, a plural s (words of four letters or more: 'ALS' stays) and the British 'colour'."""
    words = re.findall(r"[a-z0-9]+", name.lower().replace("colour", "color"))
    return "".join(w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w for w in words)


def priority(technique: Technique) -> float:
    """HoDoKu's solver priority for the technique's codes; techniques without a known code fall in by score."""
    known = [HODOKU_PRIORITY[c] for c in technique.hodoku_codes if c in HODOKU_PRIORITY]
    if known:
        return float(min(known))
    return 1000.0 + technique.score * 20.0 + 0.5


def check_family(module_name: str, technique: Technique) -> Technique:
    """The technique, once its family has a row (techniques/families.py) that names the module it came from;
    ValueError otherwise."""
    row = family_of(technique.family)
    if row.module != module_name:
        raise ValueError(f"{technique.name!r} comes from techniques/{module_name}.py, but its family "
                           f"{technique.family!r} is the module {row.module!r}'s in techniques/families.py")
    return technique


@lru_cache(maxsize=None)
def _load_all() -> tuple[Technique, ...]:
    found: list[Technique] = []
    for module_name in MODULES:
        module = importlib.import_module(f"ltn_sudoku.techniques.{module_name}")
        found.extend(check_family(module_name, t) for t in module.TECHNIQUES)
    names = [t.name for t in found]
    duplicates = {n for n in names if names.count(n) > 1}
    if duplicates:
        raise RuntimeError(f"technique names must be unique, repeated: {sorted(duplicates)}")
    order = {t.name: i for i, t in enumerate(found)}
    return tuple(sorted(found, key=lambda t: (priority(t), order[t.name])))


@lru_cache(maxsize=None)
def _by_key() -> dict[str, Technique]:
    """Every technique under the key of its name and of each of its aliases; a key claimed twice is an error."""
    keys: dict[str, Technique] = {}
    for technique in _load_all():
        for name in (technique.name, *technique.aliases):
            key = normalise_name(name)
            other = keys.setdefault(key, technique)
            if other is not technique or (name in technique.aliases and key == normalise_name(technique.name)):
                raise RuntimeError(f"technique name or alias {name!r} of {technique.name!r} is already "
                                   f"{other.name!r}'s (or its own name): aliases must name one technique")
    return keys


def by_name(name: str) -> Technique:
    """The technique of a name or alias (any case, punctuation or plural); ValueError listing the names otherwise."""
    technique = _by_key().get(normalise_name(name))
    if technique is None:
        raise ValueError(f"unknown technique {name!r}: expected one of {', '.join(technique_names())} "
                         "(or an alias: docs/reference/techniques.md)")
    return technique


def all_techniques() -> list[Technique]:
    """Every technique of every family, in the default (HoDoKu) order."""
    return list(_load_all())


def technique_names() -> list[str]:
    return [t.name for t in _load_all()]


def resolve(names: Iterable[str] | None = None, *, uniqueness: bool = True, size: int | None = None) -> list[Technique]:
    """Techniques by name or alias (any case/punctuation/plural: by_name) in the given order, or all in default order
    when names is None.

    `uniqueness=False` drops techniques that assume a unique solution; `size` drops those undefined for that side.
    Unknown names raise ValueError listing the valid ones.
    """
    chosen: Sequence[Technique] = _load_all() if names is None else [by_name(name) for name in names]
    return [t for t in chosen if (uniqueness or not t.uniqueness) and (size is None or size >= t.min_n)]
