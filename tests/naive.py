"""Slow, obviously correct reference searches: the oracles for the solver kernels (the
engine's methods, the search family, the deadlock tables).

Plain Python over :class:`~sokoban.level.Level` positions, sharing no code with
:mod:`sokoban.solve`: no pruning, no bounds, every state kept in a dict or set. A
position is solved as :attr:`Level.is_solved` says: the boxes are exactly the goals.
"""

from __future__ import annotations

import heapq
import itertools
from collections import deque
from collections.abc import Iterator

from sokoban.level import Level

_STEPS = ((-1, 0), (0, -1), (1, 0), (0, 1))


def _neighbours(level: Level, cell: int) -> Iterator[tuple[int, int]]:
    """(direction index, neighbour cell) pairs inside the board."""
    x, y = cell % level.width, cell // level.width
    for d, (dx, dy) in enumerate(_STEPS):
        nx, ny = x + dx, y + dy
        if 0 <= nx < level.width and 0 <= ny < level.height:
            yield d, ny * level.width + nx


def _step(level: Level, cell: int, d: int) -> int | None:
    dx, dy = _STEPS[d]
    x, y = cell % level.width + dx, cell // level.width + dy
    if 0 <= x < level.width and 0 <= y < level.height:
        return y * level.width + x
    return None


def solved(level: Level, boxes: frozenset[int]) -> bool:
    """Whether ``boxes`` are exactly the goals (:attr:`Level.is_solved`)."""
    return boxes == level.goals


def reachable(level: Level, start: int, boxes: frozenset[int]) -> set[int]:
    """The cells the player walks to from ``start`` around ``boxes``."""
    seen = {start}
    todo = [start]
    while todo:
        cell = todo.pop()
        for _, n in _neighbours(level, cell):
            if n not in seen and n not in level.walls and n not in boxes:
                seen.add(n)
                todo.append(n)
    return seen


def pushes(
    level: Level, boxes: frozenset[int], player: int
) -> Iterator[tuple[frozenset[int], int]]:
    """Every (boxes, player) after one push from a position, the player standing where the
    box was."""
    region = reachable(level, player, boxes)
    for box in boxes:
        for d in range(4):
            behind = _step(level, box, (d + 2) % 4)
            ahead = _step(level, box, d)
            if behind not in region or ahead is None:
                continue
            if ahead in level.walls or ahead in boxes:
                continue
            yield (boxes - {box}) | {ahead}, box


def fewest_pushes(level: Level, max_states: int = 2_000_000) -> int | None:
    """The fewest pushes that solve ``level`` by breadth-first search over (boxes, player
    region) states, or ``None`` when no solution exists. Raises if over ``max_states``."""

    def key(boxes: frozenset[int], player: int) -> tuple[frozenset[int], int]:
        return boxes, min(reachable(level, player, boxes))

    start = (level.boxes, min(level.players))
    seen = {key(*start)}
    layer = [start]
    depth = 0
    while layer:
        following = []
        for boxes, player in layer:
            if solved(level, boxes):
                return depth
            for child in pushes(level, boxes, player):
                k = key(*child)
                if k not in seen:
                    seen.add(k)
                    following.append(child)
        if len(seen) > max_states:
            raise RuntimeError(f"over {max_states} states")
        layer = following
        depth += 1
    return None


def fewest_moves(level: Level, max_states: int = 2_000_000) -> int | None:
    """The fewest moves (steps) that solve ``level``: breadth-first search over (boxes,
    player cell) states, one step per edge; ``None`` when unsolvable."""
    start = (level.boxes, min(level.players))
    seen = {start}
    todo = deque([(start, 0)])
    while todo:
        (boxes, player), depth = todo.popleft()
        if solved(level, boxes):
            return depth
        for d, n in _neighbours(level, player):
            if n in level.walls:
                continue
            new_boxes = boxes
            if n in boxes:
                ahead = _step(level, n, d)
                if ahead is None or ahead in level.walls or ahead in boxes:
                    continue
                new_boxes = (boxes - {n}) | {ahead}
            state = (new_boxes, n)
            if state not in seen:
                seen.add(state)
                todo.append((state, depth + 1))
        if len(seen) > max_states:
            raise RuntimeError(f"over {max_states} states")
    return None


def lone_box_pushes(level: Level, box: int, goal: int) -> int | None:
    """The fewest pushes taking a box alone on the board from ``box`` to ``goal``, the
    player starting on the best cell; ``None`` if no player cell allows it."""
    lone = frozenset({box})
    layer = {(lone, p) for p in level.interior - lone}
    seen = {(b, min(reachable(level, p, b))) for b, p in layer}
    depth = 0
    while layer:
        following = set()
        for boxes, player in layer:
            if goal in boxes:
                return depth
            for child, q in pushes(level, boxes, player):
                k = (child, min(reachable(level, q, child)))
                if k not in seen:
                    seen.add(k)
                    following.add((child, q))
        layer = following
        depth += 1
    return None


def dead_squares(level: Level) -> frozenset[int]:
    """Floor cells from which a lone box reaches no goal, whatever the player's cell."""
    return frozenset(
        cell
        for cell in level.interior
        if cell not in level.goals
        and all(lone_box_pushes(level, cell, goal) is None for goal in level.goals)
    )


def min_matching(costs: list[list[int]]) -> int:
    """The least total of ``costs[i][perm[i]]`` over all permutations (tiny inputs)."""
    n = len(costs)
    return min(sum(costs[i][p[i]] for i in range(n)) for p in itertools.permutations(range(n)))


def fewest_pushes_then_moves(level: Level, max_states: int = 2_000_000) -> tuple[int, int] | None:
    """The least (pushes, moves) in that order that solve ``level``, ``None`` if nothing
    does: Dijkstra over (player cell, box set) with lexicographic step costs."""
    start = (min(level.players), level.boxes)
    best = {start: (0, 0)}
    todo = [(0, 0, start[0], tuple(sorted(level.boxes)))]
    while todo:
        pushed, moves, player, boxes_t = heapq.heappop(todo)
        boxes = frozenset(boxes_t)
        if best.get((player, boxes)) != (pushed, moves):
            continue
        if solved(level, boxes):
            return pushed, moves
        for d, target in _neighbours(level, player):
            if target in level.walls:
                continue
            after = boxes
            if target in boxes:
                ahead = _step(level, target, d)
                if ahead is None or ahead in level.walls or ahead in boxes:
                    continue
                after = (boxes - {target}) | {ahead}
            cost = (pushed + (after != boxes), moves + 1)
            if cost < best.get((target, after), (1 << 30, 0)):
                if len(best) >= max_states:
                    raise RuntimeError(f"over {max_states} states")
                best[(target, after)] = cost
                heapq.heappush(todo, (*cost, target, tuple(sorted(after))))
    return None
