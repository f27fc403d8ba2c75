"""Turn a path of states (box sets) into full LURD: each push preceded by a shortest walk.

The searches here are kernels over floor indices: a solution of a small level is found in
less time than plain Python took to walk it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from sokoban._jit import njit
from sokoban.direction import DIRECTIONS
from sokoban.lurd import Solution, Step
from sokoban.solve._board import Board
from sokoban.solve._reach import reach


def expand(board: Board, path: Sequence[tuple[np.ndarray, int]]) -> Solution:
    """The full solution of a path of states, root first (box floor indices and the player
    cell per state, canonical or exact). A step moves one box: one push, several along a
    line (a tunnel macro), or any carry of the box (a packing macro), found again here."""
    last = len(path) - 1
    if last < 1:
        return Solution()
    boxes = np.array([b for b, _ in path], dtype=np.int32)
    ends = np.array([p for _, p in path], dtype=np.int32)
    # A step walks at most n - 1 cells and pushes at most n - 1 times.
    out = np.empty(2 * board.n * last, dtype=np.int8)
    steps: list[Step] = []
    player, state = board.player, 0
    while True:
        count, state, player = lines(board.nbr, boxes, ends, state, player, out)
        if count < 0:
            raise AssertionError(f"no walk for the step from state {state}: the path is broken")
        steps.extend([_CODES[c] for c in out[:count].tolist()])
        if state == last:
            return Solution(tuple(steps))
        # A packing macro: the box carried any way, found again by a push search.
        old, new = set(boxes[state].tolist()), set(boxes[state + 1].tolist())
        (frm,) = old - new
        (to,) = new - old
        codes = carried(board.nbr, boxes[state], frm, to, player, ends[state + 1])
        if len(codes) == 0:
            raise AssertionError(f"no pushes carry the box from {frm} to {to}: the path is broken")
        steps.extend([_CODES[c] for c in codes.tolist()])
        # The player stands where the box was before its last push.
        player = int(board.nbr[to, (int(codes[-1]) - 4 + 2) % 4])
        state += 1


#: The steps of the kernel's codes: direction, plus 4 for a push.
_CODES: tuple[Step, ...] = tuple((d, push) for push in (False, True) for d in DIRECTIONS)


@njit(allocates=True)
def lines(nbr, boxes, ends, state, player, out):
    """Expand a path from ``state`` on, the player on ``player``, while each step moves
    its box along a straight line: the shortest walk behind the box, then the pushes.

    ``nbr``: int32[n, 4]; ``boxes``: int32[k, b], the box floor indices of each state;
    ``ends``: int32[k], the player's cell in each (canonical or exact); ``out``: int8[m]
    (m at least 2 n per step left), the steps written, each a direction plus 4 for a
    push. Returns (steps written, the state reached, the player's cell there): the state
    is k - 1 at the end, else one whose next step is no straight line (a packing macro);
    -1 steps when the path is broken (no walk, or not one box moved).

    A run of several pushes must start from the player's side of the box and end with
    the player in the region of the next state's cell; one push is the only way to move
    a box one cell (the search's own step), so it is taken as it is.
    """
    n = nbr.shape[0]
    k, nb = boxes.shape
    occ = np.full(n, -1, np.int32)  # 0 on the boxes of the current state
    region = np.zeros(n, np.int32)  # the player's region among them, flooded when needed
    seen = np.zeros(n, np.int32)  # every other flood and walk, by marks
    came = np.empty(n, np.int32)
    queue = np.empty(n, np.int32)
    lengths = np.empty(n, np.int32)
    for j in range(nb):
        occ[boxes[state, j]] = 0
    mark = 0
    count = 0
    while state < k - 1:
        mark += 1
        for j in range(nb):
            seen[boxes[state + 1, j]] = mark
        frm = to = -1
        for j in range(nb):
            if seen[boxes[state, j]] != mark:
                frm = boxes[state, j]
            if occ[boxes[state + 1, j]] < 0:
                to = boxes[state + 1, j]
        if frm < 0 or to < 0:
            return -1, state, player
        line, pushes = -1, 0
        region_mark = 0  # set once the region is flooded
        for d in range(4):
            c, before, run = frm, frm, 0
            while c != to:
                x = nbr[c, d]
                if x < 0 or occ[x] >= 0:
                    break
                before, c, run = c, x, run + 1
            if c != to:
                continue
            if run == 1:
                line, pushes = d, 1
                break
            behind = nbr[frm, (d + 2) % 4]
            if behind < 0 or occ[behind] >= 0:
                continue
            if region_mark == 0:
                mark += 1
                region_mark = mark
                reach(player, occ, nbr, region, region_mark, queue, lengths)
            if region[behind] != region_mark:
                continue
            occ[frm], occ[to] = -1, 0
            mark += 1
            reach(before, occ, nbr, seen, mark, queue, lengths)
            occ[frm], occ[to] = 0, -1
            if seen[ends[state + 1]] == mark:
                line, pushes = d, run
                break
        if line < 0:
            return count, state, player
        mark += 1
        behind = nbr[frm, (line + 2) % 4]
        count = _walk(player, behind, occ, nbr, seen, mark, came, queue, out, count)
        if count < 0:
            return -1, state, player
        for _ in range(pushes):
            out[count] = line + 4
            count += 1
        player = frm
        for _ in range(pushes - 1):
            player = nbr[player, line]
        occ[frm], occ[to] = -1, 0
        state += 1
    return count, state, player


@njit(internal=True)
def _walk(start, goal, occ, nbr, seen, mark, came, queue, out, count):
    """Write a shortest walk from ``start`` to ``goal`` around the boxes (``occ`` >= 0)
    into ``out`` from ``count`` on, the directions in the order :func:`walk` tries them
    (breadth first, left, up, right, down); returns the new count, -1 when there is
    none. ``seen``, ``came``, ``queue``: int32[n] (``mark`` fresh in ``seen``)."""
    if start == goal:
        return count
    if goal < 0:
        return -1
    seen[start] = mark
    queue[0] = start
    head, tail = 0, 1
    while head < tail:
        c = queue[head]
        head += 1
        for d in range(4):
            x = nbr[c, d]
            if x < 0 or seen[x] == mark or occ[x] >= 0:
                continue
            seen[x] = mark
            came[x] = c * 4 + d
            if x == goal:
                size = 0
                while x != start:
                    size += 1
                    x = came[x] // 4
                x = goal
                for i in range(size - 1, -1, -1):
                    out[count + i] = came[x] % 4
                    x = came[x] // 4
                return count + size
            queue[tail] = x
            tail += 1
    return -1


@njit(allocates=True)
def carried(nbr, boxes, frm, to, player, end):
    """The fewest pushes (each after a shortest walk) carrying the box on ``frm`` to
    ``to`` around the other ``boxes`` (int32[b], ``frm`` among them), the player starting
    on ``player`` and ending in the region of ``end``: a breadth-first search over (box
    cell, side of the player) states. Returns the steps as :func:`lines` writes them
    (int8[s]), none when no pushes do it."""
    n = nbr.shape[0]
    occ = np.full(n, -1, np.int32)
    for j in range(boxes.shape[0]):
        occ[boxes[j]] = 0
    region = np.zeros(n, np.int32)
    queue = np.empty(n, np.int32)
    lengths = np.empty(n, np.int32)
    reach(player, occ, nbr, region, 1, queue, lengths)
    occ[frm] = -1  # the carried box is tracked by the states
    came = np.full(4 * n, -2, np.int64)  # per state box * 4 + side: -2 unseen, -1 a start
    states = np.empty(4 * n, np.int64)
    head, tail = 0, 0
    for s in range(4):
        p = nbr[frm, s]
        if p >= 0 and region[p] == 1:
            came[frm * 4 + s] = -1
            states[tail] = frm * 4 + s
            tail += 1
    mark = 1
    while head < tail:
        state = states[head]
        head += 1
        c, s = state // 4, state % 4
        t = nbr[c, (s + 2) % 4]
        if t < 0 or occ[t] >= 0:
            continue
        occ[t] = 0
        mark += 1
        reach(c, occ, nbr, region, mark, queue, lengths)
        occ[t] = -1
        if t == to and region[end] == mark:
            return _carry_steps(nbr, occ, came, state, player, region, mark + 1, queue)
        for e in range(4):
            r = nbr[t, e]
            if r >= 0 and region[r] == mark and came[t * 4 + e] == -2:
                came[t * 4 + e] = state
                states[tail] = t * 4 + e
                tail += 1
    return np.empty(0, np.int8)


@njit(allocates=True, internal=True)
def _carry_steps(nbr, occ, came, state, player, seen, mark, queue):
    """The steps of the pushes that end with ``state`` (its box pushed away from the
    player's side) back to a start of ``came`` (see :func:`carried`), each after a
    shortest walk from where the last left the player; ``occ``: the other boxes."""
    n = nbr.shape[0]
    pushes = 1
    s = came[state]
    while s >= 0:
        pushes += 1
        s = came[s]
    order = np.empty(pushes, np.int64)
    s = state
    for i in range(pushes - 1, -1, -1):
        order[i] = s
        s = came[s]
    out = np.empty(pushes * (n + 1), np.int8)
    cells = np.empty(n, np.int32)
    count = 0
    here = player
    for i in range(pushes):
        box, side = order[i] // 4, order[i] % 4
        occ[box] = 0
        count = _walk(here, nbr[box, side], occ, nbr, seen, mark + i, cells, queue, out, count)
        occ[box] = -1
        if count < 0:
            return np.empty(0, np.int8)
        out[count] = (side + 2) % 4 + 4
        count += 1
        here = box
    return out[:count]
