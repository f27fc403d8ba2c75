"""Property tests of the engine's data structures against Python's own: the bucket queue
(:mod:`sokoban.solve._queue`) against :mod:`heapq`, the transposition table
(:mod:`sokoban.solve._table`) against a ``dict``."""

from __future__ import annotations

import heapq

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from sokoban.solve import _queue, _table
from sokoban.solve._successors import unlink

KEYS, WIDTH = 12, 4

# A queue operation: push (key, second) or pop; a few "grow" steps in between.
queue_ops = st.lists(
    st.one_of(
        st.tuples(st.just("push"), st.integers(0, KEYS - 1), st.integers(0, WIDTH - 1)),
        st.just(("pop",)),
        st.just(("grow",)),
    ),
    max_size=120,
)


@settings(max_examples=150, deadline=None)
@given(queue_ops)
def test_bucket_queue_pops_like_a_heap(ops: list[tuple]) -> None:  # type: ignore[type-arg]
    queue = _queue.new(KEYS, WIDTH, 4)
    heap: list[tuple[int, int, int, int, int]] = []
    keys = KEYS
    for seq, op in enumerate(ops):
        if op[0] == "grow":
            keys += 3
            queue = _queue.grown(queue, keys, 2 * queue.capacity)
        elif op[0] == "push":
            if queue.state[_queue.FREE] < 0 and queue.state[_queue.USED] >= queue.capacity:
                queue = _queue.grown(queue, 0, 2 * queue.capacity)  # the caller keeps room
            _, key, second = op
            node, cost = seq, 1000 + seq
            _queue.push(queue, key, second, node, cost)
            # Least (key, second) first; among equals the latest pushed (LIFO).
            heapq.heappush(heap, (key, second, -seq, node, cost))
        elif heap:
            node, cost = _queue.pop(queue)
            _, _, _, want_node, want_cost = heapq.heappop(heap)
            assert (int(node), int(cost)) == (want_node, want_cost)
        assert queue.state[_queue.SIZE] == len(heap)
    while heap:
        node, _ = _queue.pop(queue)
        assert int(node) == heapq.heappop(heap)[3]


# A table operation: look a state up and store it if absent, or remove a stored one.
# States are few and their hashes collide often (3 bits), so probes run long.
states = st.tuples(st.integers(0, 5), st.integers(0, 5), st.integers(0, 3))
table_ops = st.lists(st.tuples(st.sampled_from(["find", "find", "unlink"]), states), max_size=80)


@settings(max_examples=150, deadline=None)
@given(table_ops)
def test_transposition_table_acts_like_a_dict(ops: list[tuple[str, tuple[int, int, int]]]) -> None:
    capacity = 128
    nd_boxes = np.zeros((capacity, 2), np.int16)
    nd_player = np.zeros(capacity, np.int32)
    nd_hash = np.zeros(capacity, np.uint64)
    table = np.full(8, -1, np.int32)
    model: dict[tuple[int, int, int], int] = {}
    count = 0

    def key_of(state: tuple[int, int, int]) -> np.uint64:
        return np.uint64((state[0] * 7 + state[1] * 3 + state[2]) % 8)

    for op, state in ops:
        boxes = np.array(sorted(state[:2]), np.int16)
        player = state[2]
        canonical = (int(boxes[0]), int(boxes[1]), player)
        key = key_of(canonical)
        found = int(_table.find(table, key, boxes, player, nd_hash, nd_boxes, nd_player))
        if op == "unlink":
            if canonical in model:
                assert found == model[canonical]
                assert unlink(table, found, nd_hash)
                del model[canonical]
            else:
                assert found < 0
            continue
        if canonical in model:
            assert found == model[canonical]
            continue
        assert found < 0 and table[-found - 1] == -1
        nd_boxes[count], nd_player[count], nd_hash[count] = boxes, player, key
        table[-found - 1] = count
        model[canonical] = count
        count += 1
        if 2 * len(model) > table.shape[0]:
            # Grow as the engine does: a table twice the size, rebuilt over live nodes.
            live = sorted(model.values())
            bigger = np.full(2 * table.shape[0], -1, np.int32)
            mask = bigger.shape[0] - 1
            for node in live:
                i = int(nd_hash[node]) & mask
                while bigger[i] >= 0:
                    i = (i + 1) & mask
                bigger[i] = node
            table = bigger
    for state, node in model.items():
        boxes = np.array(state[:2], np.int16)
        assert (
            _table.find(table, key_of(state), boxes, state[2], nd_hash, nd_boxes, nd_player) == node
        )


def test_rebuild_finds_every_node_again() -> None:
    rng = np.random.default_rng(3)
    count = 300
    nd_boxes = np.sort(rng.integers(0, 50, (count, 3)), axis=1).astype(np.int16)
    nd_player = rng.integers(0, 50, count).astype(np.int32)
    # Distinct states (as the engine stores), hashes squeezed into few values to collide.
    _, first = np.unique(np.column_stack([nd_boxes, nd_player]), axis=0, return_index=True)
    nd_boxes, nd_player = nd_boxes[np.sort(first)], nd_player[np.sort(first)]
    nd_hash = (rng.integers(0, 16, len(nd_player))).astype(np.uint64)
    table = np.empty(1024, np.int32)
    _table.rebuild(table, nd_hash, len(nd_player))
    for node in range(len(nd_player)):
        found = _table.find(
            table, nd_hash[node], nd_boxes[node], nd_player[node], nd_hash, nd_boxes, nd_player
        )
        assert found == node


def test_zobrist_keys_are_the_generators_first_draws() -> None:
    # The keys are kept between boards; each size must get what a fresh generator gives,
    # as the corral memo (direct-mapped by key) depends on them. 3000 passes the first
    # stream kept, so it is drawn again.
    for n in (1, 37, 64, 3000, 5):
        rng = np.random.default_rng(20261129)
        top = np.iinfo(np.uint64).max
        fresh = rng.integers(0, top, size=(2, n), dtype=np.uint64, endpoint=True)
        zbox, zplayer = _table.zobrist(n)
        assert np.array_equal(zbox, fresh[0]) and np.array_equal(zplayer, fresh[1])
        zbox[0] ^= np.uint64(1)  # a copy: the kept keys stay as they were
        assert np.array_equal(_table.zobrist(n)[0], fresh[0])


def test_a_doubled_store_keeps_its_nodes_and_adds_zero_rows() -> None:
    from sokoban.solve._store import new_store

    store = new_store(4, 3)
    rng = np.random.default_rng(1)
    for array in store:
        array[...] = rng.integers(1, 100, array.shape)
    grown = store.doubled()
    assert grown.capacity == 8
    for before, after in zip(store, grown, strict=True):
        assert after.dtype == before.dtype and after.shape[1:] == before.shape[1:]
        assert np.array_equal(after[:4], before) and not after[4:].any()
