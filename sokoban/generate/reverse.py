"""Placing boxes by searching backwards from the solved position.

Start with every box on its goal and pull boxes away, as a player walking backwards
would. Every state reached this way can be solved (play the pulls forwards as pushes),
so no generated level is ever unsolvable.

- :func:`pull_search` is an exhaustive breadth-first search of pulls: it knows the
  fewest pushes that solve each state it reached, and :meth:`PullSearch.farthest` picks
  a hardest one (by pushes or box changes). It suits rooms up to about 10 x 10 with a
  handful of boxes; ``max_states`` bounds it.
- :func:`reverse_walk` makes random pulls from the solved position and keeps the best
  state met, for rooms too big to search exhaustively.

Both take a seeded :class:`numpy.random.Generator` wherever a choice is random, and use
loops with explicit queues (the kernels in :mod:`sokoban.generate._pull`), never
recursion.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np

from sokoban.generate import _pull
from sokoban.generate.layouts import LayoutError, to_level
from sokoban.level import Level
from sokoban.solve import _successors
from sokoban.solve._board import KernelBoard
from sokoban.solve._table import zobrist

#: States the exhaustive search stores before it stops expanding (about 50 bytes each with
#: four boxes: the node arrays, the table and the returned rows).
MAX_STATES = 2_000_000


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class CompactFloor:
    """A layout in compact form: floor cells numbered ``0..n-1`` in reading order.

    ``cells`` (``int32[n]``) maps a compact index to the grid cell ``y * width + x``,
    ``index`` (``int32[height * width]``) maps back (``-1`` off the floor), ``nbr``
    (``int32[n, 4]``) holds neighbours left, up, right, down and ``xy`` (``int32[n, 2]``)
    column and row.
    """

    floor: np.ndarray
    cells: np.ndarray
    index: np.ndarray
    nbr: np.ndarray
    xy: np.ndarray

    @classmethod
    def from_floor(cls, floor: np.ndarray) -> CompactFloor:
        floor = np.asarray(floor, dtype=bool)
        height, width = floor.shape
        cells = np.flatnonzero(floor.ravel()).astype(np.int32)
        index = np.full(height * width, -1, dtype=np.int32)
        index[cells] = np.arange(len(cells), dtype=np.int32)
        x, y = cells % width, cells // width
        nbr = np.full((len(cells), 4), -1, dtype=np.int32)
        for d, (dx, dy) in enumerate(((-1, 0), (0, -1), (1, 0), (0, 1))):
            nx, ny = x + dx, y + dy
            inside = (nx >= 0) & (nx < width) & (ny >= 0) & (ny < height)
            nbr[inside, d] = index[ny[inside] * width + nx[inside]]
        xy = np.stack([x, y], axis=1).astype(np.int32)
        return cls(floor, cells, index, nbr, xy)

    @property
    def size(self) -> int:
        return len(self.cells)

    def compact(self, cells: Sequence[int]) -> np.ndarray:
        """Grid cells as sorted compact indices (``int32``); raises if one is off the floor."""
        out = self.index[np.asarray(list(cells), dtype=np.int64)]
        if (out < 0).any():
            raise LayoutError("a box or goal is not on the layout's floor")
        return np.sort(out).astype(np.int32)

    def region(self, occupied: Sequence[int] | np.ndarray, start: int) -> np.ndarray:
        """Compact cells the player reaches from compact ``start`` around ``occupied``."""
        blocked = np.zeros(self.size, dtype=bool)
        blocked[np.asarray(occupied, dtype=np.int64)] = True
        seen = np.zeros(self.size, dtype=bool)
        seen[start] = True
        todo = [start]
        while todo:
            c = todo.pop()
            for m in self.nbr[c]:
                if m >= 0 and not blocked[m] and not seen[m]:
                    seen[m] = True
                    todo.append(int(m))
        return np.flatnonzero(seen).astype(np.int32)

    def level(self, goals: np.ndarray, boxes: np.ndarray, player: int) -> Level:
        """The level with these goals, boxes and player (compact indices)."""
        return dataclasses.replace(
            to_level(self.floor),
            goals=frozenset(int(self.cells[g]) for g in goals),
            boxes=frozenset(int(self.cells[b]) for b in boxes),
            players=frozenset((int(self.cells[player]),)),
        )


def solved_starts(board: CompactFloor, goals: np.ndarray) -> np.ndarray:
    """The solved position once per region of free floor: ``int32[s, k + 1]`` rows of the
    boxes on the goals and the region's smallest cell."""
    free = np.ones(board.size, dtype=bool)
    free[goals] = False
    rows = []
    while free.any():
        start = int(np.argmax(free))
        region = board.region(goals, start)
        free[region] = False
        rows.append([*goals, start])
    return np.array(rows, dtype=np.int32).reshape(-1, len(goals) + 1)


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class PullSearch:
    """What :func:`pull_search` found.

    ``states`` (``int32[m, k + 1]``): boxes (ascending compact cells) and the normalised
    player; ``depth``: the fewest pushes that solve each state; ``changes``: box changes
    along a shortest pull path; ``complete``: every reachable state was stored.
    """

    board: CompactFloor
    goals: np.ndarray
    states: np.ndarray
    depth: np.ndarray
    changes: np.ndarray
    complete: bool

    def __len__(self) -> int:
        return len(self.states)

    @property
    def max_depth(self) -> int:
        return int(self.depth.max()) if len(self.depth) else 0

    def boxes_on_goals(self) -> np.ndarray:
        """How many boxes of each state stand on goals (``int64[m]``)."""
        k = len(self.goals)
        return np.asarray(np.isin(self.states[:, :k], self.goals).sum(axis=1), dtype=np.int64)

    def farthest(
        self,
        rng: np.random.Generator,
        metric: str = "pushes",
        depths: tuple[int, int] | None = None,
    ) -> int | None:
        """The index of a hardest state, or ``None`` if no state needs a push.

        Ranked by ``metric`` (``"pushes"``: depth; ``"changes"``: box changes), then by
        fewest boxes already on goals (a box that starts on its goal is a weaker puzzle),
        then by the other of depth and box changes; ties are broken by ``rng``.
        ``depths=(lo, hi)`` restricts the choice to states solved in ``lo..hi`` pushes.
        """
        if metric not in ("pushes", "changes"):
            raise ValueError(f"unknown pull-search metric {metric!r}; use 'pushes' or 'changes'")
        keep = self.depth > 0
        if depths is not None:
            keep &= (self.depth >= depths[0]) & (self.depth <= depths[1])
        candidates = np.flatnonzero(keep)
        if len(candidates) == 0:
            return None
        depth = self.depth[candidates].astype(np.int64)
        changes = self.changes[candidates].astype(np.int64)
        on_goal = self.boxes_on_goals()[candidates]
        first, second = (depth, changes) if metric == "pushes" else (changes, depth)
        rank = (first * 16 + 15 - np.minimum(on_goal, 15)) * 1024 + np.minimum(second, 1023)
        best = candidates[rank == rank.max()]
        return int(best[rng.integers(len(best))])

    def level(self, i: int, rng: np.random.Generator) -> Level:
        """State ``i`` as a level, the player on a random cell of its region."""
        k = len(self.goals)
        boxes = self.states[i, :k]
        region = self.board.region(boxes, int(self.states[i, k]))
        player = int(region[rng.integers(len(region))])
        return self.board.level(self.goals, boxes, player)


