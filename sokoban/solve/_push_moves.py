"""The pushes a player can make from a position, written once for every search that
pushes: the push test (a free, live target; the player able to reach the cell behind the
box), the order the boxes are tried in, tunnel macros, and the boxes of a child.

The best-first and feature-space kernels (through :mod:`sokoban.solve._children`), the
search family's generator (:func:`sokoban.solve._successors.pushes`) and the corral
sub-search (:mod:`sokoban.solve._corral_deadlock`) all list their pushes here, then test
and store the children their own way.
"""

from __future__ import annotations

from sokoban._jit import njit

#: Columns of a row of :func:`push_moves`' output: the box's index among the boxes, the
#: cell it leaves, the cell it ends on, where the player ends, the pushes (more than one
#: through a tunnel), the cell the player pushes from.
BOX, FROM, TO, STAND, PUSHES, BEHIND = range(6)


@njit(internal=True)
def push_moves(boxes, last, occ, seen, mark, nbr, goal, dead, tunnels, allowed, order, moves):
    """The pushes the player can make from the position ``boxes`` (int16[b]; ``occ``
    int32[n] their box indices, -1 elsewhere; ``seen[c] == mark`` on the cells the player
    walks to), into the rows of ``moves`` (int32[4 b, 6], columns :data:`BOX` ...), and
    how many. Boxes ``allowed`` (uint8[b]) only, the box on ``last`` after the others
    (its children come first out of LIFO buckets: ties go to pushing the same box on, for
    fewer box changes and deeper dives), their order left in ``order`` (int32[b]). A push
    onto a wall, a box or a dead square is not made. With ``tunnels``, a box pushed into
    a tunnel (player and box both between walls across the push) goes on to its end or
    the first goal in the same move. ``occ`` is left as it was."""
    nb = boxes.shape[0]
    j = 0
    for k in range(nb):
        if boxes[k] != last:
            order[j] = k
            j += 1
    for k in range(nb):
        if boxes[k] == last:
            order[j] = k
            j += 1
    count = 0
    for i in range(nb):
        k = order[i]
        if not allowed[k]:
            continue
        b = boxes[k]
        for d in range(4):
            t = nbr[b, d]
            if t < 0 or occ[t] >= 0 or dead[t]:
                continue
            p = nbr[b, (d + 2) % 4]
            if p < 0 or seen[p] != mark:
                continue
            pushes = 1
            stand = b  # where the player ends
            if tunnels:
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
                    stand = t
                    t = ahead
                    pushes += 1
            moves[count, BOX] = k
            moves[count, FROM] = b
            moves[count, TO] = t
            moves[count, STAND] = stand
            moves[count, PUSHES] = pushes
            moves[count, BEHIND] = p
            count += 1
    return count


@njit(internal=True)
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
