"""The one training loop (loop.py) and what every model kind shares under it: the task protocol and the row of a
model kind (task.py), run folders, resume and torch settings (runtime.py), data-parallel training (distributed.py)."""
