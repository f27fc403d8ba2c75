"""The kernel of the feature-space search (:mod:`sokoban.solve._fess`): one call expands
a bounded number of nodes, taking turns among the feature cells (:mod:`sokoban.solve._features`).

A move of the search moves one box, by one push or by a macro (each one step):

- tunnel macros, as in the best-first kernel: a box pushed into a tunnel goes through;
- packing macros (Festival's packing advisor, Rolling Stone's goal macros): at each
  expansion, the nearest box that can be pushed all the way to the first cell the packing
  plan wants next (empty, every step it must follow holding) is carried there
  (:mod:`sokoban.solve._carry`); the move packs a step, so it is free.

The costly deadlock tests (corral sub-searches, the packed-walls test of
:mod:`sokoban.solve._packed_walls` and its sound frozen-on-goals variant) run on the node
about to be expanded, not on every child: most children are never expanded. Each child
takes the cheap tests of :func:`sokoban.solve._children.child_dead`. A position is stored
once, with the shortest push path found to it while it waits.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from sokoban._arrays import copy_into
from sokoban._jit import njit
from sokoban.solve import _table
from sokoban.solve._board import INF
from sokoban.solve._bounds import index_of, matching, memo_put, memo_take, rematch
from sokoban.solve._carry import carry, pull_reaches
from sokoban.solve._children import child_dead, corral_mask, new_work
from sokoban.solve._corral_deadlock import corral_dead, matches
from sokoban.solve._driver import BUDGET, EXHAUSTED, FULL, SOLVED
from sokoban.solve._features import (
    QUEUED,
    cell_pop,
    cell_push,
    feature_cell,
    features,
    improves,
    ranks_above,
    rows_short,
)
from sokoban.solve._packed_walls import (
    WALLS_PREFIX,
    FrozenTest,
    frozen_dead,
    goals_short,
    goals_short_chain,
    new_frozen_test,
)
from sokoban.solve._packed_walls import new_scratch as walls_scratch
from sokoban.solve._packing import ready_steps
from sokoban.solve._pull_search import met
from sokoban.solve._push_moves import BOX, FROM, PUSHES, STAND, TO, moved, push_moves
from sokoban.solve._reach import reach
from sokoban.solve._store import EXPANDED, GENERATED, GOAL, MEET, NODES, OWN

#: More slots of the counters (after the cells'): positions pruned by the heuristic
#: packed-walls test, and by its sound variant with the boxes frozen on goals as walls.
SHORT, FROZEN = OWN + 3, OWN + 4
#: Slots of the parameters (int64 array).
(P_BUDGET, P_CORRAL, P_CONN, P_OOP, P_BUCKETS, P_KEY) = range(6)
P_TUNNEL, P_MACRO, P_TARGETS, P_CARRY, P_WALLS, P_FROZEN, P_PROJECT, P_ROOMS = range(6, 14)
#: Keys within a cell: the matching bound, the weight, the bound plus twice the weight,
#: the weight when only a feature's improvement makes a push free (not a lower bound), or
#: the weight when only FESS's advisors' moves are free: of a node's children, the one
#: that packs the most, the best of those with fewer regions, with fewer obstructed room
#: links, with fewer boxes out of plan, and the one with the lowest bound below the
#: node's.
KEY_BOUND, KEY_WEIGHT, KEY_MIXED, KEY_FEATURES, KEY_ADVISORS = 0, 1, 2, 3, 4
#: Rows of the per-node ``extra`` array: bucket link, weight, feature cell.
LINK, WEIGHT, CELL = 0, 1, 2
#: Slots of :attr:`FessWork.marks`: the last marks used in ``seen``, ``seen2`` and
#: ``seen3``, the carry's stamp, and how many children of the node being expanded wait
#: in :attr:`FessWork.pending` (the advisors' key).
M_SEEN, M_SEEN2, M_SEEN3, M_STAMP, M_PENDING = 0, 1, 2, 3, 4
#: What became of a child (:func:`_place`): pruned as a deadlock, stored (or met again),
#: solved.
CHILD_PRUNED, CHILD_STORED, CHILD_SOLVED = 0, 1, 2


class Tree(NamedTuple):
    """What a feature-space search keeps from call to call: the board
    (:class:`~sokoban.solve._board.SearchBoard`), the corral memo and learned patterns
    (:class:`~sokoban.solve._corral_deadlock.Learned`, size 0 for none), the packing plan
    (order int32[g], parent int32[g], before uint8[g, g], steps int32[m], step_parent
    int32[m], feeds int32[m], the lone box's push distance to each step's cell
    int32[m, n]; :class:`~sokoban.solve._packing.PackingOrder`), the node store
    (:class:`~sokoban.solve._store.Store`), the transposition table int32[t], the
    cells (:class:`~sokoban.solve._features.Cells`), per node ``extra`` int32[3, cap]
    (rows :data:`LINK`, :data:`WEIGHT`, :data:`CELL`: the bucket link, the weight (pushes
    on its path that improved no feature) and the feature cell), the counters int64[10]
    (slots :data:`~sokoban.solve._store.EXPANDED` ... :data:`FROZEN`), the parameters
    int64[14] (slots :data:`P_BUDGET` ... :data:`P_ROOMS`) and the positions of a
    backward search (:class:`~sokoban.solve._pull_search.Meet`): a node that is one of
    them is solved, the backward node in ``counters[MEET]``; the matchings of the nodes
    stored last (:class:`~sokoban.solve._bounds.MatchMemo`); the links between the
    level's rooms (:class:`~sokoban.solve._rooms.Links`)."""

    board: Any
    learned: Any
    plan: Any
    store: Any
    table: np.ndarray
    cells: Any
    extra: np.ndarray
    counters: np.ndarray
    params: np.ndarray
    meet: Any
    memo: Any
    links: Any


