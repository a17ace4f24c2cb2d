"""The board model kind: its data (data.py, labels.py), objective (objective.py), training task (task.py), config
rules (rules.py), every predicate's truth on a batch (inference.py) and its validation judged symbolically (assess.py,
metrics.py)."""
