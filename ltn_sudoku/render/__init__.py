"""Pictures of boards and explained steps, as SVG text (no browser, no drawing library).

`board_svg` draws a board of any supported side (givens, placed digits, pencil marks); `step_svg` draws one `Step` of
the engine in HoDoKu's colours: placements green, eliminations red and crossed, pattern candidates green, fins blue,
chain links as arrows (strong solid, weak dashed) parsed from the step's HoDoKu-notation text.
"""

from ltn_sudoku.render.svg import Highlight, board_svg, chain_links, step_highlight, step_svg

__all__ = ["Highlight", "board_svg", "chain_links", "step_highlight", "step_svg"]
