"""Turn a path of states (box sets) into full LURD: each push preceded by a shortest walk."""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

import numpy as np

from sokoban.direction import DIRECTIONS
from sokoban.lurd import Solution, Step
from sokoban.solve._board import Board


def walk(board: Board, start: int, goal: int, boxes: set[int]) -> list[Step]:
    """A shortest walk over floor indices from ``start`` to ``goal`` around ``boxes``."""
    if start == goal:
        return []
    came = {start: (-1, -1)}
    todo = deque([start])
    nbr = board.nbr_rows
    while todo:
        c = todo.popleft()
        for d in range(4):
            x = nbr[c][d]
            if x < 0 or x in came or x in boxes:
                continue
            came[x] = (c, d)
            if x == goal:
                steps: list[Step] = []
                while x != start:
                    x, d = came[x]
                    steps.append((DIRECTIONS[d], False))
                return steps[::-1]
            todo.append(x)
    raise AssertionError(f"no walk from floor {start} to {goal}: the search path is broken")


def _region(board: Board, start: int, boxes: set[int]) -> set[int]:
    """The floor cells the player reaches from ``start`` around ``boxes``."""
    seen = {start}
    todo = [start]
    nbr = board.nbr_rows
    while todo:
        c = todo.pop()
        for d in range(4):
            x = nbr[c][d]
            if x >= 0 and x not in seen and x not in boxes:
                seen.add(x)
                todo.append(x)
    return seen


def _line(
    board: Board, player: int, frm: int, to: int, old: set[int], rest: set[int], end: int
) -> tuple[int, int] | None:
    """(direction, pushes) of a straight run of pushes taking the box on ``frm`` to ``to``
    with the player starting on ``player``, the other boxes ``rest``, and ending in the
    region of ``end``; None when there is none."""
    nbr = board.nbr_rows
    for d in range(4):
        run = [frm]
        while run[-1] != to:
            nxt = nbr[run[-1]][d]
            if nxt < 0 or nxt in rest:
                break
            run.append(nxt)
        if run[-1] != to:
            continue
        if len(run) == 2:
            return d, 1  # one push: the only way to move a box one cell (the search's)
        behind = nbr[frm][(d + 2) % 4]
        if behind < 0 or behind in old or behind not in _region(board, player, old):
            continue
        if end in _region(board, run[-2], rest | {to}):
            return d, len(run) - 1
    return None


def _carried(board: Board, player: int, frm: int, to: int, rest: set[int], end: int) -> list[Step]:
    """The fewest pushes (each after a shortest walk) carrying the box on ``frm`` to
    ``to`` around the boxes ``rest``, ending with the player in the region of ``end``: a
    breadth-first search over (box cell, player cell next to it) states."""
    nbr = board.nbr_rows
    start = _region(board, player, rest | {frm})
    came: dict[tuple[int, int], tuple[int, int] | None] = {}
    todo: deque[tuple[int, int]] = deque()
    for s in range(4):
        p = nbr[frm][s]
        if p >= 0 and p in start:
            came[frm, s] = None
            todo.append((frm, s))
    while todo:
        c, s = todo.popleft()
        d = (s + 2) % 4
        t = nbr[c][d]
        if t < 0 or t in rest:
            continue
        region = _region(board, c, rest | {t})
        if t == to and end in region:
            pushes = [(c, d)]
            state = came[c, s]
            while state is not None:
                b, side = state
                pushes.append((b, (side + 2) % 4))
                state = came[b, side]
            steps: list[Step] = []
            here = player
            for b, d2 in reversed(pushes):
                behind = nbr[b][(d2 + 2) % 4]
                steps.extend(walk(board, here, behind, rest | {b}))
                steps.append((DIRECTIONS[d2], True))
                here = b
            return steps
        for e in range(4):
            r = nbr[t][e]
            if r >= 0 and r in region and (t, e) not in came:
                came[t, e] = (c, s)
                todo.append((t, e))
    raise AssertionError(f"no pushes carry the box from {frm} to {to}: the path is broken")


def expand(board: Board, path: Sequence[tuple[np.ndarray, int]]) -> Solution:
    """The full solution of a path of states, root first (box floor indices and the player
    cell per state, canonical or exact). A step moves one box: one push, several along a
    line (a tunnel macro), or any carry of the box (a packing macro), found again here."""
    steps: list[Step] = []
    player = board.player
    for (before, _), (after, end) in zip(path, path[1:], strict=False):
        old, new = set(before.tolist()), set(after.tolist())
        (frm,) = old - new
        (to,) = new - old
        rest = old - {frm}
        line = _line(board, player, frm, to, old, rest, end)
        if line is not None:
            d, pushes = line
            behind = board.nbr_rows[frm][(d + 2) % 4]
            steps.extend(walk(board, player, behind, old))
            steps.extend([(DIRECTIONS[d], True)] * pushes)
            player = frm
            for _ in range(pushes - 1):
                player = board.nbr_rows[player][d]
            continue
        carried = _carried(board, player, frm, to, rest, end)
        steps.extend(carried)
        player = _last_stand(board, to, carried)
    return Solution(tuple(steps))


def _last_stand(board: Board, box: int, steps: list[Step]) -> int:
    """The player's cell after ``steps`` whose last push left the box on ``box``."""
    d = DIRECTIONS.index(steps[-1][0])
    return board.nbr_rows[box][(d + 2) % 4]
