"""The board model kind (`model.kind: board`), whole: its model and checkpoints' loader (model.py), data (data.py,
labels.py), objective (objective.py), training task (task.py), config rules (rules.py), every predicate's truth on a
batch (inference.py), validation judged symbolically (assess.py, metrics.py), its answers (answer.py: the typed
`LtnAnswer`; predict.py: classify-board's LTN section; search.py: LTN-guided search; model_order.py: hasValue as the
complete solver's value order) and its evaluation (`python -m ltn_sudoku.evaluate`: evaluate.py, reasoning.py,
literature.py). docs/design.md §7 has the map."""
