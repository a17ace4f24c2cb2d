"""Build the exact solver's peers from their public sources into a cache folder, for scripts/bench_exact.py.

    .venv/bin/python scripts/build_peers.py                       # clone from GitHub, build both, into the cache
    .venv/bin/python scripts/build_peers.py --only tdoku          # one peer
    .venv/bin/python scripts/build_peers.py --source-dir tdoku=../tdoku --source-dir fastdoku=../fd  # offline
    .venv/bin/python scripts/build_peers.py --dry-run             # what it would do, building nothing

The peers (nothing of them is shipped with or committed to this repository):

- tdoku (github.com/t-dillon/tdoku, C++ with SIMD): its own CMake build, `make tdoku_shared` (-O3 -march=native,
  the project's defaults), giving libtdoku_shared.so; without cmake its two sources are compiled by g++ directly with
  the same flags. bench_exact calls TdokuSolverDpllTriadSimd(puzzle, limit, ...).
- fastdoku (github.com/rocketbombs/fastdoku, Rust, a port of tdoku's design): it has no C ABI, so this script writes
  a small wrapper crate in the cache (a cdylib over the crate's public count_solutions and solve_grid), built by cargo
  with -C target-cpu=native and fat LTO, as fastdoku builds itself. Without cargo it is skipped, and says so.

Each peer goes to <cache>/<name>/ (its source in src/, its library beside it), and <cache>/peers.json records the
library, the source's git commit (printed), where the source came from, the toolchain and the date. The cache is
--cache, else $LTN_SUDOKU_PEERS, else ~/.cache/ltn_sudoku/peers; it may not be inside this repository.
--source-dir NAME=DIR builds from a local checkout or mirror (any directory `git clone` accepts, or a plain source
tree, whose commit is then recorded as unknown) instead of cloning from GitHub.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

REPO_ROOT = Path(__file__).resolve().parents[1]
MANIFEST = "peers.json"
PEERS: dict[str, str] = {  # name -> public repository
    "tdoku": "https://github.com/t-dillon/tdoku.git",
    "fastdoku": "https://github.com/rocketbombs/fastdoku.git",
}
LIBRARIES: dict[str, str] = {"tdoku": "libtdoku_shared.so", "fastdoku": "libfastdoku_capi.so"}

# The wrapper crate around fastdoku: its public API takes 81 digits (0 = blank) and returns min(#solutions, limit).
WRAPPER_CARGO = """[package]
name = "fastdoku_capi"
version = "0.1.0"
edition = "2021"

[lib]
crate-type = ["cdylib"]

[dependencies]
fastdoku = {{ path = "{source}" }}

[profile.release]
opt-level = 3
lto = "fat"
codegen-units = 1
panic = "abort"

[workspace]
"""
WRAPPER_LIB = """//! C ABI over fastdoku's public API, written by ltn_sudoku's scripts/build_peers.py (not part of fastdoku).

/// min(#solutions, limit) of 81 digits (0 = blank, 1..9 = given).
#[no_mangle]
pub unsafe extern "C" fn fastdoku_count_solutions(clues: *const u8, limit: u64) -> u64 {
    fastdoku::count_solutions(&*(clues as *const [u8; 81]), limit)
}