def _kernel_board(board: CompactFloor) -> KernelBoard:
    """The engine's kernel board for the pull search: the neighbours and Zobrist keys (the
    goal, dead-square and distance arrays, which pulls never read, are empty)."""
    zbox, zplayer = zobrist(board.size)
    empty = np.zeros(board.size, dtype=np.uint8)
    return KernelBoard(board.nbr, empty, empty, np.zeros((0, board.size), np.int32), zbox, zplayer)


def pull_search(
    floor: np.ndarray | CompactFloor, goals: Sequence[int], max_states: int = MAX_STATES
) -> PullSearch:
    """Search every state reachable by pulls from the boxes on ``goals`` (grid cells).

    >>> import numpy as np
    >>> floor = np.zeros((3, 6), dtype=bool); floor[1, 1:5] = True
    >>> search = pull_search(floor, [1 * 6 + 4])
    >>> search.max_depth, search.complete
    (2, True)
    """
    board = floor if isinstance(floor, CompactFloor) else CompactFloor.from_floor(floor)
    compact_goals = board.compact(goals)
    if len(set(compact_goals.tolist())) != len(compact_goals):
        raise ValueError("two goals on one cell")
    starts = solved_starts(board, compact_goals)
    states, depth, changes, _, complete = _pull.pull_bfs(
        _kernel_board(board),
        starts,
        max_states,
        _successors.new_scratch(board.size, len(compact_goals)),
        _successors.new_children(len(compact_goals)),
    )
    return PullSearch(board, compact_goals, states, depth, changes, bool(complete))


@dataclasses.dataclass(frozen=True, slots=True)
class WalkResult:
    """The best state of :func:`reverse_walk`: the level, its score and pulls made."""

    level: Level
    score: int
    pulls: int


def reverse_walk(
    floor: np.ndarray | CompactFloor,
    goals: Sequence[int],
    rng: np.random.Generator,
    steps: int = 300,
    restarts: int = 4,
) -> WalkResult | None:
    """Random pulls from the solved position; the best state of ``restarts`` walks.

    A state scores box changes times the boxes' Manhattan distance from their goals.
    Returns ``None`` when no walk moved a box.
    """
    board = floor if isinstance(floor, CompactFloor) else CompactFloor.from_floor(floor)
    compact_goals = board.compact(goals)
    starts = solved_starts(board, compact_goals)
    k = len(compact_goals)
    best: tuple[int, int, np.ndarray] | None = None
    for _ in range(restarts):
        start = starts[rng.integers(len(starts))].copy()
        region = board.region(compact_goals, int(start[k]))
        start[k] = region[rng.integers(len(region))]
        state, score, pulls = _pull.pull_walk(
            board.nbr, board.xy, start, compact_goals, rng.random(steps)
        )
        if score > 0 and (best is None or score > best[0]):
            best = (int(score), int(pulls), state)
    if best is None:
        return None
    score, pulls, state = best
    return WalkResult(board.level(compact_goals, state[:k], int(state[k])), score, pulls)
