"""The transposition table: open addressing with linear probing over an int32 array of
node indices (-1 empty), keyed by the nodes' Zobrist hashes and checked against the stored
states. Its capacity is a power of two kept at least twice the node store's, so probes
stay short and it never fills.
"""

from __future__ import annotations

import functools

import numpy as np

from sokoban._jit import njit


def zobrist(n: int, seed: int = 20261129) -> tuple[np.ndarray, np.ndarray]:
    """Random uint64 keys per floor cell for a box there and for the player there."""
    keys = _keys(n, seed)
    return keys[0].copy(), keys[1].copy()


@functools.lru_cache(maxsize=32)
def _keys(n: int, seed: int) -> np.ndarray:
    # Kept per size: making the generator costs more than a small search (copies go out,
    # so no caller can change the cached keys).
    rng = np.random.default_rng(seed)
    return rng.integers(0, np.iinfo(np.uint64).max, size=(2, n), dtype=np.uint64, endpoint=True)


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
