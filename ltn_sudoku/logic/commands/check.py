"""Up-front checks of the Hydra config of `python -m ltn_sudoku.train` and `python -m ltn_sudoku.evaluate`.

Types, required keys and each key's range belong to the schema (ltn_sudoku/logic/config/schema.py): OmegaConf checks the types
while Hydra composes, `rule_violations` the ranges. What is written here by hand are only the rules *between* keys
(a model file's size here; each model kind's own, its `rules` in ltn_sudoku/logic/kinds.py: KINDS) and the
command-line side: the overrides are composed and checked before Hydra starts, so a bad value
is one line on stderr and exit status 2, never Hydra's multi-line report or a traceback minutes later.

A user's own config folder joins the shipped conf/ as Hydra's do: `--config-dir DIR` (or `-cd DIR`) and
`hydra.searchpath=[file://DIR]` on the command line; its options (e.g. `DIR/experiment/mine.yaml`, used as
`+experiment=mine`) are composed and checked like the shipped ones.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import NoReturn

from hydra.core.override_parser.overrides_parser import OverridesParser
from omegaconf import DictConfig

from ltn_sudoku.io import FormatError
from ltn_sudoku.io.kaggle import kaggle_files
from ltn_sudoku.logic.checkpoints import model_kind
from ltn_sudoku.logic.config.schema import compose_config, rule_violations
from ltn_sudoku.logic.errors import ConfigError, first_line
from ltn_sudoku.logic.kinds import KINDS
from ltn_sudoku.paths import CONF_DIR, data_home

EXIT_USAGE = 2
KAGGLE_FETCH = "ltn-sudoku data fetch kaggle-1m kaggle-9m kaggle-3m"  # the data home's kaggle/ folder
ENTRIES: tuple[str, ...] = ("train", "evaluate")
CONFIG_DIR_FLAGS: tuple[str, ...] = ("--config-dir", "-cd")  # Hydra's flag that adds a config folder
SEARCHPATH_KEY = "hydra.searchpath"


def _kaggle_problem(key: str, value: object) -> str | None:
    """Why the Kaggle CSVs a key names cannot be read (missing, a folder without CSVs), saying how to fetch them when
    the key names the data home's kaggle/ folder; None when they are there."""
    try:
        kaggle_files(str(value))
    except FormatError as e:
        problem = f"{key}={value}: {e.message}"
        home = data_home() / "kaggle"
        path = os.path.abspath(os.path.expanduser(str(value)))
        if path == str(home) or path.startswith(f"{home}{os.sep}"):
            problem += f"; the Kaggle sets are not fetched into the data home {data_home()}: `{KAGGLE_FETCH}`"
        return problem
    return None


def data_file_problems(cfg: DictConfig, entry: str) -> Iterator[str]:
    """The data files a board model's run reads (data.kaggle_path, data.train.boards_path; evaluate.kaggle_path when
    evaluating), each named by its key, before any board is made. Checked by the entry points (check_config), not by
    config_problem: an experiment's stages are composed and checked before the data home may hold their files."""
    if model_kind(cfg) != "board":
        return
    n = int(cfg.model.size)
    named = [("data.kaggle_path", cfg.data.get("kaggle_path"))]
    if entry == "evaluate":
        named.append(("evaluate.kaggle_path", cfg.evaluate.get("kaggle_path")))
    for key, value in named:
        if value:
            problem = _kaggle_problem(key, value)
            if problem is not None:
                yield problem
            elif n != 9 and key.startswith("data."):
                yield f"{key}={value}: Kaggle rows are 9x9 boards; the model is {n}x{n} (model={cfg.model.name})"
    boards = cfg.data.train.get("boards_path")
    if entry == "train" and boards and not os.path.isfile(os.path.expanduser(str(boards))):
        what = "a folder" if os.path.isdir(os.path.expanduser(str(boards))) else "no such file"
        yield f"data.train.boards_path={boards}: {what}: expected a board file (any format ltn_sudoku.io reads)"


def run_dir_problem(cfg: DictConfig) -> str | None:
    """Why run_dir cannot be the run's folder (one line naming the key), or None: its nearest existing folder must
    take a new folder, which is tried (a temporary one, removed at once): a folder that cannot be made
    (run_dir=/proc/x, a read-only mount, a file in the way) fails here, not in Hydra or after the data are made."""
    value = cfg.get("run_dir")
    if not value:
        return None
    path = Path(os.path.abspath(os.path.expanduser(str(value))))
    existing = path
    while not os.path.lexists(existing) and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        return f"run_dir={value}: {existing} is a file, not a folder: choose a folder"
    try:
        os.rmdir(tempfile.mkdtemp(prefix=".ltn-sudoku-check-", dir=existing))
    except OSError as e:
        return (f"run_dir={value}: no folder can be made in {existing} ({e.strerror or e}): choose a folder you can "
                "write")
    return None


