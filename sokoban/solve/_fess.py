"""Feature-space search (after Shoham and Schaeffer's FESS): positions are projected onto
cells of a small feature space and the search takes turns among the cells.

Features of a position (computed for every child):

- packing: how many goals are packed in the packing order (:mod:`sokoban.solve._packing`);
- connectivity: how many regions the boxes cut the free floor into (capped);
- out of plan: boxes on goals that wall in goals still empty (capped).

Every cell holds its positions in LIFO buckets by a key (:data:`KEY_BOUND` ...): the
matching lower bound, or FESS's weight - the pushes on the path that improved nothing,
neither the bound nor a feature (the moves its advisors would not have proposed) - or
both. The kernel visits the non-empty cells round-robin and expands the position of
least key in each, so a cell reached by packing one more box gets its turns at once
however crowded the cells below it are, while every other combination of features keeps
being explored: the search progresses along the packing order without betting everything
on one path. :func:`interleave` runs searches with different keys by turns.

A move of the search moves one box, by one push or by a macro (each one step):

- tunnel macros, as in the best-first kernel: a box pushed into a tunnel goes through;
- packing macros (Festival's packing advisor, Rolling Stone's goal macros): at each
  expansion, the nearest box that can be pushed all the way to the first goal the packing
  order wants next (empty, every goal it must follow packed) is carried there
  (:mod:`sokoban.solve._carry`); the move packs a goal, so it is free.

It stores nodes as the best-first kernel does (:class:`sokoban.solve._best_first.Store`, the
transposition table of :mod:`sokoban.solve._table`) and reuses its pieces (the player's
walk, the child's boxes, the bound, freeze deadlocks, the two-box table, PI-corrals, corral
deadlocks and the patterns they leave). The corral sub-searches run on the position about to
be expanded, not on every child (most children never are), and so does the packed-walls
test (:mod:`sokoban.solve._packed_walls`, a heuristic: every empty goal must keep a box of
its own that can still reach it, the packed goals standing as walls) and its sound
variant (the boxes frozen on goals as walls, a proof:
:func:`sokoban.solve._packed_walls.frozen_short`); the patterns learned are matched per
child. A position is stored once, with the shortest push path found to it while it waits;
the path's macros are found again when it is expanded to LURD
(:func:`sokoban.solve._path.expand`).
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any, NamedTuple

import numpy as np

from sokoban._arrays import copy_into
from sokoban._jit import njit
from sokoban.level import Level
from sokoban.lurd import Solution
from sokoban.solve import _driver, _table
from sokoban.solve._best_first import (
    EXPANDED,
    FESS_DEADLOCK_OPTIONS,
    GENERATED,
    GOAL,
    NODES,
    SearchBoard,
    new_store,
    work_arrays,
)
from sokoban.solve._board import INF, Board, push_distances
from sokoban.solve._bounds import matching, rematch
from sokoban.solve._carry import MAX_STATES, carry, pull_reaches
from sokoban.solve._corral import pi_corral
from sokoban.solve._corral_deadlock import Learned, corral_dead, matches, new_learned, no_learned
from sokoban.solve._deadlock import FROZEN_OFF_GOAL, frozen
from sokoban.solve._driver import BUDGET, EXHAUSTED, FULL, SOLVED
from sokoban.solve._packed_walls import (
    frozen_short,
    goals_short,
    goals_short_chain,
    must_precede,
    new_frozen_cache,
)
from sokoban.solve._packed_walls import new_scratch as walls_scratch
from sokoban.solve._packing import PackingOrder, packing_order, ready_steps, steps_packed
from sokoban.solve._pairs import no_table, pair_dead, pair_table
from sokoban.solve._path import expand
from sokoban.solve._reach import reach
from sokoban.solve._successors import moved
from sokoban.solve.types import (
    Limits,
    Option,
    Progress,
    ProgressCallback,
    SearchStats,
    SolveResult,
    Status,
    register,
)

# More slots of the counters (int64 array; the first ones are those of the best-first
# kernel): positions queued, the next cell's turn, non-empty cells, positions pruned by
# the heuristic packed-walls test (:mod:`sokoban.solve._packed_walls`), and by its sound
# variant with the boxes frozen on goals as walls.
QUEUED, CURSOR, CELLS, SHORT, FROZEN = 5, 6, 7, 8, 9
# Slots of the parameters (int64 array).
(P_BUDGET, P_CORRAL, P_CONN, P_OOP, P_BUCKETS, P_KEY) = range(6)
P_TUNNEL, P_MACRO, P_TARGETS, P_CARRY, P_WALLS, P_FROZEN, P_PROJECT = range(6, 13)
#: Goals of the packing order a node tries to carry a box to (the first ones ready), and
#: the boxes tried per goal at most, nearest by push distance first, until one is carried.
MACRO_TARGETS, MACRO_BOXES = 1, 3
#: Keys within a cell: the matching bound, the weight, the bound plus twice the weight, or
#: the weight when only a feature's improvement makes a push free (not a lower bound).
KEY_BOUND, KEY_WEIGHT, KEY_MIXED, KEY_FEATURES = 0, 1, 2, 3
#: Feature caps: regions counted up to this many, boxes out of plan likewise.
CONNECTIVITY_CAP, OUT_OF_PLAN_CAP = 4, 4
#: Bound buckets per cell at most (larger bounds share the last bucket).
MAX_BUCKETS = 1024
#: The packed-walls test: off, the order's filled prefix as walls, or the goals packed by
#: its chains (:mod:`sokoban.solve._packed_walls`).
WALLS_OFF, WALLS_PREFIX, WALLS_CHAIN = 0, 1, 2
PACKED_WALLS = {"off": WALLS_OFF, "prefix": WALLS_PREFIX, "chain": WALLS_CHAIN}
#: The packed-walls test by prefix is off on levels where its cache would take more bytes.
PACKED_WALLS_BYTES = 1 << 25
#: Rows of the per-node ``extra`` array: bucket link, weight, feature cell.
LINK, WEIGHT, CELL = 0, 1, 2
#: What became of a child (:func:`_place`): pruned as a deadlock, stored (or met again),
#: solved.
CHILD_PRUNED, CHILD_STORED, CHILD_SOLVED = 0, 1, 2


class Cells(NamedTuple):
    """The feature cells' buckets: the first node of each (cell, key) bucket int32[c, k]
    (-1 empty), the nodes per cell int64[c], and a key at or below each cell's least
    occupied bucket int32[c]."""

    heads: np.ndarray
    sizes: np.ndarray
    low: np.ndarray


@njit(internal=True)
def regions(occ, nbr, seen, mark, queue):
    """How many connected regions the free cells (``occ < 0``) form; uses marks
    ``mark..mark + regions - 1`` of ``seen`` (int32[n]) and returns (regions, next mark).
    ``occ``, ``queue``: int32[n]; ``nbr``: int32[n, 4]."""
    n = nbr.shape[0]
    first = mark
    count = 0
    for s in range(n):
        if occ[s] >= 0 or seen[s] >= first:
            continue
        seen[s] = mark
        queue[0] = s
        head, tail = 0, 1
        while head < tail:
            c = queue[head]
            head += 1
            for d in range(4):
                x = nbr[c, d]
                if x >= 0 and occ[x] < 0 and seen[x] < first:
                    seen[x] = mark
                    queue[tail] = x
                    tail += 1
        count += 1
        mark += 1
    return count, mark


@njit
def feature_cell(occ, nbr, steps, parent, feeds, ok, seen, mark, queue, conn_cap, oop_cap):
    """The feature-space cell of the boxes ``occ`` (int32[n]) and the next free mark:
    ``(packed * conn_cap + min(regions, conn_cap) - 1) * oop_cap + min(out of plan,
    oop_cap - 1)``, packed counting the plan's steps. ``steps``, ``parent``, ``feeds``,
    ``ok``: see :func:`sokoban.solve._packing.steps_packed`; ``seen``, ``queue``: int32[n]
    scratch."""
    packed, out = steps_packed(occ, steps, parent, feeds, ok)
    count, mark = regions(occ, nbr, seen, mark, queue)
    conn = max(0, min(count, conn_cap) - 1)  # no region counted: see fess_loop's chain test
    return (packed * conn_cap + conn) * oop_cap + min(out, oop_cap - 1), mark


@njit
def _push(cells, nxt, counters, cell, key, node):
    """Put ``node`` into bucket ``key`` of ``cell``. ``cells``: :class:`Cells`; ``nxt``:
    int32[cap] bucket links."""
    heads, count, low = cells
    k = min(key, heads.shape[1] - 1)
    nxt[node] = heads[cell, k]
    heads[cell, k] = node
    if count[cell] == 0 or k < low[cell]:
        low[cell] = k
    if count[cell] == 0:
        counters[CELLS] += 1
    count[cell] += 1
    counters[QUEUED] += 1


@njit(internal=True)
def _pop(cells, nxt, counters):
    """The node of least bound in the next non-empty cell after the cursor."""
    heads, count, low = cells
    ncells = count.shape[0]
    c = counters[CURSOR]
    while count[c] == 0:
        c += 1
        if c == ncells:
            c = 0
    counters[CURSOR] = c + 1 if c + 1 < ncells else 0
    k = low[c]
    while heads[c, k] < 0:
        k += 1
    low[c] = k
    node = heads[c, k]
    heads[c, k] = nxt[node]
    count[c] -= 1
    if count[c] == 0:
        counters[CELLS] -= 1
    counters[QUEUED] -= 1
    return node


@njit(internal=True)
def _features(cell, conn_cap, oop_cap):
    """(goals packed, regions column, boxes out of plan) of feature ``cell``."""
    oop, rest = cell % oop_cap, cell // oop_cap
    return rest // conn_cap, rest % conn_cap, oop


@njit(internal=True)
def _ranks_above(cell, other, conn_cap, oop_cap):
    """Whether feature ``cell`` is further on than ``other``: more goals packed, or as
    many and fewer regions, or as many of both and fewer boxes out of plan."""
    packed, conn, oop = _features(cell, conn_cap, oop_cap)
    packed0, conn0, oop0 = _features(other, conn_cap, oop_cap)
    if packed != packed0:
        return packed > packed0
    if conn != conn0:
        return conn < conn0
    return oop < oop0


@njit(internal=True)
def _improves(cell, before, conn_cap, oop_cap):
    """Whether feature ``cell`` has more goals packed, fewer regions or fewer boxes out of
    plan than ``before``."""
    packed, conn, oop = _features(cell, conn_cap, oop_cap)
    packed0, conn0, oop0 = _features(before, conn_cap, oop_cap)
    return packed > packed0 or conn < conn0 or oop < oop0


def fess_loop(
    board: Any,
    learned: Any,
    plan: Any,
    store: Any,
    table: Any,
    cells: Any,
    extra: Any,
    counters: Any,
    params: Any,
    frozen_cache: Any,
) -> int:
    """Expand up to ``params[P_BUDGET]`` nodes taking turns among the feature cells;
    returns :data:`SOLVED` (the solved node in ``counters[GOAL]``), :data:`EXHAUSTED`,
    :data:`BUDGET` or :data:`FULL` (grow the store, the table and ``nxt``).

    ``board``: a :class:`~sokoban.solve._best_first.SearchBoard` (its two-box table empty
    for none); ``learned``: the corral memo and deadlock patterns
    (:class:`~sokoban.solve._corral_deadlock.Learned`, size 0 for none); ``plan``: (order
    int32[g], parent int32[g], before uint8[g, g], steps int32[m], step_parent int32[m],
    feeds int32[m], the lone box's push distance to each step's cell int32[m, n]) of the
    packing order (:class:`~sokoban.solve._packing.PackingOrder`);
    ``store``: a :class:`~sokoban.solve._best_first.Store`; ``table``: int32[t]; ``cells``:
    :class:`Cells`; ``extra``: int32[3, cap], per node (rows :data:`LINK`, :data:`WEIGHT`,
    :data:`CELL`) the bucket link, the weight (pushes on its path that improved no feature)
    and the feature cell; ``counters``: int64[10], slots
    :data:`~sokoban.solve._best_first.EXPANDED` ... :data:`FROZEN`; ``params``: int64[13],
    slots :data:`P_BUDGET` ... :data:`P_PROJECT`; ``frozen_cache``: the frozen-goals
    test's floods per frozen set (:func:`~sokoban.solve._packed_walls.new_frozen_cache`),
    kept by the caller from call to call.

    Plain Python that makes the work arrays of the kernel :func:`_fess_steps` (see
    :func:`~sokoban.solve._best_first.expand_loop`).
    """
    n = board.nbr.shape[0]
    nb = store.boxes.shape[1]
    ng = plan[0].shape[0]
    nsteps = plan[3].shape[0]
    packed_walls = params[P_WALLS]
    frozen_goals = params[P_FROZEN] != 0
    seen3 = np.zeros(n, dtype=np.int32)
    ok = np.ones(nsteps, dtype=np.uint8)
    cq = np.empty((3, 4 * n), dtype=np.int32)
    visit = np.zeros(4 * n, dtype=np.int32)
    targets = np.empty(max(1, params[P_TARGETS]), dtype=np.int64)
    picks = np.empty(max(1, params[P_MACRO]), dtype=np.int64)
    wscratch = walls_scratch(n, nb, ng if packed_walls else 0, packed_walls == WALLS_PREFIX)
    wall = np.zeros(n, dtype=np.uint8)
    fscratch = walls_scratch(n, nb, ng if frozen_goals else 0, False)
    tomatch = np.zeros(ng, dtype=np.uint8)
    own = (seen3, ok, cq, visit, targets, picks, wscratch, wall, fscratch, frozen_cache, tomatch)
    scratch = work_arrays(n, nb)
    code: int = _fess_steps(
        board, learned, plan, store, table, cells, extra, counters, params, scratch, own
    )
    return code


@njit
def _fess_steps(board, learned, plan, store, table, cells, extra, counters, params, scratch, own):
    """The body of :func:`fess_loop`, its work arrays in ``scratch``
    (:func:`~sokoban.solve._best_first.work_arrays`) and ``own`` (seen3 int32[n], ok
    uint8[m] all 1, the carry's queue int32[3, 4n] and stamps int32[4n], the macro
    targets and picks, the packed-walls scratch and wall map, the frozen-goals scratch
    and cache, tomatch uint8[g]), fresh for each call: without numba's runtime, so that the many
    arrays it hands to the kernels it calls per child are not reference-counted."""
    nxt, weight, cellof = extra[LINK], extra[WEIGHT], extra[CELL]
    nbr, goal, dead, dist = board.nbr, board.goal, board.dead, board.dist
    zplayer = board.zplayer
    order, parent, before, psteps, sparent, feeds, sdist = plan
    nd_boxes, nd_player, nd_h = store.boxes, store.player, store.h
    nd_hash, nd_closed, nd_last = store.hash, store.closed, store.last
    nb = nd_boxes.shape[1]
    budget = params[P_BUDGET]
    corrals = params[P_CORRAL] != 0
    conn_cap = params[P_CONN]
    oop_cap = params[P_OOP]
    cap = nd_boxes.shape[0]
    keykind = params[P_KEY]
    tunnels = params[P_TUNNEL] != 0
    macros = params[P_MACRO] > 0
    carry_states = params[P_CARRY]
    packed_walls = params[P_WALLS]
    frozen_goals = params[P_FROZEN] != 0
    project = params[P_PROJECT] != 0

    (
        occ,
        seen,
        walk,
        fifo,
        seen2,
        walk2,
        fifo2,
        stack,
        child,
        work,
        parent_work,
        rows,
        comp,
        fence_mark,
        fence,
        chosen,
        allowed,
        order_k,
        cscratch,
    ) = scratch
    seen3, ok, cq, visit, targets, picks, wscratch, wall, fscratch, fcache, tomatch = own
    stamp = 0
    mark = 0
    mark2 = 0
    mark3 = 1
    steps = 0
    room = 4 * nb + 1 + targets.shape[0] * picks.shape[0]
    while True:
        if counters[QUEUED] == 0:
            return EXHAUSTED
        if steps >= budget:
            return BUDGET
        if counters[NODES] + room > cap:
            return FULL
        node = _pop(cells, nxt, counters)
        nd_closed[node] = 1
        steps += 1
        counters[EXPANDED] += 1
        pcell = cellof[node]
        pw = weight[node]
        ph = nd_h[node]
        parent_key = nd_hash[node] ^ zplayer[nd_player[node]]
        for k in range(nb):
            occ[nd_boxes[node, k]] = k
        mark += 1
        reach(nd_player[node], occ, nbr, seen, mark, fifo, walk)
        # The costly deadlock tests run here, on the node about to be expanded, not on
        # every child: most children are never expanded.
        last = nd_last[node]
        if (last >= 0 and matches(last, nd_player[node], occ, learned)) or corral_dead(
            nd_boxes[node], nd_player[node], last, occ, seen, mark, board, learned, cscratch
        ):
            for k in range(nb):
                occ[nd_boxes[node, k]] = -1
            continue
        if packed_walls == WALLS_PREFIX:
            short = goals_short(
                nd_boxes[node], nd_boxes[0], occ, nbr, order, before, wall, wscratch
            )
        elif packed_walls == WALLS_CHAIN:
            first3 = mark3
            short, mark3 = goals_short_chain(
                nd_boxes[node],
                nd_boxes[0],
                occ,
                nbr,
                order,
                parent,
                before,
                ok,
                wall,
                seen3,
                mark3,
                wscratch,
            )
            if mark3 != first3:
                # Deliberately one back: the first new child's regions count then takes
                # the last pull flood's cells as seen, so it counts only the regions
                # reaching outside that flood (fewer). Found by accident (a wrong mark
                # until session 7); counting every region lost XSokoban 15, 32, 33, 42,
                # 45 and 75 at 60 s side by side (benchmarks/solver.md, session 8).
                mark3 -= 1
        else:
            short = False
        if short:
            counters[SHORT] += 1
            for k in range(nb):
                occ[nd_boxes[node, k]] = -1
            continue
        # Boxes frozen on goals are walls for good: a proof (unlike the test above).
        stuck = False
        if frozen_goals:
            stuck = frozen_short(
                nd_boxes[node],
                occ,
                nbr,
                goal,
                dead,
                board.zbox,
                order,
                tomatch,
                wall,
                stack,
                fscratch,
                fcache,
            )
        if stuck:
            counters[FROZEN] += 1
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
        copy_into(rows, nd_boxes[node])
        matching(rows, dist, parent_work)
        # The box pushed last goes last: its children come first out of the LIFO buckets.
        j = 0
        for k in range(nb):
            if nd_boxes[node, k] != nd_last[node]:
                order_k[j] = k
                j += 1
        for k in range(nb):
            if nd_boxes[node, k] == nd_last[node]:
                order_k[j] = k
                j += 1
        for k in order_k:
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
                    # Tunnel macro (as in the best-first kernel): while player and box are
                    # both between walls across the push, the box goes on in one move.
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
                placed, mark2, mark3 = _place(
                    node,
                    k,
                    b,
                    t,
                    stand,
                    pushes,
                    pw,
                    pcell,
                    ph,
                    parent_key,
                    keykind,
                    project,
                    board,
                    learned,
                    plan,
                    store,
                    table,
                    cells,
                    extra,
                    counters,
                    occ,
                    rows,
                    parent_work,
                    work,
                    child,
                    stack,
                    seen2,
                    mark2,
                    fifo2,
                    walk2,
                    seen3,
                    mark3,
                    conn_cap,
                    oop_cap,
                    ok,
                )
                if placed == CHILD_SOLVED:
                    for i in range(nb):
                        occ[nd_boxes[node, i]] = -1
                    return SOLVED
                occ[t] = -1
                occ[b] = k
        if macros:
            # Packing advisor: carry a box to the goal the packing order wants next, in
            # one move (free, like every move that improves a feature).
            nt = ready_steps(occ, psteps, sparent, feeds, ok, targets)
            for ti in range(nt):
                i = targets[ti]
                dest = psteps[i]
                npick = _nearest_boxes(nd_boxes[node], goal, sdist[i], picks)
                for pi in range(npick):
                    k = picks[pi]
                    b = nd_boxes[node, k]
                    if _adjacent(nbr, b, dest):
                        continue  # a one-cell move is a plain push (the path relies on it)
                    reached, mark2 = pull_reaches(b, dest, occ, nbr, dead, seen2, mark2, fifo2)
                    if not reached:
                        continue
                    stamp += 1
                    pushes, stand, mark2 = carry(
                        b,
                        dest,
                        sdist[i],
                        occ,
                        nbr,
                        dead,
                        seen,
                        mark,
                        seen2,
                        mark2,
                        fifo2,
                        walk2,
                        cq,
                        visit,
                        stamp,
                        carry_states,
                    )
                    if pushes < 0:
                        continue
                    occ[b] = -1
                    occ[dest] = k
                    placed, mark2, mark3 = _place(
                        node,
                        k,
                        b,
                        dest,
                        stand,
                        pushes,
                        pw,
                        pcell,
                        ph,
                        parent_key,
                        keykind,
                        project,
                        board,
                        learned,
                        plan,
                        store,
                        table,
                        cells,
                        extra,
                        counters,
                        occ,
                        rows,
                        parent_work,
                        work,
                        child,
                        stack,
                        seen2,
                        mark2,
                        fifo2,
                        walk2,
                        seen3,
                        mark3,
                        conn_cap,
                        oop_cap,
                        ok,
                    )
                    if placed == CHILD_SOLVED:
                        for i2 in range(nb):
                            occ[nd_boxes[node, i2]] = -1
                        return SOLVED
                    occ[dest] = -1
                    occ[b] = k
                    if placed == CHILD_STORED:
                        break  # one carry per goal: the next box only if this one fails
        for k in range(nb):
            occ[nd_boxes[node, k]] = -1


@njit(internal=True)
def _place(
    node,
    k,
    b,
    t,
    stand,
    pushes,
    pw,
    pcell,
    ph,
    parent_key,
    keykind,
    project,
    board,
    learned,
    plan,
    store,
    table,
    cells,
    extra,
    counters,
    occ,
    rows,
    parent_work,
    work,
    child,
    stack,
    seen2,
    mark2,
    fifo2,
    walk2,
    seen3,
    mark3,
    conn_cap,
    oop_cap,
    ok,
):
    """The child of ``node`` whose box ``k`` went from ``b`` to ``t`` (``occ`` already
    moved), the player standing on ``stand``: pruned by the per-child deadlock tests
    (freeze, two-box table, learned patterns), else stored by :func:`_child`. Returns
    (:data:`CHILD_PRUNED`, :data:`CHILD_STORED` or :data:`CHILD_SOLVED`, the next free
    marks of ``seen2`` and ``seen3``)."""
    nbr, goal, dead = board.nbr, board.goal, board.dead
    if (
        frozen(t, occ, nbr, goal, dead, stack) == FROZEN_OFF_GOAL
        or pair_dead(t, stand, occ, board.live, board.pairs, board.starts, board.partners)
        or matches(t, stand, occ, learned)
    ):
        return CHILD_PRUNED, mark2, mark3
    mark2 += 1
    player = reach(stand, occ, nbr, seen2, mark2, fifo2, walk2)
    mark3 = _child(
        node,
        k,
        b,
        t,
        player,
        pushes,
        pw,
        pcell,
        ph,
        parent_key,
        keykind,
        project,
        board,
        plan,
        store,
        table,
        cells,
        extra,
        counters,
        occ,
        rows,
        parent_work,
        work,
        child,
        seen3,
        mark3,
        fifo2,
        conn_cap,
        oop_cap,
        ok,
    )
    if mark3 < 0:
        return CHILD_SOLVED, mark2, mark3
    return CHILD_STORED, mark2, mark3


@njit(internal=True)
def _child(
    node,
    k,
    b,
    t,
    player,
    pushes,
    pw,
    pcell,
    ph,
    parent_key,
    keykind,
    project,
    board,
    plan,
    store,
    table,
    cells,
    extra,
    counters,
    occ,
    rows,
    parent_work,
    work,
    child,
    seen3,
    mark3,
    queue,
    conn_cap,
    oop_cap,
    ok,
):
    """Store the child of ``node`` whose box ``k`` went from ``b`` to ``t`` in ``pushes``
    pushes (the boxes ``occ`` already moved, the player's canonical cell ``player``) and
    queue it in its feature cell; a position already stored takes the shorter path while
    it waits. Returns the next free mark of ``seen3``, or -1 when the child is solved (its
    node in ``counters[GOAL]``)."""
    nbr, dist, zbox, zplayer = board.nbr, board.dist, board.zbox, board.zplayer
    _, _, _, psteps, sparent, feeds, _ = plan
    nxt, weight, cellof = extra[LINK], extra[WEIGHT], extra[CELL]
    nd_g = store.g
    g = nd_g[node] + pushes
    moved(store.boxes[node], b, t, child)
    key = parent_key ^ zbox[b] ^ zbox[t] ^ zplayer[player]
    counters[GENERATED] += 1
    found = _table.find(table, key, child, player, store.hash, store.boxes, store.player)
    if found >= 0:
        if g < nd_g[found] and not store.closed[found]:
            nd_g[found] = g
            store.parent[found] = node
            store.last[found] = t
        return mark3
    rows[k] = t
    h = rematch(rows, k, dist, parent_work, work)
    rows[k] = b
    if h >= INF:
        return mark3
    cell, mark3 = feature_cell(
        occ, nbr, psteps, sparent, feeds, ok, seen3, mark3, queue, conn_cap, oop_cap
    )
    # A move that lowers the bound or improves a feature is free.
    w = pw
    if (h >= ph or keykind == KEY_FEATURES) and not _improves(cell, pcell, conn_cap, oop_cap):
        w += 1
    if project and _ranks_above(pcell, cell, conn_cap, oop_cap):
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
    table[-found - 1] = new
    if h == 0:
        counters[GOAL] = new
        return -1
    if keykind == KEY_BOUND:
        qkey = h
    elif keykind == KEY_WEIGHT or keykind == KEY_FEATURES:
        qkey = w
    else:
        qkey = h + 2 * w
    _push(cells, nxt, counters, cell, qkey, new)
    return mark3


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


class Fess:
    """The arrays of one feature-space search, run by :func:`sokoban.solve._driver.drive`.

    ``key``: :data:`KEY_BOUND` ...; ``tunnels``: tunnel macros (a search exhausted with
    them proves nothing); ``macros``: packing macros, the boxes tried per goal (0: none);
    ``targets``: the goals tried per expansion; ``carry_states``: the states a carry may
    take before it gives up; ``pairs``: the two-box deadlock table, or
    whether to build one; ``learned``: the corral memo and deadlock patterns
    (:mod:`sokoban.solve._corral_deadlock`; searches of one level share them), none by
    default; ``packed_walls``: the heuristic test of :mod:`sokoban.solve._packed_walls`,
    a key of :data:`PACKED_WALLS`; ``frozen_goals``: run its sound variant
    (:func:`~sokoban.solve._packed_walls.frozen_short`) on every level: it saves
    expansions on small ones (Microban 153 by the weight key: 68,611 -> 64,510) and,
    with its floods kept per frozen set, solves XSokoban 16 and 20 at 60 s by ``fast``
    (benchmarks/solver.md, session 14)."""

    def __init__(
        self,
        board: Board,
        *,
        plan: PackingOrder | None = None,
        corrals: bool = True,
        key: int = KEY_BOUND,
        tunnels: bool = True,
        macros: int = MACRO_BOXES,
        targets: int = MACRO_TARGETS,
        carry_states: int = MAX_STATES,
        pairs: bool | tuple[np.ndarray, ...] = True,
        learned: Learned | None = None,
        packed_walls: str = "off",
        frozen_goals: bool = True,
        project: bool = False,
        capacity: int = 1 << 12,
    ) -> None:
        self.board = board
        self.plan = plan if plan is not None else packing_order(board)
        nb = board.nboxes
        if isinstance(pairs, bool):
            pairs = pair_table(board) if pairs else no_table()
        self.kernel_board = SearchBoard(*board.kernel_board(), *pairs)
        #: The corral memo and the deadlock patterns learned (shareable between searches).
        self.learned = learned if learned is not None else no_learned()
        plan = self.plan
        # The lone box's push distances to each step's cell: a goal's row of board.dist,
        # a parking cell's computed here.
        parks = plan.feeds >= 0
        sdist = np.empty((len(plan.steps), board.n), dtype=np.int32)
        sdist[~parks] = board.dist[np.searchsorted(board.goals, plan.steps[~parks])]
        if parks.any():
            sdist[parks] = push_distances(board.nbr, plan.steps[parks], board.sides)
        mode = PACKED_WALLS[packed_walls]
        if mode == WALLS_CHAIN:
            before = self.plan.precedes()
        else:
            before = must_precede(board.nbr, self.plan.order, board.boxes.astype(np.int32))
        self.kernel_plan = (
            plan.order,
            plan.parent,
            before,
            plan.steps,
            plan.step_parent,
            plan.feeds,
            sdist,
        )
        self.store = new_store(capacity, nb)
        self.table = np.full(2 * capacity, -1, dtype=np.int32)
        self.extra = np.full((3, capacity), -1, dtype=np.int32)
        ncells = (len(plan.steps) + 1) * CONNECTIVITY_CAP * OUT_OF_PLAN_CAP
        buckets = min(board.hmax + 1, MAX_BUCKETS)
        self.cells = Cells(
            np.full((ncells, buckets), -1, dtype=np.int32),
            np.zeros(ncells, dtype=np.int64),
            np.zeros(ncells, dtype=np.int32),
        )
        self.counters = np.zeros(10, dtype=np.int64)
        # The packed-walls test caches a floor map per goal and packed prefix.
        if mode == WALLS_PREFIX and (nb + 1) * nb * board.n > PACKED_WALLS_BYTES:
            mode = WALLS_OFF
        self.params = np.array(
            [0, int(corrals), CONNECTIVITY_CAP, OUT_OF_PLAN_CAP, buckets, key]
            + [int(tunnels), int(macros), targets, carry_states, mode, int(frozen_goals)]
            + [int(project)],
            dtype=np.int64,
        )
        #: The frozen-goals test's floods per frozen set, kept from call to call.
        self.frozen_cache = new_frozen_cache(
            board.n if frozen_goals else 1, len(board.goals) if frozen_goals else 0
        )
        self._put_root()
        #: The most bytes the arrays took over every run so far.
        self.peak = self.nbytes

    def _put_root(self) -> None:
        board = self.board
        boxes = board.boxes.copy()
        n = board.n
        occ = np.full(n, -1, np.int32)
        occ[boxes] = np.arange(len(boxes), dtype=np.int32)
        scratch = np.zeros(n, np.int32)
        player = int(
            reach(board.player, occ, board.nbr, scratch, 1, scratch.copy(), scratch.copy())
        )
        zbox, zplayer = self.kernel_board.zbox, self.kernel_board.zplayer
        key = np.uint64(zplayer[player])
        for b in boxes:
            key ^= zbox[b]
        h = int(matching(boxes, board.dist, np.zeros((6, len(boxes) + 1), np.int64)))
        #: The start position's lower bound (:data:`INF` or more: a bipartite deadlock).
        self.root_bound = h
        store = self.store
        store.last[0] = -1
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
        plan = self.plan
        ok = np.ones(len(plan.steps), np.uint8)
        cell, _ = feature_cell(
            occ,
            board.nbr,
            plan.steps,
            plan.step_parent,
            plan.feeds,
            ok,
            np.zeros(n, np.int32),
            1,
            np.empty(n, np.int32),
            CONNECTIVITY_CAP,
            OUT_OF_PLAN_CAP,
        )
        self.extra[WEIGHT, 0] = 0
        self.extra[CELL, 0] = cell
        first = h if self.params[P_KEY] in (KEY_BOUND, KEY_MIXED) else 0
        _push(self.cells, self.extra[LINK], self.counters, cell, first, 0)

    @property
    def nbytes(self) -> int:
        arrays = [*self.store, self.table, self.extra, *self.cells, *self.kernel_board]
        arrays += [*self.learned, *self.frozen_cache]
        return sum(a.nbytes for a in arrays)

    @property
    def expanded(self) -> int:
        return int(self.counters[EXPANDED])

    @property
    def exhausted(self) -> bool:
        return bool(self.counters[QUEUED] == 0)

    def step(self, budget: int) -> int:
        self.params[P_BUDGET] = budget
        code: int = fess_loop(
            self.kernel_board,
            self.learned,
            self.kernel_plan,
            self.store,
            self.table,
            self.cells,
            self.extra,
            self.counters,
            self.params,
            self.frozen_cache,
        )
        return code

    def grow(self, code: int, memory: int) -> bool:
        """Double the node store, table and links; False when that would pass ``memory``."""
        extra = sum(a.nbytes for a in self.store) + 2 * self.table.nbytes + self.extra.nbytes
        if self.nbytes + extra > memory:
            return False
        self.store = self.store.doubled()
        self.extra = np.concatenate([self.extra, np.full_like(self.extra, -1)], axis=1)
        self.table = np.empty(2 * self.table.shape[0], dtype=np.int32)
        _table.rebuild(self.table, self.store.hash, int(self.counters[NODES]))
        return True

    def run(self, limits: Limits, progress: ProgressCallback | None = None) -> _driver.Run:
        """Search on from where the last run stopped, within ``limits``."""
        run = _driver.drive(self, limits, progress)
        self.peak = max(self.peak, run.peak_bytes)
        return run

    @property
    def cost(self) -> int:
        return int(self.store.g[int(self.counters[GOAL])])

    def path(self) -> list[tuple[np.ndarray, int]]:
        """The states from the start to the solved node."""
        return self.store.path(int(self.counters[GOAL]))


@dataclasses.dataclass
class Interleaved:
    """What :func:`interleave` found: how it ended, the search that ended it, and the
    statistics summed over the searches."""

    run: _driver.Run
    last: Fess
    searches: list[Fess]
    expanded: int
    generated: int

    def stats(self, run: _driver.Run) -> SearchStats:
        return SearchStats(
            self.expanded,
            self.generated,
            sum(int(e.counters[NODES]) for e in self.searches),
            sum(e.peak for e in self.searches),
            run.seconds,
        )

    def solution(self) -> Solution:
        return expand(self.last.board, self.last.path())

    def solved_message(self, optimal: bool) -> str:
        return f"solved in {self.last.cost} pushes"


def interleave(
    engines: list[Fess], limits: Limits, progress: ProgressCallback | None = None
) -> Interleaved:
    """Run several searches of one level by turns (slices of wall time that grow from a
    tenth of a second), each in an equal share of the memory limit, until one solves the
    level or proves it unsolvable, or the limits (shared: total time, total expansions)
    are spent. The searches differ in their keys and solve different levels; turns cost
    little, as each search keeps its arrays between turns. (Turns of a fixed number of
    expansions instead, which would make a run the same on a busy machine as on a quiet
    one, lost XSokoban 35 and 45 at 60 s: the keys' expansions differ in cost.)"""
    start = time.perf_counter()
    share = limits.memory_bytes // max(1, len(engines))
    live = list(engines)
    slice_seconds = 0.1
    last: tuple[_driver.Run, Fess] | None = None
    limit = ""
    expanded = {id(e): 0 for e in engines}
    generated = dict(expanded)

    def report(seen: Progress) -> None:
        if progress is not None:
            progress(seen._replace(seconds=time.perf_counter() - start))

    while live:
        for engine in list(live):
            elapsed = time.perf_counter() - start
            turn = slice_seconds
            if limits.time is not None:
                if elapsed >= limits.time:
                    limit = "time"
                    break
                turn = min(turn, limits.time - elapsed)
            nodes = None
            if limits.nodes is not None:
                left = limits.nodes - sum(expanded.values())
                if left <= 0:
                    limit = "nodes"
                    break
                nodes = engine.expanded + left
            # The limits as given (their stop flag too), this turn's time, nodes and memory.
            turn_limits = dataclasses.replace(limits, time=turn, nodes=nodes, memory=share)
            run = engine.run(turn_limits, report)
            expanded[id(engine)] = engine.expanded
            generated[id(engine)] = int(engine.counters[GENERATED])
            last = (run, engine)
            if run.code in (SOLVED, EXHAUSTED) and not run.limit:
                limit = ""
                live = []
                break
            if run.limit == "stop":
                limit = "stop"
                break
            if run.limit == "memory":
                live.remove(engine)
                limit = "memory"
        else:
            slice_seconds = min(2.0, slice_seconds * 1.5)
            continue
        break
    if last is None:  # the limits were spent before the first turn (a stage of fast)
        last = (_driver.Run(BUDGET, limit or "time", 0.0, 0), engines[0])
    run, engine = last
    seconds = time.perf_counter() - start
    total = _driver.Run(run.code if not limit else BUDGET, limit, seconds, 0)
    return Interleaved(total, engine, engines, sum(expanded.values()), sum(generated.values()))


#: The heuristic test of :mod:`sokoban.solve._packed_walls` (``fess`` and ``fast``).
PACKED_WALLS_OPTION = Option(
    "packed_walls",
    str,
    "chain",
    "prune positions where, the packed goals standing as walls, some empty goal can get no "
    "box of its own (a heuristic: running out of positions then proves nothing): off, "
    "prefix (the order's filled prefix as walls) or chain (the goals packed by its chains)",
    choices=tuple(PACKED_WALLS),
)

#: The keys within a feature cell, by name.
FESS_KEYS = {
    "bound": KEY_BOUND,
    "weight": KEY_WEIGHT,
    "mixed": KEY_MIXED,
    "features": KEY_FEATURES,
}


@register(
    "fess",
    "feature-space search along a packing order: fast, not optimal",
    options=(
        Option(
            "key",
            str,
            "weight,mixed",
            "how a cell orders its positions; several keys run by turns",
            choices=tuple(FESS_KEYS),
            multiple=True,
        ),
        Option("corrals", bool, True, "PI-corral pruning"),
        Option("tunnels", bool, True, "tunnel macros (a box goes through in one move)"),
        Option("macros", bool, True, "packing macros (a box carried to the next goal in one move)"),
        Option(
            "project",
            bool,
            False,
            "a child that gets no further than its parent waits in the parent's feature cell "
            "(FESS's projection into the best ancestor's cell)",
        ),
        Option(
            "parking",
            bool,
            True,
            "park the boxes the packing order cannot bring back to a start, as steps of the plan",
        ),
        PACKED_WALLS_OPTION,
        *FESS_DEADLOCK_OPTIONS,
    ),
)
def fess(
    level: Level, limits: Limits, progress: ProgressCallback | None, **options: Any
) -> SolveResult:
    """Feature-space search: takes turns among cells of (goals packed in the packing
    order, regions, boxes out of plan). Option ``key``: how a cell orders its positions,
    a name of :data:`FESS_KEYS` or several joined by commas, run by turns."""
    board = Board(level)
    plan = packing_order(board, parking=options["parking"])
    keys = [FESS_KEYS[name] for name in options["key"].split(",")]
    two_box = pair_table(board) if options["pairs"] else no_table()
    # One memo and one set of patterns for every search of the level: a proof holds for all.
    learned = (
        new_learned(board.n, learn=options["learn"], neighbours=options["neighbours"])
        if options["corral_deadlocks"]
        else no_learned()
    )

    def run(limits: Limits, tunnels: bool, packed_walls: str) -> SolveResult:
        engines = [
            Fess(
                board,
                plan=plan,
                corrals=options["corrals"],
                key=k,
                tunnels=tunnels,
                macros=MACRO_BOXES if options["macros"] else 0,
                pairs=two_box,
                learned=learned,
                packed_walls=packed_walls,
                frozen_goals=options["frozen_goals"],
                project=options["project"],
            )
            for k in keys
        ]
        found = interleave(engines, limits, progress)
        root = engines[0].root_bound
        return _driver.result(found, found.run, "fess", False, root if root < INF else None)

    result = run(limits, options["tunnels"], options["packed_walls"])
    if result.status is not Status.UNSOLVABLE or not (
        options["tunnels"] or options["packed_walls"] != "off"
    ):
        return result
    # Tunnel macros and the packed-walls test may cut off every solution: running out of
    # positions with them proves nothing, so search again without them in the limits left.
    spent = result.stats
    left = Limits(
        None if limits.time is None else max(0.0, limits.time - spent.seconds),
        None if limits.nodes is None else max(0, limits.nodes - spent.expanded),
        limits.memory,
    )
    again = run(left, False, "off")
    return dataclasses.replace(again, stats=spent + again.stats)
