"""The node store the forward searches share (best-first and feature-space): arrays
indexed by node, grown by doubling, and the slots of the counters array their kernels
keep.

A node is a state: the sorted box floor indices and a player floor index, either the
least floor index the player can reach without pushing (canonical, push-level searches)
or the player's exact cell (move-optimal search). Nodes are found again through the
transposition table of :mod:`sokoban.solve._table`, keyed by the nodes' Zobrist hashes.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sokoban._arrays import doubled

#: Slots of the counters (int64 array) every search kernel on a :class:`Store` keeps:
#: nodes expanded, generated (children made, duplicates included), stored, the solved
#: node, the largest cost g queued, and the node of a backward search the solved node
#: met (-1: none; see :mod:`sokoban.solve._pull_search`). A search's own counters
#: follow, from :data:`OWN`.
EXPANDED, GENERATED, NODES, GOAL, MAXG, MEET = 0, 1, 2, 3, 4, 5
#: The first counter slot a search may use for its own counts.
OWN = 6


class Store(NamedTuple):
    """The nodes of a search, arrays indexed by node: the boxes int16[cap, b], the player
    cell (canonical or exact) int32, the parent int32, the cost g int32, the bound h
    int32, the Zobrist hash uint64, closed uint8, the cell the last push left its box on
    int32 (-1 at the root), the moves of the node's path int32 and the player's exact
    cell at its end int32."""

    boxes: np.ndarray
    player: np.ndarray
    parent: np.ndarray
    g: np.ndarray
    h: np.ndarray
    hash: np.ndarray
    closed: np.ndarray
    last: np.ndarray
    moves: np.ndarray
    stand: np.ndarray

    @property
    def capacity(self) -> int:
        return int(self.boxes.shape[0])

    @property
    def nbytes(self) -> int:
        """Bytes of the arrays."""
        return sum(a.nbytes for a in self)

    def doubled(self) -> Store:
        """The same nodes with room for as many again."""
        return Store(*(doubled(a) for a in self))

    def path(self, node: int) -> list[tuple[np.ndarray, int]]:
        """The states from the root to ``node``: box floor indices and player cell."""
        nodes = []
        while node >= 0:
            nodes.append(node)
            node = int(self.parent[node])
        nodes.reverse()
        # One gather for all the states (rows of a fresh array, not of the store).
        return list(zip(self.boxes[nodes], self.player[nodes].tolist(), strict=True))


def new_store(capacity: int, nboxes: int) -> Store:
    """An empty :class:`Store` for ``capacity`` nodes."""
    return Store(
        np.zeros((capacity, nboxes), dtype=np.int16),
        np.zeros(capacity, dtype=np.int32),
        np.zeros(capacity, dtype=np.int32),
        np.zeros(capacity, dtype=np.int32),
        np.zeros(capacity, dtype=np.int32),
        np.zeros(capacity, dtype=np.uint64),
        np.zeros(capacity, dtype=np.uint8),
        np.zeros(capacity, dtype=np.int32),
        np.zeros(capacity, dtype=np.int32),
        np.zeros(capacity, dtype=np.int32),
    )
