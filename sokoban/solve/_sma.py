"""The method ``sma``.

SMA*: A* over pushes in a hard budget of nodes, forgetting the worst leaves to stay
inside it (Russell 1992, in the graph-search form of Kaindl and Khorsand 1994).

The nodes in memory form a tree rooted at the start; every state is held at most once
(the engine's transposition table over the node store). Each node has

- ``f``: a lower bound on the pushes of any solution through it, at least its parent's
  (pathmax) and backed up as the least ``f`` of its children, those in memory and those
  forgotten; ``inf`` when nothing below it can lead to a solution within the budget;
- ``forgotten``: the least ``f`` of its forgotten children (``inf`` when none).

Two indexed binary heaps order the nodes. OPEN holds the nodes with something left to
generate: an unexpanded node keyed by its ``f``, an expanded one by ``forgotten``; the
least key comes first, the deepest among equals. LEAVES holds the nodes without children
in memory, except the root and the node being expanded: the highest ``f`` first, the
shallowest (oldest) among equals, and that is the one forgotten when memory is full.
Forgetting a leaf folds its ``f`` into its parent's ``forgotten``, which puts the parent
back on OPEN; expanding it again regenerates only the children missing from memory whose
own bound is within that ``forgotten`` value (the best forgotten ones); the others stay
forgotten with their bound as the parent's new ``forgotten``.

With the budget ``M`` nodes a path holds at most ``M`` states, so a child at depth
``M - 1`` that is not solved gets ``f = inf`` (and the search remembers that it cut one):
it could never have children. So does a child with ``f >= M``: each of its solutions
takes at least ``f`` pushes, a path of more than ``M`` states. A goal is returned when
it comes first on OPEN, so its pushes are the fewest of any solution that fits; since
every push adds one to the depth, any solution shorter than the budget fits, and one
the budget cuts would need at least ``M`` pushes. When OPEN empties (the root's ``f`` is
``inf``) there is no solution: a proof when nothing was cut, else "none within ``M - 1``
pushes".

A child reached more cheaply than the copy of its state in memory takes that copy's
place: the copy's subtree, whose costs are now wrong, is dropped and the copy moves under
the new parent as a fresh leaf. A child reached at the copy's cost or more is not made.

Learned bounds. A forgotten leaf's ``f`` goes into its parent's ``forgotten`` and
nowhere else, so without more a state met again through another parent (a transposition,
the rule in Sokoban) starts from ``g + h`` and its subtree is searched again at every
level of ``f``: below about the node count A* stores, SMA* thrashes. So a forgotten leaf
whose ``f`` says more than ``g + h`` is also written to a bound cache, keyed by the
state's Zobrist key, as ``(g0, f0)``; a child of that state made at depth ``g >= g0``
gets ``f = max(g + h, f0 + g - g0, floor)``. The cache is set-associative (:data:`WAYS`
entries a set), evicts the deepest entry of a set that has not raised a bound since the
set last filled (see :func:`learn`), and is paid for inside the budget: the driver
(:class:`Sma` and :mod:`sokoban.solve._driver`) gives it ``SMA_CACHE_PER_NODE`` (32)
entries of :data:`ENTRY_BYTES` bytes per node of a node budget and the same share of a
byte budget, and counts it in the bytes it reports.

Why a learned bound cannot cut an optimal solution. Every value here (``f``, ``forgotten``,
``f0``) bounds the solutions through its node except those through a child that was not
made because its state was held at no greater depth elsewhere: such a route is bounded
where that copy is held, and stays bounded in memory when the copy goes (forgotten: into
its parent's ``forgotten``; replaced by a cheaper path: by the cheaper copy). The cache
only ever holds a second copy of a value that also went into the parent, so no bound is
lost through it. It can raise the ``f`` of a new node for a state held before at depth
``g0 <= g``: the routes the old search of that state bounded cost ``g - g0`` more from
the new node, and the routes it skipped are bounded where they were held, at no greater
depth, which is still at no greater depth than from the new node. Two copies at equal
depth that skip each other's children cannot each leave the other's routes unbounded: a
route is skipped only while another node holds it, and a node whose raised ``f`` is
wrong about a route it skipped (its ``f`` above the optimum) is never expanded while a
node bounding an optimal route at no more than the optimum is on OPEN, so it cannot take
that route over. With ``g < g0`` the bound would not apply (the new path may be the
cheaper one the old search skipped in favour of), so it is not used. This is an
argument, not a machine-checked proof: the tests hold SMA* to a slow reference search
at every budget from the path's length up, with crowded caches (option ``learn`` also
gives ``"deeper"``, bounds only at ``g > g0``, provably harmless since no optimal path
reaches a state deeper than a path already found to it, but it loses the same-depth
transpositions that matter, and ``"off"``). Keys are 64-bit Zobrist keys, not states: a
false match needs two of the states searched to share a key (odds about ``n**2 / 2**65``
for ``n`` states, 3e-8 for a million).
"""

