"""Freeze deadlocks: boxes that can never move again, and one of them off its goal.

Dead squares (cells from which a lone box reaches no goal) come with the board
(:mod:`sokoban.solve._board`); bipartite deadlocks (no perfect matching of boxes to goals
they can reach) are found by the lower bound (:mod:`sokoban.solve._bounds`).
"""

from __future__ import annotations

from sokoban._jit import njit

#: Results of :func:`frozen`.
MOVABLE, FROZEN_ON_GOALS, FROZEN_OFF_GOAL = 0, 1, 2


@njit(internal=True)
def frozen(cell, occ, nbr, goal, dead, stack):
    """Whether the box on ``cell`` can never move again, given the other boxes.

    A box is blocked on an axis when a wall is on either side, when both sides are dead
    squares, or when a box on either side is itself frozen; it is frozen when blocked on
    both axes. Boxes under evaluation count as walls (``stack``, uint8[n], all zero on entry
    and on exit), which is sound: every box of a proof is then blocked on both axes while
    the boxes of the proof stay, so none of them can ever move first. Chains of boxes and
    2x2 blocks are covered.

    ``occ``: int32[n], a box index or -1 per floor cell; ``nbr``: int32[n, 4]; ``goal``,
    ``dead``: uint8[n]. Returns :data:`MOVABLE`, :data:`FROZEN_ON_GOALS` or
    :data:`FROZEN_OFF_GOAL` (some box of the frozen group is off a goal: a deadlock).
    """
    stack[cell] = 1
    off = goal[cell] == 0
    for axis in range(2):
        a = nbr[cell, axis]
        b = nbr[cell, axis + 2]
        blocked = False
        if a < 0 or b < 0 or stack[a] or stack[b] or (dead[a] and dead[b]):
            blocked = True
        else:
            if occ[a] >= 0:
                r = frozen(a, occ, nbr, goal, dead, stack)
                if r != MOVABLE:
                    blocked = True
                    off = off or r == FROZEN_OFF_GOAL
            if not blocked and occ[b] >= 0:
                r = frozen(b, occ, nbr, goal, dead, stack)
                if r != MOVABLE:
                    blocked = True
                    off = off or r == FROZEN_OFF_GOAL
        if not blocked:
            stack[cell] = 0
            return MOVABLE
    stack[cell] = 0
    return FROZEN_OFF_GOAL if off else FROZEN_ON_GOALS