class FessWork(NamedTuple):
    """The feature-space kernel's own work arrays, beside the shared
    :class:`~sokoban.solve._children.Work`: seen3 int32[n] (the regions' floods), ok
    uint8[m] (all 1), the carry's queue int32[3, 4n] and stamps int32[4n], the macro
    targets and picks int64, the packed-walls scratch
    (:func:`~sokoban.solve._packed_walls.new_scratch`) and its chain mode's floods per
    set of packed goals (:func:`~sokoban.solve._packed_walls.new_chain_cache`), the
    frozen-on-goals test (:class:`~sokoban.solve._packed_walls.FrozenTest`, whose wall
    map the packed-walls test shares), the marks int64[5] (slots :data:`M_SEEN` ...) and
    the nodes of the children of the node being expanded, queued once they all are known
    (the advisors' key) int64[room]: room for every child a node may have, which also
    bounds the nodes an expansion may add to the store."""

    seen3: np.ndarray
    ok: np.ndarray
    carry_queue: np.ndarray
    visit: np.ndarray
    targets: np.ndarray
    picks: np.ndarray
    walls: tuple[np.ndarray, ...]
    chain: tuple[np.ndarray, ...]
    frozen: FrozenTest
    marks: np.ndarray
    pending: np.ndarray


def expansion_room(params: np.ndarray, nb: int) -> int:
    """The most children one expansion of a search with ``params`` and ``nb`` boxes may
    store: every push of every box, one more, and every carry of the packing macros."""
    return 4 * nb + 1 + max(1, int(params[P_TARGETS])) * max(1, int(params[P_MACRO]))