from __future__ import annotations

import dataclasses
from typing import Any, NamedTuple

import numpy as np

from sokoban._arrays import copy_into
from sokoban._jit import njit
from sokoban.errors import BudgetTooLargeError
from sokoban.level import Level
from sokoban.lurd import Solution
from sokoban.solve import _driver, _table
from sokoban.solve._board import INF
from sokoban.solve._bounds import BOUNDS
from sokoban.solve._driver import BUDGET, EXHAUSTED, FULL, SOLVED
from sokoban.solve._options import BOUND_OPTION
from sokoban.solve._path import expand
from sokoban.solve._successors import FamilyBoard, is_solved, pushes, unlink
from sokoban.solve.types import (
    DEFAULT_MEMORY,
    Limits,
    Option,
    ProgressCallback,
    SearchStats,
    SolveResult,
    Status,
    register,
)

# Slots of the state (int64 array).
(
    ST_OPEN,  # nodes on OPEN
    ST_LEAVES,  # nodes on LEAVES
    ST_USED,  # slots ever used
    ST_FREE,  # free slots on the free stack
    ST_LIVE,  # nodes in memory
    ST_PEAK,  # most nodes in memory at once
    ST_EXPANDED,
    ST_GENERATED,
    ST_FORGOTTEN,
    ST_REGENERATED,
    ST_DROPPED,  # nodes dropped with a subtree a cheaper path replaced
    ST_CUT,  # 1 once a node was cut at the budget depth
    ST_GOAL,
    ST_STEPS,  # expansions allowed in this call
    ST_PROTECTED,  # the node being expanded, -1 between expansions
    ST_BUDGET,  # the budget in nodes; the arrays may be smaller and grow up to it
    ST_LEARNED,  # children whose f a learned bound raised
    ST_RULE,  # when a learned bound applies: RULE_AT_LEAST, RULE_DEEPER or RULE_NEVER
) = range(18)
#: A learned bound (g0, f0) applies to a state reached again at depth g when g >= g0, when
#: g > g0, or never (the plain SMA* of the issue, for comparison).
RULE_AT_LEAST, RULE_DEEPER, RULE_NEVER = 0, 1, 2
#: Entries per set of the bound cache (it is set-associative).
WAYS = 4
#: Bytes per bound cache entry: key uint64, g0 int32, f0 int32.
ENTRY_BYTES = 16
#: Heaps: OPEN (least key, deepest first) and LEAVES (highest f, shallowest first).
OPEN, LEAVES = 0, 1


class Nodes(NamedTuple):
    """The node store: boxes int16[M, b], player int32, hash uint64, parent, g, h, f,
    forgotten (the least f of forgotten children), kids (children in memory), first
    child, next and previous sibling int32, expanded uint8; all [M]."""

    boxes: np.ndarray
    player: np.ndarray
    hash: np.ndarray
    parent: np.ndarray
    g: np.ndarray
    h: np.ndarray
    f: np.ndarray
    forgotten: np.ndarray
    kids: np.ndarray
    first: np.ndarray
    next: np.ndarray
    prev: np.ndarray
    expanded: np.ndarray


class Heaps(NamedTuple):
    """OPEN and LEAVES as indexed heaps: heap int32[M] and position int32[M] (-1 when the
    node is not on the heap) each, and the free slot stack int32[M]."""

    open_heap: np.ndarray
    open_pos: np.ndarray
    leaf_heap: np.ndarray
    leaf_pos: np.ndarray
    free: np.ndarray


class Cache(NamedTuple):
    """The bound cache: key uint64[K], g0 int32[K] (-1: empty; bit :data:`USED` marks a
    used entry), f0 int32[K]."""

    keys: np.ndarray
    g0: np.ndarray
    f0: np.ndarray


def new_nodes(capacity: int, nboxes: int) -> Nodes:
    """An empty :class:`Nodes` for ``capacity`` nodes."""
    m = capacity
    i32 = [np.zeros(m, np.int32) for _ in range(10)]
    return Nodes._make(
        [np.zeros((m, nboxes), np.int16), i32[0], np.zeros(m, np.uint64), *i32[1:]]
        + [np.zeros(m, np.uint8)]
    )


def new_heaps(capacity: int) -> Heaps:
    """Empty :class:`Heaps` for ``capacity`` nodes."""
    return Heaps(
        np.zeros(capacity, np.int32),
        np.full(capacity, -1, np.int32),
        np.zeros(capacity, np.int32),
        np.full(capacity, -1, np.int32),
        np.zeros(capacity, np.int32),
    )


def new_cache(entries: int) -> Cache:
    """An empty :class:`Cache` of ``entries`` (a multiple of :data:`WAYS`, at least one
    set)."""
    k = max(WAYS, entries - entries % WAYS)
    return Cache(np.zeros(k, np.uint64), np.full(k, -1, np.int32), np.zeros(k, np.int32))


