"""Pictures of boards, explained steps and the LTN's beliefs (no browser, no drawing library).

`board_svg` draws a board of any supported side (givens, placed digits, pencil marks); `step_svg` draws one `Step` of
the engine in HoDoKu's colours: placements green, eliminations red and crossed, pattern candidates green, fins blue,
chain links as arrows (strong solid, weak dashed) parsed from the step's HoDoKu-notation text. `hasvalue_svg`
(render/ltn.py) draws hasValue's truths on the board beside the exact solution, `hasvalue_images` (render/raster.py)
the same in pixels for TensorBoard, and `HtmlReport` (render/report.py) writes the self-contained HTML report.
"""

from ltn_sudoku.render.ltn import hasvalue_svg
from ltn_sudoku.render.raster import hasvalue_images, reader_image, reader_images
from ltn_sudoku.render.report import HtmlReport, StepPictures, report_pictures, step_pictures
from ltn_sudoku.render.svg import Highlight, board_svg, chain_links, step_highlight, step_svg

__all__ = ["Highlight", "HtmlReport", "StepPictures", "board_svg", "chain_links", "hasvalue_images",
           "hasvalue_svg", "reader_image", "reader_images", "report_pictures", "step_highlight", "step_pictures", "step_svg"]
