"""The LTN's answer on one board as a typed object: `LtnAnswer`, the one thing every writer reads.

classify-board's text (`describe`), JSON and CSV (`as_dict`, the `ltn` key), the HTML report (`html`, `picture`) and a
notebook (`_repr_html_`) all read the same object, built by logic/board/predict.py. Plain data (boards, numpy, floats)
and no torch, so that a writer can hold and draw it without the learned package's heavy imports.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html import escape
from typing import Any, Mapping

import numpy as np

from ltn_sudoku.board import Board
from ltn_sudoku.render.ltn import hasvalue_svg
from ltn_sudoku.render.report import plural

NOT_COMPUTED = {"computed": False, "reason": "the per-move dead-end probabilities cost one hasValue run per move: "
                "computed only when asked for (LtnAnswers(dead_ends=True))"}
DEAD_ENDS_OPTION = "--ltn-dead-ends"  # the command-line option that asks for them (the HTML report's hint)


@dataclass(frozen=True)
class Truth:
    """A learned predicate's truth on a board, and the decision at its calibrated threshold."""

    truth: float
    decision: bool

    @classmethod
    def at(cls, value: float, threshold: float) -> Truth:
        return cls(round(float(value), 6), bool(value >= threshold))

    def as_dict(self) -> dict[str, object]:
        return {"truth": self.truth, "decision": self.decision}


@dataclass(frozen=True)
class LtnMove:
    """A basic-rule candidate move (0-based row and column), hasValue's confidence in it and, when computed, its
    dead-end probability (1 - hasSolution after the move) with the decision at hasSolution's threshold."""

    row: int
    col: int
    digit: int
    confidence: float
    dead_end: float | None = None
    dead_end_decision: bool | None = None

    @property
    def name(self) -> str:
        """r1c1 notation, 1-based: 'r1c2=3'."""
        return f"r{self.row + 1}c{self.col + 1}={self.digit}"

    def as_dict(self) -> dict[str, object]:
        return {"row": self.row, "col": self.col, "digit": self.digit, "confidence": self.confidence,
                "dead_end": None if self.dead_end is None else {"probability": self.dead_end,
                                                                "decision": self.dead_end_decision}}


