"""Up-front checks of the Hydra config of `python -m ltn_sudoku.train` and `python -m ltn_sudoku.evaluate`.

Hydra does not type-check overrides against the YAML defaults (`train.epochs=abc` arrives as a string), so a typo used
to surface as a traceback minutes later, after the data was generated, or not at all (`train.epochs=-1`,
`train.lr=-1`). `check_config` runs first in each entry point: one clear line on stderr and exit status 2.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any, Callable

from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

from ltn_sudoku.paths import CONF_DIR

EXIT_USAGE = 2


class ConfigError(ValueError):
    """A config value the user must fix; its message names the key as it is written on the command line."""


def _value(cfg: DictConfig, key: str) -> Any:
    try:
        return OmegaConf.select(cfg, key, throw_on_missing=True)
    except Exception as e:  # an interpolation that cannot resolve, a missing value
        raise ConfigError(f"{key}: {e}".splitlines()[0]) from None


def _integer(cfg: DictConfig, key: str, low: int) -> None:
    value = _value(cfg, key)
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ConfigError(f"{key}={value!r}: expected an integer >= {low}")


def _positive_number(cfg: DictConfig, key: str) -> None:
    value = _value(cfg, key)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise ConfigError(f"{key}={value!r}: expected a number > 0")


def _choice(cfg: DictConfig, key: str, choices: tuple[str, ...]) -> None:
    value = _value(cfg, key)
    if value not in choices:
        raise ConfigError(f"{key}={value!r}: expected one of {', '.join(choices)}")


def _existing_file(cfg: DictConfig, key: str) -> None:
    value = _value(cfg, key)
    if value is not None and not Path(str(value)).is_file():
        raise ConfigError(f"{key}={value}: no such file")


def _square_side(cfg: DictConfig, key: str) -> None:
    value = _value(cfg, key)
    if isinstance(value, bool) or not isinstance(value, int) or not 4 <= value <= 81 or math.isqrt(value) ** 2 != value:
        raise ConfigError(f"{key}={value!r}: expected a board side k*k between 4 and 81 (4, 9, 16, ...)")


def _model_and_logic_checks(cfg: DictConfig) -> None:
    """What shapes the model and its logic: also wrong values that would otherwise fail late, deep in a run."""
    from ltn_sudoku.logic.hasvalue import HAS_VALUE_KINDS
    from ltn_sudoku.logic.model import SOLUTION_INPUTS
    from ltn_sudoku.logic.operators import FAMILIES, LABELLED_FORALLS

    _square_side(cfg, "model.size")
    for key in ("model.steps", "model.eval_steps", "model.kb_every", "model.hidden", "model.layers"):
        _integer(cfg, key, 1)
    if OmegaConf.select(cfg, "model.hasvalue") is not None:
        _choice(cfg, "model.hasvalue", HAS_VALUE_KINDS)
    if OmegaConf.select(cfg, "model.solution_inputs") is not None:
        _choice(cfg, "model.solution_inputs", tuple(SOLUTION_INPUTS))
    for key in ("model.solution_hidden", "model.heuristic_hidden"):
        _integer(cfg, key, 1)
    for key in ("model.clamp_every", "model.detach_every", "model.digit_dim", "model.cell_dim"):
        _optional(cfg, key, _integer, 0)
    _optional(cfg, "model.clamp_threshold", _unit_interval)
    for key in ("model.unit_axiom", "model.exists_last"):
        _optional(cfg, key, _boolean)
    _technique_list(cfg)
    _choice(cfg, "logic.family", FAMILIES)
    _choice(cfg, "logic.labelled_forall", LABELLED_FORALLS)
    for key in ("logic.p_forall", "logic.p_exists"):
        _number_at_least_one(cfg, key)
    for key in ("logic.schedule.p_forall_end", "logic.schedule.p_exists_end"):
        _optional(cfg, key, _number_at_least_one)
    _optional(cfg, "logic.schedule.epochs", _integer, 1)
    _builds(cfg)


def _optional(cfg: DictConfig, key: str, check: Callable[..., None], *args: Any) -> None:
    """`check` on a key the config may leave out (older model configs, a logic without a schedule)."""
    if OmegaConf.select(cfg, key, default=None) is not None:
        check(cfg, key, *args)


def _unit_interval(cfg: DictConfig, key: str) -> None:
    value = _value(cfg, key)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 1:
        raise ConfigError(f"{key}={value!r}: expected a number in (0, 1]")


def _boolean(cfg: DictConfig, key: str) -> None:
    value = _value(cfg, key)
    if not isinstance(value, bool):
        raise ConfigError(f"{key}={value!r}: expected true or false")


def _number_at_least_one(cfg: DictConfig, key: str) -> None:
    """p of a pMean quantifier: below 1 it is no longer a mean that approaches min / max."""
    value = _value(cfg, key)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 1:
        raise ConfigError(f"{key}={value!r}: expected a number >= 1")


def _technique_list(cfg: DictConfig) -> None:
    from ltn_sudoku.logic.labels import resolve_techniques

    value = _value(cfg, "model.techniques")
    if not OmegaConf.is_list(value) or not all(isinstance(name, str) for name in value):
        raise ConfigError(f"model.techniques={value!r}: expected a list of technique names, e.g. "
                          "[Naked Single,Hidden Single]")
    try:
        resolve_techniques(list(value), int(_value(cfg, "model.size")))
    except (KeyError, ValueError) as e:
        raise ConfigError(f"model.techniques: {e}".splitlines()[0]) from None


def _builds(cfg: DictConfig) -> None:
    """The model config and the operators built from the checked values: what the keys above do not name fails here,
    in one line, not as a traceback after the data was generated."""
    from ltn_sudoku.logic.model import ModelConfig
    from ltn_sudoku.logic.operators import build_operators

    try:
        ModelConfig.from_cfg(cfg.model)
        build_operators(cfg.logic)
    except (TypeError, ValueError, KeyError, OmegaConfBaseException) as e:
        raise ConfigError(f"model / logic config: {type(e).__name__}: {e}".splitlines()[0]) from None


def _training_checks(cfg: DictConfig) -> None:
    from ltn_sudoku.train import LR_SCHEDULES, MONITORS

    _integer(cfg, "train.epochs", 1)
    _integer(cfg, "train.batch_size", 1)
    _integer(cfg, "train.patience", 0)
    _positive_number(cfg, "train.lr")
    _positive_number(cfg, "train.heuristic_lr")
    _choice(cfg, "train.lr_schedule", LR_SCHEDULES)
    _choice(cfg, "train.monitor", MONITORS)
    _existing_file(cfg, "train.resume")
    _existing_file(cfg, "train.init_from")


def _evaluation_checks(cfg: DictConfig) -> None:
    _existing_file(cfg, "checkpoint")
    _integer(cfg, "evaluate.seed", 0)
    for key in ("evaluate.closed", "evaluate.open"):  # the Q1 / Q2 tables need boards of every class
        _integer(cfg, key, 1)


def _non_negative_number(cfg: DictConfig, key: str) -> None:
    value = _value(cfg, key)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise ConfigError(f"{key}={value!r}: expected a number >= 0")


def _visual_checks(cfg: DictConfig, entry: str) -> None:
    """model=visual_* (ltn_sudoku/visual): its model, logic, data and training keys."""
    from ltn_sudoku.logic.operators import FAMILIES, LABELLED_FORALLS
    from ltn_sudoku.visual.mnist import FILES
    from ltn_sudoku.visual.model import VISUAL_AXIOMS
    from ltn_sudoku.visual.train import MONITORS

    if entry != "train":
        raise ConfigError(f"model={_value(cfg, 'model.name')}: visual models are trained and scored by "
                          "`python -m ltn_sudoku.train` (test figures in its metrics.json) and scripts/bench_visual.py")
    if _value(cfg, "model.size") not in (4, 9):
        raise ConfigError(f"model.size={_value(cfg, 'model.size')!r}: visual boards are 4x4 or 9x9 (MNIST digits 1-9)")
    for key in ("model.channels", "model.hidden", "data.train_boards", "data.val_boards", "data.test_boards",
                "train.epochs", "train.batch_size"):
        _integer(cfg, key, 1)
    for key in ("data.test_seed", "train.patience", "train.shift"):
        _integer(cfg, key, 0)
    _integer(cfg, "train.abduce_from_epoch", 1)
    _choice(cfg, "train.monitor", MONITORS)
    pool = _value(cfg, "model.pool")
    if isinstance(pool, bool) or pool not in (1, 2):
        raise ConfigError(f"model.pool={pool!r}: expected 1 (28x28 input) or 2 (14x14)")
    axioms = _value(cfg, "model.axioms")
    if axioms is not None and (not axioms or any(a not in VISUAL_AXIOMS for a in axioms)):
        raise ConfigError(f"model.axioms={list(axioms)!r}: expected null or some of {', '.join(VISUAL_AXIOMS)}")
    _choice(cfg, "logic.family", FAMILIES)
    _choice(cfg, "logic.labelled_forall", LABELLED_FORALLS)
    _positive_number(cfg, "train.lr")
    _non_negative_number(cfg, "train.rules_weight")
    _non_negative_number(cfg, "train.abduce_weight")
    _non_negative_number(cfg, "train.rotate")
    _boolean(cfg, "train.warp_once_explained")
    scale = _value(cfg, "train.scale")
    if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not 0 <= scale < 1:
        raise ConfigError(f"train.scale={scale!r}: expected a fraction in [0, 1) (0 = off)")
    _positive_number(cfg, "train.abduce_bound")
    confident = _value(cfg, "train.self_train_confident")
    if isinstance(confident, bool) or not isinstance(confident, (int, float)) or not 0 <= confident <= 1:
        raise ConfigError(f"train.self_train_confident={confident!r}: expected a probability in [0, 1] (0 = off)")
    folder = Path(str(_value(cfg, "data.mnist_path")))
    missing = [name for pair in FILES.values() for name in pair if not (folder / name).is_file()]
    if missing:
        raise ConfigError(f"data.mnist_path={folder}: MNIST idx files not found there ({', '.join(missing)}; "
                          f"looked in {folder.resolve()})")


CHECKS: dict[str, Callable[[DictConfig], None]] = {"train": _training_checks, "evaluate": _evaluation_checks}


def check_config(cfg: DictConfig, entry: str) -> None:
    """Validate the config of an entry point ('train' or 'evaluate') before any work; on a bad value print one line
    to stderr and exit with status 2."""
    try:
        _integer(cfg, "seed", 0)
        _integer(cfg, "threads", 0)
        _choice(cfg, "device", ("auto", "cpu", "cuda"))
        if OmegaConf.select(cfg, "model.kind") == "visual":
            _visual_checks(cfg, entry)
            return
        _model_and_logic_checks(cfg)
        CHECKS[entry](cfg)
    except ConfigError as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(EXIT_USAGE)


def check_group_overrides(overrides: list[str]) -> None:
    """Before Hydra composes: a config group takes one option name (`model=9x9`, or `model=4x4,9x9` to sweep);
    `model=[1,2]` would make Hydra itself fail with a traceback. One line on stderr and exit status 2 instead."""
    groups = {path.name for path in CONF_DIR.iterdir() if path.is_dir()}
    for override in overrides:
        key, _, value = override.partition("=")
        if key.lstrip("+~").split("@")[0] in groups and value.strip().startswith(("[", "{")):
            names = sorted(f.stem for f in (CONF_DIR / key.lstrip("+~").split("@")[0]).glob("*.yaml"))
            print(f"error: {override}: a config group takes one option name, one of {', '.join(names)} "
                  "(several separated by commas to sweep with -m)", file=sys.stderr)
            sys.exit(EXIT_USAGE)
