"""`python -m ltn_sudoku ...` is the `ltn-sudoku` command."""

import sys

from ltn_sudoku.cli import main

sys.exit(main())
