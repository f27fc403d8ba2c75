"""Fair play: which boards are being competed on now (today's daily level, the levels of
races not over), and which boards the server's solver has helped a player on.

A board is known by its walls and goals (:func:`board_key`): they never change during
play, so every position of a level, however far played, has its level's key, and a board
sent with extra rows or columns of space around it has the same key. The server refuses
its solver (solve, rewind) and other players' solutions (ghosts) on a board competed on;
a score on a board the solver helped its player with is kept as assisted.
"""

from __future__ import annotations

import collections
import functools
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from sokoban.level import Level
from sokoban.records import now

if TYPE_CHECKING:
    from sokoban.records import RaceRecords, Records
    from sokoban.web.models.game import LevelOut

#: A board's key: its walls and goals as (column, row) from the walls' top-left corner.
BoardKey = tuple[frozenset[tuple[int, int]], frozenset[tuple[int, int]]]
#: Seconds the set of boards competed on is kept before it is read again.
REFRESH = 2.0
#: Players whose helped boards are remembered (the oldest forgotten first), and boards per
#: player.
PLAYERS = 50_000
BOARDS_PER_PLAYER = 64


def board_key(level: Level) -> BoardKey:
    """The walls and goals of ``level``, moved so that the walls start at (0, 0)."""
    cells = [level.xy(c) for c in level.walls] or [level.xy(c) for c in level.goals]
    left = min((x for x, _ in cells), default=0)
    top = min((y for _, y in cells), default=0)

    def moved(group: frozenset[int]) -> frozenset[tuple[int, int]]:
        return frozenset((x - left, y - top) for x, y in map(level.xy, group))

    return moved(level.walls), moved(level.goals)


@functools.lru_cache(maxsize=4096)
def _key_of(xsb: str) -> BoardKey:
    return board_key(Level.from_xsb(xsb))


class FairPlay:
    """The boards competed on now, read from ``records`` and ``races`` at most every
    :data:`REFRESH` seconds, and the boards the solver helped each player with."""

    def __init__(
        self, records: Records, races: RaceRecords, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.records = records
        self.races = races
        self.clock = clock
        self._read_at = -float("inf")
        self._competed: dict[BoardKey, str] = {}
        self._helped: collections.OrderedDict[int, collections.OrderedDict[BoardKey, None]] = (
            collections.OrderedDict()
        )

    def competed(self) -> dict[BoardKey, str]:
        """Board key -> what it is competed in ("today's daily level", "a running race")."""
        if self.clock() - self._read_at < REFRESH:
            return self._competed
        found: dict[BoardKey, str] = {}
        for xsb in self.races.live_levels(now()):
            found[board_key(Level.from_xsb(xsb))] = "a race that is not over"
        today = self.records.daily(now().date())
        if today is not None:
            found[board_key(Level.from_xsb(today.xsb))] = "today's daily level"
        self._competed, self._read_at = found, self.clock()
        return found

    def forget(self) -> None:
        """Read the boards competed on afresh at the next question (a race was made)."""
        self._read_at = -float("inf")

    def running(self, level: Level) -> str | None:
        """What ``level``'s board is competed in now, ``None`` if nothing."""
        return self.competed().get(board_key(level))

    def hide_solutions(self, levels: list[LevelOut]) -> list[LevelOut]:
        """``levels`` with the stored solution of a board competed on now left out."""
        competed = self.competed()
        if not competed:
            return levels
        return [
            out.model_copy(update={"solution": None})
            if out.solution is not None and _key_of(out.xsb) in competed
            else out
            for out in levels
        ]

    def note_help(self, player_id: int, level: Level) -> None:
        """The solver helped ``player_id`` on ``level``'s board."""
        boards = self._helped.pop(player_id, None) or collections.OrderedDict()
        boards[board_key(level)] = None
        while len(boards) > BOARDS_PER_PLAYER:
            boards.popitem(last=False)
        self._helped[player_id] = boards
        while len(self._helped) > PLAYERS:
            self._helped.popitem(last=False)

    def helped(self, player_id: int, level: Level) -> bool:
        """Whether the solver helped ``player_id`` on ``level``'s board (in this process)."""
        boards = self._helped.get(player_id)
        return boards is not None and board_key(level) in boards
