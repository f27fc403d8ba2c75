"""The best-first search: one kernel for the methods ``astar``, ``moves``, ``bfs``,
``greedy`` and ``wastar``, the :class:`Search` object the driver runs, and the methods.

One kernel serves A* (push- or move-optimal), weighted A*, greedy search and breadth-first
search: the methods differ only in the key weights, the bound and whether the player's
cell is exact. The kernel expands a bounded number of nodes per call and returns, so the
driver (:mod:`sokoban.solve._driver`) checks the clock, grows the arrays (memory is the
sum of their sizes, known in bytes at every moment) and reports progress between calls.
Nodes live in the shared node store (:mod:`sokoban.solve._store`); a node's children come
from the push-child step of :mod:`sokoban.solve._children`.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from sokoban._arrays import copy_into
from sokoban._jit import njit
from sokoban.errors import SokobanError
from sokoban.level import Level
from sokoban.lurd import Solution
from sokoban.solve import _driver, _queue, _table
from sokoban.solve._board import INF, Board
from sokoban.solve._bounds import (
    BOUND_MATCHING,
    BOUNDS,
    bound,
    grown_memo,
    index_of,
    matching,
    memo_put,
    memo_take,
    new_memo,
    rematch,
)
from sokoban.solve._children import child_dead, corral_mask, new_work
from sokoban.solve._corral_deadlock import Learned, corral_dead, matches, new_learned, no_learned
from sokoban.solve._options import (
    BOUND_OPTION,
    CORRALS_OPTION,
    DEADLOCK_OPTIONS,
    FAST_DEADLOCK_OPTIONS,
    PLAN_OPTION,
    TUNNELS_OPTION,
    deadlocks,
)
from sokoban.solve._packed_walls import frozen_dead, new_frozen_cache, new_frozen_test
from sokoban.solve._packing import PackingOrder, packed_count, packing_order
from sokoban.solve._pairs import no_table, pair_table
from sokoban.solve._path import expand
from sokoban.solve._phases import no_phases, phase_score, score_max
from sokoban.solve._phases import phases as plan_phases
from sokoban.solve._pull_search import Meet, PullSearch, met, no_meet
from sokoban.solve._push_moves import BEHIND, BOX, FROM, PUSHES, STAND, TO, moved, push_moves
from sokoban.solve._reach import reach
from sokoban.solve._store import EXPANDED, GENERATED, GOAL, MAXG, MEET, NODES, new_store
from sokoban.solve._tables import Tables
from sokoban.solve.types import (
    Limits,
    Option,
    ProgressCallback,
    SearchStats,
    SolveResult,
    Status,
    register,
)

# Kernel results (the driver's, and one of its own).
SOLVED, EXHAUSTED, BUDGET, FULL = _driver.SOLVED, _driver.EXHAUSTED, _driver.BUDGET, _driver.FULL
GROW_KEYS = 5
# Slots of the parameters (int64 array).
P_BOUND, P_WG, P_WH, P_EXACT, P_BUDGET, P_TIEBREAK, P_MAX_EDGE, P_HMAX, P_CORRAL, P_TUNNEL = range(
    10
)
#: The slot of the plan penalty: what each box out of plan adds to the key's bound.
P_PLAN = 10
#: The slot of the frozen-on-goals test (:func:`sokoban.solve._packed_walls.frozen_short`).
P_FROZEN = 11
#: The slot of the phase guide (:mod:`sokoban.solve._phases`): 1 to add its score to the
#: bound in the queue key, and to count a push that carries on the same box along the
#: plan as free.
P_PHASES = 12
#: Tie-breaks among equal keys: none (LIFO), deeper nodes first (the least lower bound),
#: fewer moves first (the least walking so far: with the pushes fixed by the key, the path
#: with the fewest moves).
TIE_NONE, TIE_DEEPER, TIE_MOVES = 0, 1, 2
TIES = {"none": TIE_NONE, "deeper": TIE_DEEPER, "moves": TIE_MOVES}
#: Secondary keys of the queue per tie-break (the value is capped at the width - 1; beyond
#: it, ties are LIFO).
TIE_WIDTHS = {TIE_NONE: 1, TIE_DEEPER: 64, TIE_MOVES: 1024}


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


def expand_batch(
    board: Any,
    learned: Any,
    plan: Any,
    store: Any,
    table: Any,
    queue: Any,
    counters: Any,
    params: Any,
    frozen_cache: Any,
    meet: Any,
    memo: Any,
) -> int:
    """Expand up to ``params[P_BUDGET]`` nodes; returns :data:`SOLVED` (goal node in
    ``counters[GOAL]``), :data:`EXHAUSTED` (queue empty), :data:`BUDGET`, :data:`FULL` (the
    caller must grow the store, table or queue entries) or :data:`GROW_KEYS` (the queue
    needs more primary keys).

    ``board``: a :class:`~sokoban.solve._board.SearchBoard`; ``learned``: the corral memo
    and deadlock patterns (:class:`~sokoban.solve._corral_deadlock.Learned`, size 0 for
    none); ``plan``: (order int32[g], parent int32[g], guide) of the packing order
    (:mod:`sokoban.solve._packing`), used when ``params[P_PLAN]`` > 0: each box on a goal
    out of plan adds that much to the bound the queue keys take (and ``store.h`` keeps);
    ``guide`` (:class:`~sokoban.solve._phases.Phases`) when ``params[P_PHASES]`` is 1;
    ``store``: a :class:`~sokoban.solve._store.Store`; ``table``: int32[t]; ``queue``: a
    :class:`~sokoban.solve._queue.Queue`; ``counters``: int64[8], slots
    :data:`~sokoban.solve._store.EXPANDED` ...; ``params``: int64[13], slots
    :data:`P_BOUND` ...; ``frozen_cache``: the frozen-goals test's floods per frozen set
    (:func:`~sokoban.solve._packed_walls.new_frozen_cache`), kept by the caller from call
    to call; ``meet``: the positions of a backward search
    (:class:`~sokoban.solve._pull_search.Meet`): a node that is one of them is solved, the
    backward node in ``counters[MEET]``; ``memo``: the matchings of the nodes stored last
    (:class:`~sokoban.solve._bounds.MatchMemo`), kept by the caller from call to call.

    Plain Python around the kernel :func:`_expand_steps`: it makes the work arrays, so that
    the kernel needs neither numba's runtime nor a compiled wrapper of its own (a wrapper
    kernel recompiles everything it calls: seconds of cold compile for nothing).
    """
    n = board.nbr.shape[0]
    nb = store.boxes.shape[1]
    order, parent, guide = plan
    ok = np.ones(order.shape[0], dtype=np.uint8)
    if params[P_FROZEN] != 0:
        goals = np.flatnonzero(board.goal).astype(np.int32)
    else:
        goals = np.zeros(0, np.int32)
    test = new_frozen_test(n, nb, goals, frozen_cache)
    plan = (order, parent, ok, guide.goals, guide.start, guide.dist)
    code: int = _expand_steps(
        board, learned, plan, store, table, queue, counters, params, new_work(n, nb), test,
        meet, memo,
    )  # fmt: skip
    return code


@njit
def _expand_steps(
    board, learned, plan, store, table, queue, counters, params, work, test, meet, memo
):
    """The body of :func:`expand_batch`, its work arrays in ``work``
    (:class:`~sokoban.solve._children.Work`) and ``test``
    (:class:`~sokoban.solve._packed_walls.FrozenTest`), fresh for each call, and ``plan``
    with its scratch (order, parent, ok uint8[g]): without numba's runtime, so that the
    many arrays it hands to the kernels it calls per child are not reference-counted."""
    nbr, goal, dead, dist, zbox, zplayer = (
        board.nbr,
        board.goal,
        board.dead,
        board.dist,
        board.zbox,
        board.zplayer,
    )
    nd_boxes, nd_player, nd_parent, nd_g, nd_h = (
        store.boxes,
        store.player,
        store.parent,
        store.g,
        store.h,
    )
    nd_hash, nd_closed, nd_last = store.hash, store.closed, store.last
    nd_moves, nd_stand = store.moves, store.stand
    nb = nd_boxes.shape[1]
    kind = params[P_BOUND]
    wg = params[P_WG]
    wh = params[P_WH]
    exact = params[P_EXACT] != 0
    budget = params[P_BUDGET]
    tiebreak = params[P_TIEBREAK]
    width = queue.heads.shape[0] // queue.sizes.shape[0]
    reopen = wh <= wg and params[P_PHASES] == 0
    max_edge = params[P_MAX_EDGE]
    hmax = params[P_HMAX]
    corrals = params[P_CORRAL] != 0
    tunnels = params[P_TUNNEL] != 0
    penalty = params[P_PLAN]
    plan_order, plan_parent, ok, ph_goals, ph_start, ph_dist = plan
    guided = params[P_PHASES] != 0
    cap = nd_boxes.shape[0]
    qcap = queue.node.shape[0]
    keys = queue.sizes.shape[0]
    qstate = queue.state
    occ, seen, walk, fifo = work.occ, work.seen, work.walk, work.fifo
    seen2, walk2, fifo2, stack, child = work.seen2, work.walk2, work.fifo2, work.stack, work.child
    rows, moves = work.rows, work.moves
    frozen_goals = params[P_FROZEN] != 0
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
        if not exact:
            # Stored before the backward search got there: met now.
            there = met(meet, nd_hash[node], nd_boxes[node], nd_player[node])
            if there >= 0:
                counters[GOAL] = node
                counters[MEET] = there
                return SOLVED
        nd_closed[node] = 1
        steps += 1
        counters[EXPANDED] += 1
        parent_key = nd_hash[node] ^ zplayer[nd_player[node]]
        boxes = nd_boxes[node]
        for k in range(nb):
            occ[boxes[k]] = k
        mark += 1
        # From the player's exact cell: the same region as the canonical cell, and the
        # walks to each push are the moves the solution will make.
        reach(nd_stand[node], occ, nbr, seen, mark, fifo, walk)
        last = nd_last[node]
        # The costly tests run on the node about to be expanded: most children never are.
        # Boxes frozen on goals are walls for good: a proof, so optimal searches may use it.
        if (
            (last >= 0 and matches(last, nd_player[node], occ, learned))
            or corral_dead(
                boxes, nd_player[node], last, occ, seen, mark, board, learned, work.corral
            )
            or (frozen_goals and frozen_dead(boxes, occ, board, test, stack))
        ):
            for k in range(nb):
                occ[boxes[k]] = -1
            continue
        corral_mask(boxes, occ, seen, mark, nbr, goal, dead, corrals, work)
        if kind == BOUND_MATCHING:
            # Children repair this matching instead of solving their own from scratch;
            # the node's own was kept when it was stored, unless newer nodes took its slot.
            copy_into(rows, boxes)
            if not memo_take(memo, node, work.match_parent):
                matching(rows, dist, work.match_parent)
        count = push_moves(
            boxes, last, occ, seen, mark, nbr, goal, dead, tunnels, work.allowed, work.order,
            moves,
        )  # fmt: skip
        for i in range(count):
            k, b, t = moves[i, BOX], moves[i, FROM], moves[i, TO]
            stand, pushes, p = moves[i, STAND], moves[i, PUSHES], moves[i, BEHIND]
            occ[b] = -1
            occ[t] = k
            if child_dead(t, stand, occ, board, learned, stack):
                occ[t] = -1
                occ[b] = k
                continue
            moved(boxes, b, t, child)
            if exact:
                player = b
                cost = walk[p] + 1
            else:
                mark2 += 1
                player = reach(stand, occ, nbr, seen2, mark2, fifo2, walk2)
                cost = pushes
            out = 0
            if penalty > 0:
                _, out = packed_count(occ, plan_order, plan_parent, ok)
            elif penalty < 0:
                out, _ = packed_count(occ, plan_order, plan_parent, ok)
                out = plan_order.shape[0] - out
            extra = 0
            if guided:
                extra, along = phase_score(occ, b, t, ph_goals, ph_start, ph_dist)
                if along and b == nd_last[node]:
                    cost = 0  # a box carried on along the plan: one push in all
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
                h = rematch(rows, k, dist, work.match_parent, work.match_work)
                rows[k] = b
            else:
                h = bound(kind, child, dist, work.match_work)
            if h >= INF:
                continue
            h += abs(penalty) * out + extra
            new = counters[NODES]
            counters[NODES] += 1
            copy_into(nd_boxes[new], child)
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
            if kind == BOUND_MATCHING:
                memo_put(memo, new, k, index_of(child, t), work.match_work)
            if not exact:
                there = met(meet, key, child, player)
                if there >= 0:
                    counters[GOAL] = new
                    counters[MEET] = there
                    for j in range(nb):
                        occ[boxes[j]] = -1
                    return SOLVED
            second = tie(tiebreak, h, g2, m2, width)
            _queue.push(queue, wg * g2 + wh * h, second, new, g2)
            if g2 > counters[MAXG]:
                counters[MAXG] = g2
        for k in range(nb):
            occ[boxes[k]] = -1


class Search:
    """The arrays of one best-first search, run by :func:`sokoban.solve._driver.drive`.

    ``bound``: a key of :data:`~sokoban.solve._bounds.BOUNDS`; the queue key is
    ``wg * g + wh * h``; ``exact``: the player's exact cell is part of the state and a push
    costs its walk plus one (moves); ``tiebreak``: a key of :data:`TIES`, the order among
    equal keys; ``corrals``: PI-corral pruning (push counts only; off when ``exact``);
    ``tunnels``: tunnel macros (a box pushed into a tunnel goes through in one edge; for
    the methods that promise no optimum, and exhausting the search with them proves
    nothing); ``pairs``: two-box deadlocks from a table built here
    (:mod:`sokoban.solve._pairs`); ``corral_deadlocks``: sub-searches of corral fences
    (:mod:`sokoban.solve._corral_deadlock`), whose proofs are kept as deadlock patterns
    when ``learn``, with the boxes next to the fence when ``neighbours``, and of the tangle
    each pushed box joins when ``tangles``; ``learned``: the
    memo and patterns to use (another search's of the same level), else new ones;
    ``plan_penalty``: what each box on a goal out of the packing order's plan adds to the
    bound in the queue key (0: nothing; a guide for greedy search, not a bound);
    ``frozen_goals``: the frozen-on-goals test on each node expanded
    (:func:`sokoban.solve._packed_walls.frozen_short`; a proof, so the optimal methods
    stay optimal); ``phases``: the guide by the packing plan's phases
    (:mod:`sokoban.solve._phases`) added to the bound in the queue key, a push that
    carries the same box on along the plan costing nothing, closed positions never
    reopened (a guide for greedy search, not a bound).
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
        pairs: bool | tuple[np.ndarray, ...] = True,
        corral_deadlocks: bool = False,
        learn: bool = True,
        neighbours: bool = False,
        tangles: bool = False,
        learned: Learned | None = None,
        plan_penalty: int = 0,
        plan: PackingOrder | None = None,
        frozen_goals: bool = False,
        phases: bool = False,
        meet: PullSearch | None = None,
        capacity: int = 1 << 12,
    ) -> None:
        if bound not in BOUNDS:
            raise ValueError(f"unknown bound {bound!r}; choose from {', '.join(BOUNDS)}")
        if tiebreak not in TIES:
            raise ValueError(f"unknown tie-break {tiebreak!r}; choose from {', '.join(TIES)}")
        self.board = board
        self.exact = exact
        nb = board.nboxes
        if isinstance(pairs, bool):
            pairs = pair_table(board) if pairs else no_table()
        self.kernel_board = board.search_board(pairs)
        if learned is None:
            learned = (
                new_learned(board.n, learn=learn, neighbours=neighbours, tangles=tangles)
                if corral_deadlocks
                else no_learned()
            )
        #: The corral memo and the deadlock patterns learned (shareable between searches).
        self.learned = learned
        self.store = new_store(capacity, nb)
        self.table = np.full(2 * capacity, -1, dtype=np.int32)
        tunnels = tunnels and not exact
        max_edge = board.n + 1 if exact or tunnels else 1
        corrals = corrals and not exact
        hmax = board.hmax if bound != "none" else 0
        if (plan_penalty != 0 or phases) and plan is None:
            plan = packing_order(board, parking=False)  # goals only: out of plan
        guide = no_phases()
        if phases and plan is not None and len(plan.order) > 0:
            guide = plan_phases(board, plan)
            hmax += score_max(guide)
        if plan_penalty != 0 and plan is not None:
            self.plan = (plan.order, plan.parent, guide)
            hmax += abs(plan_penalty) * nb
        else:
            self.plan = (np.zeros(0, np.int32), np.zeros(0, np.int32), guide)
        keys = wg * (64 + max_edge) + wh * hmax + 2
        self.queue = _queue.new(keys, TIE_WIDTHS[TIES[tiebreak]], capacity)
        self.counters = np.zeros(8, dtype=np.int64)
        self.counters[MEET] = -1
        #: The backward search whose positions end this one (``None``: none).
        self.meet_source = meet
        self._no_meet = no_meet(nb)
        self.params = np.array(
            [BOUNDS[bound], wg, wh, int(exact), 0, TIES[tiebreak], max_edge, hmax]
            + [int(corrals), int(tunnels), plan_penalty, int(frozen_goals)]
            + [int(len(guide.goals) > 0)],
            dtype=np.int64,
        )
        #: The frozen-goals test's floods per frozen set, kept from call to call.
        self.frozen_cache = new_frozen_cache(
            board.n if frozen_goals else 1, len(board.goals) if frozen_goals else 0
        )
        #: The matchings of the nodes stored last (:class:`~sokoban.solve._bounds.MatchMemo`),
        #: in no more bytes than the node store: it grows with it.
        self.memo = new_memo(board.nboxes, self.store.nbytes)
        self._put_root(exact)

    def _put_root(self, exact: bool) -> None:
        board = self.board
        boxes = board.boxes.copy()
        occ = np.full(board.n, -1, np.int32)
        occ[boxes] = 0
        scratch = np.zeros(board.n, np.int32)
        player = board.player
        if not exact:
            player = int(reach(player, occ, board.nbr, scratch, 1, scratch.copy(), scratch.copy()))
        zbox, zplayer = self.kernel_board.zbox, self.kernel_board.zplayer
        key = np.uint64(zplayer[player])
        for b in boxes:
            key ^= zbox[b]
        work = np.zeros((6, len(boxes) + 1), np.int64)
        h = int(bound(self.params[P_BOUND], boxes, board.dist, work))
        #: The start position's lower bound (:data:`INF` or more: a bipartite deadlock).
        self.root_bound = h
        store = self.store
        store.last[0] = -1
        store.moves[0] = 0
        store.stand[0] = board.player
        store.boxes[0] = boxes
        store.player[0] = player
        store.parent[0] = -1
        store.h[0] = min(h, INF)
        store.hash[0] = key
        self.counters[NODES] = 1
        if h >= INF:
            return  # a bipartite deadlock at the start: nothing to search
        slot = _table.find(self.table, key, boxes, player, store.hash, store.boxes, store.player)
        self.table[-slot - 1] = 0
        wh, kind = self.params[P_WH], self.params[P_TIEBREAK]
        width = self.queue.width
        _queue.push(self.queue, int(wh * h), int(tie(kind, h, 0, 0, width)), 0, 0)

    @property
    def nbytes(self) -> int:
        arrays = [*self.store, self.table, *self.queue, *self.kernel_board, *self.learned]
        arrays += [*self.frozen_cache, *self.memo]
        return sum(a.nbytes for a in arrays)

    @property
    def expanded(self) -> int:
        return int(self.counters[EXPANDED])

    @property
    def exhausted(self) -> bool:
        return bool(self.queue.state[_queue.SIZE] == 0)

    def step(self, budget: int) -> int:
        self.params[P_BUDGET] = budget
        code: int = expand_batch(
            self.kernel_board,
            self.learned,
            self.plan,
            self.store,
            self.table,
            self.queue,
            self.counters,
            self.params,
            self.frozen_cache,
            self._meet(),
            self.memo,
        )
        return code

    def _meet(self) -> Meet:
        source = self.meet_source
        return source.meet() if source is not None else self._no_meet

    def grow(self, code: int, memory: int) -> bool:
        """Grow what the kernel asked for; False when that would pass ``memory`` bytes."""
        if code == GROW_KEYS:
            p = self.params
            keys = 2 * (p[P_WG] * (self.counters[MAXG] + p[P_MAX_EDGE]) + p[P_WH] * p[P_HMAX] + 2)
            extra = (keys - self.queue.keys) * (self.queue.width + 2) * 4
            if self.nbytes + extra > memory:
                return False
            self.queue = _queue.grown(self.queue, int(keys), 0)
            return True
        cap = self.store.capacity
        room = 4 * self.board.nboxes + 1
        grow_store = self.counters[NODES] + room > cap
        qcap = self.queue.capacity
        grow_queue = not grow_store or self.queue.state[_queue.USED] + room > qcap
        extra = 0
        memo = grown_memo(self.memo, 2 * self.store.nbytes) if grow_store else self.memo
        if grow_store:
            extra += self.store.nbytes + 2 * self.table.nbytes
            extra += memo.nbytes - self.memo.nbytes
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

    def stats(self, run: _driver.Run) -> SearchStats:
        counters = self.counters
        return SearchStats(
            int(counters[EXPANDED]),
            int(counters[GENERATED]),
            int(counters[NODES]),
            run.peak_bytes,
            run.seconds,
        )

    @property
    def cost(self) -> int:
        """The cost of the solved node (pushes, or moves when ``exact``), through the
        backward search's tree when it met it."""
        cost = int(self.store.g[int(self.counters[GOAL])])
        there = int(self.counters[MEET])
        if there >= 0 and self.meet_source is not None:
            cost += int(self.meet_source.store.g[there])
        return cost

    def path(self) -> list[tuple[np.ndarray, int]]:
        """The states from the start to the solved node, and on through the backward
        search's tree when the node was one of its positions."""
        states = self.store.path(int(self.counters[GOAL]))
        there = int(self.counters[MEET])
        if there >= 0 and self.meet_source is not None:
            states += self.meet_source.chain(there)[1:]
        return states

    def solution(self) -> Solution:
        return expand(self.board, self.path())

    def solved_message(self, optimal: bool) -> str:
        unit = ("move", "moves") if self.exact else ("push", "pushes")
        cost = self.cost
        return f"solved in {cost} {unit[cost != 1]}" + (" (optimal)" if optimal else "")


