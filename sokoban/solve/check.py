"""A cheap deadlock check of one position: the tests the solver prunes with, run once.

>>> from sokoban import Level
>>> check(Level.from_xsb('''
... ######
... #$  .#
... #@   #
... ######''')).reason
'dead square'

:func:`check` says a position is dead only when it is (every test is sound: the solver
prunes with them and stays optimal); a position it passes may still be dead in ways that
only a search finds. The tests, cheapest first:

- **dead square**: a box off goal on a cell from which a lone box reaches no goal;
- **freeze**: boxes that can never move again, one of them off its goal (walls, dead
  squares on both sides, other frozen boxes: corners, 2x2 blocks, chains);
- **two boxes**: a pair of boxes that, with the player where it stands, cannot both reach
  goals even with every other box gone (the two-box table);
- **bipartite**: no way to give every box a distinct goal it can still reach;
- **corral**: the boxes fencing an area the player cannot reach, alone on the board, can
  never all reach goals (a bounded sub-search, as the solver's corral deadlocks);
- **tangle**: boxes off goals, each a step from another (diagonals too), alone on the
  board, can never all reach goals (the same sub-search, dropping boxes that come apart).

The last two search (a few thousand states at most per group of boxes, milliseconds);
``check(level, searches=False)`` runs only the others.

The tables these tests need (push distances, the two-box table, the sub-searches' memo
of groups already decided) depend on the walls, the goals and the player's region only,
so they are built once per board and kept (an LRU of :data:`BOARDS` boards and
:data:`MAX_BYTES`): the checks of a game after every push cost microseconds, and a
group's sub-search runs once per board.
"""

from __future__ import annotations

import collections
import dataclasses
import threading

import numpy as np

from sokoban._jit import njit
from sokoban.errors import SokobanError
from sokoban.level import Level

# The engine's private kernels, used here only (see the module docstring).
from sokoban.solve._board import INF, Board
from sokoban.solve._bounds import matching
from sokoban.solve._corral_deadlock import (
    MAX_TANGLE,
    OVERS,
    PATTERNS,
    S_NEIGHBOURS,
    T_OVERS,
    Learned,
    corral_dead,
    new_learned,
    new_scratch,
    tangle_dead,
)
from sokoban.solve._deadlock import FROZEN_OFF_GOAL, frozen
from sokoban.solve._pairs import pair_dead, pair_table
from sokoban.solve._reach import reach

#: Boards whose tables are kept, and the most bytes their arrays may hold together (a
#: two-box table of a large board takes up to 32 MiB).
BOARDS = 64
MAX_BYTES = 256 << 20

DEAD_SQUARE = "dead square"
FREEZE = "freeze"
TWO_BOXES = "two boxes"
BIPARTITE = "bipartite"
CORRAL = "corral"
TANGLE = "tangle"
#: Rounds of the sub-searches: a group out of budget is searched again with twice the
#: budget, from the first (512 states) up to the largest (8,192).
ROUNDS = 5


@dataclasses.dataclass(frozen=True, slots=True)
class Verdict:
    """What :func:`check` found: whether the position is dead, which test said so
    (:data:`DEAD_SQUARE`, :data:`FREEZE`, :data:`TWO_BOXES`, :data:`BIPARTITE`,
    :data:`CORRAL`, :data:`TANGLE`; ``None``
    when not dead) and the boxes (level cells) that make the deadlock."""

    dead: bool
    reason: str | None = None
    dead_boxes: frozenset[int] = frozenset()


class _Tables:
    """A board's encoding, its two-box table and the sub-searches' memo and patterns."""

    def __init__(self, board: Board, table: tuple[np.ndarray, ...]) -> None:
        self.board = board
        self.live, self.pairs, self.starts, self.partners = table
        n = self.board.n
        self.stack = np.zeros(n, np.uint8)
        # ``stack`` and the sub-searches' scratch: one check at a time per board.
        self.lock = threading.Lock()
        self.search_board = self.board.search_board(table)
        # Tangles are asked for apart (corral_dead leaves them to the caller here).
        self.learned = new_learned(n, width=MAX_TANGLE)
        self.scratch = new_scratch(n)
        self.seen = np.zeros(n, np.int32)
        self.nbytes = int(self.pairs.nbytes + self.board.dist.nbytes + self.board.nbr.nbytes)
        self.nbytes += sum(int(a.nbytes) for a in (*self.learned, *self.scratch))