def expand_batch(
    tree: Tree, frozen_cache: tuple[np.ndarray, ...], chain_cache: tuple[np.ndarray, ...]
) -> int:
    """Expand up to ``tree.params[P_BUDGET]`` nodes taking turns among the feature cells;
    returns :data:`SOLVED` (the solved node in ``counters[GOAL]``), :data:`EXHAUSTED`,
    :data:`BUDGET` or :data:`FULL` (grow the store, the table and the links).
    ``frozen_cache``: the frozen-goals test's floods per frozen set
    (:func:`~sokoban.solve._packed_walls.new_frozen_cache`) and ``chain_cache``: the
    packed-walls test's floods per set of packed goals
    (:func:`~sokoban.solve._packed_walls.new_chain_cache`), kept by the caller from call
    to call.

    Plain Python that makes the work arrays of the kernel :func:`_fess_steps` (see
    :func:`sokoban.solve._best_first.expand_batch`).
    """
    params = tree.params
    n = tree.board.nbr.shape[0]
    nb = tree.store.boxes.shape[1]
    order = tree.plan[0]
    nsteps = tree.plan[3].shape[0]
    packed_walls = params[P_WALLS]
    frozen_goals = params[P_FROZEN] != 0
    ng = order.shape[0]
    targets, picks = max(1, params[P_TARGETS]), max(1, params[P_MACRO])
    room = expansion_room(params, nb)
    own = FessWork(
        np.zeros(n, dtype=np.int32),
        np.ones(nsteps, dtype=np.uint8),
        np.empty((3, 4 * n), dtype=np.int32),
        np.zeros(4 * n, dtype=np.int32),
        np.empty(targets, dtype=np.int64),
        np.empty(picks, dtype=np.int64),
        walls_scratch(n, nb, ng if packed_walls else 0, packed_walls == WALLS_PREFIX),
        chain_cache,
        new_frozen_test(n, nb, order if frozen_goals else order[:0], frozen_cache),
        np.array([0, 0, 1, 0, 0], dtype=np.int64),
        np.empty(room, dtype=np.int64),
    )
    code: int = _fess_steps(tree, new_work(n, nb), own)
    return code


