"""The one schema of the Hydra config (conf/): structured configs registered in Hydra's ConfigStore.

Each config group's YAML files start from a dataclass below (`defaults: [<group>_schema, _self_]`), so OmegaConf
checks every key and type while Hydra composes: `train.epochs=abc` or `model.nokey=1` fail before any work, and a
field left `???` (MISSING) is a required key the YAML must set. The YAML files hold the values (with comments on why);
a dataclass field's default is only ever the *off* value of an optional switch, which the YAML files then leave out.

A field's `rule` (its metadata) is the range or set of values it accepts; `check_rules` applies them and says which
key is wrong in one line. Rules between fields (techniques that exist for the board size, a visual model on 4x4 or
9x9 boards, ...) are each model kind's `rules`
(ltn_sudoku/logic/kinds.py: KINDS) and ltn_sudoku/logic/commands/check.py. The value sets a field accepts live
in vocabulary.py, which the code that reads them (a task's monitors, the loop's schedules, the operators' families)
imports too: this module imports no torch and no training code (tests/test_config_light.py).
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any, Dict, List, Optional

from hydra import compose, initialize_config_dir
from hydra.core.config_store import ConfigStore
from hydra.core.global_hydra import GlobalHydra
from omegaconf import MISSING, DictConfig, OmegaConf

from ltn_sudoku.logic.config.fields import (
    Rule,
    at_least,
    existing_file,
    non_negative,
    number,
    one_of,
    p_mean,
    positive,
    ruled,
)
from ltn_sudoku.logic.config.groundings import MessagePassingConfig, ReaderConfig, RecurrentConfig
from ltn_sudoku.logic.config.vocabulary import (
    BOARD_MONITORS,
    DEVICES,
    LOGIC_FAMILIES,
    LR_SCHEDULES,
    SOLUTION_INPUTS,
    VISUAL_AXIOMS,
    VISUAL_MONITORS,
)
from ltn_sudoku.paths import CONF_DIR, DATA_DIR, data_home

CPUS = os.cpu_count() or 1  # threads=100000 would ask torch's thread pool (and LLVM's) for that many threads


def _square_side(value: int) -> bool:
    return 4 <= value <= 81 and math.isqrt(value) ** 2 == value


# ---- the top level and evaluation (conf/config.yaml) ----------------------------------------------------------------
@dataclass
class SearchConfig:
    puzzles: int = at_least(0)
    impossible: int = at_least(0)
    budget: int = at_least(1)


@dataclass
class EvaluateConfig:
    seed: int = at_least(0)
    closed: int = at_least(1)  # the Q1 / Q2 tables need boards of every class
    open: int = at_least(1)
    solving: int = at_least(1)  # the tier and givens tables need puzzles
    public: Dict[str, int] = MISSING
    kaggle_path: Optional[str] = None
    kaggle_limit: int = at_least(0)
    progress: bool = MISSING
    search: SearchConfig = field(default_factory=SearchConfig)
    dead_end_puzzles: int = at_least(0)
    eval_steps: Optional[int] = ruled(Rule(lambda v: v is None or v >= 1, "expected null or an integer >= 1"), None)
    givens_bins: Optional[Any] = None


@dataclass
class ExperimentConfig:
    """conf/experiment/<name>.yaml: the recipe of a shipped checkpoint (`+experiment=<name>`)."""

    name: str = MISSING  # the file's stem, recorded in the checkpoint and its metrics.json
    checkpoint: Optional[str] = None  # the shipped checkpoint it reproduces (a stage of a chain: null)
    warm_start: Optional[str] = None  # the experiment run first, whose best.pt starts this one (train.init_from)


@dataclass
class RunConfig:
    seed: int = at_least(0)
    device: str = one_of(DEVICES)
    threads: int = ruled(Rule(lambda v: 0 <= v <= CPUS, "expected 0 (torch's default) to the CPUs of this machine"))
    run_dir: Optional[str] = None  # a folder that can be made: checked by the entry points (commands/check.py)
    checkpoint: Optional[str] = existing_file()
    evaluate: EvaluateConfig = field(default_factory=EvaluateConfig)
    model: Any = MISSING
    logic: Any = MISSING
    data: Any = MISSING
    train: Any = MISSING
    experiment: Optional[ExperimentConfig] = None


# ---- logic (conf/logic) ---------------------------------------------------------------------------------------------
@dataclass
class LogicConfig:
    family: str = one_of(LOGIC_FAMILIES)
    p_forall: float = p_mean()
    p_exists: float = p_mean()


# ---- models (conf/model) --------------------------------------------------------------------------------------------
@dataclass
class LtnModelConfig:
    """A board model (ltn_sudoku/logic/board/model.py): hasValue, hasSolution and recommendsHeuristic. Its
    grounding's own fields come with the grounding's schema below (one per `model.hasvalue` grounding)."""

    name: str = MISSING
    size: int = ruled(Rule(_square_side, "expected a board side k*k between 4 and 81 (4, 9, 16, ...)"))
    eval_steps: int = at_least(1)
    kb_every: int = at_least(1)
    detach_every: int = at_least(0, 0)  # truncate backpropagation every so many steps (0 = through all steps)
    unit_axiom: bool = False  # the unit_has_digit axiom joins the rules in the loss
    exists_last: bool = False  # the existential axioms on the last step only
    exists_axioms: bool = True  # the existential axioms (cell_has_value, unit_has_digit) in the loss at all
    solution_inputs: str = one_of(tuple(SOLUTION_INPUTS))
    solution_hidden: int = at_least(1)
    heuristic_hidden: int = at_least(1)
    techniques: List[str] = MISSING
    hasvalue: str = MISSING  # the grounding of hasValue: each schema below accepts its own (keys in their old order)


@dataclass
class EvidenceModelConfig(RecurrentConfig, LtnModelConfig):
    """A board model with the evidence grounding of hasValue: the board model's keys and the grounding's own (its
    config dataclass, RecurrentConfig, ltn_sudoku/logic/config/groundings.py, declared once with each rule)."""

    hasvalue: str = one_of(("evidence",))


@dataclass
class MessagePassingModelConfig(MessagePassingConfig, LtnModelConfig):
    """A board model with the message-passing grounding of hasValue (its fields: MessagePassingConfig,
    ltn_sudoku/logic/config/groundings.py)."""

    hasvalue: str = one_of(("message_passing",))


# model.hasvalue -> the schema of a board model with that grounding, registered as `<grounding>_schema` (which its
# conf/model/*.yaml names); tests/test_logic.py checks that every grounding of GROUNDINGS that reads givens has one
BOARD_SCHEMAS: dict[str, type] = {"evidence": EvidenceModelConfig, "message_passing": MessagePassingModelConfig}


@dataclass
class _VisualModelKeys:
    """The keys of a visual model's config before its grounding's (so that they keep their order in a config)."""

    name: str = MISSING
    kind: str = MISSING
    size: int = ruled(Rule(lambda v: v in (4, 9), "visual boards are 4x4 or 9x9 (MNIST digits 1-9)"))


@dataclass
class VisualModelConfig(ReaderConfig, _VisualModelKeys):
    """A visual model (ltn_sudoku/logic/visual/model.py): hasValue's `visual` grounding, a CNN reader of MNIST cells
    (its fields: ReaderConfig, ltn_sudoku/logic/config/groundings.py), and isCorrect on its reading."""

    kind: str = one_of(("visual",), "visual")  # model.kind: the model kind
    axioms: Optional[List[str]] = ruled(
        Rule(lambda v: v is None or (len(v) > 0 and all(a in VISUAL_AXIOMS for a in v)),
             f"expected null or some of {', '.join(VISUAL_AXIOMS)}"), None)


# ---- data (conf/data) -----------------------------------------------------------------------------------------------
@dataclass
class KaggleRows:
    train: int = at_least(0)
    val: int = at_least(0)


@dataclass
class TrainBoards:
    solvable: int = at_least(0)
    impossible: int = at_least(0)
    boards_path: Optional[str] = existing_file()  # a board file whose puzzles join the training ones (any format)
    boards_limit: int = at_least(0, 0)  # its first so many boards (0 = every one)
    boards_origin: str = "generated"  # what its boards are, recorded in metrics.json (never "Kaggle" unless they are)


@dataclass
class ValBoards:
    solvable: int = at_least(0)
    impossible: int = at_least(0)
    closed_valid: int = at_least(0)
    closed_invalid: int = at_least(0)


@dataclass
class GeneratedDataConfig:
    kaggle_path: Optional[str] = None
    kaggle_rows: KaggleRows = field(default_factory=KaggleRows)
    givens: Optional[Any] = None
    train: TrainBoards = field(default_factory=TrainBoards)
    val: ValBoards = field(default_factory=ValBoards)


@dataclass
class VisualDataConfig:
    mnist_path: str = MISSING
    train_boards: int = at_least(1)
    val_boards: int = at_least(1)
    test_boards: int = at_least(1)
    test_seed: int = at_least(0)


# ---- training (conf/train) ------------------------------------------------------------------------------------------
@dataclass
class CurriculumConfig:
    epochs: int = at_least(0, 0)  # epochs until every board is used (0 = no curriculum)
    start_givens: int = at_least(0, 30)


@dataclass
class TrainConfig:
    epochs: int = at_least(1)
    batch_size: int = at_least(1)
    lr: float = positive()
    heuristic_lr: float = positive()
    lr_schedule: str = one_of(LR_SCHEDULES)
    patience: int = at_least(0)
    monitor: str = one_of(BOARD_MONITORS)
    supervised: bool = False  # the supervised axiom (reads solutions): reference runs only (docs/ltn.md, run S)
    curriculum: CurriculumConfig = field(default_factory=CurriculumConfig)
    resume: Optional[str] = existing_file()
    init_from: Optional[str] = existing_file()
    progress: bool = MISSING
    amp: bool = False
    compile: bool = False
    grad_every: int = at_least(0, 50)  # TensorBoard grad/<axiom> every so many batches (0 = never; one process only)


@dataclass
class VisualTrainConfig:
    epochs: int = at_least(1)
    batch_size: int = at_least(1)
    lr: float = positive()
    patience: int = at_least(0)
    resume: Optional[str] = existing_file()  # a visual run's last.pt: go on from its next epoch
    rules_weight: float = non_negative()
    labels_teach_reader: bool = MISSING
    shift: int = at_least(0)
    rotate: float = non_negative()
    scale: float = ruled(Rule(lambda v: number(v) and 0 <= v < 1, "expected a fraction in [0, 1) (0 = off)"))
    warp_once_explained: bool = MISSING
    progress: bool = MISSING
    grad_every: int = at_least(0, 50)  # TensorBoard grad/<axiom> every so many batches (0 = never; one process only)
    monitor: str = one_of(VISUAL_MONITORS)
    abduce_weight: float = non_negative()
    abduce_from_epoch: int = at_least(1)
    abduce_bound: float = positive()
    decode_time_limit: float = positive()  # CPU seconds of RC2 per held-out board in the test figures
    self_train_confident: float = ruled(
        Rule(lambda v: number(v) and 0 <= v <= 1, "expected a probability in [0, 1] (0 = off)"))


# group -> {name in the ConfigStore: schema}; each YAML of the group names one in its defaults list
SCHEMAS: dict[str | None, dict[str, type]] = {
    None: {"config_schema": RunConfig},
    "logic": {"logic_schema": LogicConfig},
    "model": {**{f"{name}_schema": schema for name, schema in BOARD_SCHEMAS.items()},
              "visual_schema": VisualModelConfig},  # one per hasValue grounding (ltn_sudoku.logic.groundings.hasvalue)
    "data": {"generated_schema": GeneratedDataConfig, "visual_schema": VisualDataConfig},
    "train": {"train_schema": TrainConfig, "visual_schema": VisualTrainConfig},
    "experiment": {"experiment_schema": ExperimentConfig},
}


def register() -> None:
    """Put the schemas into Hydra's ConfigStore (idempotent); composing conf/ needs them."""
    store = ConfigStore.instance()
    for group, schemas in SCHEMAS.items():
        for name, schema in schemas.items():
            store.store(group=group, name=name, node=schema)


