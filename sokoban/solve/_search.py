"""The best-first search kernel every push-level method runs on, and its Python driver.

One kernel serves A* (push- or move-optimal), weighted A*, greedy search and breadth-first
search: the methods differ only in the key weights, the bound and whether the player's
cell is exact. The kernel expands a bounded number of nodes per call and returns, so the
driver checks the clock, grows the arrays (memory is the sum of their sizes, known in bytes
at every moment) and reports progress between calls.

A node is a state: the sorted box floor indices and a player floor index, either the
least floor index the player can reach without pushing (canonical, push-level methods) or
the player's exact cell (move-optimal search). The node store is a tuple of arrays indexed
by node (see :func:`new_store`).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable

import numpy as np

from sokoban.solve import _queue, _table
from sokoban.solve._board import INF, Board
from sokoban.solve._bounds import matching, nearest, rematch
from sokoban.solve._corral import pi_corral
from sokoban.solve._corral_deadlock import corral_dead, new_memo, no_memo
from sokoban.solve._corral_deadlock import new_scratch as corral_scratch
from sokoban.solve._deadlock import FROZEN_OFF_GOAL, frozen
from sokoban.solve._jit import njit
from sokoban.solve._pairs import no_table, pair_dead, pair_table
from sokoban.solve._reach import reach  # noqa: F401  (re-exported: the engine's walk)

# Kernel results.
SOLVED, EXHAUSTED, BUDGET, FULL, GROW_KEYS = 1, 2, 3, 4, 5
# Counters (int64 array).
EXPANDED, GENERATED, NODES, GOAL, MAXG = 0, 1, 2, 3, 4
# Parameters (int64 array).
P_BOUND, P_WG, P_WH, P_EXACT, P_BUDGET, P_TIEBREAK, P_MAX_EDGE, P_HMAX, P_CORRAL, P_TUNNEL = range(
    10
)
#: Bounds: none (0), nearest goal, minimum matching.
BOUND_NONE, BOUND_NEAREST, BOUND_MATCHING = 0, 1, 2
BOUNDS = {"none": BOUND_NONE, "nearest": BOUND_NEAREST, "matching": BOUND_MATCHING}
#: Tie-breaks among equal keys: none (LIFO), deeper nodes first (the least lower bound),
#: fewer moves first (the least walking so far: with the pushes fixed by the key, the path
#: with the fewest moves).
TIE_NONE, TIE_DEEPER, TIE_MOVES = 0, 1, 2
TIES = {"none": TIE_NONE, "deeper": TIE_DEEPER, "moves": TIE_MOVES}
#: Secondary keys of the queue per tie-break (the value is capped at the width - 1; beyond
#: it, ties are LIFO).
TIE_WIDTHS = {TIE_NONE: 1, TIE_DEEPER: 64, TIE_MOVES: 1024}


def new_store(capacity: int, nboxes: int) -> tuple[np.ndarray, ...]:
    """Empty node arrays: boxes int16[cap, b], player int32[cap], parent int32[cap],
    cost g int32[cap], bound h int32[cap], hash uint64[cap], closed uint8[cap], the cell
    the last push left its box on int32[cap] (-1 at the root), the moves of the node's path
    int32[cap] and the player's exact cell at its end int32[cap]."""
    return (
        np.zeros((capacity, nboxes), dtype=np.int16),
        np.zeros(capacity, dtype=np.int32),
        np.zeros(capacity, dtype=np.int32),
        np.zeros(capacity, dtype=np.int32),
        np.zeros(capacity, dtype=np.int32),
        np.zeros(capacity, dtype=np.uint64),
        np.zeros(capacity, dtype=np.uint8),
        np.zeros(capacity, dtype=np.int32),
        np.zeros(capacity, dtype=np.int32),
        np.zeros(capacity, dtype=np.int32),
    )


def zobrist(n: int, seed: int = 20261129) -> tuple[np.ndarray, np.ndarray]:
    """Random uint64 keys per floor cell for a box there and for the player there."""
    rng = np.random.default_rng(seed)
    keys = rng.integers(0, np.iinfo(np.uint64).max, size=(2, n), dtype=np.uint64, endpoint=True)
    return keys[0].copy(), keys[1].copy()


