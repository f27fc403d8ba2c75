"""The errors of the toolkit: every one is a ``ValueError`` that quotes the bad input.

Catch :class:`SokobanError` for any of them; the subclasses say what was wrong:

- reading: :class:`XsbError` (and :class:`BoardTooLargeError`), :class:`LurdError`,
  :class:`MovesError` (the moves of a stored solution or saved game);
- levels: :class:`InvalidLevelError` (a level that cannot be played at all),
  :class:`LevelNotFoundError`;
- solutions: :class:`IllegalMoveError` (a step that cannot be played),
  :class:`UnsolvedError` (every step plays, but boxes are left off goals);
- limits: :class:`PictureTooLargeError`, :class:`BudgetTooLargeError`;
- batch work: :class:`SchedulerError`, :class:`DaskMissingError`;
- making levels: :class:`LayoutError` (a generator layout), :class:`GenerateError` (a
  generation request), :class:`AnalysisError` (a room for the single-box analysis);
- storage: :class:`StoreError` (a database that cannot be opened, or too new);
- set-up: :class:`ExtraMissingError` (an optional extra that is not installed).

Other modules keep exceptions of their own that never reach a user as bad input: signals
between parts (``sokoban._rle.RleError``, turned into the errors above;
``sokoban.records.NameTakenError``, ``sokoban.records.RaceClosedError``,
``sokoban.web.pool.Busy``, ``sokoban.web.race.BadMessage``, answered by the web routes) and
failures of the program itself (``sokoban.batch.BatchError``,
``sokoban.analysis.single_box.WitnessError``).
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "MAX_QUOTE",
    "AnalysisError",
    "BoardTooLargeError",
    "BudgetTooLargeError",
    "DaskMissingError",
    "GenerateError",
    "IllegalMoveError",
    "InvalidLevelError",
    "LayoutError",
    "LevelNotFoundError",
    "LurdError",
    "MovesError",
    "PictureTooLargeError",
    "SchedulerError",
    "SokobanError",
    "StoreError",
    "UnsolvedError",
    "XsbError",
    "quote",
]


class SokobanError(ValueError):
    """Base class of the errors raised for bad input."""


#: Longest bad input quoted whole in a message; longer text is cut, so that a 10 MB line
#: still gives a one-line error a person can read.
MAX_QUOTE = 80


def quote(text: str, limit: int = MAX_QUOTE) -> str:
    """``repr(text)``, cut to its first ``limit`` characters with a note of the rest.

    >>> quote("#" * 100, limit=4)
    "'####'... (100 characters)"
    """
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}... ({len(text):,} characters)"


class XsbError(SokobanError):
    """A level or collection that cannot be read: names the line and quotes it.

    ``level`` is the 1-based position of the broken level in its file, when read from one.
    ``text`` keeps the whole line; the message quotes at most :data:`MAX_QUOTE` characters.

    >>> str(XsbError("unclosed '(' in a board row", 7, "2(#-", level=3))
    "level 3: unclosed '(' in a board row at line 7: '2(#-'"
    """

    def __init__(
        self,
        message: str,
        line: int | None = None,
        text: str | None = None,
        *,
        level: int | None = None,
    ) -> None:
        self.reason = message
        self.line = line
        self.text = text
        self.level = level
        where = ""
        if line is not None:
            where = f" at line {line}"
            if text is not None:
                where += f": {quote(text)}"
        prefix = f"level {level}: " if level is not None else ""
        super().__init__(f"{prefix}{message}{where}")

    def __reduce__(self) -> tuple[Any, ...]:
        # Rebuilt from its parts, so that it crosses to and from worker processes whole.
        return (_rebuild_xsb_error, (type(self), self.reason, self.line, self.text, self.level))

    def at(self, level: int, line: int | None = None, text: str | None = None) -> XsbError:
        """The same error, placed at a level's position (and a line, if it had none)."""
        if self.line is not None:
            line, text = self.line, self.text
        return type(self)(self.reason, line, text, level=level)


def _rebuild_xsb_error(
    cls: type[XsbError], reason: str, line: int | None, text: str | None, level: int | None
) -> XsbError:
    return cls(reason, line, text, level=level)


class BoardTooLargeError(XsbError):
    """A board over the size limits (100 x 100, 2,000 interior floor cells)."""


class PictureTooLargeError(SokobanError):
    """A picture that would take more memory than it is worth (see ``sokoban.render``)."""


class BudgetTooLargeError(SokobanError):
    """An SMA* budget whose arrays would not fit the memory limit (or, without one,
    ``sokoban.solve.DEFAULT_MEMORY``): quotes the budget."""


class LevelNotFoundError(SokobanError):
    """A level looked up by number or title that the collection does not have."""


class LurdError(SokobanError):
    """A solution string that is not LURD: quotes the text and the bad position."""


class MovesError(SokobanError):
    """Moves text of a snapshot (SOK notation: LURD, jumps, pusher changes, ``*``) that
    cannot be read, or cannot be played forward: the reason and the 0-based position.

    >>> str(MovesError("unclosed '['", 4))
    "unclosed '[' at position 4"
    """

    def __init__(self, reason: str, position: int) -> None:
        super().__init__(f"{reason} at position {position}")
        self.reason = reason
        self.position = position

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.reason, self.position))


class IllegalMoveError(SokobanError):
    """A step of a solution that cannot be played: names the step and its 0-based index."""

    def __init__(self, message: str, index: int, step: str) -> None:
        self.reason = message
        self.index = index
        self.step = step
        super().__init__(f"illegal step {step!r} at index {index}: {message}")

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.reason, self.index, self.step))


class InvalidLevelError(SokobanError):
    """A level that cannot be played at all (no player, or several): names the problem.

    >>> str(InvalidLevelError("the level has no player"))
    'the level has no player'
    """


class UnsolvedError(SokobanError):
    """A solution whose every step plays but that leaves boxes off goals.

    ``moves`` is the number of steps played, ``off_goal`` the boxes left off goals.

    >>> str(UnsolvedError(12, 2))
    'the solution ends with 2 boxes off goals after 12 moves'
    """

    def __init__(self, moves: int, off_goal: int) -> None:
        self.moves = moves
        self.off_goal = off_goal
        boxes = f"{off_goal} box{'es' if off_goal != 1 else ''}"
        steps = f"{moves} move{'s' if moves != 1 else ''}"
        super().__init__(f"the solution ends with {boxes} off goals after {steps}")

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.moves, self.off_goal))


class SchedulerError(SokobanError):
    """A Dask scheduler address that is malformed or does not answer."""


class DaskMissingError(SokobanError):
    """A scheduler address was given but ``dask.distributed`` is not installed."""


class ExtraMissingError(SokobanError):
    """An optional dependency is missing: Pillow for PNG, GIF, APNG and WebP pictures (the
    ``image`` extra), matplotlib for plots (the ``plot`` extra)."""


class LayoutError(SokobanError):
    """A generator layout that cannot be made or used (too small, no room, too many
    rejections)."""


class GenerateError(SokobanError):
    """A generation request that cannot be met (bad sizes, unknown names)."""


class AnalysisError(SokobanError):
    """A room that cannot be analysed (no enclosed floor, too large)."""


class StoreError(SokobanError):
    """A database that cannot be opened or is newer than this program."""
