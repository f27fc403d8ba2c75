"""Exact tables of a room with one box, one goal and the player.

:func:`analyse` runs one backward search per goal cell (see :mod:`sokoban.analysis._backward`)
and gives a :class:`SingleBoxTable`: the optimal moves and pushes of every placement, the
longest placements as :class:`Witness` levels with solutions found by a separate forward
search, and the distribution of the values.

>>> room = Level.from_xsb('''
... ######
... #    #
... #    #
... ######''')
>>> table = analyse(room)
>>> table.value(room.cell(1, 1), room.cell(2, 1), room.cell(4, 1))
(2, 2)
>>> table.max_moves.moves, table.max_pushes.pushes
(7, 2)
"""

from __future__ import annotations

import dataclasses
import heapq
from collections import deque
from collections.abc import Callable
from typing import Any

import numpy as np

from sokoban.direction import DIRECTIONS
from sokoban.errors import AnalysisError
from sokoban.level import Level
from sokoban.lurd import Solution, Step, replay

#: The two measures of a solution the tables hold.
METRICS = ("moves", "pushes")


class WitnessError(AssertionError):
    """The forward search disagrees with the table: a bug, never bad input."""


@dataclasses.dataclass(frozen=True, slots=True)
class Witness:
    """One placement and an optimal solution of it, checked by replay.

    ``metric`` names what the solution minimises; ``moves`` and ``pushes`` are the table's
    optima (the solution has ``metric``'s optimum; the other count is its own).
    """

    level: Level
    player: int
    box: int
    goal: int
    metric: str
    moves: int
    pushes: int
    solution: Solution

    def as_dict(self) -> dict[str, Any]:
        xy = self.level.xy
        return {
            "metric": self.metric,
            "level": self.level.xsb(),
            "player": list(xy(self.player)),
            "box": list(xy(self.box)),
            "goal": list(xy(self.goal)),
            "moves": self.moves,
            "pushes": self.pushes,
            "path": self.solution.lurd(),
            "path_moves": self.solution.moves,
            "path_pushes": self.solution.pushes,
        }


