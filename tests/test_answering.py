"""The chunked answering pipeline (ltn_sudoku/answering.py) as any writer sees it: records cut into chunks by cells,
each board answered in full as an `Answered` (the report classify gives, the LTN section apart), a writer's text per
chunk in input order, and an unusable checkpoint as the pipeline's own error."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import pytest

from ltn_sudoku import answering
from ltn_sudoku.answering import Answered, Answerer, AnswerError, chunks, write_chunk, written
from ltn_sudoku.io import BoardRecord, parse_board_text, read_records
from ltn_sudoku.paths import DATA_DIR
from ltn_sudoku.questions.report import classify

EXAMPLES = ("seed_4x4", "valid_closed_4x4")  # open with one solution; closed and valid
IMPOSSIBLE = "1134 34.2 2143 432."  # open, the givens conflict (two 1s in the first row)
INVALID = "1234 3412 2143 4312"  # closed, two 3s and two 4s in the last two columns


@dataclass(frozen=True)
class Kinds:
    """The smallest writer: each board's index and class, one per line, between a head and a tail line."""

    def head(self) -> str:
        return "head\n"

    def __call__(self, answers: Sequence[Answered]) -> str:
        return "".join(f"{a.index} {a.kind}\n" for a in answers)

    def tail(self, boards: int) -> str:
        return "tail\n"


def _records() -> list[BoardRecord]:
    found = [record for name in EXAMPLES for record in read_records(DATA_DIR / "examples" / f"{name}.csv")]
    return [*found, BoardRecord(parse_board_text(IMPOSSIBLE), 98), BoardRecord(parse_board_text(INVALID), 99)]


def test_chunks_are_cut_by_cells_and_numbered_in_input_order(monkeypatch: pytest.MonkeyPatch) -> None:
    records = _records() * 2  # eight 4x4 boards
    monkeypatch.setattr(answering, "CHUNK_CELLS", 3 * 16)
    cut = list(chunks(iter(records)))
    assert [len(c) for c in cut] == [3, 3, 2]
    assert [index for chunk in cut for index, _ in chunk] == list(range(8))
    assert [record for chunk in cut for _, record in chunk] == records


def test_each_board_is_answered_as_classify_answers_it_and_written_in_order(monkeypatch: pytest.MonkeyPatch) -> None:
    records = _records()
    answerer = Answerer(ltn=False)
    answers = answerer.answer(list(enumerate(records)))
    assert [a.report for a in answers] == [classify(r.board) for r in records]
    assert [a.kind for a in answers] == ["unique", "valid", "impossible", "invalid"]
    assert all(a.ltn is None for a in answers)
    monkeypatch.setattr(answering, "CHUNK_CELLS", 16)  # a chunk per board
    done = list(written(answerer, Kinds(), chunks(iter(records)), jobs=1))
    assert [w.text for w in done] == ["0 unique\n", "1 valid\n", "2 impossible\n", "3 invalid\n"]
    assert [w.boards for w in done] == [1] * 4 and [dict(w.kinds) for w in done] == [{a.kind: 1} for a in answers]


def test_the_ltn_section_joins_the_report_and_stands_apart(tmp_path: Path) -> None:
    chunk = list(enumerate(_records()[:1]))
    answer = Answerer(heuristics=False).answer(chunk)[0]
    assert answer.ltn is not None and answer.report.sections[-1] is answer.ltn
    assert answer.report.as_dict()["ltn"] == answer.ltn.as_dict()["ltn"]
    assert write_chunk(Answerer(heuristics=False), Kinds(), chunk).text == "0 unique\n"
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"not a checkpoint")
    with pytest.raises(AnswerError, match="bad.pt"):
        Answerer(heuristics=False, checkpoint=bad).answer(chunk)
