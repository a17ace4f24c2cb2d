"""`ltn-sudoku data list` and `ltn-sudoku data fetch NAME...`: the full data sets in the data home.

The sets, their addresses, hashes and licences are the registry of ltn_sudoku/datasets/registry.py; docs/data.md
explains the data home and how each set is checked. A failed download (no network, an HTTP error, a bad hash, a cut
transfer) is one line on stderr and exit status 2; a cut transfer leaves a ``.part`` that the next fetch resumes.
"""

from __future__ import annotations

import argparse
import difflib
import os

from ltn_sudoku.cli import UsageError
from ltn_sudoku.datasets.registry import all_sets, human_size, markdown_table, select
from ltn_sudoku.paths import DATA_HOME_VARIABLE, data_home


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "data",
        help="list the full data sets, or download them into the data home",
        description=f"The full data sets (Kaggle, MNIST, the tdoku and HoDoKu collections, ...) live in the data "
                    f"home: ${DATA_HOME_VARIABLE}, else the user's data folder. `list` shows each set and whether "
                    f"it is there; `fetch` downloads sets, checked against their hash (docs/data.md).",
    )
    sub = p.add_subparsers(dest="data_command", metavar="ACTION", required=True)
    ls = sub.add_parser("list", help="each set: size, present or missing, licence; and the data home",
                        description="Each set of the registry: its size, whether its files are in the data home "
                                    "(or shipped under data/), how it is checked, its licence.")
    ls.add_argument("--verify", action="store_true",
                    help="hash every file present against the registry (reads them all; exit 1 on a mismatch)")
    ls.add_argument("--files", action="store_true", help="one line per file: path, size, status, address")
    ls.add_argument("--markdown", action="store_true", help="print the sets table of docs/data.md and stop")
    fe = sub.add_parser("fetch", help="download sets into the data home, checked against their hash",
                        description="Download the named sets (a group name such as tdoku, hodoku or norvig names "
                                    "several) into the data home. A file already there with the right hash is "
                                    "kept; a cut transfer is resumed by fetching again.")
    fe.add_argument("names", nargs="*", metavar="NAME", help="set names, as `ltn-sudoku data list` shows them")
    fe.add_argument("--all", action="store_true",
                    help="every set with a public address, except the multi-GB Kaggle originals (*-full)")
    fe.add_argument("--no-progress", action="store_true", help="no progress bar (none is drawn unless stderr is "
                                                               "a terminal anyway)")
    return p


def _home_line() -> str:
    where = f"set by ${DATA_HOME_VARIABLE}" if os.environ.get(DATA_HOME_VARIABLE) else \
        f"the user data folder; set ${DATA_HOME_VARIABLE} to use another"
    return f"data home: {data_home()} ({where})"


def _short_licence(licence: str) -> str:
    for stop in (" (", ";", ","):
        licence = licence.split(stop)[0]
    return licence


def run_list(args: argparse.Namespace) -> int:
    from ltn_sudoku.datasets.fetch import FetchError, set_states, summary  # hashing helpers; no pooch import

    if args.markdown:
        print(markdown_table(), end="")
        return 0
    home = data_home()
    print(_home_line())
    rows = [("set", "files", "size", "status", "check", "licence")]
    mismatch = False
    details: list[str] = []
    for ds in all_sets():
        try:
            states = set_states(ds, home, verify=args.verify)
        except FetchError as e:  # an unreadable checksum-records file
            raise UsageError(str(e)) from None
        mismatch |= any(s.status == "MISMATCH" for s in states)
        here = sum(s.path is not None for s in states)
        checks = "/".join(dict.fromkeys(f.check for f in ds.files))
        rows.append((ds.name, f"{here}/{len(states)}", human_size(ds.size, ds.size_approx), summary(states),
                     checks, _short_licence(ds.licence)))
        if args.files:
            for s in states:
                f = s.file
                where = f.urls[0] if f.urls else "no public address"
                part = f"  (.part: {s.partial:,} bytes to resume)" if s.partial else ""
                status = s.status + ("*" if s.shipped else "")
                details.append(f"  {ds.name:<26} {f.path:<58} {human_size(f.size, f.size_approx):>9}  "
                               f"{status:<12} {where}{part}")
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)) + "  " + r[-1])
    if details:
        print("files (* = not in the data home, the copy shipped under data/):")
        print("\n".join(details))
    return 1 if mismatch else 0


def run_fetch(args: argparse.Namespace) -> int:
    from ltn_sudoku.datasets.fetch import FetchError, fetch_sets

    if args.all and args.names:
        raise UsageError("give set names or --all, not both")
    skipped: list[str] = []
    if args.all:
        sets = tuple(s for s in all_sets() if s.in_all and s.fetchable)
        skipped = [s.name for s in all_sets() if s.in_all and not s.fetchable]
    elif args.names:
        chosen = select(args.names)
        if chosen.unknown:
            name = chosen.unknown[0]
            known = [s.name for s in all_sets()] + sorted({s.group for s in all_sets() if s.group})
            close = difflib.get_close_matches(name, known, n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise UsageError(f"unknown data set {name!r}{hint}: `ltn-sudoku data list` names them")
        sets = chosen.sets
    else:
        raise UsageError("name the sets to fetch (`ltn-sudoku data list` shows them), or --all")
    print(_home_line(), flush=True)
    try:
        fetch_sets(sets, data_home(), progress=False if args.no_progress else None,
                   report=lambda line: print(line, flush=True))
    except FetchError as e:
        raise UsageError(str(e)) from None
    for name in skipped:
        print(f"{name}: skipped (no public address: `ltn-sudoku data list --files`)")
    return 0


def run(args: argparse.Namespace) -> int:
    return run_list(args) if args.data_command == "list" else run_fetch(args)