@njit
def moved(boxes, old, new, out):
    """``out`` (int16[b]) := ``boxes`` (int16[b], sorted) with cell ``old`` replaced by
    ``new``, kept sorted."""
    nb = boxes.shape[0]
    j = 0
    for i in range(nb):
        x = boxes[i]
        if x != old:
            out[j] = x
            j += 1
    j = nb - 1
    while j > 0 and out[j - 1] > new:
        out[j] = out[j - 1]
        j -= 1
    out[j] = new


@njit
def bound(kind, boxes, dist, work):
    """The lower bound of kind :data:`BOUND_NONE`/``NEAREST``/``MATCHING`` for ``boxes``
    (int16[b]); at least :data:`INF` on a bipartite deadlock (nearest and matching)."""
    if kind == BOUND_MATCHING:
        return matching(boxes, dist, work)
    if kind == BOUND_NEAREST:
        return nearest(boxes, dist)
    return np.int64(0)


@njit
def tie(kind, h, g, m, width):
    """The secondary queue key of a node with bound ``h``, cost ``g`` and path moves ``m``
    under tie-break ``kind`` (:data:`TIE_NONE`, ``DEEPER`` or ``MOVES``), below ``width``."""
    if kind == TIE_DEEPER:
        return min(h, width - 1)
    if kind == TIE_MOVES:
        # Walking so far: pushes cost one move each, so with g fixed this orders by moves.
        return min(m - g if m > g else 0, width - 1)
    return 0