register()
# `${data_home:kaggle}` in a YAML file: that folder of the data home ($LTN_SUDOKU_DATA or the user's data folder, filled
# by `ltn-sudoku data fetch`), so that no config names a folder of one machine.
OmegaConf.register_new_resolver("data_home", lambda relative="": str(data_home() / str(relative)), replace=True)
# `${shipped_data:mnist_sample}`: a folder of the data the package ships (data/, in a checkout or the wheel), for what
# must run on a fresh install (the +experiment=debug smoke test of a visual model)
OmegaConf.register_new_resolver("shipped_data", lambda relative="": str(DATA_DIR / str(relative)), replace=True)


def compose_config(overrides: Sequence[str] = ()) -> DictConfig:
    """conf/config.yaml with these command-line overrides, as `python -m ltn_sudoku.train` composes it (tests,
    scripts, the stages of an experiment). Inside a running Hydra app it uses that app's initialised Hydra."""
    if GlobalHydra.instance().is_initialized():
        return compose("config", overrides=list(overrides))
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        return compose("config", overrides=list(overrides))


def rule_violations(cfg: DictConfig, prefix: str = "") -> Iterator[str]:
    """'key=value: expected ...' for every field of a structured config whose value its rule refuses, depth first;
    a required key left MISSING, and a key the schema does not declare, are violations too."""
    schema = OmegaConf.get_type(cfg)
    if not (isinstance(schema, type) and is_dataclass(schema)):
        return
    declared = {spec.name for spec in fields(schema) if not spec.metadata.get("omegaconf_ignore")}
    for extra in (key for key in cfg if key not in declared):  # `+key=...` adds keys the schema does not know
        yield f"{prefix}{extra!s}: not a key of {schema.__name__} (retired, or a typo)"
    for spec in fields(schema):
        if spec.metadata.get("omegaconf_ignore"):
            continue  # not a config key (a grounding config's `grounding`)
        key = f"{prefix}{spec.name}"
        if OmegaConf.is_missing(cfg, spec.name):
            yield f"{key}: missing (a required key of {schema.__name__})"
            continue
        try:
            value = cfg[spec.name]
        except Exception as e:  # an interpolation that cannot resolve
            yield f"{key}: {e}".splitlines()[0]
            continue
        if isinstance(value, DictConfig):
            yield from rule_violations(value, f"{key}.")
            continue
        rule = spec.metadata.get("rule")
        if rule is not None and not rule.accepts(value):
            shown = list(value) if OmegaConf.is_list(value) else value
            yield f"{key}={shown}: {rule.expected}"
