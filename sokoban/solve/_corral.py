"""PI-corral pruning: when a region the player cannot reach must be entered, only the
pushes into it need be tried.

A corral is a connected area of free cells the player cannot reach; its fence is the
boxes next to it. It is a PI-corral here when, before any fence box moves:

- I: no fence box can be pushed anywhere but into the corral (every other push of a fence
  box meets a wall, a fence box or a dead square, or needs the player inside the corral);
- P: the player can already reach every push of a fence box into the corral (onto a live
  cell) that could ever be made before another fence box moves;
- the corral must be touched: it holds a goal, or a fence box is off its goal.

Then every solution pushes a fence box into the corral at some point, and that push can be
made first without changing the number of pushes: the earlier pushes never touch the
corral nor the fence and stay possible when the fence box has moved in. So a push-optimal
search loses nothing by trying only those pushes, and a PI-corral with none of them is a
deadlock. (Move counts do change, so the move-optimal search does not use it.)
"""

from __future__ import annotations

import numpy as np

from sokoban._jit import njit


@njit(internal=True)
def pi_corral(boxes, occ, nbr, goal, dead, seen, mark, comp, fence_mark, queue, fence, best):
    """Find the PI-corral with the fewest pushes into it.

    ``boxes``: int16[b]; ``occ``: int32[n] box index per cell or -1; ``seen``: int32[n],
    ``seen[c] == mark`` on cells the player reaches; ``comp``: int64[n] and ``fence_mark``:
    int64[b], scratch that starts zeroed and is reused while ``mark`` (positive) grows;
    ``queue``: int32[n]; ``fence``, ``best``: int32[b] scratch. Returns the number of fence
    boxes of the chosen corral, listed (box indices) in ``best``; 0 with no corral pushes
    possible (a deadlock); -1 when there is no PI-corral.
    """
    nb = boxes.shape[0]
    best_pushes = 1 << 30
    best_size = -1
    # Corral ids, unique while ``mark`` grows: up to 63 corrals a call.
    base = np.int64(mark) * 64
    local = 0
    for k in range(nb):
        for d in range(4):
            start = nbr[boxes[k], d]
            if start < 0 or occ[start] >= 0 or seen[start] == mark:
                continue
            if comp[start] >= base and comp[start] < base + 64:
                continue
            if local >= 63:
                return best_size
            local += 1
            cid = base + local
            # Flood the corral.
            comp[start] = cid
            queue[0] = start
            head, tail = 0, 1
            has_goal = False
            while head < tail:
                c = queue[head]
                head += 1
                if goal[c]:
                    has_goal = True
                for e in range(4):
                    x = nbr[c, e]
                    if x >= 0 and occ[x] < 0 and comp[x] != cid:
                        comp[x] = cid
                        queue[tail] = x
                        tail += 1
            # Its fence.
            size = 0
            off_goal = False
            for i in range(tail):
                c = queue[i]
                for e in range(4):
                    x = nbr[c, e]
                    if x >= 0 and occ[x] >= 0 and fence_mark[occ[x]] != cid:
                        fence_mark[occ[x]] = cid
                        fence[size] = occ[x]
                        size += 1
                        if not goal[x]:
                            off_goal = True
            if not (has_goal or off_goal):
                continue
            pushes = 0
            ok = True
            for i in range(size):
                if not ok:
                    break
                f = boxes[fence[i]]
                for e in range(4):
                    target = nbr[f, e]
                    behind = nbr[f, (e + 2) % 4]
                    if target < 0 or behind < 0:
                        continue  # a wall on either side: no push this way, ever
                    if occ[behind] >= 0 and fence_mark[occ[behind]] == cid:
                        continue  # the player cannot stand on a fence box
                    if occ[behind] < 0 and comp[behind] == cid:
                        continue  # nor inside the corral
                    if occ[target] < 0 and comp[target] == cid:
                        # Into the corral.
                        if dead[target]:
                            continue
                        if seen[behind] == mark:
                            pushes += 1
                        else:
                            ok = False  # P fails
                            break
                    else:
                        if occ[target] >= 0 and fence_mark[occ[target]] == cid:
                            continue
                        if dead[target]:
                            continue
                        ok = False  # I fails: a push out of the fence
                        break
            if ok and pushes < best_pushes:
                best_pushes = pushes
                best_size = size
                for i in range(size):
                    best[i] = fence[i]
                if pushes == 0:
                    return 0
    return best_size
