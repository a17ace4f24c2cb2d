"""Short sweep job folder names that say what differs: `${sweep_job:}` in conf/config.yaml's hydra.sweep.subdir.

Hydra's `override_dirname` names a job by every override of the command line (200+ characters for a tutorial's
sweep), so TensorBoard truncates the names and two logics' runs look alike. A job is named here by the keys the sweep
varies only (the command line's overrides with several values: `a,b`, `range(...)`, `choice(...)`), each by the last
part of its key and its value (a path by its file name): `logic=product_seed=1`. The swept keys are read from the
command line of the process that started the sweep and handed to launcher processes (joblib, SLURM) through the
environment (SWEPT_ENV), where sys.argv is no longer the command. Without them (a job started some other way) every
override of the job names it, shortened the same way.
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Sequence

SWEPT_ENV = "LTN_SUDOKU_SWEPT_KEYS"
MAX_VALUE = 24  # characters of one value in a name
MAX_NAME = 80  # characters of a whole name: a longer one keeps its start and a hash of the rest


def swept_keys(argv: Sequence[str]) -> list[str]:
    """The keys a command line sweeps (overrides with several values), in order; [] when it sweeps none."""
    from hydra.core.override_parser.overrides_parser import OverridesParser

    overrides = [a for a in argv if "=" in a and not a.startswith("-")]
    try:
        parsed = OverridesParser.create().parse_overrides(overrides)
    except Exception:  # noqa: BLE001 - Hydra reports a bad override itself, with its own message
        return []
    return [o.key_or_group for o in parsed if o.is_sweep_override()]


def _short(value: str) -> str:
    value = value.rstrip("/").rsplit("/", 1)[-1] if "/" in value else value
    return value if len(value) <= MAX_VALUE else value[:MAX_VALUE - 9] + "~" + _digest(value)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:8]


def job_name(task_overrides: Sequence[str], swept: Sequence[str]) -> str:
    """A job's name from its overrides ("key=value") and the swept keys: the swept ones only, else all."""
    pairs = [o.lstrip("+~").split("=", 1) for o in task_overrides if "=" in o]
    chosen = [(k, v) for k, v in pairs if k in swept] or pairs
    name = "_".join(f"{k.rsplit('.', 1)[-1]}={_short(v)}" for k, v in chosen) or "job"
    return name if len(name) <= MAX_NAME else name[:MAX_NAME - 9] + "~" + _digest(name)


def sweep_job_name() -> str:
    """`${sweep_job:}`: this Hydra job's short name (see the module docstring)."""
    from hydra.core.hydra_config import HydraConfig

    keys = os.environ.get(SWEPT_ENV)
    swept = keys.split(",") if keys else swept_keys(sys.argv[1:])
    return job_name(list(HydraConfig.get().overrides.task), swept)


def export_swept_keys(argv: Sequence[str]) -> None:
    """Hand the command line's swept keys to the processes a launcher starts (they inherit the environment)."""
    keys = swept_keys(argv)
    if keys:
        os.environ.setdefault(SWEPT_ENV, ",".join(keys))