# --- the bound cache ----------------------------------------------------------------------


@njit(internal=True)
def _set_of(cache, key):
    sets = cache.keys.shape[0] // WAYS
    return np.int64(key % np.uint64(sets)) * WAYS


#: Bit of an entry's ``g0`` set when the entry raised a bound (depths stay below it).
USED = 1 << 30


@njit(internal=True)
def learned(cache, key, g, rule):
    """The bound the cache holds for the state with ``key`` reached at depth ``g``
    (``f0 + g - g0``, :data:`INF` stays :data:`INF`), or -1 when it holds none that
    applies under ``rule``."""
    if rule == RULE_NEVER:
        return -1
    keys, g0, f0 = cache
    s = _set_of(cache, key)
    for w in range(s, s + WAYS):
        if g0[w] >= 0 and keys[w] == key:
            d = g0[w] & (USED - 1)
            if g < d or (rule == RULE_DEEPER and g == d):
                return -1
            g0[w] |= USED
            if f0[w] >= INF:
                return INF
            return min(f0[w] + g - d, INF)
    return -1


@njit(internal=True)
def learn(cache, key, g, f):
    """Remember that the state with ``key`` at depth ``g`` has bound ``f``. An entry for
    the same state is replaced unless it says at least as much (a depth no greater and a
    bound no less above it); otherwise an empty entry of the set is taken, or else the
    deepest entry not used since the set last filled up (a second chance for the bounds
    that were used; a bound learned near the root spares a larger subtree), or, when all
    were, the deepest after clearing their marks. (Measured against evicting the least
    ``f0``, the least ``f0 - g0``, the least excess over ``h``, the deepest without a
    second chance, and keeping shallower entries rather than storing a deeper one: this
    did best; benchmarks/search-family.md.)"""
    keys, g0, f0 = cache
    s = _set_of(cache, key)
    for w in range(s, s + WAYS):
        if g0[w] >= 0 and keys[w] == key:
            d = g0[w] & (USED - 1)
            if d <= g and (f0[w] >= INF or f0[w] - d >= f - g):
                return
            g0[w] = g | (g0[w] & USED)
            f0[w] = f
            return
    victim = -1
    for w in range(s, s + WAYS):
        if g0[w] < 0:
            victim = w
            break
    if victim < 0:
        for w in range(s, s + WAYS):
            if g0[w] & USED == 0 and (victim < 0 or g0[w] > g0[victim]):
                victim = w
        if victim < 0:
            for w in range(s, s + WAYS):
                g0[w] &= USED - 1
                if victim < 0 or g0[w] > g0[victim]:
                    victim = w
    keys[victim] = key
    g0[victim] = g
    f0[victim] = f


@njit
def recache(old, new):
    """Copy the entries of cache ``old`` into the (larger) cache ``new``."""
    keys, g0, f0 = old
    for w in range(keys.shape[0]):
        if g0[w] >= 0:
            learn(new, keys[w], g0[w] & (USED - 1), f0[w])


# --- the heaps ----------------------------------------------------------------------------


@njit(internal=True)
def _open_key(x, nodes):
    if nodes.expanded[x]:
        return nodes.forgotten[x]
    return nodes.f[x]


@njit(internal=True)
def _before(kind, a, b, nodes):
    """Whether node ``a`` comes before ``b`` on heap ``kind``."""
    g = nodes.g
    if kind == OPEN:
        ka = _open_key(a, nodes)
        kb = _open_key(b, nodes)
        return ka < kb or (ka == kb and g[a] > g[b])
    f = nodes.f
    return f[a] > f[b] or (f[a] == f[b] and g[a] < g[b])


@njit(internal=True)
def _sift(kind, heap, pos, size, i, nodes):
    """Restore the heap order around position ``i`` (up, then down)."""
    x = heap[i]
    while i > 0:
        up = (i - 1) >> 1
        if not _before(kind, x, heap[up], nodes):
            break
        heap[i] = heap[up]
        pos[heap[i]] = i
        i = up
    while True:
        c = 2 * i + 1
        if c >= size:
            break
        if c + 1 < size and _before(kind, heap[c + 1], heap[c], nodes):
            c += 1
        if not _before(kind, heap[c], x, nodes):
            break
        heap[i] = heap[c]
        pos[heap[i]] = i
        i = c
    heap[i] = x
    pos[x] = i


@njit(internal=True)
def _heap_put(kind, heaps, state, x, nodes):
    """Add ``x`` to heap ``kind`` or move it to its place after its key changed."""
    heap = heaps.open_heap if kind == OPEN else heaps.leaf_heap
    pos = heaps.open_pos if kind == OPEN else heaps.leaf_pos
    slot = ST_OPEN + kind
    if pos[x] < 0:
        i = state[slot]
        state[slot] += 1
        heap[i] = x
        pos[x] = i
        _sift(kind, heap, pos, state[slot], i, nodes)
    else:
        _sift(kind, heap, pos, state[slot], pos[x], nodes)


