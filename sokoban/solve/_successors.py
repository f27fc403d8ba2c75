"""The children of one state as arrays: pushes (forward) and pulls (backward), for the
depth-first, memory-bounded and bidirectional methods of the search family.

The best-first kernel (:mod:`sokoban.solve._best_first`) generates children inside its
own loop; the family's kernels need them one node at a time, so these generators call the
engine's shared kernels (the pushes of :func:`~sokoban.solve._push_moves.push_moves`, the
player's walk :func:`~sokoban.solve._reach.reach`, freeze deadlocks
:func:`~sokoban.solve._deadlock.frozen`, dead squares and the lower bound
:func:`~sokoban.solve._bounds.bound`) and the same Zobrist keys, so that hashes agree
with the other searches'.

A state is the sorted box floor indices (int16[b]) and the canonical player cell (the
least floor index the player reaches without pushing). ``board`` is the kernel board
tuple ``(nbr, goal, dead, dist, zbox, zplayer)``; ``scratch`` is a :class:`Scratch`.
:class:`FamilyBoard` holds them for one level.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sokoban._jit import njit
from sokoban.level import Level
from sokoban.solve._board import INF, Board
from sokoban.solve._bounds import bound
from sokoban.solve._deadlock import FROZEN_OFF_GOAL, frozen
from sokoban.solve._push_moves import BOX, FROM, TO, moved, push_moves
from sokoban.solve._reach import reach

#: Rows of the lower bound's scratch array (the matching uses six; spare rows
#: keep this module working if it takes more).
WORK_ROWS = 8


class Scratch(NamedTuple):
    """Work arrays of :func:`pushes` and :func:`pulls` on a board of ``n`` floor cells:
    occ int32[n] (all -1 between calls), seen, walk, fifo, seen2, walk2, fifo2 int32[n]
    (two player walks), stack uint8[n] (freeze tests), work int64[WORK_ROWS, b + 1] (the
    bound), marks int64[2] (generation counters of the two walks), and the pushes of
    :func:`sokoban.solve._push_moves.push_moves`: allowed uint8[b] (all 1), order int32[b],
    moves int32[4 b, 6]."""

    occ: np.ndarray
    seen: np.ndarray
    walk: np.ndarray
    fifo: np.ndarray
    seen2: np.ndarray
    walk2: np.ndarray
    fifo2: np.ndarray
    stack: np.ndarray
    work: np.ndarray
    marks: np.ndarray
    allowed: np.ndarray
    order: np.ndarray
    moves: np.ndarray


class Children(NamedTuple):
    """Room for the children of one state (at most ``m = 4 * b``): boxes int16[m, b],
    player int32[m], key uint64[m], bound int32[m]."""

    boxes: np.ndarray
    player: np.ndarray
    key: np.ndarray
    bound: np.ndarray


def new_scratch(n: int, nboxes: int) -> Scratch:
    """A :class:`Scratch` for ``n`` floor cells and ``nboxes`` boxes."""
    return Scratch(
        np.full(n, -1, np.int32),
        np.zeros(n, np.int32),
        np.zeros(n, np.int32),
        np.zeros(n, np.int32),
        np.zeros(n, np.int32),
        np.zeros(n, np.int32),
        np.zeros(n, np.int32),
        np.zeros(n, np.uint8),
        np.zeros((WORK_ROWS, nboxes + 1), np.int64),
        np.zeros(2, np.int64),
        np.ones(nboxes, np.uint8),
        np.zeros(nboxes, np.int32),
        np.zeros((4 * max(nboxes, 1), 6), np.int32),
    )


def new_children(nboxes: int) -> Children:
    """A :class:`Children` for ``nboxes`` boxes."""
    m = 4 * max(nboxes, 1)
    return Children(
        np.zeros((m, nboxes), np.int16),
        np.zeros(m, np.int32),
        np.zeros(m, np.uint64),
        np.zeros(m, np.int32),
    )


@njit
def state_key(boxes, player, zbox, zplayer):
    """The Zobrist key of a state: ``boxes`` int16[b], ``player`` a floor index."""
    key = zplayer[player]
    for i in range(boxes.shape[0]):
        key ^= zbox[boxes[i]]
    return key


@njit(internal=True)
def is_solved(boxes, goal):
    """Whether every box of ``boxes`` (int16[b]) stands on a goal (``goal`` uint8[n])."""
    for i in range(boxes.shape[0]):
        if not goal[boxes[i]]:
            return False
    return True


@njit(internal=True)
def pushes(boxes, player, key, board, scratch, kind, children):
    """The children of state (``boxes``, ``player``) with key ``key`` after one push each,
    pruned by dead squares, freeze deadlocks and (``kind``, a bound of
    :data:`sokoban.solve._bounds.BOUNDS`) bipartite deadlocks. Returns their number, written
    to ``children`` (see :func:`new_children`) with their keys and lower bounds."""
    nbr, goal, dead, dist, zbox, zplayer = board
    occ, seen, walk, fifo, seen2, walk2, fifo2, stack, work, marks = scratch[:10]
    moves = scratch.moves
    c_boxes, c_player, c_key, c_h = children
    nb = boxes.shape[0]
    for k in range(nb):
        occ[boxes[k]] = k
    marks[0] += 1
    mark = np.int32(marks[0])
    reach(player, occ, nbr, seen, mark, fifo, walk)
    base = key ^ zplayer[player]
    made = push_moves(
        boxes, -1, occ, seen, mark, nbr, goal, dead, False, scratch.allowed, scratch.order, moves
    )
    count = 0
    for i in range(made):
        k, b, t = moves[i, BOX], moves[i, FROM], moves[i, TO]
        occ[b] = -1
        occ[t] = k
        if frozen(t, occ, nbr, goal, dead, stack) == FROZEN_OFF_GOAL:
            occ[t] = -1
            occ[b] = k
            continue
        marks[1] += 1
        canon = reach(b, occ, nbr, seen2, np.int32(marks[1]), fifo2, walk2)
        occ[t] = -1
        occ[b] = k
        moved(boxes, b, t, c_boxes[count])
        h = bound(kind, c_boxes[count], dist, work)
        if h >= INF:
            continue
        c_player[count] = canon
        c_key[count] = base ^ zbox[b] ^ zbox[t] ^ zplayer[canon]
        c_h[count] = h
        count += 1
    for k in range(nb):
        occ[boxes[k]] = -1
    return count


@njit(internal=True)
def pulls(boxes, player, key, board, scratch, children):
    """The parents of state (``boxes``, ``player``) by one push: each child here is a state
    from which one push leads to the given one (a pull: the player steps back from a box
    and drags it along). No pruning is needed: every state met backwards from a solved
    position can reach it. Returns their number, written to ``children`` (bounds 0)."""
    nbr, goal, dead, dist, zbox, zplayer = board
    occ, seen, walk, fifo, seen2, walk2, fifo2, stack, work, marks = scratch[:10]
    c_boxes, c_player, c_key, c_h = children
    nb = boxes.shape[0]
    for k in range(nb):
        occ[boxes[k]] = k
    marks[0] += 1
    mark = np.int32(marks[0])
    reach(player, occ, nbr, seen, mark, fifo, walk)
    base = key ^ zplayer[player]
    count = 0
    for k in range(nb):
        b = boxes[k]
        for d in range(4):
            p = nbr[b, d]  # the player stands here, next to the box ...
            if p < 0 or seen[p] != mark:
                continue
            q = nbr[p, d]  # ... and steps back here, the box following onto p
            if q < 0 or occ[q] >= 0:
                continue
            occ[b] = -1
            occ[p] = k
            marks[1] += 1
            canon = reach(q, occ, nbr, seen2, np.int32(marks[1]), fifo2, walk2)
            occ[p] = -1
            occ[b] = k
            moved(boxes, b, p, c_boxes[count])
            c_player[count] = canon
            c_key[count] = base ^ zbox[b] ^ zbox[p] ^ zplayer[canon]
            c_h[count] = 0
            count += 1
    for k in range(nb):
        occ[boxes[k]] = -1
    return count


@njit(internal=True)
def unlink(table, node, nd_hash):
    """Remove ``node`` from a transposition table (int32[t], linear probing;
    see :mod:`sokoban.solve._table`) by backward shifting, so that later probes stay
    correct without tombstones. ``nd_hash``: uint64[cap]. Returns whether it was there."""
    mask = table.shape[0] - 1
    i = np.int64(nd_hash[node] & np.uint64(mask))
    while table[i] != node:
        if table[i] < 0:
            return False
        i = (i + 1) & mask
    j = i
    while True:
        j = (j + 1) & mask
        other = table[j]
        if other < 0:
            break
        home = np.int64(nd_hash[other] & np.uint64(mask))
        # Move ``other`` into the hole unless its home lies cyclically in (i, j].
        if (j > i and (home <= i or home > j)) or (j < i and (home <= i and home > j)):
            table[i] = other
            i = j
    table[i] = -1
    return True


class FamilyBoard:
    """One level as the search family's kernels take it: the board, its kernel
    tuple, the start state with its canonical player cell and key, and the scratch and
    children arrays the generators fill."""

    def __init__(self, level: Level) -> None:
        board = Board(level)
        self.board = board
        self.kernel = board.kernel_board()
        self.boxes = board.boxes.copy()
        self.player = self.canonical(self.boxes, board.player)
        self.key = self.state_key(self.boxes, self.player)
        self.scratch = new_scratch(board.n, board.nboxes)
        self.children = new_children(board.nboxes)

    @property
    def nboxes(self) -> int:
        return self.board.nboxes

    def state_key(self, boxes: np.ndarray, player: int) -> np.uint64:
        return np.uint64(state_key(boxes, player, self.kernel.zbox, self.kernel.zplayer))

    def canonical(self, boxes: np.ndarray, player: int) -> int:
        """The least floor index the player reaches from ``player`` around ``boxes``."""
        occ = np.full(self.board.n, -1, np.int32)
        occ[boxes] = 0
        seen = np.zeros(self.board.n, np.int32)
        return int(reach(player, occ, self.board.nbr, seen, 1, seen.copy(), seen.copy()))

    def bound(self, kind: int, boxes: np.ndarray) -> int:
        """The lower bound of ``kind`` (:data:`~sokoban.solve._bounds.BOUNDS`) of ``boxes``."""
        work = np.zeros((WORK_ROWS, len(boxes) + 1), np.int64)
        return int(bound(kind, boxes, self.board.dist, work))

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in (*self.kernel, *self.scratch, *self.children))
