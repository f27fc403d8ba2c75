"""Corral deadlocks: a region the player cannot reach whose fence boxes, alone on the
board, can never all be pushed onto goals.

Taking boxes away never makes a position harder: the pushes of any solution, the other
boxes removed, still put the remaining boxes on goals. So when a small search over a
subset of the boxes alone (the player walking through the removed ones) finds no way to
put every box of the subset on a goal, the position is a deadlock. The subset tried here
is the fence of each corral (the boxes next to a free area the player cannot reach) that
is touched (a goal inside, or a fence box off its goal): closed diagonals, boxes walling
in a goal, and groups that can only push each other into corners are caught this way.

The sub-search is exhaustive within :data:`MAX_STATES` states (past that it proves
nothing), prunes only by sound tests (dead squares, freeze deadlocks among the subset,
the two-box table), and compares whole states, never hashes alone. Verdicts are
remembered in a direct-mapped memo (keys and whole states, kept between kernel calls):
the same corral recurs in many positions that differ elsewhere.
"""

from __future__ import annotations

import numpy as np

from sokoban._jit import njit
from sokoban.solve._deadlock import FROZEN_OFF_GOAL, frozen
from sokoban.solve._pairs import pair_dead
from sokoban.solve._reach import reach

#: Smallest and largest fence searched.
MIN_FENCE, MAX_FENCE = 3, 8
#: States a sub-search may store before giving up (proving nothing).
MAX_STATES = 512
#: Memo entries (a power of two).
MEMO_SIZE = 1 << 14
#: Memo verdicts.
UNKNOWN, ALIVE, DEAD = 0, 1, 2


def new_memo(size: int = MEMO_SIZE) -> tuple[np.ndarray, ...]:
    """An empty memo: keys uint64[size], boxes int16[size, MAX_FENCE] (-1 padded), player
    int32[size], verdict uint8[size] (:data:`UNKNOWN` where empty)."""
    return (
        np.zeros(size, np.uint64),
        np.full((size, MAX_FENCE), -1, np.int16),
        np.zeros(size, np.int32),
        np.zeros(size, np.uint8),
    )


def no_memo() -> tuple[np.ndarray, ...]:
    """A memo of size 0: corral deadlocks are not looked for."""
    return new_memo(0)


@njit
def new_scratch(n):
    """Work arrays for :func:`corral_dead` on ``n`` floor cells: comp int32[n], cells
    int32[n] (a corral's cells), socc int32[n] (all -1), sseen, squeue, seen2, queue2
    int32[n], stack uint8[n], states int16[MAX_STATES + 1, MAX_FENCE], splayer
    int32[MAX_STATES + 1], stable int32[4 * MAX_STATES], marks int64[2], swalk int32[n]
    (walk lengths, unused)."""
    return (
        np.zeros(n, np.int32),
        np.zeros(n, np.int32),
        np.full(n, -1, np.int32),
        np.zeros(n, np.int32),
        np.zeros(n, np.int32),
        np.zeros(n, np.int32),
        np.zeros(n, np.int32),
        np.zeros(n, np.uint8),
        np.zeros((MAX_STATES + 1, MAX_FENCE), np.int16),
        np.zeros(MAX_STATES + 1, np.int32),
        np.full(4 * MAX_STATES, -1, np.int32),
        np.zeros(2, np.int64),
        np.zeros(n, np.int32),
    )


@njit
def _key(boxes, k, player, zbox, zplayer):
    key = zplayer[player]
    for i in range(k):
        key ^= zbox[boxes[i]]
    return key


@njit
def _store(states, splayer, stable, count, boxes, k, player, key):
    """Add the state unless stored: returns the new count, or -1 when it was there."""
    mask = stable.shape[0] - 1
    i = np.int64(key & np.uint64(mask))
    while True:
        s = stable[i]
        if s < 0:
            break
        if splayer[s] == player:
            same = True
            for j in range(k):
                if states[s, j] != boxes[j]:
                    same = False
                    break
            if same:
                return -1
        i = (i + 1) & mask
    stable[i] = count
    for j in range(k):
        states[count, j] = boxes[j]
    splayer[count] = player
    return count + 1