_cache: collections.OrderedDict[tuple[object, ...], _Tables] = collections.OrderedDict()
_cache_lock = threading.Lock()


def _tables(level: Level) -> _Tables:
    # Boxes and the player's cell change as a game goes on; the tables do not.
    key = (level.width, level.height, level.walls, level.goals, level.interior)
    with _cache_lock:
        found = _cache.get(key)
        if found is not None:
            _cache.move_to_end(key)
            return found
    board = Board(level)
    made = _Tables(board, pair_table(board))
    with _cache_lock:
        _cache[key] = made
        held = sum(t.nbytes for t in _cache.values())
        while len(_cache) > 1 and (len(_cache) > BOARDS or held > MAX_BYTES):
            _, dropped = _cache.popitem(last=False)
            held -= dropped.nbytes
    return made


def check(level: Level, *, searches: bool = True) -> Verdict:
    """Whether ``level``'s position is a deadlock the tests can prove; ``searches``: the
    corral and tangle sub-searches too (see the module).

    A level with problems (see :meth:`Level.problems`) raises :class:`SokobanError`.
    """
    problems = level.problems()
    if problems:
        raise SokobanError(f"cannot check a level with problems: {'; '.join(problems)}")
    if level.is_solved:
        return Verdict(False)
    tables = _tables(level)
    index = tables.board.index
    # Boxes outside the player's region sit on goals for good (the model's problems say
    # so otherwise): the board leaves them out, and so do the tests.
    boxes = np.array(sorted(int(index[b]) for b in level.boxes if index[b] >= 0), np.int16)
    player = int(index[level.player]) if level.player is not None else -1
    return _verdict(tables, boxes, player, searches)


def check_start(board: Board, table: tuple[np.ndarray, ...]) -> Verdict:
    """:func:`check` of the start position of ``board`` with the two-box ``table`` a
    solver built for it (:func:`~sokoban.solve._pairs.pair_table`, or the empty one), the
    sub-searches included; a solver asks it before searching, so that a level dead from
    the start is settled at once whatever its searches can prove."""
    tables = _Tables(board, table)
    return _verdict(tables, board.boxes, int(board.player), True)


def _verdict(tables: _Tables, boxes: np.ndarray, player: int, searches: bool) -> Verdict:
    """The tests of :func:`check` on ``boxes`` (floor indices, int16 sorted) with the
    player on ``player`` (-1: none) on the board of ``tables``."""
    board = tables.board
    cells = board.cells

    def as_cells(floor: list[int]) -> frozenset[int]:
        return frozenset(int(cells[f]) for f in floor)

    on_dead = [int(b) for b in boxes if board.dead[b]]
    if on_dead:
        return Verdict(True, DEAD_SQUARE, as_cells(on_dead))
    occ = np.full(board.n, -1, np.int32)
    occ[boxes] = np.arange(len(boxes), dtype=np.int32)
    with tables.lock:
        frozen_off = _frozen_off_goal(
            boxes.astype(np.int32), occ, board.nbr, board.goal, board.dead, tables.stack
        )
    if frozen_off.any():
        return Verdict(True, FREEZE, as_cells([int(b) for b in boxes[frozen_off.astype(bool)]]))
    if player >= 0 and tables.pairs.shape[0]:
        for b in boxes:
            t = int(b)
            if pair_dead(t, player, occ, tables.live, tables.pairs, tables.starts, tables.partners):
                return Verdict(True, TWO_BOXES, as_cells([t, _partner(tables, t, player, occ)]))
    work = np.zeros((6, len(boxes) + 1), np.int64)
    if len(boxes) and matching(boxes, board.dist, work) >= INF:
        return Verdict(True, BIPARTITE, as_cells(_hall_violator(board.dist, boxes)))
    if searches and player >= 0 and len(boxes):
        with tables.lock:
            found = _sub_searches(tables, boxes, player, occ)
        if found is not None:
            reason, floor = found
            return Verdict(True, reason, as_cells(floor))
    return Verdict(False)


