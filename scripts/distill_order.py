"""Fit a linear value order (ltn_sudoku/branching/linear.py) on one set's branch states: distilled from the LTN's
hasValue, or fitted to the exact solver's solutions as a reference. One order call then costs what a hand-made
order's costs (a few numpy operations), not a model pass.

    python scripts/distill_order.py --set kaggle_3m --target teacher   # -> outputs/orders/linear_kaggle_3m_teacher.json
    python scripts/distill_order.py --set kaggle_3m --target solution     # the reference: the solutions' digits
    python scripts/distill_order.py --set seventeen_clue --states 2000 --teacher checkpoints/9x9.pt

The branch states are the train split's (scripts/make_branch_states.py --set NAME, in the data home), so the set's
test split stays held out. On each state the cells the solver may branch on (open cells with the fewest possible
digits) are the examples; the target over a cell's possible digits is hasValue after the teacher's answering steps,
renormalised over those digits (`teacher`), or the solution's digit (`solution`). The weights minimise the
cross-entropy of a softmax over the cell's possible digits (L-BFGS, a small L2 penalty). Writes the weights with the
command, the teacher, the states and the fit's top-1 agreement with the target and with the solution.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import shlex
import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from make_branch_states import STEMS, states_file  # noqa: E402

from ltn_sudoku.branching.linear import FEATURES, LinearOrder, candidate_features  # noqa: E402
from ltn_sudoku.branching.propagate import evaluate, tables  # noqa: E402
from ltn_sudoku.io import AtomicFile, atomic_write_text, iter_records  # noqa: E402
from ltn_sudoku.io.progress import progress  # noqa: E402
from ltn_sudoku.logic.device import to_numpy  # noqa: E402

SETS = ("seventeen_clue", "forum_hardest_1905", "kaggle_3m")  # the sets of conf/experiment/order_*.yaml


def read_states(path: Path, limit: int) -> tuple[np.ndarray, np.ndarray]:
    """(states, solutions) as (M, 81) digits: the first `limit` rows of a branch-states file."""
    states, solutions = [], []
    for record in iter_records(path):
        if limit and len(states) >= limit:
            break
        if record.solution is None:
            raise ValueError(f"{path}:{record.line}: a branch state without its solution")
        states.append(record.board.values)
        solutions.append(record.solution.values)
    return np.array(states, dtype=np.int64), np.array(solutions, dtype=np.int64)


def teacher_answers(checkpoint: str, states: np.ndarray, batch: int) -> np.ndarray:
    """(M, 81, 9) the teacher's hasValue on every state, cached beside the outputs (outputs/orders/teacher_*.npz,
    keyed by the checkpoint's bytes and the states): the slow part of a fit (about 0.1 CPU s a state, message
    passing on the CPU) is paid once per set."""
    from ltn_sudoku.logic.board.model_order import ModelOrder  # torch and the model only for distillation

    key = hashlib.sha256(Path(checkpoint).read_bytes() + states.tobytes()).hexdigest()[:16]
    cache = Path("outputs/orders") / f"teacher_{key}.npz"
    if cache.is_file():
        return np.load(cache)["probabilities"]
    model = ModelOrder.load(checkpoint)
    with progress(total=len(states), unit="state", desc="teacher") as bar:
        parts = []
        for start in range(0, len(states), batch):
            parts.append(model.probabilities(states[start:start + batch]))
            bar.update(len(parts[-1]))
    out = np.concatenate(parts).astype(np.float32)
    with AtomicFile(cache, "wb") as handle:  # makes the folder
        np.savez_compressed(handle.file, probabilities=out)
        handle.commit()
    return out


def examples(states: np.ndarray, solutions: np.ndarray, teacher: np.ndarray | None
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per branching cell of every state: features (E, n, F), possible mask (E, n), target distribution (E, n) and
    the solution's digit index (E,)."""
    n = 9
    feats, masks, targets, truth = [], [], [], []
    for i, values in enumerate(states):
        crisp = evaluate(values, tables(n))
        count = crisp.possible.sum(1)
        open_cells = np.flatnonzero(values == 0)
        fewest = open_cells[count[open_cells] == count[open_cells].min()]
        f = candidate_features(crisp)
        for cell in fewest:
            mask = crisp.possible[cell]
            digit = int(solutions[i, cell]) - 1
            if teacher is None:
                target = np.eye(n, dtype=np.float32)[digit]
            else:
                weights = teacher[i, cell] * mask
                target = weights / weights.sum() if weights.sum() > 0 else mask / mask.sum()
            feats.append(f[cell])
            masks.append(mask)
            targets.append(target)
            truth.append(digit)
    return np.array(feats), np.array(masks), np.array(targets, dtype=np.float32), np.array(truth)


