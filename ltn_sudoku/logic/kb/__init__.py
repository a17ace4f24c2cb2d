"""The knowledge base: the t-norm semantics (operators.py), the formulas (axioms.py), the declared theories
(theory.py) and how grounded axioms become a loss (aggregate.py)."""
