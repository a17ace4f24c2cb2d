"""A board model's rules between config keys (its entry `rules` in ltn_sudoku/logic/kinds.py: KINDS): techniques
that exist on the board size, what the built model and operators accept, givens ranges the generators can meet,
data and curriculum settings that leave an epoch without boards.
Each problem is one line naming the key to change (ltn_sudoku/logic/commands/check.py prints the first)."""

from __future__ import annotations

from collections.abc import Iterator

from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

from ltn_sudoku.generate import GenerationError, generate
from ltn_sudoku.logic.board.labels import resolve_techniques
from ltn_sudoku.logic.board.model import ModelConfig
from ltn_sudoku.logic.errors import first_line
from ltn_sudoku.logic.kb.operators import build_operators


def _givens_spans(value: object) -> list[object]:
    """data.givens as a list of [low, high] spans (one span, or a list of them)."""
    if isinstance(value, list) and value and isinstance(value[0], list):
        return list(value)
    return [value]


def _givens_rules(cfg: DictConfig, entry: str) -> Iterator[str]:
    """data.givens: [low, high] ranges the generators can meet for this board size (training makes its boards)."""
    d = cfg.data
    givens = OmegaConf.to_container(d.givens) if entry == "train" and d.get("givens") is not None else None
    if givens is None:
        return
    n = int(cfg.model.size)
    labels = ["open_solvable"] + (["open_impossible"] if int(d.train.impossible) or int(d.val.impossible) else [])
    for span in _givens_spans(givens):
        if not (isinstance(span, list) and len(span) == 2 and all(isinstance(v, int) for v in span)):
            yield f"data.givens={givens}: expected [low, high] or a list of such ranges, {span!r} is neither"
            return
        for label in labels:
            try:
                generate(n, label, 0, givens=(span[0], span[1]))  # no board: the options alone are checked
            except GenerationError as e:
                yield f"data.givens={givens}: {first_line(e)}"
                return


def _data_rules(cfg: DictConfig, entry: str) -> Iterator[str]:
    """Settings that leave the training without boards to learn from: no solvable training or validation puzzles
    (generated, from a board file or Kaggle rows), or a curriculum whose first epoch keeps no board (an open board
    has at most n*n - 1 givens)."""
    if entry != "train":
        return
    d, n = cfg.data, int(cfg.model.size)
    kaggle = bool(d.get("kaggle_path"))
    if int(d.train.solvable) == 0 and not d.train.get("boards_path") and not (kaggle and int(d.kaggle_rows.train)):
        yield ("data.train.solvable=0: no solvable training puzzles (nor data.train.boards_path or Kaggle rows): "
               "hasValue would learn from no board; set it to at least 1")
    if int(d.val.solvable) == 0 and not (kaggle and int(d.kaggle_rows.val)):
        yield ("data.val.solvable=0: no solvable validation puzzles (nor Kaggle rows): the monitored figures would "
               "read no board; set it to at least 1")
    curriculum = cfg.train.get("curriculum")
    if curriculum and int(curriculum.epochs) > 0 and int(curriculum.start_givens) > n * n - 1:
        yield (f"train.curriculum.start_givens={int(curriculum.start_givens)}: a {n}x{n} open board has at most "
               f"{n * n - 1} givens, so the curriculum's first epoch (train.curriculum.epochs="
               f"{int(curriculum.epochs)}) would keep no board; set it to at most {n * n - 1}, or "
               "train.curriculum.epochs=0")


def board_rules(cfg: DictConfig, entry: str) -> Iterator[str]:
    """The rules between a board model's keys, for this entry point ('train' or 'evaluate')."""
    try:
        resolve_techniques(list(cfg.model.techniques), int(cfg.model.size))
    except (KeyError, ValueError) as e:
        yield f"model.techniques: {first_line(e)}"
        return
    try:  # what the keys' own rules do not cover fails here, in one line, not after the data was generated
        ModelConfig.from_cfg(cfg.model)
        build_operators(cfg.logic)
    except (TypeError, ValueError, KeyError, OmegaConfBaseException) as e:
        yield f"model / logic config: {type(e).__name__}: {first_line(e)}"
        return
    yield from _givens_rules(cfg, entry)
    yield from _data_rules(cfg, entry)
