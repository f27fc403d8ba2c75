"""Slow, obviously correct reference searches for the search family's tests.

Plain Python over level cells, sharing no code with :mod:`sokoban.solve`: no deadlock
pruning, no bounds, every state kept in a dict.
"""

from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Iterator

from sokoban.level import Level

_STEPS = ((-1, 0), (0, -1), (1, 0), (0, 1))


def _step(level: Level, cell: int, d: int) -> int | None:
    """The cell one step from ``cell`` in direction ``d``, ``None`` off the board or in a wall."""
    dx, dy = _STEPS[d]
    x, y = cell % level.width + dx, cell // level.width + dy
    if not (0 <= x < level.width and 0 <= y < level.height):
        return None
    target = y * level.width + x
    return None if target in level.walls else target


def _solved(level: Level, boxes: frozenset[int]) -> bool:
    return boxes <= level.goals


def _moves(
    level: Level, player: int, boxes: frozenset[int]
) -> Iterator[tuple[int, frozenset[int]]]:
    """Every (player, boxes) one step away."""
    for d in range(4):
        target = _step(level, player, d)
        if target is None:
            continue
        if target in boxes:
            beyond = _step(level, target, d)
            if beyond is None or beyond in boxes:
                continue
            yield target, (boxes - {target}) | {beyond}
        else:
            yield target, boxes


def fewest_moves(level: Level, max_states: int = 2_000_000) -> int | None:
    """The fewest steps (walks and pushes) that solve ``level``, ``None`` if none do:
    breadth-first search over (player cell, box set)."""
    start = (level.player, level.boxes)
    assert start[0] is not None
    if _solved(level, level.boxes):
        return 0
    depth = {start: 0}
    todo = deque([start])
    while todo:
        state = todo.popleft()
        for child in _moves(level, *state):
            if child in depth:
                continue
            depth[child] = depth[state] + 1
            if _solved(level, child[1]):
                return depth[child]
            if len(depth) > max_states:
                raise RuntimeError(f"more than {max_states} states: too big for the reference")
            todo.append(child)
    return None


def _region(level: Level, player: int, boxes: frozenset[int]) -> frozenset[int]:
    seen = {player}
    todo = [player]
    while todo:
        cell = todo.pop()
        for d in range(4):
            n = _step(level, cell, d)
            if n is not None and n not in boxes and n not in seen:
                seen.add(n)
                todo.append(n)
    return frozenset(seen)


def fewest_pushes(level: Level, max_states: int = 2_000_000) -> int | None:
    """The fewest pushes that solve ``level``, ``None`` if no solution exists: uniform-cost
    search over (player region, box set), every push costing one."""
    assert level.player is not None
    if _solved(level, level.boxes):
        return 0
    start = (_region(level, level.player, level.boxes), level.boxes)
    cost = {start: 0}
    queue = [(0, 0, start)]
    tie = 0
    while queue:
        g, _, state = heapq.heappop(queue)
        if g > cost[state]:
            continue
        region, boxes = state
        if _solved(level, boxes):
            return g
        for box in boxes:
            for d in range(4):
                behind = _step(level, box, (d + 2) % 4)
                ahead = _step(level, box, d)
                if behind not in region or ahead is None or ahead in boxes:
                    continue
                after = (boxes - {box}) | {ahead}
                child = (_region(level, box, after), after)
                if g + 1 < cost.get(child, g + 2):
                    cost[child] = g + 1
                    if len(cost) > max_states:
                        raise RuntimeError(f"more than {max_states} states: too big")
                    tie += 1
                    heapq.heappush(queue, (g + 1, tie, child))
    return None


def fewest_pushes_then_moves(level: Level, max_states: int = 2_000_000) -> tuple[int, int] | None:
    """The least (pushes, moves) in that order that solve ``level``, ``None`` if nothing
    does: Dijkstra over (player cell, box set) with lexicographic step costs."""
    assert level.player is not None
    start = (level.player, level.boxes)
    best = {start: (0, 0)}
    todo = [(0, 0, level.player, tuple(sorted(level.boxes)))]
    while todo:
        pushes, moves, player, boxes_t = heapq.heappop(todo)
        boxes = frozenset(boxes_t)
        if best.get((player, boxes)) != (pushes, moves):
            continue
        if _solved(level, boxes):
            return pushes, moves
        for target, after in _moves(level, player, boxes):
            cost = (pushes + (after != boxes), moves + 1)
            if cost < best.get((target, after), (1 << 30, 0)):
                if len(best) >= max_states:
                    raise RuntimeError("reference search too big")
                best[(target, after)] = cost
                heapq.heappush(todo, (*cost, target, tuple(sorted(after))))
    return None