@njit
def expand_loop(board, store, table, queue, counters, params):
    """Expand up to ``params[P_BUDGET]`` nodes; returns :data:`SOLVED` (goal node in
    ``counters[GOAL]``), :data:`EXHAUSTED` (queue empty), :data:`BUDGET`, :data:`FULL` (the
    caller must grow the store, table or queue entries) or :data:`GROW_KEYS` (the queue
    needs more primary keys).

    ``board``: (nbr int32[n, 4], goal uint8[n], dead uint8[n], dist int32[g, n], zbox
    uint64[n], zplayer uint64[n], then live, pairs, starts, partners: the two-box
    deadlock table of :mod:`sokoban.solve._pairs`, empty for none, and the memo of
    :mod:`sokoban.solve._corral_deadlock`, size 0 for none); ``store``: see
    :func:`new_store`; ``table``: int32[t]; ``queue``: see :mod:`sokoban.solve._queue`;
    ``counters``: int64[8]; ``params``: int64[8].
    """
    nbr, goal, dead, dist, zbox, zplayer, live, pairs, starts, partners = board[:10]
    nd_boxes, nd_player, nd_parent, nd_g, nd_h, nd_hash, nd_closed, nd_last = store[:8]
    nd_moves, nd_stand = store[8], store[9]
    n = nbr.shape[0]
    nb = nd_boxes.shape[1]
    kind = params[P_BOUND]
    wg = params[P_WG]
    wh = params[P_WH]
    exact = params[P_EXACT] != 0
    budget = params[P_BUDGET]
    tiebreak = params[P_TIEBREAK]
    width = queue[0].shape[0] // queue[1].shape[0]
    reopen = wh <= wg
    max_edge = params[P_MAX_EDGE]
    hmax = params[P_HMAX]
    corrals = params[P_CORRAL] != 0
    tunnels = params[P_TUNNEL] != 0
    cap = nd_boxes.shape[0]
    qcap = queue[3].shape[0]
    keys = queue[1].shape[0]
    qstate = queue[6]

    occ = np.full(n, -1, dtype=np.int32)
    seen = np.zeros(n, dtype=np.int32)
    walk = np.zeros(n, dtype=np.int32)
    fifo = np.empty(n, dtype=np.int32)
    seen2 = np.zeros(n, dtype=np.int32)
    walk2 = np.zeros(n, dtype=np.int32)
    fifo2 = np.empty(n, dtype=np.int32)
    stack = np.zeros(n, dtype=np.uint8)
    child = np.empty(nb, dtype=np.int16)
    work = np.zeros((6, nb + 1), dtype=np.int64)
    parent_work = np.zeros((6, nb + 1), dtype=np.int64)
    rows = np.empty(nb, dtype=np.int16)
    comp = np.zeros(n, dtype=np.int64)
    fence_mark = np.zeros(nb, dtype=np.int64)
    fence = np.empty(nb, dtype=np.int32)
    chosen = np.empty(nb, dtype=np.int32)
    allowed = np.ones(nb, dtype=np.uint8)
    order = np.empty(nb, dtype=np.int32)
    cscratch = corral_scratch(n)
    mark = 0
    mark2 = 0
    steps = 0
    room = 4 * nb + 1
    while True:
        if qstate[_queue.SIZE] == 0:
            return EXHAUSTED
        if steps >= budget:
            return BUDGET
        if counters[NODES] + room > cap:
            return FULL
        if qstate[_queue.FREE] < 0 and qstate[_queue.USED] + room > qcap:
            return FULL
        if wg * (counters[MAXG] + max_edge) + wh * hmax + 1 >= keys:
            return GROW_KEYS
        node, g = _queue.pop(queue)
        if nd_closed[node] or g != nd_g[node]:
            continue
        solved = True
        for k in range(nb):
            if not goal[nd_boxes[node, k]]:
                solved = False
                break
        if solved:
            counters[GOAL] = node
            return SOLVED
        nd_closed[node] = 1
        steps += 1
        counters[EXPANDED] += 1
        parent_key = nd_hash[node] ^ zplayer[nd_player[node]]
        for k in range(nb):
            occ[nd_boxes[node, k]] = k
        mark += 1
        # From the player's exact cell: the same region as the canonical cell, and the
        # walks to each push are the moves the solution will make.
        reach(nd_stand[node], occ, nbr, seen, mark, fifo, walk)
        if corral_dead(
            nd_boxes[node], nd_player[node], nd_last[node], occ, seen, mark, board, cscratch
        ):
            for k in range(nb):
                occ[nd_boxes[node, k]] = -1
            continue
        allowed[:] = 1
        if corrals:
            size = pi_corral(
                nd_boxes[node],
                occ,
                nbr,
                goal,
                dead,
                seen,
                mark,
                comp,
                fence_mark,
                fifo2,
                fence,
                chosen,
            )
            if size >= 0:
                allowed[:] = 0
                for i in range(size):
                    allowed[chosen[i]] = 1
        if kind == BOUND_MATCHING:
            # Children repair this matching instead of solving their own from scratch.
            rows[:] = nd_boxes[node]
            matching(rows, dist, parent_work)
        # The box pushed last goes last, so its children come first out of the LIFO
        # buckets: ties go to pushing the same box on (fewer box changes, deeper dives).
        j = 0
        for k in range(nb):
            if nd_boxes[node, k] != nd_last[node]:
                order[j] = k
                j += 1
        for k in range(nb):
            if nd_boxes[node, k] == nd_last[node]:
                order[j] = k
                j += 1
        for k in order:
            if not allowed[k]:
                continue
            b = nd_boxes[node, k]
            for d in range(4):
                t = nbr[b, d]
                if t < 0 or occ[t] >= 0 or dead[t]:
                    continue
                p = nbr[b, (d + 2) % 4]
                if p < 0 or seen[p] != mark:
                    continue
                occ[b] = -1
                occ[t] = k
                pushes = 1
                stand = b  # where the player ends
                if tunnels:
                    # Tunnel macro: while player and box are both between walls across
                    # the push, the box goes on along the tunnel in one edge.
                    s1 = (d + 1) % 4
                    s2 = (d + 3) % 4
                    while (
                        not goal[t]
                        and nbr[stand, s1] < 0
                        and nbr[stand, s2] < 0
                        and nbr[t, s1] < 0
                        and nbr[t, s2] < 0
                    ):
                        ahead = nbr[t, d]
                        if ahead < 0 or occ[ahead] >= 0 or dead[ahead]:
                            break
                        occ[t] = -1
                        occ[ahead] = k
                        stand = t
                        t = ahead
                        pushes += 1
                if frozen(t, occ, nbr, goal, dead, stack) == FROZEN_OFF_GOAL:
                    occ[t] = -1
                    occ[b] = k
                    continue
                if pair_dead(t, stand, occ, live, pairs, starts, partners):
                    occ[t] = -1
                    occ[b] = k
                    continue
                moved(nd_boxes[node], b, t, child)
                if exact:
                    player = b
                    cost = walk[p] + 1
                else:
                    mark2 += 1
                    player = reach(stand, occ, nbr, seen2, mark2, fifo2, walk2)
                    cost = pushes
                occ[t] = -1
                occ[b] = k
                key = parent_key ^ zbox[b] ^ zbox[t] ^ zplayer[player]
                g2 = g + cost
                m2 = nd_moves[node] + walk[p] + pushes
                counters[GENERATED] += 1
                found = _table.find(table, key, child, player, nd_hash, nd_boxes, nd_player)
                if found >= 0:
                    # The bound is admissible but not consistent (player-side distances,
                    # corral pruning), so an optimal search must reopen a closed position
                    # reached more cheaply; weighted searches keep their first path. An
                    # open position reached with as many pushes and fewer moves takes the
                    # new path (its stale entry is skipped once the position is closed).
                    cheaper = g2 < nd_g[found] and (reopen or not nd_closed[found])
                    shorter = g2 == nd_g[found] and m2 < nd_moves[found] and not nd_closed[found]
                    if cheaper or shorter:
                        nd_closed[found] = 0
                        nd_g[found] = g2
                        nd_parent[found] = node
                        nd_last[found] = t
                        nd_moves[found] = m2
                        nd_stand[found] = stand
                        h = nd_h[found]
                        second = tie(tiebreak, h, g2, m2, width)
                        _queue.push(queue, wg * g2 + wh * h, second, found, g2)
                        if g2 > counters[MAXG]:
                            counters[MAXG] = g2
                    continue
                if kind == BOUND_MATCHING:
                    rows[k] = t
                    h = rematch(rows, k, dist, parent_work, work)
                    rows[k] = b
                else:
                    h = bound(kind, child, dist, work)
                if h >= INF:
                    continue
                new = counters[NODES]
                counters[NODES] += 1
                nd_boxes[new, :] = child
                nd_player[new] = player
                nd_parent[new] = node
                nd_g[new] = g2
                nd_h[new] = h
                nd_hash[new] = key
                nd_closed[new] = 0
                nd_last[new] = t
                nd_moves[new] = m2
                nd_stand[new] = stand
                table[-found - 1] = new
                second = tie(tiebreak, h, g2, m2, width)
                _queue.push(queue, wg * g2 + wh * h, second, new, g2)
                if g2 > counters[MAXG]:
                    counters[MAXG] = g2
        for k in range(nb):
            occ[nd_boxes[node, k]] = -1


