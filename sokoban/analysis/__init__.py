"""Single-box analysis: exact tables of a room, and the longest single-box puzzle over
layouts of obstacles. Method and proofs: ``docs/single-box.md``.

>>> from sokoban import Level
>>> from sokoban.analysis import analyse
>>> analyse(Level.from_xsb("#####\\n#   #\\n#   #\\n#####")).max_moves.moves
5

Importing this package loads numpy only; numba kernels load on first use.
"""

from sokoban.analysis.longest_puzzle import LongestResult, Winner, anneal, layout_room, longest
from sokoban.analysis.single_box import (
    AnalysisError,
    SingleBoxTable,
    Witness,
    WitnessError,
    analyse,
    forward_solution,
    placement_level,
    room_floor,
)

__all__ = [
    "AnalysisError",
    "LongestResult",
    "SingleBoxTable",
    "Winner",
    "Witness",
    "WitnessError",
    "analyse",
    "anneal",
    "forward_solution",
    "layout_room",
    "longest",
    "placement_level",
    "room_floor",
]