@dataclass(frozen=True)
class LtnAnswer:
    """What one LTN model says about one board (classify's `ltn` section).

    isCorrect for a closed board, hasSolution for an open one; for open boards also hasValue's decoded solution after
    refinement (`solution`, `solution_valid`), every candidate move (`moves`), recommendsHeuristic per technique,
    and when asked for the guided search's and the complete solver's answers (their JSON dicts). `truths` is
    hasValue's whole (cells, n) table after refinement: drawn, never written to JSON. An answer with
    `available=False` says why (`reason`) no model answered."""

    board: Board
    available: bool = True
    reason: str | None = None
    checkpoint: str | None = None
    is_correct: Truth | None = None
    has_solution: Truth | None = None
    solution: Board | None = None
    solution_valid: bool | None = None
    moves: tuple[LtnMove, ...] = ()
    dead_ends_computed: bool | None = None  # None on a closed board (no moves)
    recommends: Mapping[str, Truth] | None = None
    search: Mapping[str, Any] | None = None
    complete_solver: Mapping[str, Any] | None = None
    complete_asked: bool = False  # the JSON key `complete_solver` is written only when it was asked for
    truths: np.ndarray | None = field(default=None, compare=False, repr=False)

    title = "LTN model"

    @classmethod
    def unavailable(cls, board: Board, reason: str) -> LtnAnswer:
        return cls(board, available=False, reason=reason)

    # --- JSON, CSV -------------------------------------------------------------------------------------------------
    def as_dict(self) -> dict[str, object]:
        """The report's `ltn` key (classify-board's JSON; the CSV flattens it)."""
        return {"ltn": self.ltn_dict()}

    def ltn_dict(self) -> dict[str, Any]:
        """The value of the `ltn` key."""
        if not self.available:
            return {"available": False, "reason": self.reason}
        closed = self.board.is_closed
        out: dict[str, Any] = {
            "available": True,
            "checkpoint": self.checkpoint,
            "isCorrect": None if self.is_correct is None else self.is_correct.as_dict(),
            "hasSolution": None if self.has_solution is None else self.has_solution.as_dict(),
            "solution": None if self.solution is None else {"board": self.solution.to_line(),
                                                            "valid": self.solution_valid},
            "moves": [m.as_dict() for m in self.moves],
            "dead_ends": None if closed else {"computed": True} if self.dead_ends_computed else dict(NOT_COMPUTED),
            "recommendsHeuristic": None if self.recommends is None else {
                name: t.as_dict() for name, t in self.recommends.items()},
            "search": None if self.search is None else dict(self.search),
        }
        if self.complete_asked:
            out["complete_solver"] = None if self.complete_solver is None else dict(self.complete_solver)
        return out

    # --- text ------------------------------------------------------------------------------------------------------
    @property
    def recommended(self) -> list[str]:
        """The techniques recommendsHeuristic decides true, in the model's order."""
        return [name for name, t in (self.recommends or {}).items() if t.decision]

    @property
    def predicted_dead_ends(self) -> list[LtnMove]:
        return [m for m in self.moves if m.dead_end_decision]

    def describe(self) -> list[str]:
        """Readable lines for the text report."""
        if not self.available:
            return [str(self.reason or "not available")]
        lines = [f"checkpoint: {self.checkpoint}"]
        for label, t in (("isCorrect", self.is_correct), ("hasSolution", self.has_solution)):
            if t is not None:
                lines.append(f"{label}: {'yes' if t.decision else 'no'} (truth {t.truth:.6f})")
        if self.solution is not None:
            state = "a solution" if self.solution_valid else "not a solution"
            lines.append(f"hasValue after refinement: {self.solution.to_line()} ({state})")
        dead = [m.name for m in self.predicted_dead_ends]
        if self.moves and self.dead_ends_computed is not False:
            lines.append(f"moves: {len(self.moves)}, predicted dead ends: {len(dead)}"
                         + (f" ({', '.join(dead[:12])}{', ...' if len(dead) > 12 else ''})" if dead else ""))
        elif self.moves:
            lines.append(f"moves: {len(self.moves)}, dead-end probabilities not computed (one model run per move)")
        if self.recommends:
            chosen = self.recommended
            lines.append(f"recommendsHeuristic: {', '.join(chosen) if chosen else 'none'}")
        if self.search:
            found = self.search
            lines.append(f"LTN-guided search: {found['verdict']} after {found['nodes']} refined boards"
                         + (f" ({found['solution']})" if found["solution"] else ""))
        if self.complete_solver:
            lines.append(complete_solver_line(self.complete_solver))
        return lines

    # --- pictures --------------------------------------------------------------------------------------------------
    def picture(self, solution: Board | None = None) -> str | None:
        """hasValue on the board beside the exact `solution` (render/ltn.py: wrong cells framed red), as SVG text;
        None without a table (an unavailable model)."""
        if self.truths is None or not self.available:
            return None
        return hasvalue_svg(self.board, self.truths, solution, title="LTN hasValue after refinement")

    def html(self) -> str:
        """The answer as prose and a table (the HTML report's LTN block, a notebook's view)."""
        return ltn_html(self)

    def _repr_html_(self) -> str:
        """A notebook's view: the prose, and the picture beside the exact solver's answer."""
        from ltn_sudoku.exact import solve

        open_board = not self.board.is_closed and not self.board.conflicts()
        svg = self.picture(solve(self.board) if open_board else None)
        return self.html() + (f'<div class="ltn-picture">{svg}</div>' if svg else "")