@njit
def _fess_steps(tree, work, own):
    """The body of :func:`expand_batch`, its work arrays in ``work``
    (:class:`~sokoban.solve._children.Work`) and ``own`` (:class:`FessWork`), fresh for
    each call: without numba's runtime, so that the many arrays it hands to the kernels
    it calls per child are not reference-counted."""
    board, learned, store, counters, params = (
        tree.board, tree.learned, tree.store, tree.counters, tree.params,
    )  # fmt: skip
    nxt, weight, cellof = tree.extra[LINK], tree.extra[WEIGHT], tree.extra[CELL]
    nbr, goal, dead, dist, zplayer = board.nbr, board.goal, board.dead, board.dist, board.zplayer
    order, parent, before, psteps, sparent, feeds, sdist = tree.plan
    nd_boxes, nd_player, nd_h = store.boxes, store.player, store.h
    nd_hash, nd_closed, nd_last = store.hash, store.closed, store.last
    nb = nd_boxes.shape[1]
    budget = params[P_BUDGET]
    corrals = params[P_CORRAL] != 0
    tunnels = params[P_TUNNEL] != 0
    macros = params[P_MACRO] > 0
    carry_states = params[P_CARRY]
    packed_walls = params[P_WALLS]
    frozen_goals = params[P_FROZEN] != 0
    cap = nd_boxes.shape[0]
    occ, seen, walk, fifo, stack = work.occ, work.seen, work.walk, work.fifo, work.stack
    seen2, walk2, fifo2, rows, moves = work.seen2, work.walk2, work.fifo2, work.rows, work.moves
    targets, picks, marks = own.targets, own.picks, own.marks
    test = own.frozen
    steps = 0
    room = own.pending.shape[0]
    while True:
        if counters[QUEUED] == 0:
            return EXHAUSTED
        if steps >= budget:
            return BUDGET
        if counters[NODES] + room > cap or rows_short(tree.cells, room):
            return FULL
        node = cell_pop(tree.cells, nxt, counters)
        # Stored before the backward search got there: met now.
        there = met(tree.meet, nd_hash[node], nd_boxes[node], nd_player[node])
        if there >= 0:
            counters[GOAL] = node
            counters[MEET] = there
            return SOLVED
        nd_closed[node] = 1
        steps += 1
        counters[EXPANDED] += 1
        origin = (
            node,
            weight[node],
            cellof[node],
            nd_h[node],
            nd_hash[node] ^ zplayer[nd_player[node]],
        )
        boxes = nd_boxes[node]
        for k in range(nb):
            occ[boxes[k]] = k
        marks[M_SEEN] += 1
        mark = marks[M_SEEN]
        reach(nd_player[node], occ, nbr, seen, mark, fifo, walk)
        last = nd_last[node]
        pruned = (last >= 0 and matches(last, nd_player[node], occ, learned)) or corral_dead(
            boxes, nd_player[node], last, occ, seen, mark, board, learned, work.corral
        )
        if not pruned and packed_walls != 0:
            if _packed_short(
                boxes, nd_boxes[0], occ, nbr, order, parent, before, packed_walls, own,
                board.zbox,
            ):  # fmt: skip
                counters[SHORT] += 1
                pruned = True
        # Boxes frozen on goals are walls for good: a proof (unlike the test above).
        if not pruned and frozen_goals and frozen_dead(boxes, occ, board, test, stack):
            counters[FROZEN] += 1
            pruned = True
        if pruned:
            for k in range(nb):
                occ[boxes[k]] = -1
            continue
        corral_mask(boxes, occ, seen, mark, nbr, goal, dead, corrals, work)
        marks[M_PENDING] = 0
        copy_into(rows, boxes)
        # The node's own matching was kept when it was stored, unless newer nodes took
        # its slot: its children repair it.
        if not memo_take(tree.memo, node, work.match_parent):
            matching(rows, dist, work.match_parent)
        count = push_moves(
            boxes, last, occ, seen, mark, nbr, goal, dead, tunnels, work.allowed, work.order,
            moves,
        )  # fmt: skip
        for i in range(count):
            k, b, t = moves[i, BOX], moves[i, FROM], moves[i, TO]
            occ[b] = -1
            occ[t] = k
            placed = _place(tree, work, own, origin, k, b, t, moves[i, STAND], moves[i, PUSHES])
            if placed == CHILD_SOLVED:
                for j in range(nb):
                    occ[boxes[j]] = -1
                return SOLVED
            occ[t] = -1
            occ[b] = k
        if macros:
            # Packing advisor: carry a box to the cell the packing plan wants next, in
            # one move (free, like every move that improves a feature).
            nt = ready_steps(occ, psteps, sparent, feeds, own.ok, targets)
            for ti in range(nt):
                step = targets[ti]
                dest = psteps[step]
                npick = _nearest_boxes(boxes, goal, sdist[step], picks)
                for pi in range(npick):
                    k = picks[pi]
                    b = boxes[k]
                    if _adjacent(nbr, b, dest):
                        continue  # a one-cell move is a plain push (the path relies on it)
                    reached, marks[M_SEEN2] = pull_reaches(
                        b, dest, occ, nbr, dead, seen2, marks[M_SEEN2], fifo2
                    )
                    if not reached:
                        continue
                    marks[M_STAMP] += 1
                    pushes, stand, marks[M_SEEN2] = carry(
                        b, dest, sdist[step], occ, nbr, dead, seen, mark, seen2,
                        marks[M_SEEN2], fifo2, walk2, own.carry_queue, own.visit,
                        marks[M_STAMP], carry_states,
                    )  # fmt: skip
                    if pushes < 0:
                        continue
                    occ[b] = -1
                    occ[dest] = k
                    placed = _place(tree, work, own, origin, k, b, dest, stand, pushes)
                    if placed == CHILD_SOLVED:
                        for j in range(nb):
                            occ[boxes[j]] = -1
                        return SOLVED
                    occ[dest] = -1
                    occ[b] = k
                    if placed == CHILD_STORED:
                        break  # one carry per goal: the next box only if this one fails
        if marks[M_PENDING] > 0:
            _advise(tree, own, origin)
        for k in range(nb):
            occ[boxes[k]] = -1


@njit(internal=True)
def _better(a, b, cellof, h, conn_cap, rooms_cap, oop_cap):
    """Whether node ``a`` is a better advice than node ``b`` (-1: none yet): further on
    in the feature space, or as far and a lower bound."""
    if b < 0:
        return True
    if ranks_above(cellof[a], cellof[b], conn_cap, rooms_cap, oop_cap):
        return True
    return cellof[a] == cellof[b] and h[a] < h[b]