_SIDE_IN_NAME = re.compile(r"(?<![0-9])([0-9]+)x\1(?![0-9])")  # '9x9' in 9x9, 9x9_mp, visual_9x9


def _model_name_rules(cfg: DictConfig) -> Iterator[str]:
    """A size that contradicts the chosen model file: `model=9x9 model.size=4` would train a 4x4 model under the
    name 9x9 (and its recipe, tuned for 9x9)."""
    name = str(cfg.model.get("name") or "")
    match = _SIDE_IN_NAME.search(name)
    size = int(cfg.model.size)
    if match is not None and int(match.group(1)) != size:
        side = match.group(1)
        yield (f"model.size={size}: model={name} is a {side}x{side} model; choose a {size}x{size} model file (e.g. "
               f"model={size}x{size}) rather than changing its size")


def _compile_rules(cfg: DictConfig, entry: str) -> Iterator[str]:
    """train.compile needs the C++ compiler torch.compile's inductor builds its kernels with (CXX, else g++; clang++
    on macOS: inductor's own default): without one the run would fail at its first batch, after the data was made."""
    if entry != "train" or not cfg.get("train") or not cfg.train.get("compile"):
        return
    compiler = os.environ.get("CXX") or ("clang++" if sys.platform == "darwin" else "g++")
    if shutil.which(compiler) is None:
        yield (f"train.compile=true: torch.compile needs a C++ compiler to build its kernels and {compiler} was not "
               "found on PATH; install one or name it in CXX, or train with train.compile=false")


def cross_field_violations(cfg: DictConfig, entry: str) -> Iterator[str]:
    """The rules between keys, each as one line naming the key to change."""
    yield from _model_name_rules(cfg)
    yield from _compile_rules(cfg, entry)
    yield from KINDS[model_kind(cfg)].rules(cfg, entry)


def config_problem(cfg: DictConfig, entry: str) -> str | None:
    """The first thing wrong with a composed config for this entry point ('train' or 'evaluate'), or None."""
    return next(rule_violations(cfg), None) or next(cross_field_violations(cfg, entry), None)


def refuse(message: str) -> NoReturn:
    """One line on stderr and exit status 2 (a message of several lines is joined into one)."""
    print(f"error: {' '.join(line.strip() for line in message.strip().splitlines())}", file=sys.stderr)
    sys.exit(EXIT_USAGE)


def check_config(cfg: DictConfig, entry: str) -> None:
    """Validate the config of an entry point before any work; on a bad value print one line and exit 2."""
    problem = config_problem(cfg, entry) or run_dir_problem(cfg) or next(data_file_problems(cfg, entry), None)
    if problem is not None:
        refuse(problem)


def split_config_dirs(argv: Sequence[str]) -> tuple[list[str], list[Path]]:
    """The command line without Hydra's `--config-dir DIR` / `--config-dir=DIR` / `-cd DIR`, and those folders
    (absolute, as Hydra makes them). ConfigError: the flag without a folder, or a folder that does not exist."""
    rest: list[str] = []
    dirs: list[Path] = []
    words = iter(argv)
    for word in words:
        flag, eq, value = word.partition("=")
        if flag not in CONFIG_DIR_FLAGS:
            rest.append(word)
            continue
        if not eq:
            value = next(words, "")
        if not value or value.startswith("-"):
            raise ConfigError(f"{flag}: expected a config folder after it")
        folder = Path(os.path.abspath(os.path.expanduser(value)))
        if not folder.is_dir():
            raise ConfigError(f"{flag} {value}: no such folder ({folder})")
        dirs.append(folder)
    return rest, dirs


def _searchpath_values(argv: Sequence[str]) -> list[str]:
    """The entries of a `hydra.searchpath=[...]` override on the command line (Hydra takes the first)."""
    for word in argv:
        if word.partition("=")[0].lstrip("+") == SEARCHPATH_KEY:
            value = OverridesParser.create().parse_override(word).value()
            return [str(v) for v in value] if isinstance(value, list) else []
    return []


def searchpath_overrides(argv: Sequence[str]) -> list[str]:
    """The one `hydra.searchpath=[...]` override that composes the command line's config as Hydra does: the
    `--config-dir` folders, then the command line's own hydra.searchpath entries; empty when neither is given."""
    entries = [f"file://{d}" for d in split_config_dirs(argv)[1]] + _searchpath_values(argv)
    return [f"{SEARCHPATH_KEY}=[{','.join(repr(e) for e in entries)}]"] if entries else []


def config_dirs(argv: Sequence[str] = ()) -> list[Path]:
    """The config folders a command line composes from: the shipped conf/, then the user's (`--config-dir`, and the
    file entries of hydra.searchpath, relative to the working directory as Hydra reads them)."""
    users = split_config_dirs(argv)[1]
    for entry in _searchpath_values(argv):
        scheme, sep, rest = entry.partition("://")
        if not sep or scheme == "file":
            users.append(Path(os.path.abspath(os.path.expanduser(rest if sep else entry))))
    return [CONF_DIR, *(d for d in users if d.is_dir())]