@dataclasses.dataclass
class Outcome:
    """What the driver found: a kernel result code, the states of the path when solved
    (box floor indices and player floor index, root first), its cost, and statistics."""

    code: int
    limit: str  # "" or "time", "nodes", "memory"
    path: list[tuple[np.ndarray, int]]
    cost: int
    expanded: int
    generated: int
    stored: int
    peak_bytes: int
    seconds: float


class Search:
    """The arrays of one search and the loop that drives the kernel.

    ``bound``: a key of :data:`BOUNDS`; the queue key is ``wg * g + wh * h``; ``exact``: the
    player's exact cell is part of the state and a push costs its walk plus one (moves);
    ``tiebreak``: a key of :data:`TIES`, the order among equal keys; ``corrals``: PI-corral
    pruning (push counts only; off when ``exact``); ``tunnels``:
    tunnel macros (a box pushed into a tunnel goes through in one edge; for the methods
    that promise no optimum, and exhausting the search with them proves nothing);
    ``pairs``: two-box deadlocks from a table built here (:mod:`sokoban.solve._pairs`);
    ``corral_deadlocks``: sub-searches of corral fences (:mod:`sokoban.solve._corral_deadlock`).
    """

    def __init__(
        self,
        board: Board,
        *,
        bound: str = "matching",
        wg: int = 1,
        wh: int = 1,
        exact: bool = False,
        tiebreak: str = "deeper",
        corrals: bool = True,
        tunnels: bool = False,
        pairs: bool = True,
        corral_deadlocks: bool = False,
        capacity: int = 1 << 12,
    ) -> None:
        if bound not in BOUNDS:
            raise ValueError(f"unknown bound {bound!r}; choose from {', '.join(BOUNDS)}")
        if tiebreak not in TIES:
            raise ValueError(f"unknown tie-break {tiebreak!r}; choose from {', '.join(TIES)}")
        self.board = board
        nb = board.nboxes
        zbox, zplayer = zobrist(board.n)
        started = time.perf_counter()
        two_box = pair_table(board) if pairs else no_table()
        #: Seconds spent building the two-box deadlock table.
        self.pairs_seconds = time.perf_counter() - started
        self.kernel_board = (board.nbr, board.goal, board.dead, board.dist, zbox, zplayer)
        self.kernel_board += (*two_box, *(new_memo() if corral_deadlocks else no_memo()))
        self.store = new_store(capacity, nb)
        self.table = np.full(2 * capacity, -1, dtype=np.int32)
        tunnels = tunnels and not exact
        max_edge = board.n + 1 if exact or tunnels else 1
        corrals = corrals and not exact
        hmax = board.hmax if bound != "none" else 0
        keys = wg * (64 + max_edge) + wh * hmax + 2
        self.queue = _queue.new(keys, TIE_WIDTHS[TIES[tiebreak]], capacity)
        self.counters = np.zeros(8, dtype=np.int64)
        self.params = np.array(
            [BOUNDS[bound], wg, wh, int(exact), 0, TIES[tiebreak], max_edge, hmax]
            + [int(corrals), int(tunnels)],
            dtype=np.int64,
        )
        self._put_root(exact)
        self.peak = self.nbytes

    def _put_root(self, exact: bool) -> None:
        board = self.board
        boxes = board.boxes.copy()
        occ = np.full(board.n, -1, np.int32)
        occ[boxes] = 0
        scratch = np.zeros(board.n, np.int32)
        player = board.player
        if not exact:
            player = int(reach(player, occ, board.nbr, scratch, 1, scratch.copy(), scratch.copy()))
        zbox, zplayer = self.kernel_board[4], self.kernel_board[5]
        key = np.uint64(zplayer[player])
        for b in boxes:
            key ^= zbox[b]
        work = np.zeros((6, len(boxes) + 1), np.int64)
        h = int(bound(self.params[P_BOUND], boxes, board.dist, work))
        self.root_bound = h
        nd_boxes, nd_player, nd_parent, nd_g, nd_h, nd_hash, _, nd_last = self.store[:8]
        nd_last[0] = -1
        self.store[8][0] = 0
        self.store[9][0] = board.player
        nd_boxes[0] = boxes
        nd_player[0] = player
        nd_parent[0] = -1
        nd_h[0] = min(h, INF)
        nd_hash[0] = key
        self.counters[NODES] = 1
        if h >= INF:
            return  # a bipartite deadlock at the start: nothing to search
        _table_slot = _table.find(self.table, key, boxes, player, nd_hash, nd_boxes, nd_player)
        self.table[-_table_slot - 1] = 0
        wh, kind = self.params[P_WH], self.params[P_TIEBREAK]
        width = self.queue[0].shape[0] // self.queue[1].shape[0]
        _queue.push(self.queue, int(wh * h), int(tie(kind, h, 0, 0, width)), 0, 0)

    @property
    def nbytes(self) -> int:
        arrays = [*self.store, self.table, *self.queue, *self.kernel_board]
        return sum(a.nbytes for a in arrays)

    def _grow(self, code: int, memory: int) -> bool:
        """Grow what the kernel asked for; False when that would pass ``memory`` bytes."""
        if code == GROW_KEYS:
            p = self.params
            keys = 2 * (p[P_WG] * (self.counters[MAXG] + p[P_MAX_EDGE]) + p[P_WH] * p[P_HMAX] + 2)
            extra = (
                (keys - self.queue[1].shape[0])
                * (self.queue[0].shape[0] // self.queue[1].shape[0] + 2)
                * 4
            )
            if self.nbytes + extra > memory:
                return False
            self.queue = _queue.grown(self.queue, int(keys), 0)
            return True
        cap = self.store[0].shape[0]
        room = 4 * self.board.nboxes + 1
        grow_store = self.counters[NODES] + room > cap
        qcap = self.queue[3].shape[0]
        grow_queue = not grow_store or self.queue[6][_queue.USED] + room > qcap
        extra = 0
        if grow_store:
            extra += sum(a.nbytes for a in self.store) + 2 * self.table.nbytes
        if grow_queue:
            extra += 3 * qcap * 4
        if self.nbytes + extra > memory:
            return False
        if grow_store:
            self.store = tuple(np.concatenate([a, np.zeros_like(a)]) for a in self.store)
            self.table = np.empty(2 * self.table.shape[0], dtype=np.int32)
            _table.rebuild(self.table, self.store[5], int(self.counters[NODES]))
        if grow_queue:
            self.queue = _queue.grown(self.queue, 0, 2 * qcap)
        return True

    def run(
        self,
        time_limit: float | None = None,
        node_limit: int | None = None,
        memory: int = 1 << 31,
        progress: Callable[[Search, float], None] | None = None,
    ) -> Outcome:
        """Search until solved, exhausted, or a limit; ``progress`` is called between
        kernel calls (about ten times a second) with the search and the seconds so far."""
        start = time.perf_counter()
        budget = 256
        code = EXHAUSTED if self.queue[6][_queue.SIZE] == 0 else BUDGET
        limit = ""
        if self.nbytes > memory:
            code, limit = BUDGET, "memory"
        while code not in (SOLVED, EXHAUSTED) and not limit:
            elapsed = time.perf_counter() - start
            if time_limit is not None and elapsed >= time_limit:
                limit = "time"
                break
            if node_limit is not None and self.counters[EXPANDED] >= node_limit:
                limit = "nodes"
                break
            step = budget
            if node_limit is not None:
                step = min(step, node_limit - int(self.counters[EXPANDED]))
            self.params[P_BUDGET] = step
            t0 = time.perf_counter()
            code = expand_loop(
                self.kernel_board, self.store, self.table, self.queue, self.counters, self.params
            )
            took = time.perf_counter() - t0
            if code in (FULL, GROW_KEYS):
                if not self._grow(code, memory):
                    limit = "memory"
                self.peak = max(self.peak, self.nbytes)
                continue
            # Aim at about 50 ms a call, less when the time limit is near.
            target = 0.05
            if time_limit is not None:
                target = min(target, max(0.002, (time_limit - (t0 - start) - took) / 4))
            if took > 0 and code == BUDGET:
                budget = int(min(max(16, budget * target / took), 4 * budget + 16))
            if progress is not None:
                progress(self, time.perf_counter() - start)
        seconds = time.perf_counter() - start
        path: list[tuple[np.ndarray, int]] = []
        cost = -1
        if code == SOLVED:
            node = int(self.counters[GOAL])
            cost = int(self.store[3][node])
            while node >= 0:
                path.append((self.store[0][node].copy(), int(self.store[1][node])))
                node = int(self.store[2][node])
            path.reverse()
        return Outcome(
            code=code,
            limit=limit,
            path=path,
            cost=cost,
            expanded=int(self.counters[EXPANDED]),
            generated=int(self.counters[GENERATED]),
            stored=int(self.counters[NODES]),
            peak_bytes=self.peak,
            seconds=seconds,
        )