def run_best_first(
    level: Level,
    limits: Limits,
    method: str,
    optimal: bool,
    progress: ProgressCallback | None,
    tables: Tables | None,
    **search: Any,
) -> SolveResult:
    """Run a :class:`Search` of ``level`` (its tables from ``tables``, else built here)
    and make the result.

    Tunnel macros may cut off every solution in odd layouts, so a search with them that
    runs out of positions is run again without them (in the limits left) before the level
    is called unsolvable.
    """
    tables = tables or Tables(level)
    result = _run_once(tables, limits, method, optimal, progress, **search)
    if result.status is not Status.UNSOLVABLE or not search.get("tunnels"):
        return result
    spent = result.stats
    search["tunnels"] = False
    again = _run_once(tables, _driver.remaining(limits, spent), method, optimal, progress, **search)
    return dataclasses.replace(again, stats=spent + again.stats)


def _run_once(
    tables: Tables,
    limits: Limits,
    method: str,
    optimal: bool,
    progress: ProgressCallback | None,
    **options: Any,
) -> SolveResult:
    pairs = tables.pairs(options.pop("pairs", True))
    guided = options.get("plan_penalty") or options.get("phases")
    plan = tables.plan(parking=False) if guided else None
    try:
        found = Search(tables.board, pairs=pairs, plan=plan, **options)
    except ValueError as error:
        raise SokobanError(str(error)) from None
    run = _driver.drive(found, limits, progress)
    lower_bound: int | None = found.root_bound
    if options.get("bound", "matching") == "none" or found.root_bound >= INF:
        lower_bound = None
    return _driver.result(found, run, method, optimal, lower_bound)


