"""Single-box analysis: exact tables of a room, and the longest single-box puzzle over
layouts of obstacles.

>>> from sokoban import Level
>>> from sokoban.analysis import analyse
>>> analyse(Level.from_xsb("#####\\n#   #\\n#   #\\n#####")).max_moves.moves
5
"""

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
    "SingleBoxTable",
    "Witness",
    "WitnessError",
    "analyse",
    "forward_solution",
    "placement_level",
    "room_floor",
]
