"""sokoban: solve, generate and analyse Sokoban puzzles, and play them.

The core model imports no numba: :class:`Level`, :class:`Direction`, :class:`Solution`,
:class:`Game` and the errors. Solvers, analysis and the generator are sibling packages.
"""

from sokoban.direction import DIRECTIONS, Direction
from sokoban.errors import (
    AnalysisError,
    BoardTooLargeError,
    BudgetTooLargeError,
    DaskMissingError,
    ExtraMissingError,
    GenerateError,
    IllegalMoveError,
    InvalidLevelError,
    LayoutError,
    LevelNotFoundError,
    LurdError,
    MovesError,
    PictureTooLargeError,
    SchedulerError,
    SokobanError,
    StoreError,
    UnsolvedError,
    XsbError,
)
from sokoban.game import Game
from sokoban.level import MAX_FLOOR, MAX_SIDE, Level, Problem
from sokoban.lurd import Metrics, Replay, Solution, replay, verify
from sokoban.snapshot import Snapshot


def _version() -> str:
    """The installed distribution's version: pyproject.toml is its one source."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("sokoban")
    except PackageNotFoundError:  # a source tree on sys.path, never installed
        return "0+unknown"


__version__ = _version()

__all__ = [
    "DIRECTIONS",
    "MAX_FLOOR",
    "MAX_SIDE",
    "AnalysisError",
    "BoardTooLargeError",
    "BudgetTooLargeError",
    "DaskMissingError",
    "ExtraMissingError",
    "Direction",
    "Game",
    "GenerateError",
    "IllegalMoveError",
    "InvalidLevelError",
    "Level",
    "LayoutError",
    "LevelNotFoundError",
    "LurdError",
    "Metrics",
    "MovesError",
    "PictureTooLargeError",
    "Problem",
    "Replay",
    "SchedulerError",
    "Snapshot",
    "SokobanError",
    "Solution",
    "StoreError",
    "UnsolvedError",
    "XsbError",
    "__version__",
    "replay",
    "verify",
]