@njit(internal=True)
def _heap_drop(kind, heaps, state, x, nodes):
    """Take ``x`` off heap ``kind`` if it is there."""
    heap = heaps.open_heap if kind == OPEN else heaps.leaf_heap
    pos = heaps.open_pos if kind == OPEN else heaps.leaf_pos
    slot = ST_OPEN + kind
    i = pos[x]
    if i < 0:
        return
    pos[x] = -1
    state[slot] -= 1
    last = state[slot]
    if i < last:
        heap[i] = heap[last]
        pos[heap[i]] = i
        _sift(kind, heap, pos, last, i, nodes)


@njit(internal=True)
def _sync(x, heaps, state, nodes):
    """Put ``x`` on or off OPEN and LEAVES as its fields now say."""
    if _open_key(x, nodes) < INF:
        _heap_put(OPEN, heaps, state, x, nodes)
    else:
        _heap_drop(OPEN, heaps, state, x, nodes)
    if nodes.parent[x] >= 0 and nodes.kids[x] == 0 and x != state[ST_PROTECTED]:
        _heap_put(LEAVES, heaps, state, x, nodes)
    else:
        _heap_drop(LEAVES, heaps, state, x, nodes)


# --- the tree -----------------------------------------------------------------------------


@njit(internal=True)
def _attach(x, parent, nodes):
    kids, first, nxt, prev = nodes.kids, nodes.first, nodes.next, nodes.prev
    nodes.parent[x] = parent
    prev[x] = -1
    nxt[x] = first[parent]
    if first[parent] >= 0:
        prev[first[parent]] = x
    first[parent] = x
    kids[parent] += 1


@njit(internal=True)
def _detach(x, nodes):
    kids, first, nxt, prev = nodes.kids, nodes.first, nodes.next, nodes.prev
    parent = nodes.parent[x]
    if prev[x] >= 0:
        nxt[prev[x]] = nxt[x]
    else:
        first[parent] = nxt[x]
    if nxt[x] >= 0:
        prev[nxt[x]] = prev[x]
    kids[parent] -= 1


@njit(internal=True)
def _free(x, table, heaps, state, nodes):
    """Release node ``x`` (already detached, no children): off the heaps and the table."""
    _heap_drop(OPEN, heaps, state, x, nodes)
    _heap_drop(LEAVES, heaps, state, x, nodes)
    unlink(table, x, nodes.hash)
    nodes.parent[x] = -2  # free: see :func:`rebuild`
    heaps.free[state[ST_FREE]] = x
    state[ST_FREE] += 1
    state[ST_LIVE] -= 1


@njit(internal=True)
def _backup(x, heaps, state, nodes):
    """Make ``f`` of ``x`` and its ancestors the least of their children's and forgotten
    ``f`` again, going up while it changes."""
    parent, f, forgotten, first, nxt = (
        nodes.parent,
        nodes.f,
        nodes.forgotten,
        nodes.first,
        nodes.next,
    )
    while x >= 0:
        if not nodes.expanded[x]:
            return  # unexpanded: its f is its own bound
        best = forgotten[x]
        c = first[x]
        while c >= 0:
            if f[c] < best:
                best = f[c]
            c = nxt[c]
        if best == f[x]:
            return
        f[x] = best
        _sync(x, heaps, state, nodes)
        x = parent[x]


@njit(internal=True)
def _forget(x, table, heaps, state, nodes, cache):
    """Forget leaf ``x``: its ``f`` goes into its parent's ``forgotten``, and into the
    bound cache with its depth."""
    p = nodes.parent[x]
    if state[ST_RULE] != RULE_NEVER and nodes.f[x] > nodes.g[x] + nodes.h[x]:
        # Only a bound above g + h says something h does not.
        learn(cache, nodes.hash[x], nodes.g[x], nodes.f[x])
    if nodes.f[x] < nodes.forgotten[p]:
        nodes.forgotten[p] = nodes.f[x]
    _detach(x, nodes)
    _free(x, table, heaps, state, nodes)
    state[ST_FORGOTTEN] += 1
    _sync(p, heaps, state, nodes)


@njit(internal=True)
def _drop_subtree(x, table, heaps, state, nodes, todo):
    """Free every descendant of ``x`` (``todo``: int32[M] scratch)."""
    first, nxt = nodes.first, nodes.next
    top = 0
    c = first[x]
    while c >= 0:
        todo[top] = c
        top += 1
        c = nxt[c]
    while top > 0:
        top -= 1
        y = todo[top]
        c = first[y]
        while c >= 0:
            todo[top] = c
            top += 1
            c = nxt[c]
        first[y] = -1
        nodes.kids[y] = 0
        _free(y, table, heaps, state, nodes)
        state[ST_DROPPED] += 1
    first[x] = -1
    nodes.kids[x] = 0


