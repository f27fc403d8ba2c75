"""The push-child step every forward search shares, written once: which boxes may move
(PI-corral pruning), in what order (the box pushed last goes last), which pushes the
player can make, how far a tunnel carries the box, and the deadlock tests each child
takes. Each search then stores the children its own way.

The best-first and feature-space kernels expand a node with :func:`corral_mask`,
:func:`sokoban.solve._push_moves.push_moves` and :func:`child_dead`. The work arrays of
one call of a search loop are a :class:`Work`, made in plain Python (:func:`new_work`): a
kernel that allocates needs numba's runtime, which costs more than the arrays.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sokoban._jit import njit
from sokoban.solve._corral import pi_corral
from sokoban.solve._corral_deadlock import matches
from sokoban.solve._corral_deadlock import new_scratch as corral_scratch
from sokoban.solve._deadlock import FROZEN_OFF_GOAL, frozen
from sokoban.solve._pairs import pair_dead


class Work(NamedTuple):
    """The work arrays of one call of a search loop on ``n`` floor cells and ``nb``
    boxes (:func:`new_work`): occ int32[n] (all -1 between nodes); seen, walk, fifo the
    node's player walk, seen2, walk2, fifo2 a child's, int32[n]; stack uint8[n] (freeze
    tests); child int16[nb] (a child's boxes); match_work and match_parent int64[6, nb + 1]
    (the matching bound, repaired per child); rows int16[nb] (the node's boxes for the
    repair); comp int64[n], fence_mark int64[nb], fence and chosen int32[nb] (PI-corrals);
    allowed uint8[nb] (the boxes that may move); order int32[nb] (the boxes in the order
    they are expanded); moves int32[4 nb, 6] (the pushes, columns
    :data:`sokoban.solve._push_moves.BOX` ...);
    corral: the corral sub-search's scratch
    (:func:`sokoban.solve._corral_deadlock.new_scratch`)."""

    occ: np.ndarray
    seen: np.ndarray
    walk: np.ndarray
    fifo: np.ndarray
    seen2: np.ndarray
    walk2: np.ndarray
    fifo2: np.ndarray
    stack: np.ndarray
    child: np.ndarray
    match_work: np.ndarray
    match_parent: np.ndarray
    rows: np.ndarray
    comp: np.ndarray
    fence_mark: np.ndarray
    fence: np.ndarray
    chosen: np.ndarray
    allowed: np.ndarray
    order: np.ndarray
    moves: np.ndarray
    corral: tuple[np.ndarray, ...]


def new_work(n: int, nb: int) -> Work:
    """A :class:`Work` for ``n`` floor cells and ``nb`` boxes."""
    return Work(
        np.full(n, -1, dtype=np.int32),
        np.zeros(n, dtype=np.int32),
        np.zeros(n, dtype=np.int32),
        np.empty(n, dtype=np.int32),
        np.zeros(n, dtype=np.int32),
        np.zeros(n, dtype=np.int32),
        np.empty(n, dtype=np.int32),
        np.zeros(n, dtype=np.uint8),
        np.empty(nb, dtype=np.int16),
        np.zeros((6, nb + 1), dtype=np.int64),
        np.zeros((6, nb + 1), dtype=np.int64),
        np.empty(nb, dtype=np.int16),
        np.zeros(n, dtype=np.int64),
        np.zeros(nb, dtype=np.int64),
        np.empty(nb, dtype=np.int32),
        np.empty(nb, dtype=np.int32),
        np.ones(nb, dtype=np.uint8),
        np.empty(nb, dtype=np.int32),
        np.empty((4 * max(nb, 1), 6), dtype=np.int32),
        corral_scratch(n),
    )


@njit(internal=True)
def corral_mask(boxes, occ, seen, mark, nbr, goal, dead, corrals, work):
    """Set ``work.allowed`` to the boxes that may move: every box, or with ``corrals`` and
    a PI-corral found (:func:`sokoban.solve._corral.pi_corral`), only its fence's (a
    corral the player must enter before anything else matters). ``boxes``: int16[b];
    ``occ``: int32[n]; ``seen[c] == mark`` where the player walks."""
    allowed = work.allowed
    allowed[:] = 1
    if not corrals:
        return
    chosen = work.chosen
    size = pi_corral(
        boxes, occ, nbr, goal, dead, seen, mark, work.comp, work.fence_mark, work.fifo2,
        work.fence, chosen,
    )  # fmt: skip
    if size >= 0:
        allowed[:] = 0
        for i in range(size):
            allowed[chosen[i]] = 1


@njit(internal=True)
def child_dead(t, stand, occ, board, learned, stack):
    """Whether the child whose box was pushed onto ``t``, the player on ``stand``, is
    dead by the tests every child takes: the box frozen off a goal, a two-box deadlock
    (``board``: a :class:`~sokoban.solve._board.SearchBoard`, its table empty for none),
    a learned pattern (``learned``: :class:`~sokoban.solve._corral_deadlock.Learned`,
    size 0 for none). ``occ`` (int32[n]) already holds the child's boxes; ``stack``:
    uint8[n] scratch."""
    nbr = board.nbr
    return (
        frozen(t, occ, nbr, board.goal, board.dead, stack) == FROZEN_OFF_GOAL
        or pair_dead(t, stand, occ, board.live, board.pairs, board.starts, board.partners)
        or matches(t, stand, occ, learned)
    )
