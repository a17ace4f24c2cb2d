"""The fixed groundings (cells, givens, isSameRow / isSameCol / isSameBlock), the learned hasValue groundings
(hasvalue/) and the board model that bundles hasValue, hasSolution and recommendsHeuristic (model.py)."""
