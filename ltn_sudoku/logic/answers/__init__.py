"""Answering with a trained model: classify-board's LTN section and the board answers (predict.py), LTN-guided search
(search.py), the learned branching order (model_order.py), a visual model's reading of image boards (visual.py)."""
