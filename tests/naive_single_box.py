"""Slow, obviously correct single-box tables: one forward search per (player, box) start.

The oracle for :mod:`sokoban.analysis`. It shares no code with it: plain breadth-first search
over (player, box) positions for moves, and a 0-1 breadth-first search (walks cost nothing,
pushes one) for pushes. A goal is reached the first time the box stands on it.
"""

from __future__ import annotations

from collections import deque

STEPS = ((-1, 0), (0, -1), (1, 0), (0, 1))


def grid_floor(rows: list[str]) -> set[tuple[int, int]]:
    """Floor cells ``(x, y)`` of a room drawn as text rows: non-wall cells enclosed by walls."""
    height = len(rows)
    width = max(len(r) for r in rows)
    grid = [r.ljust(width) for r in rows]
    open_cells = {(x, y) for y in range(height) for x in range(width) if grid[y][x] != "#"}
    outside = {(x, y) for x, y in open_cells if x in (0, width - 1) or y in (0, height - 1)}
    todo = list(outside)
    while todo:
        x, y = todo.pop()
        for dx, dy in STEPS:
            n = (x + dx, y + dy)
            if n in open_cells and n not in outside:
                outside.add(n)
                todo.append(n)
    return open_cells - outside


def forward_costs(floor: set, player: tuple, box: tuple, push_only: bool) -> dict:
    """Fewest moves (or pushes, with ``push_only``) until the box first stands on each cell.

    Returns ``{cell: cost}`` for every cell the box can reach from this start, the box's
    own cell at cost 0.
    """
    start = (player, box)
    cost = {start: 0}
    todo = deque([start])
    done = set()
    reached = {}
    while todo:
        state = todo.popleft()
        if state in done:
            continue
        done.add(state)
        (px, py), b = state
        c = cost[state]
        if b not in reached:
            reached[b] = c
        for dx, dy in STEPS:
            step = (px + dx, py + dy)
            if step not in floor:
                continue
            if step == b:
                beyond = (b[0] + dx, b[1] + dy)
                if beyond not in floor:
                    continue
                nxt, weight = (step, beyond), 1
            else:
                nxt, weight = (step, b), 0 if push_only else 1
            if nxt not in cost or c + weight < cost[nxt]:
                cost[nxt] = c + weight
                if weight:
                    todo.append(nxt)
                else:
                    todo.appendleft(nxt)
    # Every box position reached ends its first visit in a solved state; the first visit
    # in cost order is the optimum since states come off the queue in cost order.
    return reached


def table(rows: list[str]) -> dict:
    """``{(player, box, goal): (moves, pushes) or None}`` for every placement of the room:
    box off goal, player off box, all three connected through the floor."""
    floor = grid_floor(rows)
    part = {}
    for cell in sorted(floor):
        if cell in part:
            continue
        part[cell] = cell
        todo = [cell]
        while todo:
            x, y = todo.pop()
            for dx, dy in STEPS:
                n = (x + dx, y + dy)
                if n in floor and n not in part:
                    part[n] = cell
                    todo.append(n)
    result = {}
    for box in floor:
        for player in floor:
            if player == box or part[player] != part[box]:
                continue
            moves = forward_costs(floor, player, box, push_only=False)
            pushes = forward_costs(floor, player, box, push_only=True)
            for goal in floor:
                if goal == box or part[goal] != part[box]:
                    continue
                if goal in moves:
                    result[player, box, goal] = (moves[goal], pushes[goal])
                else:
                    result[player, box, goal] = None
    return result


def empty_room(width: int, height: int) -> list[str]:
    """Rows of a room whose interior is ``width`` x ``height`` floor cells."""
    return ["#" * (width + 2)] + ["#" + " " * width + "#"] * height + ["#" * (width + 2)]


def maxima(rows: list[str]) -> tuple[int | None, int | None]:
    """The most moves and the most pushes over the room's solvable placements."""
    values = [v for v in table(rows).values() if v is not None]
    if not values:
        return None, None
    return max(m for m, _ in values), max(p for _, p in values)


if __name__ == "__main__":
    # Print the empty-room maxima: python tests/naive_single_box.py 8
    import sys

    size = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    for w in range(1, size + 1):
        for h in range(1, w + 1):
            m, p = maxima(empty_room(w, h))
            print(
                f"{w} x {h}: moves {m} (2(W+H)-5 = {2 * (w + h) - 5}),"
                f" pushes {p} (W+H-4 = {w + h - 4})",
                flush=True,
            )