@njit(internal=True)
def _insert(n, boxes, player, key, g, h, f, table, slot, heaps, state, nodes):
    """A new leaf under ``n`` in a free slot; returns it."""
    if state[ST_FREE] > 0:
        state[ST_FREE] -= 1
        x = heaps.free[state[ST_FREE]]
    else:
        x = state[ST_USED]
        state[ST_USED] += 1
    copy_into(nodes.boxes[x], boxes)
    nodes.player[x] = player
    nodes.hash[x] = key
    nodes.g[x] = g
    nodes.h[x] = h
    nodes.f[x] = f
    nodes.forgotten[x] = INF
    nodes.kids[x] = 0
    nodes.first[x] = -1
    nodes.expanded[x] = 0
    _attach(x, n, nodes)
    table[slot] = x
    state[ST_LIVE] += 1
    if state[ST_LIVE] > state[ST_PEAK]:
        state[ST_PEAK] = state[ST_LIVE]
    _sync(x, heaps, state, nodes)
    return x


@njit
def run(board, scratch, children, nodes, table, heaps, state, todo, cache, kind):
    """Run SMA* for up to ``state[ST_STEPS]`` expansions within ``state[ST_BUDGET]`` nodes.
    Returns :data:`SOLVED` (goal node ``state[ST_GOAL]``), :data:`EXHAUSTED` (OPEN is
    empty), :data:`BUDGET`, or :data:`FULL` (the arrays, still smaller than the budget,
    need room for one more expansion: the driver grows them and calls again).

    ``board``: the kernel board tuple; ``scratch``, ``children``: see
    :mod:`sokoban.solve._successors`; ``nodes``: :class:`Nodes`; ``table``: int32[t], the
    engine's probe table over the nodes; ``heaps``: :class:`Heaps`; ``state``: int64[18],
    slots :data:`ST_OPEN` ...; ``todo``: int32[M] scratch; ``cache``: :class:`Cache`;
    ``kind``: the lower bound.
    """
    goal = board.goal
    cap = nodes.boxes.shape[0]
    budget = state[ST_BUDGET]
    room = children.player.shape[0]
    n_boxes, n_player, n_hash, n_parent = nodes.boxes, nodes.player, nodes.hash, nodes.parent
    n_g, n_f, n_forg = nodes.g, nodes.f, nodes.forgotten
    c_boxes, c_player, c_key, c_h = children
    open_heap = heaps.open_heap
    leaf_heap = heaps.leaf_heap
    steps = 0
    while True:
        if state[ST_OPEN] == 0:
            return EXHAUSTED
        n = open_heap[0]
        if is_solved(n_boxes[n], goal):
            state[ST_GOAL] = n
            return SOLVED
        if steps >= state[ST_STEPS]:
            return BUDGET
        if cap < budget and state[ST_LIVE] + room > cap:
            return FULL
        steps += 1
        state[ST_EXPANDED] += 1
        regenerating = nodes.expanded[n] != 0
        floor = _open_key(n, nodes)
        state[ST_PROTECTED] = n
        _heap_drop(LEAVES, heaps, state, n, nodes)
        nodes.expanded[n] = 1
        n_forg[n] = INF
        _heap_drop(OPEN, heaps, state, n, nodes)
        count = pushes(n_boxes[n], n_player[n], n_hash[n], board, scratch, kind, children)
        state[ST_GENERATED] += count
        g = n_g[n] + 1
        rule = state[ST_RULE]
        for i in range(count):
            found = _table.find(table, c_key[i], c_boxes[i], c_player[i], n_hash, n_boxes, n_player)
            if found >= 0 and (n_parent[found] == n or n_g[found] <= g):
                continue  # a child still in memory, or a path as cheap elsewhere
            # The child's own bound: its h, or what the cache learned of its state.
            own = g + c_h[i]
            known = learned(cache, c_key[i], g, rule)
            if known >= INF:
                continue  # no solution below it within the budget (any cut was counted)
            if known > own:
                own = known
                state[ST_LEARNED] += 1
            f = max(own, floor)
            if f >= budget or (g >= budget - 1 and not is_solved(c_boxes[i], goal)):
                # Its solutions need at least f pushes, a path of f + 1 nodes: none fits.
                state[ST_CUT] = 1
                continue
            if found >= 0:
                # A cheaper path: the copy moves under n as a fresh leaf.
                _drop_subtree(found, table, heaps, state, nodes, todo)
                old = n_parent[found]
                _detach(found, nodes)
                _sync(old, heaps, state, nodes)
                _backup(old, heaps, state, nodes)
                n_g[found] = g
                n_f[found] = f
                n_forg[found] = INF
                nodes.expanded[found] = 0
                _attach(found, n, nodes)
                _sync(found, heaps, state, nodes)
                continue
            if regenerating and own > floor:
                # Not the best forgotten child: it stays forgotten, its own bound kept.
                if own < n_forg[n]:
                    n_forg[n] = own
                continue
            slot = -found - 1
            dropped = False
            while state[ST_LIVE] >= budget:
                if state[ST_LEAVES] == 0:
                    dropped = True
                    break
                w = leaf_heap[0]
                if n_f[w] < f:
                    # The new child is worse than every leaf: forget it at once. (On a tie
                    # the leaf goes, even a deeper one: dropping the child would put n
                    # back first on OPEN, to make the same child again, for ever.)
                    dropped = True
                    break
                _forget(w, table, heaps, state, nodes, cache)
                # The table moved entries: find the child's slot again.
                slot = (
                    -_table.find(
                        table, c_key[i], c_boxes[i], c_player[i], n_hash, n_boxes, n_player
                    )
                    - 1
                )
            if dropped:
                if f < n_forg[n]:
                    n_forg[n] = f
                if rule != RULE_NEVER and f > g + c_h[i]:
                    learn(cache, c_key[i], g, f)
                state[ST_FORGOTTEN] += 1
                continue
            _insert(
                n, c_boxes[i], c_player[i], c_key[i], g, c_h[i], f, table, slot, heaps, state, nodes
            )
            if regenerating:
                state[ST_REGENERATED] += 1
        state[ST_PROTECTED] = -1
        # f(n) := the least f below it; a node without children and nothing forgotten
        # has none left: inf.
        best = n_forg[n]
        c = nodes.first[n]
        while c >= 0:
            if n_f[c] < best:
                best = n_f[c]
            c = nodes.next[c]
        n_f[n] = best
        _sync(n, heaps, state, nodes)
        if n_parent[n] >= 0:
            _backup(n_parent[n], heaps, state, nodes)


