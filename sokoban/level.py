"""The level model: an immutable board of walls, goals, boxes and the player.

Cells are plain ints, ``y * width + x``, as squares are in python-chess. A position
(boxes and player) is a :class:`Level` too: :meth:`Level.moved` gives another one.
"""

from __future__ import annotations

import dataclasses
import enum
from collections import deque
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from sokoban import grammar
from sokoban.direction import DIRECTIONS, Direction
from sokoban.errors import BoardTooLargeError
from sokoban.grammar import MAX_SIDE
from sokoban.snapshot import Snapshot

if TYPE_CHECKING:
    from sokoban.lurd import Replay, Solution

__all__ = ["MAX_FLOOR", "MAX_SIDE", "Level", "Problem", "Snapshot"]
#: Most interior floor cells (cells the player's region covers).
MAX_FLOOR = 2000


class Problem(enum.Flag):
    """What makes a level unplayable; :meth:`Level.status` returns a combination."""

    NONE = 0
    NO_PLAYER = enum.auto()
    SEVERAL_PLAYERS = enum.auto()
    NO_BOXES = enum.auto()
    BOX_GOAL_MISMATCH = enum.auto()
    UNREACHABLE_BOX = enum.auto()
    UNREACHABLE_GOAL = enum.auto()
    PLAYER_OUTSIDE = enum.auto()


_PROBLEM_TEXT = {
    Problem.NO_PLAYER: "no player",
    Problem.SEVERAL_PLAYERS: "several players",
    Problem.NO_BOXES: "no boxes",
    Problem.BOX_GOAL_MISMATCH: "boxes and goals differ in number",
    Problem.UNREACHABLE_BOX: "a box off goal that the player can never reach",
    Problem.UNREACHABLE_GOAL: "an empty goal that the player can never reach",
    # Completed with the gap's row and column (counted from 1) by :meth:`Level.problems`.
    Problem.PLAYER_OUTSIDE: "the wall is open at row {row}, column {column}: "
    "the player can walk off the board",
}


