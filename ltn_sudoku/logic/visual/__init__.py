"""Visual Sudoku (the ViSudo-PC task): boards of handwritten MNIST digits labelled only valid / invalid.

hasValue(c, v | b) is a CNN over the cell's image, isCorrect(b) the satisfaction of the knowledge base's rule axioms
on that soft assignment; trained from board labels alone (docs/visual.md). One module per job: mnist (idx files,
disjoint image pools), boards (labelled visual boards), model (the reader and isCorrect, and the checkpoints' loader),
objective, train (the training task), baselines (CNN board classifier, oracle grounding), evaluate (board and
permutation-matched digit accuracy), decode (Q1 by exact MAP decoding of a reader's probabilities: learned reader +
symbolic reasoning), answer (classify-board's `visual` section on a board of images), rules (its config rules). The
reader's network is the `visual` grounding of hasValue (ltn_sudoku/logic/groundings/hasvalue/reader.py).
"""
