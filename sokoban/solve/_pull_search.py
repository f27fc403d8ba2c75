"""The backward search of a perimeter search: pulls from the solved positions towards the
start, greedy on how far the boxes are from their start cells.

It starts from every solved position (the boxes on the goals, the player in each region
beside them) and pulls boxes back, one pull a move, keyed by the matching of the boxes to
the start's box cells over pull distances (a lone box pulled from a cell to a start
cell). Every position it stores is a known distance from a solution: its tree is the
perimeter. The forward searches of the portfolio look each position they make up in it
(:class:`Meet`) and end when they reach it; the backward search ends on its own when it
pulls the boxes back onto the start. A goal room with one door, which the forward
searches must fill in the right order, the backward search simply empties.

Pulls never make a freeze deadlock, so the only pruning is the bound: a position where
some box can no longer be pulled back to any start cell is dropped.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sokoban._arrays import copy_into
from sokoban._jit import njit
from sokoban.lurd import Solution
from sokoban.solve import _driver, _queue, _table
from sokoban.solve._board import INF, Board
from sokoban.solve._bounds import (
    grown_memo,
    index_of,
    matching,
    memo_put,
    memo_take,
    new_memo,
    rematch,
)
from sokoban.solve._driver import BUDGET, EXHAUSTED, FULL, SOLVED
from sokoban.solve._path import expand
from sokoban.solve._reach import reach
from sokoban.solve._store import EXPANDED, GENERATED, GOAL, NODES, new_store
from sokoban.solve._successors import new_children, new_scratch, pulls, state_key
from sokoban.solve.types import SearchStats

#: Slots of the parameters (int64 array): expansions this call.
P_BUDGET = 0


class Meet(NamedTuple):
    """What a forward search looks its positions up in: the backward search's
    transposition table int32[t] and its nodes' hashes uint64[cap], boxes int16[cap, b]
    and canonical player cells int32[cap]. :func:`no_meet` finds nothing."""

    table: np.ndarray
    hash: np.ndarray
    boxes: np.ndarray
    player: np.ndarray


def no_meet(nboxes: int) -> Meet:
    """A :class:`Meet` that holds no position."""
    return Meet(
        np.full(1, -1, np.int32),
        np.zeros(1, np.uint64),
        np.zeros((1, nboxes), np.int16),
        np.zeros(1, np.int32),
    )


@njit(internal=True)
def met(meet, key, boxes, player):
    """The backward node of the position (``boxes`` int16[b] sorted, canonical ``player``,
    Zobrist ``key``) in ``meet`` (a :class:`Meet`), or -1."""
    found = _table.find(meet.table, key, boxes, player, meet.hash, meet.boxes, meet.player)
    return found if found >= 0 else -1


@njit(allocates=True)
def pull_distances(nbr, starts, sides):
    """Fewest pulls that take a lone box from every floor cell to each start cell: the
    fewest pushes from the start cell to that cell, a breadth-first search of pushes over
    (box cell, player side) states from every side of the start cell. ``nbr``:
    int32[n, 4]; ``starts``: int32[s]; ``sides``: see
    :func:`sokoban.solve._board.side_components`. Returns int32[s, n], :data:`INF` where
    no pulls do."""
    n = nbr.shape[0]
    dist = np.full((starts.shape[0], n), INF, dtype=np.int32)
    state = np.full((n, 4), INF, dtype=np.int32)
    queue = np.empty(4 * n, dtype=np.int64)
    for k in range(starts.shape[0]):
        state[:] = INF
        s = starts[k]
        head, tail = 0, 0
        for side in range(4):
            if nbr[s, side] >= 0:
                state[s, side] = 0
                queue[tail] = s * 4 + side
                tail += 1
        while head < tail:
            box = queue[head] // 4
            side = queue[head] % 4
            head += 1
            # The player on that side pushes the box the other way.
            t = nbr[box, (side + 2) % 4]
            if t < 0:
                continue
            label = sides[t, side]
            for e in range(4):
                if sides[t, e] == label and state[t, e] == INF:
                    state[t, e] = state[box, side] + 1
                    queue[tail] = t * 4 + e
                    tail += 1
        for c in range(n):
            best = INF
            for side in range(4):
                if state[c, side] < best:
                    best = state[c, side]
            dist[k, c] = best
    return dist


@njit(internal=True)
def _moved_box(parent, child):
    """(k, t): box ``k`` of ``parent`` went to cell ``t`` in ``child`` (both int16[b]
    sorted, differing in one cell)."""
    nb = parent.shape[0]
    i, j = 0, 0
    k, t = -1, -1
    while i < nb or j < nb:
        if i < nb and j < nb and parent[i] == child[j]:
            i += 1
            j += 1
        elif j >= nb or (i < nb and parent[i] < child[j]):
            k = i
            i += 1
        else:
            t = child[j]
            j += 1
    return k, t


@njit
def _pull_steps(
    board, dist, store, table, queue, counters, params, scratch, children, work, rows, start,
    memo,
):  # fmt: skip
    """Expand up to ``params[P_BUDGET]`` nodes of the backward search: :data:`SOLVED` when
    a child is the start (its node in ``counters[GOAL]``), :data:`EXHAUSTED`,
    :data:`BUDGET` or :data:`FULL` (grow the store, table or queue). ``board``: a
    :class:`~sokoban.solve._board.KernelBoard`; ``dist``: :func:`pull_distances` of the
    start's boxes; ``store``: a :class:`~sokoban.solve._store.Store`; ``queue``: a
    :class:`~sokoban.solve._queue.Queue` keyed by the bound; ``scratch``, ``children``:
    :func:`~sokoban.solve._successors.new_scratch`, ``new_children``; ``work``:
    int64[12, b + 1] (the parent's matching, rows 0-5, repaired per child in rows 6-11);
    ``rows``: int16[b], the parent's boxes as the matching's rows; ``start``: (boxes
    int16[b], canonical player, key); ``memo``: a
    :class:`~sokoban.solve._bounds.MatchMemo` of the matchings of the nodes stored last."""
    start_boxes, start_player, start_key = start
    nd_boxes = store.boxes
    nb = nd_boxes.shape[1]
    cap = nd_boxes.shape[0]
    qcap = queue.node.shape[0]
    qstate = queue.state
    c_boxes, c_player, c_key = children.boxes, children.player, children.key
    budget = params[P_BUDGET]
    room = 4 * nb + 1
    steps = 0
    while True:
        if qstate[_queue.SIZE] == 0:
            return EXHAUSTED
        if steps >= budget:
            return BUDGET
        if counters[NODES] + room > cap:
            return FULL
        if qstate[_queue.FREE] < 0 and qstate[_queue.USED] + room > qcap:
            return FULL
        node, g = _queue.pop(queue)
        if store.closed[node]:
            continue
        store.closed[node] = 1
        steps += 1
        counters[EXPANDED] += 1
        count = pulls(
            nd_boxes[node], store.player[node], store.hash[node], board, scratch, children
        )
        parent_match, child_match = work[:6], work[6:]
        matched = False
        for i in range(count):
            counters[GENERATED] += 1
            key = c_key[i]
            player = c_player[i]
            found = _table.find(table, key, c_boxes[i], player, store.hash, nd_boxes, store.player)
            if found >= 0:
                continue  # greedy: the first path to a position is kept
            if not matched:  # the parent's matching, repaired per child: O(b^2), not O(b^3)
                copy_into(rows, nd_boxes[node])
                # Kept when the node was stored, unless newer nodes took its slot: a
                # greedy search mostly expands a node soon after storing it.
                if not memo_take(memo, node, parent_match):
                    matching(rows, dist, parent_match)
                matched = True
            k, t = _moved_box(rows, c_boxes[i])
            was = rows[k]
            rows[k] = t
            h = rematch(rows, k, dist, parent_match, child_match)
            rows[k] = was
            if h >= INF:
                continue  # a box that can no longer get back to a start cell
            new = counters[NODES]
            counters[NODES] += 1
            copy_into(nd_boxes[new], c_boxes[i])
            store.player[new] = player
            store.parent[new] = node
            store.g[new] = g + 1
            store.h[new] = h
            store.hash[new] = key
            store.closed[new] = 0
            table[-found - 1] = new
            memo_put(memo, new, k, index_of(c_boxes[i], t), child_match)
            if key == start_key and player == start_player:
                same = True
                for k in range(nb):
                    if c_boxes[i, k] != start_boxes[k]:
                        same = False
                if same:
                    counters[GOAL] = new
                    return SOLVED
            _queue.push(queue, h, 0, new, g + 1)


class PullSearch:
    """The arrays of one backward search of ``board`` (see the module), run by
    :func:`sokoban.solve._driver.drive` like the forward searches; :meth:`meet` is what
    they look their positions up in."""

    def __init__(self, board: Board, capacity: int = 1 << 12) -> None:
        self.board = board
        self.kernel_board = board.kernel_board()
        nb = board.nboxes
        starts = board.boxes.astype(np.int32)
        self.dist = pull_distances(board.nbr, starts, board.sides)
        finite = self.dist[self.dist < INF]
        hmax = int(finite.max() if finite.size else 0) * nb
        self.store = new_store(capacity, nb)
        self.table = np.full(2 * capacity, -1, dtype=np.int32)
        self.queue = _queue.new(hmax + 2, 1, capacity)
        self.counters = np.zeros(8, dtype=np.int64)
        self.params = np.zeros(1, dtype=np.int64)
        self.scratch = new_scratch(board.n, nb)
        self.children = new_children(nb)
        self.work = np.zeros((12, nb + 1), dtype=np.int64)
        self.rows = np.zeros(nb, dtype=np.int16)
        self.memo = new_memo(nb, self.store.nbytes)
        zbox, zplayer = self.kernel_board.zbox, self.kernel_board.zplayer
        boxes = board.boxes.copy()
        player = self._canonical(boxes, board.player)
        self.start = (boxes, player, np.uint64(state_key(boxes, player, zbox, zplayer)))
        self._put_roots()

    def _canonical(self, boxes: np.ndarray, player: int) -> int:
        occ = np.full(self.board.n, -1, np.int32)
        occ[boxes] = 0
        seen = np.zeros(self.board.n, np.int32)
        return int(reach(player, occ, self.board.nbr, seen, 1, seen.copy(), seen.copy()))

    def _put_roots(self) -> None:
        """The solved positions: the boxes on the goals, the player in each region of
        the free floor beside a box (a region the player cannot pull from is no start)."""
        board, store = self.board, self.store
        boxes = np.sort(board.goals).astype(np.int16)
        occ = np.full(board.n, -1, np.int32)
        occ[boxes] = 0
        h = int(matching(boxes, self.dist, self.work))
        if h >= INF:
            return  # no box can be pulled back to a start: no roots
        zbox, zplayer = self.kernel_board.zbox, self.kernel_board.zplayer
        seen = np.zeros(board.n, np.int32)
        queue, walk = np.empty(board.n, np.int32), np.empty(board.n, np.int32)
        mark = 0
        for box in boxes:
            for d in range(4):
                cell = int(board.nbr[box, d])
                if cell < 0 or occ[cell] >= 0 or seen[cell] > 0:
                    continue
                mark += 1
                player = int(reach(cell, occ, board.nbr, seen, mark, queue, walk))
                key = np.uint64(state_key(boxes, player, zbox, zplayer))
                new = int(self.counters[NODES])
                slot = _table.find(self.table, key, boxes, player, store.hash, store.boxes,
                                   store.player)  # fmt: skip
                self.table[-slot - 1] = new
                self.counters[NODES] += 1
                store.boxes[new] = boxes
                store.player[new] = player
                store.parent[new] = -1
                store.g[new] = 0
                store.h[new] = h
                store.hash[new] = key
                store.closed[new] = 0
                _queue.push(self.queue, h, 0, new, 0)

    def meet(self) -> Meet:
        """The positions stored so far, for a forward search to look up (the arrays of
        the moment: they are replaced when they grow)."""
        store = self.store
        return Meet(self.table, store.hash, store.boxes, store.player)

    def chain(self, node: int) -> list[tuple[np.ndarray, int]]:
        """The states from ``node`` back to the solved position it was pulled from: in
        forward time, the pushes that solve the level from ``node``."""
        states = self.store.path(node)
        states.reverse()
        return states

    # The driver's protocol.
    @property
    def nbytes(self) -> int:
        arrays = [*self.store, self.table, *self.queue, self.dist, *self.memo]
        return sum(a.nbytes for a in arrays)

    @property
    def expanded(self) -> int:
        return int(self.counters[EXPANDED])

    @property
    def exhausted(self) -> bool:
        return bool(self.queue.state[_queue.SIZE] == 0)

    def step(self, budget: int) -> int:
        self.params[P_BUDGET] = budget
        code: int = _pull_steps(
            self.kernel_board, self.dist, self.store, self.table, self.queue, self.counters,
            self.params, self.scratch, self.children, self.work, self.rows, self.start,
            self.memo,
        )  # fmt: skip
        return code

    def grow(self, code: int, memory: int) -> bool:
        """Double the store and table, or the queue's entries; False past ``memory``."""
        nb = self.board.nboxes
        room = 4 * nb + 1
        grow_store = self.counters[NODES] + room > self.store.capacity
        qcap = self.queue.capacity
        grow_queue = not grow_store or self.queue.state[_queue.USED] + room > qcap
        extra = 0
        memo = grown_memo(self.memo, 2 * self.store.nbytes) if grow_store else self.memo
        if grow_store:
            extra += self.store.nbytes + 2 * self.table.nbytes + memo.nbytes - self.memo.nbytes
        if grow_queue:
            extra += 3 * qcap * 4
        if self.nbytes + extra > memory:
            return False
        if grow_store:
            self.store = self.store.doubled()
            self.table = np.empty(2 * self.table.shape[0], dtype=np.int32)
            _table.rebuild(self.table, self.store.hash, int(self.counters[NODES]))
            self.memo = memo
        if grow_queue:
            self.queue = _queue.grown(self.queue, 0, 2 * qcap)
        return True

    # What a solved search gives.
    @property
    def cost(self) -> int:
        return int(self.store.g[int(self.counters[GOAL])])

    def path(self) -> list[tuple[np.ndarray, int]]:
        """The states from the start to a solved position (the backward chain from the
        node that reached the start)."""
        return self.chain(int(self.counters[GOAL]))

    def stats(self, run: _driver.Run) -> SearchStats:
        c = self.counters
        return SearchStats(int(c[EXPANDED]), int(c[GENERATED]), int(c[NODES]), run.peak_bytes,
                           run.seconds)  # fmt: skip

    def solution(self) -> Solution:
        return expand(self.board, self.path())