@dataclasses.dataclass(frozen=True, slots=True)
class Level:
    """A Sokoban level, or any position of one.

    Walls, goals and boxes are frozensets of cells; ``players`` holds every player the
    text had (a valid level has exactly one, see :attr:`player`). Cells past the end of
    a ragged row are plain exterior space. Title and metadata travel with the board.

    >>> level = Level.from_xsb('''
    ... #####
    ... #@$.#
    ... #####''')
    >>> level.width, level.height, len(level.boxes)
    (5, 3, 1)
    >>> level.is_solved
    False
    """

    width: int
    height: int
    walls: frozenset[int]
    goals: frozenset[int]
    boxes: frozenset[int]
    players: frozenset[int]
    title: str = ""
    author: str = ""
    comment: str = ""
    #: Other ``Key: value`` lines of the level's header, in order.
    metadata: tuple[tuple[str, str], ...] = ()
    #: The solutions and saved games stored with the level (SOK files), in file order.
    snapshots: tuple[Snapshot, ...] = ()
    # The interior once flooded: a solve asks for it several times (status, the board).
    _interior: frozenset[int] | None = dataclasses.field(
        default=None, init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        if not (0 < self.width <= MAX_SIDE and 0 < self.height <= MAX_SIDE):
            raise BoardTooLargeError(
                f"board of {self.width} x {self.height} cells is outside 1..{MAX_SIDE} a side"
            )
        size = self.width * self.height
        for name in ("walls", "goals", "boxes", "players"):
            cells = getattr(self, name)
            if not isinstance(cells, frozenset):
                object.__setattr__(self, name, cells := frozenset(cells))
            if cells and (min(cells) < 0 or max(cells) >= size):
                raise ValueError(
                    f"{name} has a cell outside the {self.width} x {self.height} board"
                )
        overlap = self.walls & (self.boxes | self.goals | self.players)
        if overlap:
            raise ValueError(f"cell {min(overlap)} is a wall and something else")
        if self.boxes & self.players:
            raise ValueError(f"cell {min(self.boxes & self.players)} holds a box and the player")
        # Counting non-walls is cheap and usually settles it; the flood runs only on big grids.
        if size - len(self.walls) > MAX_FLOOR and (floor := len(self.interior)) > MAX_FLOOR:
            raise BoardTooLargeError(f"board has {floor} interior floor cells, over {MAX_FLOOR}")

    # --- notation -------------------------------------------------------------------------

    @classmethod
    def from_xsb(cls, text: str) -> Level:
        """Read one level from XSB/SOK text: RLE rows, a title, notes, metadata and stored
        solutions and snapshots are accepted (see :mod:`sokoban.grammar`); raises
        :class:`~sokoban.errors.XsbError` unless the text holds exactly one level."""
        return cls.from_parts(grammar.parse_one(text))

    @classmethod
    def from_parts(cls, parts: grammar.Parts) -> Level:
        """The level of rows and fields read by :mod:`sokoban.grammar`."""
        return cls(*grammar.cells_from_rows(parts.rows), **parts.fields())  # type: ignore[arg-type]

    def parts(self) -> grammar.Parts:
        """The level's fields with its rows, as :mod:`sokoban.grammar` writes them."""
        return grammar.Parts(
            self.xsb().split("\n"),
            self.title,
            self.author,
            self.comment,
            self.metadata,
            self.snapshots,
        )

    def cells(self) -> grammar.Cells:
        return grammar.Cells(
            self.width, self.height, self.walls, self.goals, self.boxes, self.players
        )

    def xsb(self, rle: bool = False) -> str:
        """The board as canonical XSB text, rows joined by newlines, no title."""
        return grammar.format_rows(self.cells(), rle=rle)

    def __str__(self) -> str:
        return self.xsb()

    def __repr__(self) -> str:
        # The full text (title, notes, snapshots too), so that the repr evaluates back.
        board = "\n".join(grammar.board_lines(self.cells()))
        text = "\n".join(grammar.level_lines(self.parts(), board, title_line=False))
        return f"Level.from_xsb({text!r})"

    @property
    def solutions(self) -> tuple[str, ...]:
        """The stored solutions for forward play, as LURD text (reverse mode games and
        saved games are in :attr:`snapshots` only)."""
        return tuple(
            s.lurd()
            for s in self.snapshots
            if s.is_solution and not s.is_reverse and "{" not in s.moves and "[" not in s.moves
        )

    def _repr_svg_(self) -> str:
        from sokoban import render

        return render.svg(self)

    # --- geometry -------------------------------------------------------------------------

    def cell(self, x: int, y: int) -> int:
        """The cell at column ``x``, row ``y``."""
        if not (0 <= x < self.width and 0 <= y < self.height):
            raise ValueError(f"({x}, {y}) is off the {self.width} x {self.height} board")
        return y * self.width + x

    def xy(self, cell: int) -> tuple[int, int]:
        """The column and row of a cell."""
        return cell % self.width, cell // self.width

    def neighbour(self, cell: int, direction: Direction) -> int | None:
        """The cell one step away, or ``None`` off the board."""
        x = cell % self.width + direction.dx
        y = cell // self.width + direction.dy
        if 0 <= x < self.width and 0 <= y < self.height:
            return y * self.width + x
        return None

    def neighbours(self, cell: int) -> Iterator[tuple[Direction, int]]:
        for direction in DIRECTIONS:
            n = self.neighbour(cell, direction)
            if n is not None:
                yield direction, n

    @property
    def player(self) -> int | None:
        """The player's cell: ``None`` without a player, the lowest cell with several."""
        return min(self.players) if self.players else None

    @property
    def floor(self) -> frozenset[int]:
        """Every cell of the grid that is not a wall (interior and exterior)."""
        return frozenset(range(self.width * self.height)) - self.walls

    @property
    def interior(self) -> frozenset[int]:
        """Cells reachable from the player through non-walls, boxes ignored.

        Without a player, the region around the boxes and goals stands in.
        """
        interior = self._interior
        if interior is None:
            interior = self._flood(self.players or (self.boxes | self.goals))
            object.__setattr__(self, "_interior", interior)
        return interior

    def _flood(
        self, starts: Iterable[int], blocked: frozenset[int] = frozenset()
    ) -> frozenset[int]:
        # Plain integer steps (no Direction objects): status() floods every level solved.
        width, size = self.width, self.width * self.height
        seen = set(starts)
        todo = deque(seen)
        walls = self.walls | blocked if blocked else self.walls
        while todo:
            cell = todo.popleft()
            x = cell % width
            for n in (
                cell - 1 if x > 0 else -1,
                cell + 1 if x < width - 1 else -1,
                cell - width,
                cell + width if cell + width < size else -1,
            ):
                if n >= 0 and n not in seen and n not in walls:
                    seen.add(n)
                    todo.append(n)
        return frozenset(seen)

    def reachable(self, start: int | None = None) -> frozenset[int]:
        """Cells the player can walk to from ``start`` (default: the player) without pushing."""
        if start is None:
            start = self.player
        if start is None:
            return frozenset()
        return self._flood([start], blocked=self.boxes)

    def is_enclosed(self, interior: frozenset[int] | None = None) -> bool:
        """Whether the player's region (``interior``, if already known) stays off the
        border of the grid."""
        w = self.width
        last_row = w * (self.height - 1)
        cells = self.interior if interior is None else interior
        # On cells, not (x, y) pairs: status() asks this of every level solved.
        return not any(c < w or c >= last_row or c % w in (0, w - 1) for c in cells)

    def gap(self) -> tuple[int, int] | None:
        """Where the wall is open: the column and row of the first cell (row by row) of the
        player's region on the border of the grid, ``None`` if the region is enclosed.

        >>> Level.from_xsb("#####\\n @$.#\\n#####").gap()
        (0, 1)
        """
        w = self.width
        last_row = w * (self.height - 1)
        edge = [c for c in self.interior if c < w or c >= last_row or c % w in (0, w - 1)]
        return self.xy(min(edge)) if edge else None

    # --- status ---------------------------------------------------------------------------

    @property
    def is_solved(self) -> bool:
        """Every box on a goal, and as many goals as boxes."""
        return len(self.boxes) == len(self.goals) and self.boxes <= self.goals

    def status(self) -> Problem:
        """The problems that make this level unplayable, as flags (``Problem.NONE`` if none)."""
        problems = Problem.NONE
        if not self.players:
            problems |= Problem.NO_PLAYER
        elif len(self.players) > 1:
            problems |= Problem.SEVERAL_PLAYERS
        if not self.boxes:
            problems |= Problem.NO_BOXES
        if len(self.boxes) != len(self.goals):
            problems |= Problem.BOX_GOAL_MISMATCH
        if self.players:
            inside = self.interior
            if any(b not in inside and b not in self.goals for b in self.boxes):
                problems |= Problem.UNREACHABLE_BOX
            if any(g not in inside and g not in self.boxes for g in self.goals):
                problems |= Problem.UNREACHABLE_GOAL
            if not self.is_enclosed(inside):
                problems |= Problem.PLAYER_OUTSIDE
        return problems

    def problems(self) -> list[str]:
        """The problems as short sentences, empty for a playable level."""
        status = self.status()
        gap = self.gap() if Problem.PLAYER_OUTSIDE in status else None
        column, row = gap if gap is not None else (0, 0)
        return [
            text.format(row=row + 1, column=column + 1)
            for flag, text in _PROBLEM_TEXT.items()
            if flag in status
        ]

    def is_valid(self) -> bool:
        return self.status() == Problem.NONE

    # --- positions ------------------------------------------------------------------------

    def moved(self, boxes: Iterable[int] | None = None, player: int | None = None) -> Level:
        """The same board with other boxes and/or another player cell."""
        changes: dict[str, object] = {}
        if boxes is not None:
            changes["boxes"] = frozenset(boxes)
        if player is not None:
            changes["players"] = frozenset((player,))
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]

    def with_metadata(self, **fields: object) -> Level:
        """The same board with other title, author, comment, metadata or snapshots.

        ``solutions=`` (LURD texts) replaces the stored forward solutions, keeping the
        saved games and reverse mode solutions.
        """
        if "solutions" in fields:
            lurds = fields.pop("solutions")
            kept = [s for s in self.snapshots if not s.is_solution or s.is_reverse]
            given = [Snapshot(str(lurd)) for lurd in lurds]  # type: ignore[attr-defined]
            fields.setdefault("snapshots", (*given, *kept))
        return dataclasses.replace(self, **fields)  # type: ignore[arg-type]

    def replay(self, solution: Solution | str) -> Replay:
        """Play a solution from this position; see :func:`sokoban.lurd.replay`."""
        from sokoban.lurd import replay

        return replay(self, solution)
