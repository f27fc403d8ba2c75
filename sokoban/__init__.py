"""sokoban: solve, generate and analyse Sokoban puzzles, and play them.

The core model imports no numba: :class:`Level`, :class:`Direction`, :class:`Solution`,
:class:`Game` and the errors. Solvers, analysis and the generator are sibling packages.
"""

from sokoban.direction import DIRECTIONS, Direction
from sokoban.errors import (
    BoardTooLargeError,
    BudgetTooLargeError,
    DaskMissingError,
    IllegalMoveError,
    InvalidLevelError,
    LevelNotFoundError,
    LurdError,
    PictureTooLargeError,
    SchedulerError,
    SokobanError,
    UnsolvedError,
    XsbError,
)
from sokoban.game import Game
from sokoban.level import MAX_FLOOR, MAX_SIDE, Level, Problem
from sokoban.lurd import Metrics, Replay, Solution, replay, verify

__version__ = "0.1.0"

__all__ = [
    "DIRECTIONS",
    "MAX_FLOOR",
    "MAX_SIDE",
    "BoardTooLargeError",
    "BudgetTooLargeError",
    "DaskMissingError",
    "Direction",
    "Game",
    "IllegalMoveError",
    "InvalidLevelError",
    "Level",
    "LevelNotFoundError",
    "LurdError",
    "Metrics",
    "PictureTooLargeError",
    "Problem",
    "Replay",
    "SchedulerError",
    "SokobanError",
    "Solution",
    "UnsolvedError",
    "XsbError",
    "__version__",
    "replay",
    "verify",
]
