"""Record Q3's answers (recommendation, explained path, level, score, survey) on a few hundred real boards into
tests/fixtures/q3_answers.jsonl, so that tests/test_q3_answers.py can check that a change of how Q3 is computed
leaves them as they are.

The boards: 200 rows drawn at random (seed 29) from each shipped Kaggle sample (data/kaggle/: the 1M, 3M and 9M sets)
and 200 of top1465 (data/9x9/top1465.txt, shipped whole), stored with their answers so that the test reads no data set.
The committed fixture was recorded by the code before issue 29 (commit dff8c45) with Q3's time budget lifted: under a
time budget the answer depended on the machine's load, and what is recorded is the answer Q3 gave whenever its budget
did not bite. Run today, the script records answer_q3(board, full=True), which on 9x9 boards is that same answer
(every technique, no budget, the complete survey).

    PYTHONPATH=. .venv/bin/python scripts/record_q3_answers.py [--per-set 200] [--out tests/fixtures/q3_answers.jsonl]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Mapping, Sequence

from tqdm import tqdm

from ltn_sudoku.board import Board
from ltn_sudoku.io import atomic_write_text, read_boards
from ltn_sudoku.paths import DATA_DIR

SETS: dict[str, str] = {
    "kaggle 1M": "kaggle/kaggle_1m_sample1000.csv.gz",
    "kaggle 3M": "kaggle/kaggle_3m_sample1000.csv.gz",
    "kaggle 9M": "kaggle/kaggle_9m_sample1000.csv.gz",
    "top1465": "9x9/top1465.txt",
}
FIXTURE = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "q3_answers.jsonl"


def digest(value: object) -> str:
    """A short stable digest of a JSON-ready value."""
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()[:16]


def essentials(answer: Mapping[str, object]) -> dict[str, object]:
    """What must not change: the recommendation (ranked list and the first step's text), the path (its digest and
    length), level, score, guessed; and the digest of the complete survey (name, applies, count per technique)."""
    steps = answer["steps"]
    assert isinstance(steps, list)
    return {
        "recommended": answer["recommended"],
        "recommendation": answer.get("recommendation"),
        "path": digest(steps),
        "path_steps": len(steps),
        "level": answer["level"],
        "score": answer["score"],
        "guessed": answer["guessed"],
        "survey": digest(answer["heuristics"]),
    }


def pick(name: str, path: str, count: int) -> list[Board]:
    boards = read_boards(DATA_DIR / path)  # every set ships in data/ (data/README.md)
    return random.Random(29).sample(boards, min(count, len(boards)))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-set", type=int, default=200, help="boards per set (default 200)")
    parser.add_argument("--out", type=Path, default=FIXTURE, help="the fixture file (default: %(default)s)")
    args = parser.parse_args(argv)
    from ltn_sudoku.questions.q3 import answer_q3
    records = []
    for name, path in SETS.items():
        for board in tqdm(pick(name, path, args.per_set), desc=name, unit="board"):
            q3 = answer_q3(board, full=True)  # the unbudgeted answer (see the module docstring)
            text = q3.ranked[0].steps[0].text if q3.ranked else None
            answer = q3.as_dict()
            records.append({"set": name, "board": board.to_line(), **essentials({**answer, "recommendation": text})})
    atomic_write_text(args.out, "".join(json.dumps(r) + "\n" for r in records))
    print(f"{len(records)} boards -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
