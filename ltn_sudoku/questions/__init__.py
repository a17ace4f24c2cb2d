"""The symbolic answers to the three questions about a board, bottom-up (docs/design.md §6).

- ``memory``: what the engine tried and applied, step by step and per technique;
- ``engine``: the human-technique engine (easiest technique first, exact fallback marked as a guess);
- ``tiers``: a puzzle's reasoning tier and the symbolic baselines printed beside every learned figure;
- ``q3``: Q3, which techniques apply now, which to recommend, and the explained solving path;
- ``report``: one board's Report, Q1 (valid? conflicts) and Q2 (solutions, moves, dead ends), with Q3 gathered in;
- ``text``: a Report as readable text.

Importing this package loads none of them: ``from ltn_sudoku.questions.report import classify``.
"""