@njit(internal=True)
def _advise(tree, own, origin):
    """Queue the children of the node ``origin`` that wait in ``own.pending``, FESS's
    advisors' moves free (their weight the node's) and every other one at one more: the
    best child (:func:`_better`) that packs more steps, the best with fewer regions, the
    best with fewer obstructed room links, the best with fewer boxes out of plan, and
    the one with the lowest bound below the node's; none of them packing fewer steps
    than the node."""
    counters, params = tree.counters, tree.params
    nxt, weight, cellof = tree.extra[LINK], tree.extra[WEIGHT], tree.extra[CELL]
    h = tree.store.h
    conn_cap, rooms_cap, oop_cap = params[P_CONN], params[P_ROOMS], params[P_OOP]
    caps = (conn_cap, rooms_cap, oop_cap)
    _, pw, pcell, ph, _ = origin
    packed0, conn0, rooms0, oop0 = features(pcell, *caps)
    pack = conn = room = oop = low = -1
    count = own.marks[M_PENDING]
    for i in range(count):
        node = own.pending[i]
        packed, regions, links, out = features(cellof[node], *caps)
        if packed < packed0:
            continue
        if packed > packed0 and _better(node, pack, cellof, h, *caps):
            pack = node
        if regions < conn0 and _better(node, conn, cellof, h, *caps):
            conn = node
        if links < rooms0 and _better(node, room, cellof, h, *caps):
            room = node
        if out < oop0 and _better(node, oop, cellof, h, *caps):
            oop = node
        if h[node] < ph and (low < 0 or h[node] < h[low]):
            low = node
    for i in range(count):
        node = own.pending[i]
        if node == pack or node == conn or node == room or node == oop or node == low:
            weight[node] = pw
        cell_push(tree.cells, nxt, counters, cellof[node], weight[node], node)


@njit(internal=True)
def _packed_short(boxes, starts, occ, nbr, order, parent, before, mode, own, zbox):
    """The packed-walls test of :mod:`sokoban.solve._packed_walls` in ``mode``
    (:data:`~sokoban.solve._packed_walls.WALLS_PREFIX` or ``WALLS_CHAIN``) on the node
    about to be expanded; the chain mode takes marks of ``own.seen3``."""
    wall = own.frozen.wall
    if mode == WALLS_PREFIX:
        return goals_short(boxes, starts, occ, nbr, order, before, wall, own.walls)
    marks = own.marks
    first = marks[M_SEEN3]
    short, marks[M_SEEN3] = goals_short_chain(
        boxes, starts, occ, nbr, order, parent, before, own.ok, wall, own.seen3,
        marks[M_SEEN3], own.walls, zbox, own.chain,
    )  # fmt: skip
    if marks[M_SEEN3] != first:
        # One mark back: the first child's regions count then takes the cells of the
        # test's last pull flood as seen, and counts only the regions that reach
        # outside it (benchmarks/solver.md measures this against counting every region).
        marks[M_SEEN3] -= 1
    return short


