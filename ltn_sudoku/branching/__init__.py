"""A complete solver steered by a value order: the LTN's hasValue, hand-made orders, or the oracle (issue 30).

Symbolic (numpy, no torch): the learned orders, hasValue of a checkpoint called at every branch node or once per puzzle
(its cheap variants), are `ltn_sudoku/logic/board/model_order.py`, so that the learned wing
(logic/board/predict.py's classify-board section) can call this solver without an import circle.

- `propagate.py`: the knowledge base's rules evaluated crisply on a branch state (singles and contradictions);
- `orders.py`: the value-order protocol and the hand-made and oracle orders;
- `solver.py`: depth-first branching on those two, counting nodes, wrong guesses and order calls;
- `phases.py`: the same preference as CaDiCaL's phases on the board's CNF;
- `states.py`: the branch states where propagation stops, as training data for a learned order.
"""
