"""A complete solver steered by a value order: the LTN's hasValue, hand-made orders, or the oracle (issue 30).

- `propagate.py`: the knowledge base's rules evaluated crisply on a branch state (singles and contradictions);
- `orders.py`: the value-order protocol and the hand-made and oracle orders;
- `solver.py`: depth-first branching on those two, counting nodes, wrong guesses and order calls;
- `model_order.py`: hasValue of a checkpoint as an order (the only file that imports learned code);
- `phases.py`: the same preference as CaDiCaL's phases on the board's CNF.
"""
