"""The full data sets: the registry of what they are and where they come from (``registry``), and their download
into the data home (``fetch``, with pooch; imported lazily, so that importing this package stays cheap).

`ltn-sudoku data list` and `ltn-sudoku data fetch NAME` (ltn_sudoku/cli/data.py) are the commands; docs/data.md the
guide. No torch here (import contracts of pyproject.toml): only ``ltn_sudoku.paths`` of the package.
"""

from ltn_sudoku.datasets.registry import SETS, DataFile, DataSet, all_sets, select

__all__ = ["SETS", "DataFile", "DataSet", "all_sets", "select"]