@njit
def rebuild(table, nd_hash, nd_parent, used):
    """Empty ``table`` (int32[t], a power of two) and insert the nodes in memory among
    slots ``0..used-1`` (free slots have parent -2) by their hashes."""
    table[:] = -1
    mask = table.shape[0] - 1
    for node in range(used):
        if nd_parent[node] == -2:
            continue
        i = np.int64(nd_hash[node] & np.uint64(mask))
        while table[i] >= 0:
            i = (i + 1) & mask
        table[i] = node


#: SMA*'s node budget when neither a budget nor a memory limit is given.
DEFAULT_SMA_NODES = 1 << 21
#: SMA*'s arrays at the start, in nodes; they double up to the budget as needed.
SMA_START_NODES = 1 << 12


@dataclasses.dataclass(frozen=True)
class MemoryBoundedStats(SearchStats):
    """:class:`~sokoban.solve.SearchStats` of SMA*, with what staying in budget cost:
    leaves forgotten, children regenerated, nodes dropped with a subtree a cheaper path
    replaced, the most nodes held at once, children whose bound the cache raised
    (``learned``), the bound cache's entries, and the budget in nodes and bytes
    (``peak_bytes`` is the most the arrays and the cache took: they start small and grow up
    to what the budget needs, never more than ``budget_bytes``)."""

    forgotten: int = 0
    regenerated: int = 0
    dropped: int = 0
    peak_nodes: int = 0
    learned: int = 0
    cache_entries: int = 0
    budget_nodes: int = 0
    budget_bytes: int = 0


#: Learned bounds held per node of SMA*'s budget: a budget of M nodes holds M nodes and a
#: bound cache of this many times M entries of 16 bytes (a node takes about 2 b + 90 bytes);
#: a budget in bytes is shared in the same proportion.
SMA_CACHE_PER_NODE = 32
#: Option ``learn``: when a learned bound applies to a state reached again at depth g, for
#: a bound learned at depth g0 (see :mod:`sokoban.solve._sma`).
SMA_LEARN = {"at-least": RULE_AT_LEAST, "deeper": RULE_DEEPER, "off": RULE_NEVER}


def _table_size(capacity: int) -> int:
    """The probe table's size for ``capacity`` nodes: a power of two, at least twice it."""
    size = 1
    while size < 2 * capacity:
        size *= 2
    return size


def _sma_node_bytes(capacity: int, nboxes: int) -> int:
    """Bytes of the node arrays (store, table, heaps, scratch) for ``capacity`` nodes."""
    table_size = _table_size(capacity)
    per_node = 2 * nboxes + 4 + 8 + 4 * 9 + 1 + 4 * 5 + 4
    return capacity * per_node + 4 * table_size


def sma_cache_entries(capacity: int, nboxes: int, learn: str = "at-least") -> int:
    """Entries of the bound cache that comes with a budget of ``capacity`` nodes:
    :data:`SMA_CACHE_PER_NODE` per node, in whole sets; 0 when learning is off."""
    if learn == "off":
        return 0
    entries = capacity * SMA_CACHE_PER_NODE
    return max(WAYS, entries - entries % WAYS)


def sma_bytes(capacity: int, nboxes: int, fixed: int = 0, learn: str = "at-least") -> int:
    """Bytes SMA* takes for a budget of ``capacity`` nodes: the node arrays and the bound
    cache, plus ``fixed``."""
    cache = max(sma_cache_entries(capacity, nboxes, learn), WAYS) * ENTRY_BYTES
    return fixed + _sma_node_bytes(capacity, nboxes) + cache