def _sub_searches(
    tables: _Tables, boxes: np.ndarray, player: int, occ: np.ndarray
) -> tuple[str, list[int]] | None:
    """The corral and tangle tests (reason, the boxes of the group proved dead), or
    ``None``; the caller holds ``tables.lock``."""
    learned, scratch = tables.learned, tables.scratch
    counts = learned.counts
    for _ in range(ROUNDS):
        overs = counts[OVERS] + counts[T_OVERS]
        found = _groups_dead(boxes, player, occ, tables.seen, tables.search_board, learned, scratch)
        if found:
            return (CORRAL, TANGLE)[found - 1], _witness(learned, occ, player, boxes)
        if counts[OVERS] + counts[T_OVERS] == overs:
            break  # nothing out of budget: searching again would find the same
    return None


@njit
def _groups_dead(boxes, player, occ, seen, board, learned, scratch):  # type: ignore[no-untyped-def]
    """One round of the sub-searches on a position: 1 when a corral is dead, 2 when a
    tangle is, else 0. Each corral's fence alone, then with the boxes next to it (which
    lock some fences from outside, but make others the whole position, not searched);
    then every tangle. ``seen``: int32[n] work."""
    seen[:] = 0
    reach(player, occ, board.nbr, seen, np.int32(1), scratch[4], scratch[12])
    for neighbours in range(2):
        learned.settings[S_NEIGHBOURS] = neighbours
        if corral_dead(boxes, player, -1, occ, seen, np.int32(1), board, learned, scratch):
            return 1
    if tangle_dead(boxes, player, -1, occ, board, learned, scratch):
        return 2
    return 0


def _witness(learned: Learned, occ: np.ndarray, player: int, boxes: np.ndarray) -> list[int]:
    """The boxes of a kept pattern that the position holds with the player in its region
    (every box when the store of patterns was full)."""
    kept = int(learned.counts[PATTERNS])
    rows, region = learned.boxes[:kept], learned.region[:kept]
    bit = (region[:, player >> 6] >> np.uint64(player & 63)) & np.uint64(1)
    for p in np.flatnonzero(bit):
        cells = rows[p][rows[p] >= 0]
        if (occ[cells] >= 0).all():
            return [int(c) for c in cells]
    return [int(b) for b in boxes]


@njit(allocates=True)
def _frozen_off_goal(boxes, occ, nbr, goal, dead, stack):  # type: ignore[no-untyped-def]
    """uint8[b]: 1 for each box of a frozen group with a box off its goal.

    :func:`frozen` is recursive, and numba cannot load a recursive kernel from its cache as
    an entry point (it aborts on an unresolved symbol, or crashes): it is called from this
    kernel, as the search calls it from its own, with the cell an int32 as the search
    passes it (``boxes``: int32[b]; a cell of another type makes a second, mixed-type
    specialisation of the recursion, which the cache loads wrong).
    """
    out = np.zeros(boxes.shape[0], np.uint8)
    for i in range(boxes.shape[0]):
        if frozen(boxes[i], occ, nbr, goal, dead, stack) == FROZEN_OFF_GOAL:
            out[i] = 1
    return out


def _partner(tables: _Tables, t: int, player: int, occ: np.ndarray) -> int:
    """The box that makes a two-box deadlock with the box on ``t`` (the kernel only says
    that one exists)."""
    live, table = tables.live, tables.pairs
    i = int(live[t])
    for c in tables.partners[tables.starts[i] : tables.starts[i + 1]]:
        if occ[c] < 0:
            continue
        j = int(live[c])
        word = table[min(i, j), max(i, j), player >> 6]
        if not (int(word) >> (player & 63)) & 1:
            return int(c)
    raise AssertionError("pair_dead found a partner that is not there")  # pragma: no cover


def _hall_violator(dist: np.ndarray, boxes: np.ndarray) -> list[int]:
    """Boxes that together reach fewer goals than they are (Hall's condition fails):
    the boxes reachable by alternating paths from a box a maximum matching leaves out."""
    reach = [[k for k in range(dist.shape[0]) if dist[k, b] < INF] for b in boxes]
    owner: dict[int, int] = {}  # goal -> box position in ``boxes``

    def augment(i: int, seen: set[int]) -> bool:
        for k in reach[i]:
            if k not in seen:
                seen.add(k)
                if k not in owner or augment(owner[k], seen):
                    owner[k] = i
                    return True
        return False

    free = [i for i in range(len(boxes)) if not augment(i, set())]
    group, todo = {free[0]}, [free[0]]
    while todo:
        i = todo.pop()
        for k in reach[i]:
            j = owner.get(k)
            if j is not None and j not in group:
                group.add(j)
                todo.append(j)
    return sorted(int(boxes[i]) for i in group)