def fit(feats: np.ndarray, masks: np.ndarray, targets: np.ndarray, l2: float = 1e-3) -> np.ndarray:
    """Weights minimising the masked softmax cross-entropy (plus l2 * |w|^2), by L-BFGS."""
    x, m, y = (torch.as_tensor(a, dtype=torch.float64) for a in (feats, masks, targets))
    w = torch.zeros(x.shape[-1], dtype=torch.float64, requires_grad=True)
    optimizer = torch.optim.LBFGS([w], max_iter=200, line_search_fn="strong_wolfe")

    def loss() -> torch.Tensor:
        optimizer.zero_grad()
        logits = (x @ w).masked_fill(m == 0, -1e9)
        value = -(y * torch.log_softmax(logits, -1)).sum(-1).mean() + l2 * (w ** 2).sum()
        value.backward()
        return value

    optimizer.step(loss)
    return to_numpy(w.detach())


def agreement(feats: np.ndarray, masks: np.ndarray, weights: np.ndarray, index: np.ndarray) -> float:
    """Share of examples whose highest-scored possible digit is `index`."""
    scores = np.where(masks, feats @ weights, -np.inf)
    return float((scores.argmax(1) == index).mean())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--set", required=True, choices=SETS, help="whose train-split branch states")
    parser.add_argument("--states", type=int, default=4000, help="the first so many states of the file (0: all)")
    parser.add_argument("--target", choices=("teacher", "solution"), default="teacher")
    parser.add_argument("--teacher", default="checkpoints/9x9_message_passing.pt", help="with --target teacher")
    parser.add_argument("--batch", type=int, default=256, help="states per teacher call")
    parser.add_argument("--states-file", type=Path, default=None,
                        help="default: DATA_HOME/branch_states/SET_train.csv")
    parser.add_argument("--out", type=Path, default=None, help="default: outputs/orders/linear_SET_TARGET.json")
    args = parser.parse_args()
    path = args.states_file or states_file(args.set)
    out = args.out or Path("outputs/orders") / f"linear_{args.set}_{args.target}.json"
    if not path.is_file():
        print(f"distill_order: no branch states at {path}: run scripts/make_branch_states.py --set "
              f"{STEMS[args.set]} first", file=sys.stderr)
        raise SystemExit(2)
    started = time.perf_counter()
    states, solutions = read_states(path, args.states)
    teacher = teacher_answers(args.teacher, states, args.batch) if args.target == "teacher" else None
    feats, masks, targets, truth = examples(states, solutions, teacher)
    weights = fit(feats, masks, targets)
    order = LinearOrder(weights)
    info = {"command": shlex.join(["python", *sys.argv]),
            "date": datetime.datetime.now(datetime.timezone.utc).date().isoformat(),
            "features": list(FEATURES), "weights": [round(float(w), 6) for w in order.weights],
            "set": args.set, "states_file": path.name, "states": len(states), "examples": len(feats),
            "target": args.target, "teacher": args.teacher if teacher is not None else None,
            "top1_target": agreement(feats, masks, weights, targets.argmax(1)),
            "top1_solution": agreement(feats, masks, weights, truth),
            "top1_solution_fewest_places": agreement(feats, masks, -np.eye(len(FEATURES))[0], truth),
            "wall_s": round(time.perf_counter() - started, 1)}
    if teacher is not None:  # how often the teacher itself ranks the solution's digit first among the possible ones
        info["top1_solution_teacher"] = float((np.where(masks, targets, -1).argmax(1) == truth).mean())
    atomic_write_text(out, json.dumps(info, indent=1) + "\n")
    print(json.dumps({k: v for k, v in info.items() if k != "command"}, indent=1))
    print(f"-> {out}")


if __name__ == "__main__":
    main()
