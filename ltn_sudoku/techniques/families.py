"""The technique families, one row each: the one place a family is described.

A family is a group of techniques that one module of ltn_sudoku/techniques exports (``TECHNIQUES``), named by
``Technique.family``; its row says what every reader needs to know about it:

- the registry (techniques/registry.py) loads the modules of the rows and orders the techniques by the HoDoKu
  priorities of their codes;
- the reasoning tiers (questions/tiers.py) restrict the engine to the families of tiers <= k;
- Q3 (questions/q3.py) charges each finder call the family's work rate and, from 16x16 up, uses only the families
  flagged for large boards.

Adding a technique touches its module (its Technique, with its family's name and HoDoKu code) and, for a new family
or a new HoDoKu code, this table; the registry refuses a technique whose family has no row here, or whose row names
another module.

HoDoKu's Franken and Mutant fish (codes 0330-0362, priorities 6100-8100) have no finder here, so no row holds them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping


@dataclass(frozen=True)
class Family:
    """One technique family and everything the registry, the tiers and Q3 read about it."""

    name: str  # the display name: Technique.family of its techniques, and what reports print
    module: str  # the module of ltn_sudoku/techniques whose TECHNIQUES hold the family (two families may share one)
    tier: int  # the reasoning tier that first allows it (questions/tiers.py: 1-5 logic, 6 forcing chains or search)
    # Q3's work units per candidate on the grid for one finder call: about tenths of a microsecond of CPU per
    # candidate, measured on 9x9 boards (30 of top1465 and their solving paths, this project's 2-core machine, issue
    # 29); a cost model, not a clock, so that Q3's budget gives the same answer everywhere (questions/q3.py).
    work: int
    # Whether a default Q3 uses it from 16x16 up: each finder of the others took seconds to minutes on one 16x16-81x81
    # board (scripts/bench_classify.py --sections sizes measures the default answers; docs/cli.md has the figures).
    large_boards: bool
    # HoDoKu 2.2's solver priorities (lower = tried first) of the family's technique codes (Technique.hodoku_codes);
    # a technique without a known code falls in by its score (registry.priority).
    hodoku: Mapping[str, int] = field(default_factory=dict, hash=False)


# In HoDoKu's order of each family's easiest technique (the order Q3's note on large boards lists them in).
FAMILIES: tuple[Family, ...] = (
    Family("Singles", "singles", tier=1, work=1, large_boards=True,
           hodoku={"0000": 100, "0003": 200, "0002": 300}),  # full house, naked single, hidden single
    Family("Intersections", "intersections", tier=2, work=3, large_boards=True,
           hodoku={"0110": 1000, "0111": 1100, "0100": 1200, "0101": 1210}),  # locked pair/triple, candidates 1/2
    Family("Subsets", "subsets", tier=3, work=9, large_boards=True,
           hodoku={"0200": 1300, "0201": 1400, "0210": 1500, "0211": 1600, "0202": 2000, "0212": 2100}),
    Family("Basic Fish", "fish", tier=4, work=8, large_boards=True,
           hodoku={"0300": 2200, "0301": 2300, "0302": 2400}),  # X-Wing, Swordfish, Jellyfish
    Family("Chains and Loops", "chains", tier=5, work=50, large_boards=False,
           hodoku={"0703": 2800,  # Remote Pair
                   "0701": 5400, "0702": 5500, "0706": 5600, "0707": 5600, "0708": 5600,  # X-/XY-chains, loops, AIC
                   "0709": 5650, "0710": 5650, "0711": 5650}),  # grouped nice loops / AIC
    Family("Uniqueness", "uniqueness", tier=4, work=2, large_boards=True,
           hodoku={"0610": 2900,  # BUG+1
                   "0600": 3500, "0601": 3600, "0602": 3700, "0603": 3800, "0604": 3900, "0605": 4000,  # tests 1-6
                   "0606": 4010, "0607": 4020, "0608": 4030}),  # hidden rectangle, avoidable rectangles
    Family("Single Digit Patterns", "single_digit", tier=4, work=8, large_boards=True,
           hodoku={"0400": 3000, "0401": 3100, "0403": 3120, "0402": 3170}),  # skyscraper, kite, turbot, ER
    Family("Wings", "wings", tier=4, work=6, large_boards=True,
           hodoku={"0803": 3200, "0800": 3300, "0801": 3400, "0802": 3450}),  # W-, XY-, XYZ-, WXYZ-Wing
    Family("Finned Fish", "fish", tier=4, work=30, large_boards=True,
           hodoku={"0310": 4100, "0320": 4200, "0311": 4300, "0321": 4400, "0312": 4500, "0322": 4600}),
    Family("Miscellaneous", "sue_de_coq", tier=5, work=130, large_boards=False,
           hodoku={"1101": 5300}),  # Sue de Coq
    Family("Coloring", "coloring", tier=4, work=6, large_boards=True,
           hodoku={"0500": 5330, "0501": 5330, "0502": 5360, "0503": 5360, "0507": 5370}),  # 3D Medusa: not HoDoKu's
    Family("Almost Locked Sets", "als", tier=5, work=300, large_boards=False,
           hodoku={"0901": 5700, "0902": 5800, "0903": 5900, "0904": 6000}),  # ALS-XZ, -XY-Wing, -XY-Chain, DB
    Family("Forcing Chains", "forcing", tier=6, work=240, large_boards=False,
           hodoku={"1301": 8500, "1302": 8500, "1303": 8600, "1304": 8600}),  # forcing chains, forcing nets
)

BY_NAME: dict[str, Family] = {f.name: f for f in FAMILIES}
# Every HoDoKu code's priority, gathered from the rows (a code belongs to one family).
HODOKU_PRIORITY: dict[str, int] = {code: p for f in FAMILIES for code, p in f.hodoku.items()}
MODULES: tuple[str, ...] = tuple(dict.fromkeys(f.module for f in FAMILIES))  # each once, in the table's order
LARGE_BOARD_FAMILIES: tuple[str, ...] = tuple(f.name for f in FAMILIES if f.large_boards)

if len(BY_NAME) != len(FAMILIES) or len(HODOKU_PRIORITY) != sum(len(f.hodoku) for f in FAMILIES):
    raise RuntimeError("techniques/families.py: a family name or a HoDoKu code is in two rows")


def family_of(name: str) -> Family:
    """The row of a family by its display name (Technique.family); a name without a row is a ValueError that says
    where rows are added."""
    row = BY_NAME.get(name)
    if row is None:
        raise ValueError(f"technique family {name!r} has no row in ltn_sudoku/techniques/families.py (FAMILIES): "
                         f"expected one of {', '.join(BY_NAME)}")
    return row
