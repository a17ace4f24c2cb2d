"""`python -m ltn_sudoku.evaluate`'s work: a checkpoint measured on held-out boards (evaluate.py), hasValue's reasoning
tiers beside the symbolic solvers (reasoning.py)."""