def room_floor(room: Level) -> frozenset[int]:
    """The room's floor: non-wall cells that the edge of the grid cannot reach.

    Boxes, goals and the player are ignored; cells outside the walls are not floor.
    """
    open_cells = room.floor
    w, h = room.width, room.height
    edge = [c for c in open_cells if c % w in (0, w - 1) or c // w in (0, h - 1)]
    outside = room._flood(edge) if edge else frozenset()
    return frozenset(open_cells - outside)


def bare_room(room: Level) -> Level:
    """The room's walls alone (no boxes, goals, player, title)."""
    return Level(room.width, room.height, room.walls, frozenset(), frozenset(), frozenset())


@dataclasses.dataclass(frozen=True)
class SingleBoxTable:
    """Optimal moves and pushes of every single-box placement in a room.

    A *placement* is a player cell, a box cell and a goal cell of the floor, the box off the
    goal and the player off the box, all three in one connected part of the floor.

    ``cells`` (int32, N) maps compact indices to the room's cells; ``moves`` and ``pushes``
    (int16, or int32 for huge values; shape (N, N, N), indexed ``[goal, box, player]`` in
    compact indices) hold the optimum, ``-1`` for an unsolvable placement and ``-2`` for a
    non-placement.
    """

    room: Level
    cells: np.ndarray
    moves: np.ndarray
    pushes: np.ndarray

    def _index(self, cell: int) -> int:
        found = np.flatnonzero(self.cells == cell)
        if not len(found):
            x, y = self.room.xy(cell)
            raise ValueError(f"cell ({x}, {y}) is not floor of the room")
        return int(found[0])

    def value(self, player: int, box: int, goal: int) -> tuple[int, int] | None:
        """``(moves, pushes)`` of a placement (room cells), ``None`` when unsolvable.

        Raises :class:`ValueError` for cells off the floor or a non-placement.
        """
        g, b, p = self._index(goal), self._index(box), self._index(player)
        m = int(self.moves[g, b, p])
        if m == -2:
            raise ValueError("not a placement: the box is on the goal or the player on the box")
        if m == -1:
            return None
        return m, int(self.pushes[g, b, p])

    @property
    def placements(self) -> int:
        return int(np.count_nonzero(self.moves != -2))

    @property
    def solvable(self) -> int:
        return int(np.count_nonzero(self.moves >= 0))

    @property
    def unsolvable(self) -> int:
        return int(np.count_nonzero(self.moves == -1))

    def histogram(self, metric: str = "moves") -> np.ndarray:
        """How many solvable placements have each optimum: int64, index = value."""
        values = self._values(metric)
        solved = values[values >= 0]
        return np.bincount(solved.ravel()) if solved.size else np.zeros(0, np.int64)

    def _values(self, metric: str) -> np.ndarray:
        if metric not in METRICS:
            raise ValueError(f"unknown metric {metric!r}: choose moves or pushes")
        return self.moves if metric == "moves" else self.pushes

    def longest(self, metric: str = "moves") -> Witness | None:
        """A placement with the most ``metric``, with a verified optimal solution; ``None``
        when no placement is solvable. Ties go to the lowest goal, box, player index."""
        values = self._values(metric)
        if values.size == 0 or values.max() < 0:
            return None
        g, b, p = np.unravel_index(int(np.argmax(values)), values.shape)
        return self.witness(int(self.cells[p]), int(self.cells[b]), int(self.cells[g]), metric)

    @property
    def max_moves(self) -> Witness | None:
        return self.longest("moves")

    @property
    def max_pushes(self) -> Witness | None:
        return self.longest("pushes")

    def witness(self, player: int, box: int, goal: int, metric: str = "moves") -> Witness:
        """A placement's level and an optimal solution from the forward search, checked
        against the table and by replay (:class:`WitnessError` if they disagree)."""
        value = self.value(player, box, goal)
        if value is None:
            raise ValueError("the placement is unsolvable")
        return make_witness(self.room, player, box, goal, metric, *value)


def placement_level(room: Level, player: int, box: int, goal: int) -> Level:
    """The room with the player, the box and the goal placed."""
    return Level(
        room.width,
        room.height,
        room.walls,
        frozenset((goal,)),
        frozenset((box,)),
        frozenset((player,)),
    )


def make_witness(
    room: Level, player: int, box: int, goal: int, metric: str, moves: int, pushes: int
) -> Witness:
    """Solve the placement forwards, insist on the table's optimum, and replay the path."""
    level = placement_level(bare_room(room), player, box, goal)
    solution = forward_solution(level, metric)
    if solution is None:
        raise WitnessError(f"the forward search finds no solution of\n{level.xsb()}")
    expected = moves if metric == "moves" else pushes
    result = replay(level, solution)
    got = result.metrics.moves if metric == "moves" else result.metrics.pushes
    if not result.is_solved or got != expected:
        raise WitnessError(
            f"the table says {expected} {metric} but the forward search found {got} for\n"
            f"{level.xsb()}\n{solution.lurd()}"
        )
    return Witness(level, player, box, goal, metric, moves, pushes, result.solution)


def forward_solution(level: Level, metric: str = "moves") -> Solution | None:
    """An optimal solution of a one-box level by forward search over (player, box) states.

    For moves, breadth-first search. For pushes, the fewest pushes and, among those, the
    fewest moves (Dijkstra's algorithm on the pair).
    """
    if len(level.boxes) != 1 or len(level.goals) != 1 or len(level.players) != 1:
        raise ValueError("forward_solution needs one box, one goal and one player")
    if metric not in METRICS:
        raise ValueError(f"unknown metric {metric!r}: choose moves or pushes")
    (box,) = level.boxes
    (goal,) = level.goals
    (player,) = level.players
    start = (player, box)
    came: dict[tuple[int, int], tuple[tuple[int, int], Step] | None] = {start: None}
    if metric == "moves":
        return _breadth_first(level, start, goal, came)
    cost = {start: (0, 0)}
    todo: list[tuple[tuple[int, int], tuple[int, int]]] = [((0, 0), start)]
    found = None
    done = set()
    while todo:
        c, state = heapq.heappop(todo)
        if state in done:
            continue
        done.add(state)
        if state[1] == goal:
            found = state
            break
        for nxt, step in _successors(level, *state):
            new = (c[0] + step[1], c[1] + 1)
            if nxt not in cost or new < cost[nxt]:
                cost[nxt] = new
                came[nxt] = (state, step)
                heapq.heappush(todo, (new, nxt))
    return _path(came, found)


def _successors(level: Level, player: int, box: int) -> list[tuple[tuple[int, int], Step]]:
    out = []
    for direction in DIRECTIONS:
        step = level.neighbour(player, direction)
        if step is None or step in level.walls:
            continue
        if step == box:
            beyond = level.neighbour(box, direction)
            if beyond is not None and beyond not in level.walls:
                out.append(((step, beyond), (direction, True)))
        else:
            out.append(((step, box), (direction, False)))
    return out


def _breadth_first(
    level: Level,
    start: tuple[int, int],
    goal: int,
    came: dict[tuple[int, int], tuple[tuple[int, int], Step] | None],
) -> Solution | None:
    todo = deque([start])
    while todo:
        state = todo.popleft()
        if state[1] == goal:
            return _path(came, state)
        for nxt, step in _successors(level, *state):
            if nxt not in came:
                came[nxt] = (state, step)
                todo.append(nxt)
    return None


def _path(
    came: dict[tuple[int, int], tuple[tuple[int, int], Step] | None],
    found: tuple[int, int] | None,
) -> Solution | None:
    if found is None:
        return None
    steps: list[Step] = []
    link = came[found]
    while link is not None:
        previous, step_taken = link
        steps.append(step_taken)
        link = came[previous]
    return Solution(tuple(reversed(steps)))


def analyse(
    room: Level,
    progress: Callable[[int, int], None] | None = None,
    max_floor: int = 400,
) -> SingleBoxTable:
    """Every placement's optimal moves and pushes in ``room`` (an XSB board of walls and
    floor; boxes, goals and player are ignored).

    :param progress: called with (goals done, goals) as the work goes.
    :param max_floor: the largest floor accepted; the table holds 2 N^3 small ints
        (256 MB at 400 cells).
    """
    from sokoban.analysis import _backward as kernels

    floor = room_floor(room)
    if not floor:
        raise AnalysisError("the room has no floor enclosed by walls")
    if len(floor) > max_floor:
        raise AnalysisError(f"the room has {len(floor)} floor cells, over the {max_floor} limit")
    mask = np.zeros(room.width * room.height, np.bool_)
    mask[list(floor)] = True
    cells, nbr = kernels.compact(mask, room.width, room.height)
    n = len(cells)
    label = kernels.components(nbr)
    dist = np.empty((n, 4, n), np.int16)
    reach = np.empty((n, 4), np.int32)
    queue = np.empty(4 * n + 4, np.int32)
    kernels.side_distances(nbr, dist, reach, queue)
    side_moves = np.empty((n, n, 4), np.int32)
    side_pushes = np.empty((n, n, 4), np.int32)
    bucket_head = np.empty(n + 2, np.int32)
    entry_next = np.empty(16 * n + 8, np.int32)
    entry_node = np.empty(16 * n + 8, np.int32)
    for g in range(n):
        kernels.moves_to_goal(g, nbr, dist, side_moves[g], bucket_head, entry_next, entry_node)
        kernels.pushes_to_goal(g, nbr, dist, side_pushes[g], queue)
    # Two bytes a value when the longest walk plus the longest side value fit (they do in
    # any room of a sensible size): the table holds 2 N^3 of them.
    finite = side_moves[side_moves < kernels.UNSOLVABLE]
    longest_value = (int(finite.max()) if finite.size else 0) + n
    dtype = np.int16 if longest_value < np.iinfo(np.int16).max else np.int32
    moves = np.empty((n, n, n), dtype)
    pushes = np.empty((n, n, n), dtype)
    for g in range(n):
        kernels.placement_values(
            g, nbr, dist, side_moves[g], side_pushes[g], label, moves[g], pushes[g]
        )
        if progress is not None:
            progress(g + 1, n)
    return SingleBoxTable(bare_room(room), cells, moves, pushes)
