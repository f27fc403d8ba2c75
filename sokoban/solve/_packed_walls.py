"""A heuristic deadlock test for the feature-space search: the packed goals as walls.

The goals packed so far (the longest prefix of the packing order whose goals all hold
boxes, :mod:`sokoban.solve._packing`) are meant to stay packed: treat their boxes as
walls. For each empty goal, the goals that must be filled before it
(:func:`must_precede`) are walls too. Every other box must still reach an empty goal of
its own that way, each box alone on the board (any player side free of walls counts, so
the test is generous). When no such assignment exists, some goal can only be filled by a
box the search already spent elsewhere: a goal reachable from one side only, by the one
box that starts there, is lost when the search packs that box into another goal early,
and the search then drowns below the last goal.

The cells each goal is reachable from depend only on which goals are packed, so they
are computed once per prefix (or, in the chain mode, per set of packed goals) and kept;
a test is then a bipartite matching.

Not a proof: a packed box may in truth have to leave its goal. A search that prunes with
it proves nothing by running out of positions (:mod:`sokoban.solve._fess` searches again
without it then). Its sound variant, :func:`frozen_short`, takes as walls only the boxes
frozen on goals, which never move again.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sokoban._jit import njit
from sokoban.solve._board import label_sides
from sokoban.solve._deadlock import FROZEN_OFF_GOAL, FROZEN_ON_GOALS, frozen
from sokoban.solve._packing import packed_count

#: The packed-walls test: off, the order's filled prefix as walls (:func:`goals_short`),
#: or the goals packed by its chains (:func:`goals_short_chain`).
WALLS_OFF, WALLS_PREFIX, WALLS_CHAIN = 0, 1, 2
PACKED_WALLS = {"off": WALLS_OFF, "prefix": WALLS_PREFIX, "chain": WALLS_CHAIN}


@njit(allocates=True)
def must_precede(nbr, order, starts):
    """uint8[g, g]: 1 at [i, j] when goal ``order[j]`` must be filled before goal
    ``order[i]``: with boxes on goal i and on the goals the plan fills before j, no box
    starting on a cell of ``starts`` (int32[k], every box's start cell) can be pushed
    onto goal j: a goal reached only across another goal must be filled first.
    The goals the plan fills before j count as walls (the other goals as floor) so that
    open goal rooms, where the plan's order is one of many, give no pairs.
    ``nbr``: int32[n, 4]; ``order``: int32[g], the goals in fill order."""
    n = nbr.shape[0]
    ng = order.shape[0]
    start = np.zeros(n, dtype=np.uint8)
    for s in starts:
        start[s] = 1
    wall = np.zeros(n, dtype=np.uint8)
    seen = np.zeros(n, dtype=np.int32)
    queue = np.empty(n, dtype=np.int32)
    before = np.zeros((ng, ng), dtype=np.uint8)
    mark = 0
    for j in range(ng):
        if j > 0:
            wall[order[j - 1]] = 1
        for i in range(j + 1, ng):
            wall[order[i]] = 1
            mark += 1
            if not _pull_flood(order[j], nbr, wall, start, seen, mark, queue):
                before[i, j] = 1
            wall[order[i]] = 0
    # Pairs found under different walls can contradict each other where the plan's order
    # is arbitrary (a goal room packed so full that nothing could be pulled out): a goal
    # that no start box reaches with all its pairs' goals filled keeps none of them.
    for i in range(ng):
        wall[:] = 0
        for j in range(ng):
            if before[i, j]:
                wall[order[j]] = 1
        mark += 1
        if not _pull_flood(order[i], nbr, wall, start, seen, mark, queue):
            before[i, :] = 0
    return before


@njit(internal=True)
def _pull_flood(goal, nbr, wall, start, seen, mark, queue):
    """Mark ``seen[c] = mark`` on the cells a lone box can be pushed onto ``goal`` from,
    the cells with ``wall`` set standing as walls (a pull search back from the goal);
    stop and return True at the first cell with ``start`` set (``start`` empty: never).
    ``nbr``: int32[n, 4]; ``wall``, ``start``: uint8[n]; ``seen``: int or uint8[n];
    ``queue``: int32[n]."""
    stops = start.shape[0] > 0
    if stops and start[goal]:
        return True
    seen[goal] = mark
    queue[0] = goal
    head, tail = 0, 1
    while head < tail:
        x = queue[head]
        head += 1
        for d in range(4):
            y = nbr[x, d]  # the box came from y, the player behind it on p
            if y < 0 or wall[y] or seen[y] == mark:
                continue
            p = nbr[y, d]
            if p < 0 or wall[p]:
                continue
            if stops and start[y]:
                return True
            seen[y] = mark
            queue[tail] = y
            tail += 1
    return False


def new_scratch(n: int, nboxes: int, ngoals: int, cached: bool = True) -> tuple[np.ndarray, ...]:
    """Scratch of :func:`goals_short`: per filled prefix of the order and goal, the cells a
    lone box reaches the goal from uint8[g + 1, g, n] (filled on first use, as marked in
    uint8[g + 1]: 1, or 2 where the plan contradicts itself; one cell only unless
    ``cached``, for :func:`goals_short_chain`), the box-to-goal table uint8[nboxes, g],
    the matching's arrays int32[5, max(nboxes, g)] and a flood queue int32[n]."""
    size = max(nboxes, ngoals, 1)
    cells = (ngoals + 1, max(ngoals, 1), n) if cached else (1, 1, 1)
    return (
        np.zeros(cells, dtype=np.uint8),
        np.zeros(ngoals + 1, dtype=np.uint8),
        np.zeros((max(nboxes, 1), max(ngoals, 1)), dtype=np.uint8),
        np.zeros((5, size), dtype=np.int32),
        np.empty(n, dtype=np.int32),
    )


@njit(internal=True)
def goals_short(boxes, starts, occ, nbr, order, before, wall, scratch):
    """Whether the boxes off the packed goals cannot each reach a different empty goal
    (see the module docstring).

    ``boxes``: int16[nb] cells; ``starts``: int16[nb], the boxes' start cells;
    ``occ``: int32[n], >= 0 on a box; ``nbr``: int32[n, 4];
    ``order``: int32[g], the goals in fill order (the packed goals: the longest prefix
    of it that holds boxes); ``before``: uint8[g, g], 1 where goal ``order[j]`` must be
    filled before goal ``order[i]`` (:func:`must_precede`); ``wall``: uint8[n] scratch
    (left zero); ``scratch``: from :func:`new_scratch`.

    Where the plan contradicts itself (with its packed prefix as walls some empty goal
    is out of reach of every start cell, as in open goal rooms whose order the retrograde
    analysis had to pick arbitrarily), the test says nothing at that prefix.
    """
    cache, done, reach, match, queue = scratch
    nb = boxes.shape[0]
    ng = order.shape[0]
    packed = 0
    while packed < ng and occ[order[packed]] >= 0:
        packed += 1
    if not done[packed]:
        # The cells a lone box can be pushed to each empty goal from, pulling it
        # backwards: the packed goals and the goals that must be filled before it stand
        # as walls.
        for j in range(packed):
            wall[order[j]] = 1
        for i in range(packed, ng):
            for j in range(packed, ng):
                wall[order[j]] = before[i, j]
            _pull_flood(order[i], nbr, wall, wall[:0], cache[packed, i], 1, queue)
        for j in range(ng):
            wall[order[j]] = 0
        done[packed] = 1
        for i in range(packed, ng):
            reached = False
            for k in range(nb):
                if cache[packed, i, starts[k]]:
                    reached = True
                    break
            if not reached:
                done[packed] = 2  # the plan cannot be followed from here
                break
    if done[packed] == 2:
        return False
    reach[:, :] = 0
    for k in range(nb):
        b = boxes[k]
        for i in range(packed, ng):
            reach[k, i] = cache[packed, i, b]
    return _short(reach, packed, nb, ng, match, wall[:0])


#: Sets of chain-packed goals whose floods :func:`goals_short_chain` keeps (a
#: direct-mapped cache by the set's Zobrist key; a power of two), and the bytes the cache
#: may take: fewer sets on big boards, as for :data:`FROZEN_SETS`.
CHAIN_SETS = 256
CHAIN_CACHE_BYTES = 16 << 20


def new_chain_cache(n: int, ngoals: int) -> tuple[np.ndarray, ...]:
    """The cache of :func:`goals_short_chain` for ``n`` floor cells and ``ngoals`` goals:
    per slot the Zobrist key of a set of packed goals (0: empty) int64[s], per slot and
    goal the cells a lone box reaches that goal from with that set as walls uint8[s, g, n],
    and per slot the goals flooded and whether every flooded goal was reached from some
    start cell int32[s, 2]; s is :data:`CHAIN_SETS`, or the largest power of two below it
    that fits :data:`CHAIN_CACHE_BYTES`. Then the scratch of :func:`goal_floods`
    (:func:`new_goal_floods_scratch`)."""
    row = max(ngoals, 1) * max(n, 1)
    sets = CHAIN_SETS
    while sets > 1 and sets * row > CHAIN_CACHE_BYTES:
        sets //= 2
    return (
        np.zeros(sets, dtype=np.int64),
        np.zeros((sets, max(ngoals, 1), max(n, 1)), dtype=np.uint8),
        np.zeros((sets, 2), dtype=np.int32),
        *new_goal_floods_scratch(n, ngoals),
    )


def new_goal_floods_scratch(n: int, ngoals: int) -> tuple[np.ndarray, np.ndarray]:
    """The scratch of :func:`goal_floods` for ``n`` floor cells and ``ngoals`` goals:
    int32[9, n + 1] (its last row left to the caller, for ``want``) and the goal bits of
    each component uint64[n, (ngoals + 63) // 64]."""
    words = (max(ngoals, 1) + 63) // 64
    return np.zeros((9, max(n, 1) + 1), dtype=np.int32), np.zeros((max(n, 1), words), np.uint64)


@njit(internal=True)
def _pull_components(nbr, wall, ints):
    """The strongly connected components of the pull graph (an edge from x to y when a
    lone box on y can be pushed onto x: the player's cell behind y free), the cells with
    ``wall`` set left out, by Tarjan's algorithm without recursion. Returns their count
    k; leaves in ``ints`` (int32[9, n + 1], :func:`new_goal_floods_scratch`) each cell's
    component (row 0, -1 on a wall), the cells grouped by component (row 4) and where
    each component's cells start there (row 5, k + 1 entries). Components are numbered as
    they complete: every edge between two of them goes to a lower number."""
    n = nbr.shape[0]
    comp, disc, low, stack = ints[0], ints[1], ints[2], ints[3]
    members, start, calls, steps = ints[4], ints[5], ints[6], ints[7]
    for c in range(n):
        comp[c] = -1
        disc[c] = -1
    t = 0
    sp = 0
    placed = 0
    k = 0
    start[0] = 0
    for root in range(n):
        if wall[root] or disc[root] >= 0:
            continue
        disc[root] = t
        low[root] = t
        t += 1
        stack[sp] = root
        sp += 1
        calls[0] = root
        steps[0] = 0
        depth = 1
        while depth > 0:
            x = calls[depth - 1]
            d = steps[depth - 1]
            if d < 4:
                steps[depth - 1] = d + 1
                y = nbr[x, d]  # the box came from y, the player behind it on p
                if y < 0 or wall[y]:
                    continue
                p = nbr[y, d]
                if p < 0 or wall[p]:
                    continue
                if disc[y] < 0:
                    disc[y] = t
                    low[y] = t
                    t += 1
                    stack[sp] = y
                    sp += 1
                    calls[depth] = y
                    steps[depth] = 0
                    depth += 1
                elif comp[y] < 0 and disc[y] < low[x]:  # y is on the stack
                    low[x] = disc[y]
                continue
            depth -= 1
            if low[x] == disc[x]:
                while True:
                    sp -= 1
                    y = stack[sp]
                    comp[y] = k
                    members[placed] = y
                    placed += 1
                    if y == x:
                        break
                k += 1
                start[k] = placed
            if depth > 0:
                px = calls[depth - 1]
                if low[x] < low[px]:
                    low[px] = low[x]
    return k


@njit(internal=True)
def goal_floods(nbr, wall, order, want, floods, ints, bits):
    """For every goal ``order[i]`` with ``want[i]`` set, ``floods[i, c] = 1`` on the cells
    ``c`` a lone box can be pushed onto that goal from, else 0, the cells with ``wall``
    set standing as walls: what :func:`_pull_flood` marks, for all those goals at once.
    The pull graph's components are found once and each goal's bit is passed along
    their edges, so the work is one pass over the board plus a word of bits per 64
    goals, not a flood per goal.
    ``nbr``: int32[n, 4]; ``wall``: uint8[n]; ``order``: int32[g]; ``want``: int32[g],
    nonzero where wanted; ``floods``: uint8[g, n]; ``ints``, ``bits``: from
    :func:`new_goal_floods_scratch`."""
    n = nbr.shape[0]
    ng = order.shape[0]
    k = _pull_components(nbr, wall, ints)
    comp, members, start = ints[0], ints[4], ints[5]
    words = bits.shape[1]
    for a in range(k):
        for w in range(words):
            bits[a, w] = 0
    for i in range(ng):
        if want[i] and not wall[order[i]]:
            bits[comp[order[i]], i >> 6] |= np.uint64(1) << np.uint64(i & 63)
    # Edges go from higher to lower numbers: a component's bits are complete before it
    # passes them on.
    for a in range(k - 1, -1, -1):
        for m in range(start[a], start[a + 1]):
            x = members[m]
            for d in range(4):
                y = nbr[x, d]
                if y < 0 or wall[y]:
                    continue
                p = nbr[y, d]
                if p < 0 or wall[p]:
                    continue
                b = comp[y]
                if b != a:
                    for w in range(words):
                        bits[b, w] |= bits[a, w]
    for i in range(ng):
        if not want[i]:
            continue
        w = i >> 6
        bit = np.uint64(1) << np.uint64(i & 63)
        for c in range(n):
            a = comp[c]
            floods[i, c] = 1 if a >= 0 and (bits[a, w] & bit) != 0 else 0


@njit(internal=True)
def goals_short_chain(
    boxes, starts, occ, nbr, order, parent, before, ok, wall, seen, mark, scratch, zbox, cache
):
    """:func:`goals_short` with the goals packed by the order's chains
    (:func:`sokoban.solve._packing.packed_count`: a goal holding a box whose goals that
    must come first are all packed) as walls, not only its filled prefix: more walls, so
    more positions are short; returns (short, next free mark of ``seen``). ``parent``: the
    order's parents (:class:`sokoban.solve._packing.PackingOrder`); ``ok``: uint8[g]
    scratch; ``seen``: int32[n] flood marks; ``zbox``: int64[n], Zobrist keys; the rest as
    for :func:`goals_short`.

    The floods depend only on the set of packed goals: ``cache``
    (:func:`new_chain_cache`) keeps them per set, so a test whose set was seen before is
    a bipartite matching only. Either way the last flood's cells end up marked in
    ``seen``, as the floods leave them (see the caller's regions count)."""
    _, _, reach, match, queue = scratch
    keys, floods, meta, ints, bits = cache
    packed, _ = packed_count(occ, order, parent, ok)
    if packed == 0:
        return False, mark
    nb = boxes.shape[0]
    ng = order.shape[0]
    key = 0
    for j in range(ng):
        if ok[j]:
            key ^= zbox[order[j]]
    slot = key & (keys.shape[0] - 1)
    if key == 0:
        key = 1  # 0 marks an empty slot
    if keys[slot] != key:
        keys[slot] = key
        # Most goals have no goal that must come before them left unpacked: their walls
        # are the packed goals alone, and one pass floods them all (:func:`goal_floods`).
        shared = ints[8, :ng]  # goal_floods leaves this row to its caller
        any_shared = False
        for i in range(ng):
            shared[i] = 0
            if ok[i]:
                continue
            shared[i] = 1
            for j in range(ng):
                if before[i, j] and not ok[j]:
                    shared[i] = 0
                    break
            any_shared |= shared[i] == 1
        if any_shared:
            for j in range(ng):
                wall[order[j]] = ok[j]
            goal_floods(nbr, wall, order, shared, floods[slot], ints, bits)
        done = 0
        reached = True
        for i in range(ng):
            if ok[i]:
                continue  # packed
            if not shared[i]:
                for j in range(ng):
                    wall[order[j]] = ok[j] | before[i, j]
                floods[slot, i, :] = 0
                _pull_flood(order[i], nbr, wall, wall[:0], floods[slot, i], 1, queue)
            done += 1
            reached = False
            for k in range(nb):
                if floods[slot, i, starts[k]]:
                    reached = True
                    break
            if not reached:
                break
        for j in range(ng):
            wall[order[j]] = 0
        meta[slot, 0] = done
        meta[slot, 1] = 1 if reached else 0
    done = meta[slot, 0]
    reach[:, :] = 0
    flooded = 0
    last = -1
    for i in range(ng):
        if flooded == done:
            break
        if ok[i]:
            continue
        flooded += 1
        last = i
        for k in range(nb):
            if floods[slot, i, boxes[k]]:
                reach[k, i] = 1
    # The floods take marks mark + 1 .. mark + done; the last one's cells keep theirs.
    mark += done
    if last >= 0:
        for c in range(seen.shape[0]):
            if floods[slot, last, c]:
                seen[c] = mark
    # Marks up to ``mark`` are used: the next free one is ``mark + 1`` (a caller that
    # floods from there, as :func:`sokoban.solve._fess.regions` does, counts every
    # cell marked at or above its first mark as seen).
    if not meta[slot, 1]:
        return False, mark + 1  # the plan cannot be followed from here
    for i in range(ng):
        ok[i] = 1 - ok[i]  # the goals to match
    return _short(reach, -1, nb, ng, match, ok), mark + 1


@njit(internal=True)
def _short(reach, packed, nb, ng, match, empty):
    """Whether some goal (positions ``packed``.. of the order, or those with ``empty``
    set, uint8[g]; of size 0 for all) gets no box of its own by ``reach``
    (uint8[nb, g]). The same types from every caller: one compilation."""
    # Kuhn's augmenting paths, breadth first: rows of ``match``: the goal of each box, the
    # box of each goal, the goal a box was reached from, the goals' queue, the boxes seen.
    goal_of, box_of, via, tq, vis = match[0], match[1], match[2], match[3], match[4]
    goal_of[:nb] = -1
    box_of[:ng] = -1
    vis[:nb] = -1
    for t in range(max(packed, 0), ng):
        if empty.shape[0] > 0 and not empty[t]:
            continue
        tq[0] = t
        head, tail = 0, 1
        found = -1
        while head < tail and found < 0:
            u = tq[head]
            head += 1
            for j in range(nb):
                if reach[j, u] == 0 or vis[j] == t:
                    continue
                vis[j] = t
                via[j] = u
                if goal_of[j] < 0:
                    found = j
                    break
                tq[tail] = goal_of[j]
                tail += 1
        if found < 0:
            return True
        j = found
        while True:
            u = via[j]
            previous = box_of[u]
            goal_of[j] = u
            box_of[u] = j
            if u == t:
                break
            j = previous
    return False


#: Frozen sets whose goals' floods :func:`frozen_short` keeps (a direct-mapped cache by
#: the set's Zobrist key; a power of two), and the bytes the cache may take: fewer sets
#: on big boards (30 goals on about 300 cells: 256 sets in 2.3 MiB).
FROZEN_SETS = 256
FROZEN_CACHE_BYTES = 16 << 20


def new_frozen_cache(n: int, ngoals: int) -> tuple[np.ndarray, ...]:
    """The cache of :func:`frozen_short` for ``n`` floor cells and ``ngoals`` goals: per
    slot the Zobrist key of a frozen set (0: empty) int64[s], and per slot and goal the
    cells a lone box reaches that goal from with that set as walls, uint8[s, g, n]; s is
    :data:`FROZEN_SETS`, or the largest power of two below it that fits
    :data:`FROZEN_CACHE_BYTES`. Then the scratch of its floods: the player's regions
    around a lone box int8[n, 4] and the discovery times, low points and subtree ends of
    the search that labels them int32[3, n]
    (:func:`~sokoban.solve._board.label_sides`), the states seen uint8[n, 4] and their
    queue int32[4n] (:func:`_player_pulls`, and the labelling's scratch)."""
    row = max(ngoals, 1) * max(n, 1)
    sets = FROZEN_SETS
    while sets > 1 and sets * row > FROZEN_CACHE_BYTES:
        sets //= 2
    return (
        np.zeros(sets, dtype=np.int64),
        np.zeros((sets, max(ngoals, 1), n), dtype=np.uint8),
        np.zeros((max(n, 1), 4), dtype=np.int8),
        np.zeros((3, max(n, 1)), dtype=np.int32),
        np.zeros((max(n, 1), 4), dtype=np.uint8),
        np.empty(4 * max(n, 1), dtype=np.int32),
    )


@njit(internal=True)
def _player_pulls(goal, nbr, wall, side, visit, states, reached):
    """Set ``reached[c] = 1`` on the cells a lone box can be pushed onto ``goal`` from,
    the player walking around it (a pull search over box cell and player region, the
    cells with ``wall`` set standing as walls): tighter than :func:`_pull_flood`, which
    lets the player stand behind the box wherever that cell is free. ``side``: from
    :func:`~sokoban.solve._board.label_sides` for these walls; ``visit``: uint8[n, 4]
    scratch; ``states``: int32[4n] scratch; ``reached``: uint8[n]."""
    visit[:, :] = 0
    tail = 0
    for d in range(4):
        r = side[goal, d]
        if r >= 0 and not visit[goal, r]:
            visit[goal, r] = 1
            states[tail] = goal * 4 + r
            tail += 1
    head = 0
    while head < tail:
        x = states[head] // 4
        r = states[head] % 4
        head += 1
        reached[x] = 1
        for d in range(4):
            if side[x, d] != r:
                continue
            # The player on p pulls the box from x onto p, stepping back onto q.
            p = nbr[x, d]
            q = nbr[p, d]
            if q < 0 or wall[q]:
                continue
            r2 = side[p, d]
            if not visit[p, r2]:
                visit[p, r2] = 1
                states[tail] = p * 4 + r2
                tail += 1


class FrozenTest(NamedTuple):
    """The arrays of the frozen-on-goals test (:func:`frozen_short`) in a search: every
    goal int32[g] (the order the cache keeps them in), tomatch uint8[g] scratch, a wall
    map uint8[n] (left zero), the matching's scratch (:func:`new_scratch` without the
    cache) and the floods per frozen set (:func:`new_frozen_cache`, kept by the search
    from call to call). Empty (no goals) when the test is off."""

    goals: np.ndarray
    tomatch: np.ndarray
    wall: np.ndarray
    scratch: tuple[np.ndarray, ...]
    cache: tuple[np.ndarray, ...]


def new_frozen_test(
    n: int, nboxes: int, goals: np.ndarray, cache: tuple[np.ndarray, ...]
) -> FrozenTest:
    """A :class:`FrozenTest` for ``n`` floor cells, ``nboxes`` boxes and ``goals``
    (int32[g]; empty when the test is off), with the search's ``cache``."""
    ng = goals.shape[0]
    return FrozenTest(
        goals,
        np.zeros(ng, dtype=np.uint8),
        np.zeros(n, dtype=np.uint8),
        new_scratch(n, nboxes, ng, False),
        cache,
    )


@njit(internal=True)
def frozen_dead(boxes, occ, board, test, stack):
    """:func:`frozen_short` of the position ``boxes`` (``occ`` their box indices) on
    ``board`` (a :class:`~sokoban.solve._board.SearchBoard`) with the arrays of ``test``
    (a :class:`FrozenTest`); ``stack``: uint8[n] scratch."""
    return frozen_short(
        boxes, occ, board.nbr, board.goal, board.dead, board.zbox, test.goals, test.tomatch,
        test.wall, stack, test.scratch, test.cache,
    )  # fmt: skip


@njit(internal=True)
def frozen_short(boxes, occ, nbr, goal, dead, zbox, order, tomatch, wall, stack, scratch, cache):
    """Whether the boxes frozen on goals, standing as walls, leave some other goal with no
    box of its own that can reach it alone: a proof of deadlock, unlike the packed-walls
    test (a frozen box never moves again, and lone-box reach is generous). A box pushed
    onto the corner goal at the foot of a goal column freezes there, and the goals above
    can then never be pushed into (the player would have to stand on it); a goal reached
    from one side only is lost once the one box that can reach it is spent elsewhere.

    Frozen: by the recursive test of :func:`sokoban.solve._deadlock.frozen` (boxes beside
    it count when they are frozen themselves), so a packed room's boxes are frozen as a
    block. A group frozen with a box off the goals is a deadlock too. A goal's flood
    follows the player round the lone box (:func:`_player_pulls`): a goal behind a door
    takes only the boxes that come through the room beyond it.
    The floods depend only on the frozen set: ``cache`` (:func:`new_frozen_cache`) keeps
    them per set, so a test whose set was seen before is a bipartite matching only.

    ``boxes``: int16[nb] cells; ``occ``: int32[n], >= 0 on a box; ``nbr``: int32[n, 4];
    ``goal``, ``dead``: uint8[n]; ``zbox``: int64[n], Zobrist keys; ``order``: int32[g],
    every goal; ``tomatch``: uint8[g] scratch; ``wall``, ``stack``: uint8[n] scratch
    (left zero); ``scratch``: from :func:`new_scratch` with ``ngoals`` = g."""
    _, _, reach, match, queue = scratch
    keys, floods, side, flood, visit, states = cache
    nb = boxes.shape[0]
    ng = order.shape[0]
    count = 0
    key = 0
    dead_group = False
    for k in range(nb):
        c = boxes[k]
        if not goal[c]:
            continue
        r = frozen(c, occ, nbr, goal, dead, stack)
        if r == FROZEN_OFF_GOAL:
            dead_group = True
            break
        if r == FROZEN_ON_GOALS:
            wall[c] = 1
            key ^= zbox[c]
            count += 1
    if dead_group or count == 0:
        for k in range(nb):
            wall[boxes[k]] = 0
        return dead_group
    slot = key & (keys.shape[0] - 1)
    if key == 0:
        key = 1  # 0 marks an empty slot
    if keys[slot] != key:
        keys[slot] = key
        label_sides(nbr, wall, side, flood[0], flood[1], flood[2], states)
        for i in range(ng):
            floods[slot, i, :] = 0
            if not wall[order[i]]:
                _player_pulls(order[i], nbr, wall, side, visit, states, floods[slot, i])
    reach[:, :] = 0
    short = False
    for i in range(ng):
        tomatch[i] = 0
        if wall[order[i]]:
            continue
        tomatch[i] = 1
        reached = False
        for k in range(nb):
            if not wall[boxes[k]] and floods[slot, i, boxes[k]]:
                reach[k, i] = 1
                reached = True
        if not reached:
            short = True
            break
    for k in range(nb):
        wall[boxes[k]] = 0
    if short:
        return True
    return _short(reach, -1, nb, ng, match, tomatch)