def sma_capacity(memory: int, nboxes: int, fixed: int = 0, learn: str = "at-least") -> int:
    """The most nodes whose arrays and bound cache fit ``memory`` bytes."""
    low, high = 0, max(memory // (2 * nboxes + 77), 1)
    while low < high:
        mid = (low + high + 1) // 2
        if sma_bytes(mid, nboxes, fixed, learn) <= memory:
            low = mid
        else:
            high = mid - 1
    return low


class Sma:
    """The arrays of one SMA* within a budget of ``capacity`` nodes (and a bound cache of
    ``entries``), run by :func:`sokoban.solve._driver.drive`. The arrays start small
    and double up to the budget; the cache takes its room once they reach it, when
    leaves start being forgotten."""

    def __init__(
        self, family: FamilyBoard, kind: int, h0: int, capacity: int, entries: int, rule: int
    ) -> None:
        self.family = family
        self.kind = kind
        self.capacity = capacity
        self.entries = entries
        nb = family.nboxes
        size = min(capacity, SMA_START_NODES)
        self._allocate(size, nb)
        nodes = self.nodes
        nodes.boxes[0] = family.boxes
        nodes.player[0] = family.player
        nodes.hash[0] = family.key
        nodes.parent[0] = -1
        nodes.h[0] = h0
        nodes.f[0] = h0
        nodes.forgotten[0] = INF
        nodes.first[0] = -1
        slot = _table.find(
            self.table,
            family.key,
            family.boxes,
            family.player,
            nodes.hash,
            nodes.boxes,
            nodes.player,
        )
        self.table[-slot - 1] = 0
        state = np.zeros(18, np.int64)
        state[ST_BUDGET] = capacity
        state[ST_RULE] = rule
        state[ST_USED] = 1
        state[ST_LIVE] = 1
        state[ST_PEAK] = 1
        state[ST_PROTECTED] = -1
        state[ST_OPEN] = 1
        self.heaps.open_heap[0] = 0
        self.heaps.open_pos[0] = 0
        self.state = state
        self.cache = new_cache(entries if size == capacity else 0)

    def _allocate(self, size: int, nb: int) -> None:
        self.nodes = new_nodes(size, nb)
        self.table = np.full(_table_size(size), -1, np.int32)
        self.heaps = new_heaps(size)
        self.todo = np.zeros(size, np.int32)

    @property
    def size(self) -> int:
        """Nodes the arrays hold now."""
        return int(self.nodes.boxes.shape[0])

    @property
    def nbytes(self) -> int:
        arrays = (*self.nodes, self.table, *self.heaps, self.todo, *self.cache)
        return self.family.nbytes + sum(a.nbytes for a in arrays)

    @property
    def expanded(self) -> int:
        return int(self.state[ST_EXPANDED])

    @property
    def exhausted(self) -> bool:
        return False

    def step(self, budget: int) -> int:
        self.state[ST_STEPS] = budget
        family = self.family
        code: int = run(
            family.kernel,
            family.scratch,
            family.children,
            self.nodes,
            self.table,
            self.heaps,
            self.state,
            self.todo,
            self.cache,
            self.kind,
        )
        return code

    def grow(self, code: int, memory: int) -> bool:
        """Double the arrays (up to the budget; the budget was sized to the memory)."""
        nodes, heaps = self.nodes, self.heaps
        old = self.size
        size = min(2 * old, self.capacity)
        self._allocate(size, nodes.boxes.shape[1])
        for new, array in zip((*self.nodes, *self.heaps), (*nodes, *heaps), strict=True):
            new[:old] = array
        rebuild(self.table, self.nodes.hash, self.nodes.parent, int(self.state[ST_USED]))
        if size == self.capacity and self.entries > self.cache.keys.shape[0]:
            bigger = new_cache(self.entries)
            recache(self.cache, bigger)
            self.cache = bigger
        return True

    def stats(self, run: _driver.Run) -> MemoryBoundedStats:
        state = self.state
        return MemoryBoundedStats(
            expanded=int(state[ST_EXPANDED]),
            generated=int(state[ST_GENERATED]),
            stored=int(state[ST_LIVE]),
            peak_bytes=run.peak_bytes,
            seconds=run.seconds,
            forgotten=int(state[ST_FORGOTTEN]),
            regenerated=int(state[ST_REGENERATED]),
            dropped=int(state[ST_DROPPED]),
            peak_nodes=int(state[ST_PEAK]),
            learned=int(state[ST_LEARNED]),
            cache_entries=int(self.cache.keys.shape[0]) if self.entries else 0,
            budget_nodes=self.capacity,
            budget_bytes=self.budget_bytes,
        )

    #: The budget in bytes (set by :func:`sma`).
    budget_bytes = 0

    def solution(self) -> Solution:
        nodes = self.nodes
        node = int(self.state[ST_GOAL])
        path = []
        while node >= 0:
            path.append((nodes.boxes[node].copy(), int(nodes.player[node])))
            node = int(nodes.parent[node])
        path.reverse()
        return expand(self.family.board, path)

    def solved_message(self, optimal: bool) -> str:
        pushes = int(self.nodes.g[int(self.state[ST_GOAL])])
        return f"solved in {pushes} pushes (optimal) within {self.capacity:,} nodes"


@register(
    "sma",
    "SMA*: A* over pushes in a fixed memory budget, forgetting the worst leaves",
    "pushes",
    optimal=True,
    options=(
        BOUND_OPTION,
        Option("budget", int, None, "the budget in nodes", minimum=0),
        Option("budget_bytes", int, None, "the budget in bytes", minimum=0),
        Option(
            "learn",
            str,
            "at-least",
            "when the bound cache applies to a state met again",
            choices=tuple(SMA_LEARN),
        ),
    ),
)
def sma(
    level: Level, limits: Limits, progress: ProgressCallback | None, **options: Any
) -> SolveResult:
    """SMA* with a hard budget: option ``budget`` in nodes, or ``budget_bytes`` (or the
    memory limit) in bytes; the smaller wins when more than one is given. Without either,
    the budget is :data:`DEFAULT_SMA_NODES` nodes within the memory limit. A budget in
    nodes comes with a bound cache of :data:`SMA_CACHE_PER_NODE` entries per node, and a
    budget in bytes is shared between the two; ``peak_bytes`` and ``budget_bytes`` count
    both. Without a memory limit, a budget that needs more than
    :data:`~sokoban.solve.DEFAULT_MEMORY` bytes is refused (:class:`BudgetTooLargeError`).
    Option ``learn`` ("at-least", "deeper" or "off"): when the bound cache applies, see
    the module docstring."""
    kind = BOUNDS[options["bound"]]
    learn = options["learn"]
    family = FamilyBoard(level)
    nb = family.nboxes
    fixed = family.nbytes
    nodes_budget = options["budget"]
    bytes_budget = options["budget_bytes"]
    if limits.memory is None:
        # No limit was given: refuse what the default one could not hold, rather than
        # allocate it.
        if bytes_budget is not None and bytes_budget > DEFAULT_MEMORY:
            raise BudgetTooLargeError(
                f"option budget_bytes={bytes_budget!r} is more than {DEFAULT_MEMORY:,} bytes; "
                "give a memory limit to allow it"
            )
        if nodes_budget is not None and sma_bytes(nodes_budget, nb, fixed, learn) > DEFAULT_MEMORY:
            raise BudgetTooLargeError(
                f"option budget={nodes_budget!r} nodes needs "
                f"{sma_bytes(nodes_budget, nb, fixed, learn):,} bytes, more than "
                f"{DEFAULT_MEMORY:,}; give a memory limit to allow it"
            )
    ceiling = bytes_budget
    if limits.memory is not None:
        ceiling = limits.memory if ceiling is None else min(ceiling, limits.memory)
    if ceiling is None and nodes_budget is None:
        ceiling = DEFAULT_MEMORY
    capacity = sma_capacity(ceiling, nb, fixed, learn) if ceiling is not None else None
    if nodes_budget is not None:
        capacity = nodes_budget if capacity is None else min(capacity, nodes_budget)
    elif bytes_budget is None and capacity is not None:
        capacity = min(capacity, DEFAULT_SMA_NODES)
    assert capacity is not None
    budget_bytes = ceiling if ceiling is not None else sma_bytes(capacity, nb, fixed, learn)
    entries = sma_cache_entries(capacity, nb, learn)
    h0 = family.bound(kind, family.boxes)
    if capacity < 2:
        stats = MemoryBoundedStats(budget_nodes=capacity, budget_bytes=budget_bytes)
        return SolveResult(
            Status.MEMORY_LIMIT,
            None,
            "sma",
            False,
            stats,
            f"a budget of {capacity} nodes cannot hold a single push",
            h0 if h0 < INF else None,
        )
    if h0 >= INF:
        return _driver.unsolvable("sma")
    search = Sma(family, kind, h0, capacity, entries, SMA_LEARN[learn])
    search.budget_bytes = budget_bytes
    # The budget was sized to the memory: the driver is given what it takes at most.
    run = _driver.drive(
        search, dataclasses.replace(limits, memory=max(budget_bytes, search.nbytes)), progress
    )
    exhausted = (Status.UNSOLVABLE, "no solution exists")
    if search.state[ST_CUT]:
        exhausted = (
            Status.MEMORY_LIMIT,
            f"no solution of fewer than {capacity - 1} pushes exists, and a budget of "
            f"{capacity:,} nodes cannot hold a longer one",
        )
    return _driver.result(search, run, "sma", True, h0, exhausted)