def group_options(group: str, dirs: Sequence[Path] = (CONF_DIR,)) -> list[str]:
    """The option names of a config group over these config folders (the shipped ones and the user's)."""
    return sorted({f.stem for d in dirs for f in (d / group).glob("*.yaml")})


def _group_list(overrides: Sequence[str], dirs: Sequence[Path] = (CONF_DIR,)) -> str | None:
    """`model=[1,2]`: a config group takes one option name; Hydra would fail with a traceback."""
    groups = {path.name for d in dirs for path in d.iterdir() if path.is_dir()}
    for override in overrides:
        key, _, value = override.partition("=")
        group = key.lstrip("+~").split("@")[0]
        if group in groups and value.strip().startswith(("[", "{")):
            names = ", ".join(group_options(group, dirs))
            return (f"{override}: a config group takes one option name, one of {names} "
                    "(several separated by commas to sweep with -m)")
    return None


def _shadowed(overrides: Sequence[str], dirs: Sequence[Path]) -> str | None:
    """A user's option named as a shipped one: Hydra would silently take the shipped conf/ file (it comes first)."""
    for override in overrides:
        key, _, value = override.partition("=")
        group, name = key.lstrip("+~").split("@")[0], value.strip()
        if not group or not name or not (CONF_DIR / group / f"{name}.yaml").is_file():
            continue
        for folder in dirs[1:]:
            if (folder / group / f"{name}.yaml").is_file():
                return (f"{override}: {folder / group / name}.yaml has the name of a shipped {group} option, and "
                        f"the shipped one is used; give yours another name")
    return None


def check_group_overrides(overrides: list[str]) -> None:
    """Before Hydra composes: a list for a config group is one line on stderr and exit status 2."""
    problem = _group_list(overrides)
    if problem is not None:
        refuse(problem)


def composition_error(error: BaseException) -> str:
    """Hydra's composition error as one line: the override it names and OmegaConf's reason."""
    outer = first_line(error)
    cause = error.__cause__
    while cause is not None and cause.__cause__ is not None:
        cause = cause.__cause__
    inner = first_line(cause) if cause is not None else ""
    prefix = "Error merging override "
    if outer.startswith(prefix):
        return f"{outer[len(prefix):]}: {inner}" if inner else outer[len(prefix):]
    return f"{outer.rstrip('.')}: {inner}" if inner else outer


def job_overrides(argv: Sequence[str]) -> list[list[str]] | None:
    """The override lists of the jobs a command line asks for, enough to check every swept value once (each sweep's
    values in turn, the others at their first); None when Hydra options other than -m are given (left to Hydra)."""
    words = [w for w in argv if w not in ("-m", "--multirun")]
    if any(w.startswith("-") for w in words):
        return None
    parsed = OverridesParser.create().parse_overrides([w for w in words if not w.lstrip("+~").startswith("hydra")])
    if any(o.is_sweep_override() and o.value_type is not None and "GLOB" in o.value_type.name for o in parsed):
        return None
    first = [f"{o.get_key_element()}={next(iter(o.sweep_string_iterator()))}" if o.is_sweep_override()
             else str(o.input_line) for o in parsed]
    jobs = [first]
    for i, override in enumerate(parsed):
        if override.is_sweep_override():
            for value in list(override.sweep_string_iterator())[1:]:
                jobs.append([*first[:i], f"{override.get_key_element()}={value}", *first[i + 1:]])
    return jobs


def check_command_line(argv: Sequence[str], entry: str) -> None:
    """Before Hydra starts: compose the command line's config (each swept value once) and check it; a bad override
    or value is one line on stderr and exit status 2. A user's config folder (`--config-dir`, hydra.searchpath)
    is composed with, so that its options are known."""
    checked_configs(argv, entry)


def checked_configs(argv: Sequence[str], entry: str) -> list[DictConfig]:
    """check_command_line, returning the configs it checked (none when Hydra options other than -m leave the
    composing to Hydra)."""
    try:
        rest, _ = split_config_dirs(argv)
        searchpath = searchpath_overrides(argv)
        dirs = config_dirs(argv)
    except ConfigError as e:
        refuse(str(e))
    except Exception as e:  # noqa: BLE001  the override grammar's own errors (a bad hydra.searchpath)
        refuse(composition_error(e))
    problem = _group_list(rest, dirs) or _shadowed(rest, dirs)
    if problem is not None:
        refuse(problem)
    try:
        jobs = job_overrides(rest)
    except Exception as e:  # noqa: BLE001  the override grammar's own errors
        refuse(composition_error(e))
    configs: list[DictConfig] = []
    for overrides in jobs or []:
        try:
            cfg = compose_config([*searchpath, *overrides])
        except Exception as e:  # noqa: BLE001  Hydra and OmegaConf raise many types: all mean a bad command line
            refuse(composition_error(e))
        check_config(cfg, entry)
        configs.append(cfg)
    return configs
