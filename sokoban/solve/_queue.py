"""A bucket priority queue for small integer keys, in arrays.

An entry has a primary key (f, the order of expansion) and a secondary key in
``0..width-1`` that breaks ties, lowest first (A* uses the lower bound, so deeper nodes
come first). Each (primary, secondary) bucket is a LIFO list threaded through the entry
arrays; freed entries are reused. Entries are never updated: a node whose cost improves
is pushed again and the stale entry skipped when popped.

The queue is a :class:`Queue` of arrays:

- ``heads``: int32[keys * width], first entry of each bucket or -1;
- ``sizes``: int32[keys], entries per primary key; ``low``: int32[keys], a secondary key at
  or below the lowest occupied one (``width`` when the row is empty);
- ``node``, ``nxt``, ``cost``: int32[cap], each entry's node, next entry, and the node's
  cost when pushed;
- ``state``: int64[4], :data:`SIZE`, :data:`USED` (entries ever taken), :data:`FREE` (head
  of the free list), :data:`LOW` (a primary key at or below the lowest occupied one).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sokoban._arrays import lengthened
from sokoban._jit import njit

#: Slots of ``state``.
SIZE, USED, FREE, LOW = 0, 1, 2, 3


class Queue(NamedTuple):
    """The arrays of a queue (see the module docstring)."""

    heads: np.ndarray
    sizes: np.ndarray
    low: np.ndarray
    node: np.ndarray
    nxt: np.ndarray
    cost: np.ndarray
    state: np.ndarray

    @property
    def width(self) -> int:
        """Secondary keys per primary key."""
        return int(self.heads.shape[0] // self.sizes.shape[0])

    @property
    def keys(self) -> int:
        """Primary keys."""
        return int(self.sizes.shape[0])

    @property
    def capacity(self) -> int:
        """Entries."""
        return int(self.node.shape[0])


def new(keys: int, width: int, capacity: int) -> Queue:
    """An empty queue for primary keys ``0..keys-1``, ``width`` secondary keys, and room
    for ``capacity`` entries."""
    state = np.array([0, 0, -1, keys], dtype=np.int64)
    return Queue(
        np.full(keys * width, -1, dtype=np.int32),
        np.zeros(keys, dtype=np.int32),
        np.full(keys, width, dtype=np.int32),
        np.empty(capacity, dtype=np.int32),
        np.empty(capacity, dtype=np.int32),
        np.empty(capacity, dtype=np.int32),
        state,
    )


@njit
def push(queue, key, second, node, cost):
    """Add ``node`` with primary ``key`` and secondary ``second``; the caller keeps room
    (``state[USED] < cap`` or a free entry) and the keys in range."""
    heads, count, low, nodes, nxt, costs, state = queue
    width = heads.shape[0] // count.shape[0]
    entry = state[FREE]
    if entry >= 0:
        state[FREE] = nxt[entry]
    else:
        entry = state[USED]
        state[USED] += 1
    nodes[entry] = node
    costs[entry] = cost
    bucket = key * width + second
    nxt[entry] = heads[bucket]
    heads[bucket] = entry
    count[key] += 1
    if second < low[key]:
        low[key] = second
    if key < state[LOW]:
        state[LOW] = key
    state[SIZE] += 1


@njit(internal=True)
def pop(queue):
    """Remove the entry with the least (primary, secondary) key, the latest pushed among
    equals; returns its (node, cost). The queue must not be empty."""
    heads, count, low, nodes, nxt, costs, state = queue
    width = heads.shape[0] // count.shape[0]
    key = state[LOW]
    while count[key] == 0:
        key += 1
    state[LOW] = key
    second = low[key]
    while heads[key * width + second] < 0:
        second += 1
    bucket = key * width + second
    entry = heads[bucket]
    heads[bucket] = nxt[entry]
    count[key] -= 1
    low[key] = second if count[key] else width
    state[SIZE] -= 1
    nxt[entry] = state[FREE]
    state[FREE] = entry
    return nodes[entry], costs[entry]


def grown(queue: Queue, keys: int, capacity: int) -> Queue:
    """The same queue with room for more primary keys and/or more entries."""
    heads, count, low, nodes, nxt, costs, state = queue
    old_keys = count.shape[0]
    width = heads.shape[0] // old_keys
    if keys > old_keys:
        heads = np.concatenate([heads, np.full((keys - old_keys) * width, -1, np.int32)])
        count = np.concatenate([count, np.zeros(keys - old_keys, np.int32)])
        low = np.concatenate([low, np.full(keys - old_keys, width, np.int32)])
    if capacity > nodes.shape[0]:
        nodes, nxt, costs = (lengthened(a, capacity) for a in (nodes, nxt, costs))
    return Queue(heads, count, low, nodes, nxt, costs, state)