@njit
def _solvable(start, k, player, ncells, board, scratch):
    """Whether boxes ``start[:k]`` (sorted int16) alone can all be pushed onto goals from
    ``player`` (a canonical cell): :data:`ALIVE`, :data:`DEAD`, or :data:`UNKNOWN` when
    the search outgrew :data:`MAX_STATES` or the player got into the corral (its cells
    are ``scratch``'s ``cells[:ncells]``): an open corral is rarely a deadlock, and
    searching on would mostly solve a small puzzle the long way. ``board``: as for
    :func:`corral_dead`."""
    nbr, goal, dead, zbox, zplayer = board.nbr, board.goal, board.dead, board.zbox, board.zplayer
    live, pairs, starts, partners = board.live, board.pairs, board.starts, board.partners
    comp, cells, socc, sseen, squeue, seen2, queue2, stack = scratch[:8]
    states, splayer, stable, marks, swalk = scratch[8:]
    solved = True
    for i in range(k):
        if not goal[start[i]]:
            solved = False
    if solved:
        return ALIVE
    stable[:] = -1
    key = _key(start, k, player, zbox, zplayer)
    count = _store(states, splayer, stable, 0, start, k, player, key)
    child = np.empty(MAX_FENCE, np.int16)
    head = 0
    verdict = DEAD
    while head < count and verdict == DEAD:
        boxes = states[head]
        for i in range(k):
            socc[boxes[i]] = i
        marks[1] += 1
        here = np.int32(marks[1])
        reach(splayer[head], socc, nbr, sseen, here, squeue, swalk)
        head += 1
        for i in range(ncells):
            if sseen[cells[i]] == here:
                verdict = UNKNOWN
                break
        for i in range(k):
            if verdict != DEAD:
                break
            b = boxes[i]
            for d in range(4):
                t = nbr[b, d]
                if t < 0 or socc[t] >= 0 or dead[t]:
                    continue
                p = nbr[b, (d + 2) % 4]
                if p < 0 or sseen[p] != here:
                    continue
                socc[b] = -1
                socc[t] = i
                if pair_dead(t, b, socc, live, pairs, starts, partners) or (
                    frozen(t, socc, nbr, goal, dead, stack) == FROZEN_OFF_GOAL
                ):
                    socc[t] = -1
                    socc[b] = i
                    continue
                marks[1] += 1
                canon = reach(b, socc, nbr, seen2, np.int32(marks[1]), queue2, swalk)
                socc[t] = -1
                socc[b] = i
                # The child's boxes, sorted.
                j = 0
                for x in range(k):
                    if boxes[x] != b:
                        child[j] = boxes[x]
                        j += 1
                j = k - 1
                while j > 0 and child[j - 1] > t:
                    child[j] = child[j - 1]
                    j -= 1
                child[j] = t
                done = True
                for x in range(k):
                    if not goal[child[x]]:
                        done = False
                        break
                if done:
                    verdict = ALIVE
                    break
                if count >= MAX_STATES:
                    verdict = UNKNOWN
                    break
                key = _key(child, k, canon, zbox, zplayer)
                added = _store(states, splayer, stable, count, child, k, canon, key)
                if added >= 0:
                    count = added
        for i in range(k):
            socc[boxes[i]] = -1
    return verdict