def complete_solver_line(found: Mapping[str, Any]) -> str:
    """The complete solver's answer in one readable line."""
    count, limit = len(found["solutions"]), found["limit"]
    if found["verdict"] == "none":
        verdict = "no solution (proven)"
    elif count > 1:
        verdict = f"at least {count} solutions (the limit)" if count >= limit else f"exactly {count} solutions"
    else:
        verdict = "a unique solution" if limit > 1 else "a solution (uniqueness not asked: limit 1)"
    first = ("" if found["first_solution_nodes"] is None or limit == 1 else
             f"; the first solution after {found['first_solution_nodes']} nodes, "
             f"{found['first_solution_wrong_guesses']} wrong guesses")
    return (f"complete LTN-guided solver: {verdict} after {found['nodes']} nodes ({found['wrong_guesses']} wrong "
            f"guesses, {found['order_calls']} model calls, {found['cpu_seconds']:.3f} CPU s{first})"
            + (f": {found['solutions'][0]}" if count == 1 else ""))


def _verdict(t: Truth, yes: str, no: str) -> str:
    return f"<b>{escape(yes if t.decision else no)}</b> (truth {t.truth:.3f})"


def ltn_html(a: LtnAnswer) -> str:
    """The LTN block of the HTML report: a few sentences, then the moves it is surest and least sure of."""
    if not a.available:
        return f'<div class="ltn-answer"><p>{escape(str(a.reason))}</p></div>'
    prose = [f"Model <code>{escape(str(a.checkpoint))}</code>."]
    if a.is_correct is not None:
        prose.append(f"isCorrect: the model judges this closed board "
                     f"{_verdict(a.is_correct, 'a valid solution', 'not a valid solution')}.")
    if a.has_solution is not None:
        prose.append(f"hasSolution: it believes the board "
                     f"{_verdict(a.has_solution, 'has a solution', 'has no solution')}.")
    if a.solution is not None:
        prose.append("Decoded after refinement, hasValue's most likely digits "
                     + ("<b>form a valid solution</b>." if a.solution_valid else "<b>do not form a valid solution</b>."))
    if a.recommends is not None:
        chosen = a.recommended
        prose.append("recommendsHeuristic: " + (f"it recommends {escape(', '.join(chosen))}." if chosen else
                                                "it recommends no technique."))
    if a.moves:
        if a.dead_ends_computed:
            dead = a.predicted_dead_ends
            prose.append(f"Of {plural(len(a.moves), 'candidate move')}, it predicts "
                         f"{plural(len(dead), 'dead end')}" + (f": {escape(', '.join(m.name for m in dead[:12]))}"
                                                               f"{', …' if len(dead) > 12 else ''}." if dead else "."))
        else:
            prose.append(f"{plural(len(a.moves), 'candidate move')}; dead-end probabilities were not computed "
                         f"(one model run per move): add <code>{DEAD_ENDS_OPTION}</code> to classify-board.")
    if a.search:
        prose.append(f"LTN-guided search: {escape(str(a.search['verdict']))} after "
                     f"{plural(int(a.search['nodes']), 'refined board')}.")
    if a.complete_solver:
        prose.append(escape(complete_solver_line(a.complete_solver)) + ".")
    parts = ['<div class="ltn-answer">', "<p>" + " ".join(prose) + "</p>"]
    if a.moves:
        ranked = sorted(a.moves, key=lambda m: -m.confidence)
        shown = ranked[:5] + [m for m in ranked[-3:] if m not in ranked[:5]]
        head = "<tr><th>move</th><th>hasValue</th>" + ("<th>dead end</th>" if a.dead_ends_computed else "") + "</tr>"
        rows = "".join(f"<tr><td>{m.name}</td><td>{m.confidence:.3f}</td>"
                       + (f"<td>{m.dead_end:.3f}{' (predicted)' if m.dead_end_decision else ''}</td>"
                          if a.dead_ends_computed and m.dead_end is not None else "") + "</tr>" for m in shown)
        caption = (f"the {len(shown)} moves hasValue is surest and least sure of" if len(ranked) > len(shown)
                   else "every candidate move")
        parts.append(f'<table class="q"><caption>{caption}</caption>{head}{rows}</table>')
    parts.append("</div>")
    return "".join(parts)