@njit(internal=True)
def _place(tree, work, own, origin, k, b, t, stand, pushes):
    """The child of the node ``origin`` (node, weight, feature cell, bound, key without
    the player) whose box ``k`` went from ``b`` to ``t`` in ``pushes`` pushes (``occ``
    already moved), the player standing on ``stand``: pruned by the per-child deadlock
    tests, else stored and queued in its feature cell; a position already stored takes
    the shorter path while it waits. Returns :data:`CHILD_PRUNED`, :data:`CHILD_STORED`
    or :data:`CHILD_SOLVED` (its node in ``counters[GOAL]``)."""
    board, store, counters, params = tree.board, tree.store, tree.counters, tree.params
    occ, marks = work.occ, own.marks
    if child_dead(t, stand, occ, board, tree.learned, work.stack):
        return CHILD_PRUNED
    node, pw, pcell, ph, parent_key = origin
    nbr, dist, zbox, zplayer = board.nbr, board.dist, board.zbox, board.zplayer
    _, _, _, psteps, sparent, feeds, _ = tree.plan
    nxt, weight, cellof = tree.extra[LINK], tree.extra[WEIGHT], tree.extra[CELL]
    conn_cap, rooms_cap, oop_cap = params[P_CONN], params[P_ROOMS], params[P_OOP]
    keykind = params[P_KEY]
    marks[M_SEEN2] += 1
    player = reach(stand, occ, nbr, work.seen2, marks[M_SEEN2], work.fifo2, work.walk2)
    child, rows = work.child, work.rows
    nd_g = store.g
    g = nd_g[node] + pushes
    moved(store.boxes[node], b, t, child)
    key = parent_key ^ zbox[b] ^ zbox[t] ^ zplayer[player]
    counters[GENERATED] += 1
    found = _table.find(tree.table, key, child, player, store.hash, store.boxes, store.player)
    if found >= 0:
        if g < nd_g[found] and not store.closed[found]:
            nd_g[found] = g
            store.parent[found] = node
            store.last[found] = t
        return CHILD_STORED
    rows[k] = t
    h = rematch(rows, k, dist, work.match_parent, work.match_work)
    rows[k] = b
    if h >= INF:
        return CHILD_STORED
    cell, marks[M_SEEN3] = feature_cell(
        occ, nbr, psteps, sparent, feeds, own.ok, own.seen3, marks[M_SEEN3], work.fifo2,
        work.seen2, marks[M_SEEN2], tree.links, conn_cap, rooms_cap, oop_cap,
    )  # fmt: skip
    # A move that lowers the bound or improves a feature is free; under the advisors' key,
    # only the moves :func:`_advise` picks once every child is known.
    w = pw
    if keykind == KEY_ADVISORS:
        w += 1  # until the node's advisors are picked (:func:`_advise`)
    elif (h >= ph or keykind == KEY_FEATURES) and not improves(
        cell, pcell, conn_cap, rooms_cap, oop_cap
    ):
        w += 1
    if params[P_PROJECT] != 0 and ranks_above(pcell, cell, conn_cap, rooms_cap, oop_cap):
        cell = pcell  # FESS's projection: a child waits in its best ancestor's cell
    new = counters[NODES]
    counters[NODES] += 1
    weight[new] = w
    cellof[new] = cell
    copy_into(store.boxes[new], child)
    store.player[new] = player
    store.parent[new] = node
    nd_g[new] = g
    store.h[new] = h
    store.hash[new] = key
    store.closed[new] = 0
    store.last[new] = t
    tree.table[-found - 1] = new
    memo_put(tree.memo, new, k, index_of(child, t), work.match_work)
    if h == 0:
        counters[GOAL] = new
        return CHILD_SOLVED
    there = met(tree.meet, key, child, player)
    if there >= 0:
        counters[GOAL] = new
        counters[MEET] = there
        return CHILD_SOLVED
    if keykind == KEY_ADVISORS:
        own.pending[marks[M_PENDING]] = new
        marks[M_PENDING] += 1
        return CHILD_STORED
    if keykind == KEY_BOUND:
        qkey = h
    elif keykind == KEY_WEIGHT or keykind == KEY_FEATURES:
        qkey = w
    else:
        qkey = h + 2 * w
    cell_push(tree.cells, nxt, counters, cell, qkey, new)
    return CHILD_STORED


@njit(internal=True)
def _adjacent(nbr, a, b):
    """Whether cells ``a`` and ``b`` are neighbours."""
    for d in range(4):
        if nbr[a, d] == b:
            return True
    return False


@njit(internal=True)
def _nearest_boxes(boxes, goal, h, picks):
    """The boxes off the goals (indices into ``boxes``, into ``picks``) nearest by push
    distance ``h`` (int32[n]), nearest first; returns how many (those with a finite one)."""
    count = 0
    size = picks.shape[0]
    for k in range(boxes.shape[0]):
        c = boxes[k]
        if goal[c] or h[c] >= INF:
            continue
        if count < size:
            j = count
            count += 1
        elif h[c] < h[boxes[picks[size - 1]]]:
            j = size - 1
        else:
            continue
        while j > 0 and h[boxes[picks[j - 1]]] > h[c]:
            picks[j] = picks[j - 1]
            j -= 1
        picks[j] = k
    return count