@register(
    "astar",
    "A* over pushes with the matching lower bound",
    "pushes",
    optimal=True,
    options=(
        BOUND_OPTION,
        CORRALS_OPTION,
        Option(
            "ties",
            str,
            "moves",
            "among equal keys, fewer moves first (moves) or the smaller bound first (deeper)",
            choices=("moves", "deeper"),
        ),
        *DEADLOCK_OPTIONS,
    ),
)
def astar(
    level: Level,
    limits: Limits,
    progress: ProgressCallback | None,
    tables: Tables | None = None,
    **options: Any,
) -> SolveResult:
    """Push-optimal A*. Tie-break ``moves``: among positions with the same bound on pushes
    the one reached with fewer moves first; ``deeper``: the one with the smaller lower
    bound first, often fewer expansions."""
    return run_best_first(
        level,
        limits,
        "astar",
        True,
        progress,
        tables,
        bound=options["bound"],
        tiebreak=options["ties"],
        corrals=options["corrals"],
        **deadlocks(options),
    )


@register(
    "moves",
    "A* over moves (each push costs its walk plus one)",
    "moves",
    optimal=True,
    options=(BOUND_OPTION, *DEADLOCK_OPTIONS),
)
def moves(
    level: Level,
    limits: Limits,
    progress: ProgressCallback | None,
    tables: Tables | None = None,
    **options: Any,
) -> SolveResult:
    """Move-optimal A*: the player's exact cell is part of the state."""
    return run_best_first(
        level,
        limits,
        "moves",
        True,
        progress,
        tables,
        bound=options["bound"],
        exact=True,
        **deadlocks(options),
    )