@njit
def corral_dead(boxes, player, last, occ, seen, mark, board, scratch):
    """Whether some touched corral next to the box on ``last`` is a deadlock (see the
    module); every corral when ``last`` is -1.

    Only corrals next to the box pushed last need a look: any other corral had the same
    fence before the push and, in the sub-problem of its fence, the player in the same
    region (the pushed box is not there), so the parent already passed it.

    ``boxes``: int16[b] sorted; ``player``: a cell the player reaches; ``occ``: int32[n]
    box index or -1; ``seen[c] == mark`` on the cells the player reaches; ``board``: the
    search kernel's :class:`sokoban.solve._best_first.SearchBoard` (its memo from
    :func:`new_memo`, size 0: nothing is looked for); ``scratch``: :func:`new_scratch`
    (corral ids grow in its ``marks[0]``).
    """
    nbr, goal, zbox, zplayer = board.nbr, board.goal, board.zbox, board.zplayer
    mkeys, mboxes, mplayer = board.memo_keys, board.memo_boxes, board.memo_player
    mverdict = board.memo_verdict
    if mkeys.shape[0] == 0:
        return False
    comp, cells, socc, sseen, squeue, seen2, queue2, stack = scratch[:8]
    states, splayer, stable, marks, swalk = scratch[8:]
    nb = boxes.shape[0]
    fence = np.empty(MAX_FENCE, np.int16)
    msize = mkeys.shape[0]
    first = marks[0] + 1  # corrals flooded in this call have ids from here on
    for k in range(nb):
        if last >= 0 and boxes[k] != last:
            continue
        for d in range(4):
            start = nbr[boxes[k], d]
            if start < 0 or occ[start] >= 0 or seen[start] == mark or comp[start] >= first:
                continue
            marks[0] += 1
            cid = np.int32(marks[0])
            # Flood the corral and list its fence.
            comp[start] = cid
            cells[0] = start
            head, tail = 0, 1
            has_goal = False
            size = 0
            too_big = False
            while head < tail:
                c = cells[head]
                head += 1
                if goal[c]:
                    has_goal = True
                for e in range(4):
                    x = nbr[c, e]
                    if x < 0:
                        continue
                    if occ[x] >= 0:
                        if socc[x] != -2:
                            socc[x] = -2  # a fence box, marked while this corral is read
                            if size < MAX_FENCE:
                                fence[size] = x
                            else:
                                too_big = True
                            size += 1
                    elif comp[x] != cid:
                        comp[x] = cid
                        cells[tail] = x
                        tail += 1
            off_goal = False
            for i in range(min(size, MAX_FENCE)):
                socc[fence[i]] = -1
                if not goal[fence[i]]:
                    off_goal = True
            if too_big:
                # Clear the marks of the fence boxes not listed.
                for i in range(tail):
                    c = cells[i]
                    for e in range(4):
                        x = nbr[c, e]
                        if x >= 0 and socc[x] == -2:
                            socc[x] = -1
                continue
            if not (has_goal or off_goal) or size == nb or size < MIN_FENCE:
                # Untouched; or the whole position, which the search itself looks at; or
                # one or two boxes, which the dead squares and the two-box table decide.
                continue
            # The fence alone, sorted; the player where it stands now.
            for i in range(1, size):
                x = fence[i]
                j = i
                while j > 0 and fence[j - 1] > x:
                    fence[j] = fence[j - 1]
                    j -= 1
                fence[j] = x
            for i in range(size):
                socc[fence[i]] = i
            marks[1] += 1
            canon = reach(player, socc, nbr, sseen, np.int32(marks[1]), squeue, swalk)
            for i in range(size):
                socc[fence[i]] = -1
            key = _key(fence, size, canon, zbox, zplayer) ^ np.uint64(size)
            slot = np.int64(key & np.uint64(msize - 1))
            verdict = UNKNOWN
            if mverdict[slot] != UNKNOWN and mkeys[slot] == key and mplayer[slot] == canon:
                same = True
                for i in range(MAX_FENCE):
                    want = fence[i] if i < size else -1
                    if mboxes[slot, i] != want:
                        same = False
                        break
                if same:
                    verdict = mverdict[slot]
            if verdict == UNKNOWN:
                verdict = _solvable(fence, size, canon, tail, board, scratch)
                if verdict == UNKNOWN:
                    verdict = ALIVE  # proves nothing; remembered so as not to search again
                mkeys[slot] = key
                mplayer[slot] = canon
                mverdict[slot] = verdict
                for i in range(MAX_FENCE):
                    mboxes[slot, i] = fence[i] if i < size else -1
            if verdict == DEAD:
                return True
    return False
