"""The transposition table: open addressing with linear probing over an int32 array of
node indices (-1 empty), keyed by the nodes' Zobrist hashes and checked against the stored
states. Its capacity is a power of two kept at least twice the node store's, so probes
stay short and it never fills.
"""

from __future__ import annotations

import numpy as np

from sokoban._jit import njit


def zobrist(n: int, seed: int = 20261129) -> tuple[np.ndarray, np.ndarray]:
    """Random uint64 keys per floor cell for a box there and for the player there: the
    first ``2 n`` draws of the seed's generator, a row of ``n`` then another."""
    draws = _draws(seed, 2 * n)
    return draws[:n].copy(), draws[n : 2 * n].copy()


#: The first draws of each seed's generator, kept (and grown when a board needs more):
#: making a generator costs more than the search of a small level. Copies go out, so no
#: caller can change them.
_DRAWS: dict[int, np.ndarray] = {}


def _draws(seed: int, count: int) -> np.ndarray:
    draws = _DRAWS.get(seed)
    if draws is None or len(draws) < count:
        rng = np.random.default_rng(seed)
        top = np.iinfo(np.uint64).max
        draws = rng.integers(0, top, size=max(count, 4096), dtype=np.uint64, endpoint=True)
        _DRAWS[seed] = draws
    return draws


@njit
def find(table, key, boxes, player, nd_hash, nd_boxes, nd_player):
    """The node holding state (``boxes``, ``player``) with hash ``key``, or ``-(slot + 1)``
    for the empty slot where it belongs.

    ``table``: int32[t] (t a power of two); ``key``: uint64; ``boxes``: int16[b] sorted;
    ``nd_hash``: uint64[cap]; ``nd_boxes``: int16[cap, b]; ``nd_player``: int32[cap].
    """
    mask = table.shape[0] - 1
    i = np.int64(key & np.uint64(mask))
    nb = boxes.shape[0]
    while True:
        node = table[i]
        if node < 0:
            return -(i + 1)
        if nd_hash[node] == key and nd_player[node] == player:
            same = True
            for k in range(nb):
                if nd_boxes[node, k] != boxes[k]:
                    same = False
                    break
            if same:
                return node
        i = (i + 1) & mask


@njit
def rebuild(table, nd_hash, count):
    """Empty ``table`` (int32[t]) and insert nodes ``0..count-1`` by their hashes
    (``nd_hash``: uint64[cap]); states are distinct, so no comparison is needed."""
    table[:] = -1
    mask = table.shape[0] - 1
    for node in range(count):
        i = np.int64(nd_hash[node] & np.uint64(mask))
        while table[i] >= 0:
            i = (i + 1) & mask
        table[i] = node