/// The first solution into out (81 digits 1..9); returns 1, or 0 when there is none.
#[no_mangle]
pub unsafe extern "C" fn fastdoku_solve(clues: *const u8, out: *mut u8) -> u64 {
    match fastdoku::solve_grid(&*(clues as *const [u8; 81])) {
        Some(grid) => {
            core::ptr::copy_nonoverlapping(grid.as_ptr(), out, 81);
            1
        }
        None => 0,
    }
}
"""


class BuildError(Exception):
    """A one-line reason a peer cannot be built (printed as `error: ...`)."""


def default_cache() -> Path:
    """$LTN_SUDOKU_PEERS, else ~/.cache/ltn_sudoku/peers."""
    given = os.environ.get("LTN_SUDOKU_PEERS")
    return Path(given).expanduser() if given else Path.home() / ".cache" / "ltn_sudoku" / "peers"


def which(tool: str) -> str | None:
    """A tool on PATH; cargo also where rustup installs it (~/.cargo/bin), which is often not on PATH."""
    found = shutil.which(tool)
    if found is None and tool == "cargo":
        candidate = Path.home() / ".cargo" / "bin" / "cargo"
        found = str(candidate) if candidate.is_file() and os.access(candidate, os.X_OK) else None
    return found


@dataclass
class Plan:
    """One peer to build: where its source comes from and where it goes."""

    name: str
    source: str  # a URL or a local directory
    local: bool
    folder: Path  # <cache>/<name>

    @property
    def library(self) -> Path:
        return self.folder / LIBRARIES[self.name]


def parse_source_dirs(items: Sequence[str]) -> dict[str, Path]:
    """NAME=DIR pairs, checked: a known name, an existing directory."""
    out: dict[str, Path] = {}
    for item in items:
        name, sep, folder = item.partition("=")
        if not sep or not name or not folder:
            raise BuildError(f"--source-dir {item!r}: expected NAME=DIR, e.g. tdoku=../tdoku")
        if name not in PEERS:
            raise BuildError(f"--source-dir {item!r}: unknown peer {name!r} (known: {', '.join(PEERS)})")
        path = Path(folder).expanduser()
        if not path.is_dir():
            raise BuildError(f"--source-dir {name}={folder}: no such directory")
        out[name] = path.resolve()
    return out


def check_cache(cache: Path) -> Path:
    """The cache folder, resolved; refused inside this repository (built peers are never committed)."""
    resolved = cache.expanduser().resolve()
    if resolved == REPO_ROOT or REPO_ROOT in resolved.parents:
        raise BuildError(f"--cache {cache}: inside the repository ({REPO_ROOT}); build the peers outside it")
    return resolved


def run(command: Sequence[str], cwd: Path | None = None, env: dict[str, str] | None = None) -> str:
    """Run a build step; its output on failure becomes the BuildError (last lines, one message)."""
    done = subprocess.run(list(command), cwd=cwd, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        tail = " | ".join(line.strip() for line in (done.stderr or done.stdout).strip().splitlines()[-3:])
        raise BuildError(f"`{' '.join(command)}` failed (exit {done.returncode}): {tail}")
    return done.stdout


def _is_git_repository(folder: Path) -> bool:
    """A checkout (folder/.git) or a bare repository (a mirror), not merely a folder inside some repository."""
    if (folder / ".git").exists():
        return True
    return (folder / "HEAD").is_file() and (folder / "objects").is_dir() and (folder / "refs").is_dir()


def _checkout(name: str, src: Path) -> None:
    """Check out HEAD; from a partial mirror (large files listed but absent) every file whose content is there, and
    say which are not (tdoku's data.zip, say: the build does not read it)."""
    listing = run(["git", "-C", str(src), "ls-tree", "-r", "HEAD"]).splitlines()
    entries = [(line.split(None, 3)[2], line.split("\t", 1)[1]) for line in listing if " blob " in line]
    check = subprocess.run(["git", "-C", str(src), "cat-file", "--batch-check"], capture_output=True, text=True,
                           input="".join(f"{blob}\n" for blob, _ in entries))
    answers = check.stdout.splitlines()
    absent = [path for (_, path), answer in zip(entries, answers) if answer.endswith("missing")]
    if subprocess.run(["git", "-C", str(src), "checkout", "--quiet", "HEAD"], capture_output=True).returncode:
        present = [path for _, path in entries if path not in set(absent)]
        run(["git", "-C", str(src), "reset", "--quiet"])  # the index from HEAD's trees (no file contents needed)
        done = subprocess.run(["git", "-C", str(src), "checkout-index", "--quiet", "-z", "--stdin"],
                              input="\0".join(present), text=True, capture_output=True)
        if done.returncode != 0:
            raise BuildError(f"could not check out its source: {done.stderr.strip()[-200:]}")
    if absent:
        print(f"{name}: the source has no content for {len(absent)} file(s), left out: {', '.join(absent[:5])}")


def fetch_source(plan: Plan) -> tuple[Path, str]:
    """The peer's source in <folder>/src (a fresh clone, or a copy of a plain tree) and its commit."""
    src = plan.folder / "src"
    if src.exists():
        shutil.rmtree(src)
    plan.folder.mkdir(parents=True, exist_ok=True)
    if not plan.local or _is_git_repository(Path(plan.source)):
        if which("git") is None:
            raise BuildError("git is not on PATH (needed to clone the peers' sources)")
        try:
            run(["git", "clone", "--quiet", "--no-checkout"] + ([] if plan.local else ["--depth", "1"])
                + [plan.source, str(src)])
        except BuildError as error:
            hint = "" if plan.local else f" (no network? clone it elsewhere and pass --source-dir {plan.name}=DIR)"
            raise BuildError(f"{error}{hint}") from None
        commit = run(["git", "-C", str(src), "rev-parse", "HEAD"]).strip()
        _checkout(plan.name, src)
    else:
        shutil.copytree(plan.source, src, ignore=shutil.ignore_patterns("target", "build", ".git"))
        commit = "unknown (not a git checkout)"
    return src, commit


def build_tdoku(plan: Plan, src: Path, jobs: int) -> str:
    """libtdoku_shared.so by tdoku's CMake (target tdoku_shared), else g++ on its two sources; the toolchain used."""
    cmake, gxx = which("cmake"), which("g++")
    if cmake:
        build = plan.folder / "build"
        shutil.rmtree(build, ignore_errors=True)
        run([cmake, "-S", str(src), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release"])  # -O3 -march=native: defaults
        run([cmake, "--build", str(build), "--target", "tdoku_shared", "-j", str(jobs)])
        shutil.copy2(build / LIBRARIES["tdoku"], plan.library)
        return f"cmake + {_version([cmake, '--version'])}, target tdoku_shared (-O3 -march=native)"
    if gxx:
        run([gxx, "-O3", "-march=native", "-std=c++14", "-fno-exceptions", "-fno-rtti", "-fPIC", "-shared",
             str(src / "src" / "solver_dpll_triad_simd.cc"), str(src / "src" / "util.cc"), "-o", str(plan.library)])
        return f"{_version([gxx, '--version'])} -O3 -march=native (no cmake)"
    raise BuildError("no cmake or g++ on PATH")


def build_fastdoku(plan: Plan, src: Path, jobs: int) -> str:
    """The wrapper crate (<folder>/capi) over the source, built by cargo; the toolchain used."""
    cargo = which("cargo")
    if cargo is None:
        raise BuildError("no cargo on PATH (a Rust toolchain: https://rustup.rs)")
    capi = plan.folder / "capi"
    (capi / "src").mkdir(parents=True, exist_ok=True)
    (capi / "Cargo.toml").write_text(WRAPPER_CARGO.format(source=src.as_posix()))
    (capi / "src" / "lib.rs").write_text(WRAPPER_LIB)
    env = dict(os.environ, RUSTFLAGS=(os.environ.get("RUSTFLAGS", "") + " -C target-cpu=native").strip())
    run([cargo, "build", "--release", "--quiet", "--jobs", str(jobs)], cwd=capi, env=env)
    shutil.copy2(capi / "target" / "release" / LIBRARIES["fastdoku"], plan.library)
    return f"{_version([cargo, '--version'])}, -C target-cpu=native, lto=fat (wrapper crate capi/)"


BUILDERS: dict[str, Callable[[Plan, Path, int], str]] = {"tdoku": build_tdoku, "fastdoku": build_fastdoku}
TOOLCHAINS: dict[str, tuple[str, ...]] = {"tdoku": ("cmake", "g++"), "fastdoku": ("cargo",)}  # any one of them


def _version(command: Sequence[str]) -> str:
    try:
        return subprocess.run(list(command), capture_output=True, text=True).stdout.splitlines()[0].strip()
    except (OSError, IndexError):
        return command[0]


def read_manifest(cache: Path) -> dict[str, dict[str, str]]:
    """<cache>/peers.json, or {} when there is none (or it cannot be read)."""
    try:
        data = json.loads((cache / MANIFEST).read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def plans(cache: Path, only: Sequence[str], sources: dict[str, Path]) -> list[Plan]:
    return [Plan(name, str(sources[name]) if name in sources else PEERS[name], name in sources, cache / name)
            for name in only]


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cache", type=Path, default=None,
                   help="where the peers go (default $LTN_SUDOKU_PEERS, else ~/.cache/ltn_sudoku/peers); "
                        "not inside this repository")
    p.add_argument("--only", nargs="+", choices=list(PEERS), default=list(PEERS), help="which peers (default all)")
    p.add_argument("--source-dir", action="append", default=[], metavar="NAME=DIR",
                   help="build NAME from a local checkout, mirror or source tree instead of cloning from GitHub "
                        "(repeatable)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="parallel build jobs")
    p.add_argument("--dry-run", action="store_true", help="say what would be built, with which toolchain; build "
                                                          "nothing")
    args = p.parse_args(argv)
    try:
        cache = check_cache(args.cache if args.cache is not None else default_cache())
        sources = parse_source_dirs(args.source_dir)
    except BuildError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    manifest = read_manifest(cache)
    failed = False
    for plan in plans(cache, args.only, sources):
        tools = [t for t in TOOLCHAINS[plan.name] if which(t)]
        if args.dry_run:
            have = ", ".join(f"{t} {'found' if which(t) else 'missing'}" for t in TOOLCHAINS[plan.name])
            action = "build" if tools else "skip (no toolchain)"
            print(f"{plan.name}: {action}: from {plan.source} into {plan.library} ({have})")
            continue
        if not tools:  # fastdoku without cargo is skipped; tdoku without a compiler is an error
            reason = f"no {' or '.join(TOOLCHAINS[plan.name])} on PATH"
            if plan.name == "fastdoku":
                print(f"{plan.name}: skipped ({reason}; install Rust from https://rustup.rs to build it)")
                manifest[plan.name] = {"skipped": reason}
                continue
            print(f"error: {plan.name}: {reason}", file=sys.stderr)
            failed = True
            continue
        try:
            print(f"{plan.name}: fetching {plan.source}", flush=True)
            src, commit = fetch_source(plan)
            print(f"{plan.name}: building at commit {commit}", flush=True)
            toolchain = BUILDERS[plan.name](plan, src, args.jobs)
        except BuildError as error:
            print(f"error: {plan.name}: {error}", file=sys.stderr)
            manifest[plan.name] = {"failed": str(error)}
            failed = True
            continue
        manifest[plan.name] = {"library": plan.library.relative_to(cache).as_posix(), "commit": commit,
                               "source": plan.source, "toolchain": toolchain,
                               "built": datetime.datetime.now().isoformat(timespec="seconds")}
        print(f"{plan.name}: built {plan.library} (commit {commit}; {toolchain})")
    if not args.dry_run:
        cache.mkdir(parents=True, exist_ok=True)
        (cache / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")
        print(f"recorded in {cache / MANIFEST}; use: scripts/bench_exact.py --peers {cache}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
