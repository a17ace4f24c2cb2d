"""What the entry points (python -m ltn_sudoku.train / evaluate) run before any work: the command line composed and
checked (check.py), experiment files and their chains (experiments.py)."""
