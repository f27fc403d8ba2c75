"""The packing plan's phases, a guide for best-first search (YASS's forward guide).

The goals that the retrograde analysis of :mod:`sokoban.solve._packing` takes out in the
same round form a *phase*: a goal whose removal waited for its parent's is one round
deeper. In forward time the deepest round fills first. The phase a position is in is the
first phase, in fill order, with an empty goal; a box pushed off a goal of an earlier
phase sends the position back to that phase.

The guide scores a child by how far the plan has come (every goal of a finished phase and
every filled goal of the current one takes :data:`GOAL_BONUS` off) and by where the pushed
box went: twice its distance to the nearest empty goal of the current phase, less two for
each such goal it came closer to. The distances are pushes of a lone box with the goals of
the earlier phases as walls, for those are filled by then: a box must come in past them,
not through them. A greedy search on the matching bound alone spreads its pushes over
every box; the guide keeps pushing the box that is on its way to the goals whose turn it
is.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sokoban._jit import njit
from sokoban.solve._board import INF, Board, push_distances, side_components
from sokoban.solve._packing import PackingOrder

#: What each goal of a finished phase, and each filled goal of the current phase, takes
#: off the score: more than a pushed box's distance can add, so progress in the plan comes
#: first.
GOAL_BONUS = 32


class Phases(NamedTuple):
    """The plan's goals by phase in fill order, ``goals`` int32[g], phase p's goals at
    ``goals[start[p]:start[p + 1]]`` (``start`` int32[p + 1]), and ``dist`` int32[g, n]: the
    pushes from each cell to each of those goals with the goals of earlier phases as walls
    (:data:`INF` where none). Empty arrays: no guide."""

    goals: np.ndarray
    start: np.ndarray
    dist: np.ndarray


def no_phases() -> Phases:
    """No guide."""
    return Phases(np.zeros(0, np.int32), np.zeros(1, np.int32), np.zeros((0, 1), np.int32))


def phases(board: Board, plan: PackingOrder) -> Phases:
    """The phases of ``plan`` (goals only) on ``board``."""
    ng = len(plan.order)
    rounds = np.zeros(ng, dtype=np.int64)  # removal round, by position in fill order
    for i in range(ng - 1, -1, -1):
        p = plan.parent[i]
        if p >= 0:
            rounds[i] = rounds[p] + 1
    # The deepest removal round fills first.
    by_phase = np.argsort(-rounds, kind="stable")
    goals = plan.order[by_phase].astype(np.int32)
    fill_phase = rounds.max() - rounds[by_phase] if ng else rounds
    start = np.searchsorted(fill_phase, np.arange(int(fill_phase.max()) + 2 if ng else 1))
    dist = np.full((ng, board.n), INF, dtype=np.int32)
    for p in range(len(start) - 1):
        lo, hi = int(start[p]), int(start[p + 1])
        walls = np.zeros(board.n, dtype=bool)
        walls[goals[:lo]] = True
        nbr = board.nbr.copy()
        nbr[walls] = -1
        nbr[(nbr >= 0) & walls[np.maximum(nbr, 0)]] = -1
        dist[lo:hi] = push_distances(nbr, goals[lo:hi], side_components(nbr))
    return Phases(goals, start.astype(np.int32), dist)


def score_max(guide: Phases) -> int:
    """The largest score :func:`phase_score` gives on ``guide``."""
    finite = guide.dist[guide.dist < INF]
    far = int(finite.max()) if finite.size else 0
    ng = len(guide.goals)
    return GOAL_BONUS * ng + 2 * (far + 1) + GOAL_BONUS // 4 + 2 * ng + 1


@njit(internal=True)
def phase_score(occ, b, t, goals, start, dist):
    """The guide's score (1 to :func:`score_max`) of the child in which a box went from
    cell ``b`` to ``t``, the boxes ``occ`` (int32[n], >= 0 on a box) as in the child;
    ``goals``, ``start``, ``dist`` as in :class:`Phases` (g > 0). Returns (score, along):
    ``along`` when the push brought the box closer to, or onto, a goal of the phase."""
    ng = goals.shape[0]
    phase = start.shape[0] - 2
    for i in range(ng):
        if occ[goals[i]] < 0:
            # The first empty goal's phase.
            p = 0
            while start[p + 1] <= i:
                p += 1
            phase = p
            break
    lo, hi = start[phase], start[phase + 1]
    filled = 0
    near = INF
    closer = 0
    landed = 0
    for i in range(lo, hi):
        if occ[goals[i]] >= 0:
            filled += 1
            if goals[i] == t:
                landed = 1
        else:
            d = dist[i, t]
            if d < near:
                near = d
            if d < dist[i, b]:
                closer += 1
    score = GOAL_BONUS * (ng - lo - filled) + 2 * ng - 2 * closer - landed
    if near < INF:
        score += 2 * (near + 1)
    else:
        score += GOAL_BONUS // 4
    return score + 1, closer > 0 or landed > 0