@register(
    "bfs",
    "breadth-first search over pushes, no lower bound",
    "pushes",
    optimal=True,
    options=(CORRALS_OPTION, *DEADLOCK_OPTIONS),
)
def bfs(
    level: Level,
    limits: Limits,
    progress: ProgressCallback | None,
    tables: Tables | None = None,
    **options: Any,
) -> SolveResult:
    """Push-optimal breadth-first search: no lower bound, so no bipartite deadlocks; dead
    squares, freeze deadlocks and PI-corrals (option ``corrals``) still prune."""
    return run_best_first(
        level,
        limits,
        "bfs",
        True,
        progress,
        tables,
        bound="none",
        wh=0,
        tiebreak="none",
        corrals=options["corrals"],
        **deadlocks(options),
    )


@register(
    "greedy",
    "best-first search on the lower bound alone: fast, not optimal",
    options=(
        BOUND_OPTION,
        CORRALS_OPTION,
        TUNNELS_OPTION,
        PLAN_OPTION,
        Option(
            "phases",
            bool,
            False,
            "guide by the packing plan's phases, pushes counted (YASS's forward guide)",
        ),
        *FAST_DEADLOCK_OPTIONS,
    ),
)
def greedy(
    level: Level,
    limits: Limits,
    progress: ProgressCallback | None,
    tables: Tables | None = None,
    **options: Any,
) -> SolveResult:
    """Expand the position closest to solved first; with ``phases``, the position with
    the least pushes plus bound plus the phase guide's score (YASS's forward guide)."""
    return run_best_first(
        level,
        limits,
        "greedy",
        False,
        progress,
        tables,
        bound=options["bound"],
        wg=1 if options["phases"] else 0,
        wh=1,
        tiebreak="none",
        corrals=options["corrals"],
        tunnels=options["tunnels"],
        plan_penalty=options["plan"],
        phases=options["phases"],
        **deadlocks(options),
    )


@register(
    "wastar",
    "weighted A* (key g + w*h, w=weight, default 3): fast, not optimal",
    options=(
        BOUND_OPTION,
        CORRALS_OPTION,
        Option("weight", float, 3.0, "w in the key g + w*h", minimum=1.0, maximum=100.0),
        dataclasses.replace(
            TUNNELS_OPTION, default=None, help=TUNNELS_OPTION.help + " [weight > 1]"
        ),
        *FAST_DEADLOCK_OPTIONS,
    ),
)
def wastar(
    level: Level,
    limits: Limits,
    progress: ProgressCallback | None,
    tables: Tables | None = None,
    **options: Any,
) -> SolveResult:
    """Weighted A*: solutions within ``weight`` times the optimum in pushes."""
    weight = options["weight"]
    tunnels = options["tunnels"]
    return run_best_first(
        level,
        limits,
        "wastar",
        weight == 1.0,
        progress,
        tables,
        bound=options["bound"],
        wg=4,
        wh=round(4 * weight),
        corrals=options["corrals"],
        tunnels=weight > 1.0 if tunnels is None else tunnels,
        **deadlocks(options),
    )
