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
    nbr = board.nbr
    while todo:
        c = todo.popleft()
        for d in range(4):
            x = int(nbr[c, d])
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


def expand(board: Board, path: Sequence[tuple[np.ndarray, int]]) -> Solution:
    """The full solution of a path of states, root first (box floor indices per state)."""
    steps: list[Step] = []
    player = board.player
    for (before, _), (after, _) in zip(path, path[1:], strict=False):
        old, new = set(before.tolist()), set(after.tolist())
        (frm,) = old - new
        (to,) = new - old
        # One push, or several along a line (a tunnel macro).
        for d in range(4):
            run = [frm]
            while run[-1] != to and board.nbr[run[-1], d] >= 0:
                run.append(int(board.nbr[run[-1], d]))
            if run[-1] == to:
                break
        else:
            raise AssertionError(f"boxes {frm} and {to} are not in line: the path is broken")
        behind = int(board.nbr[frm, (d + 2) % 4])
        steps.extend(walk(board, player, behind, old))
        steps.extend([(DIRECTIONS[d], True)] * (len(run) - 1))
        player = run[-2]
    return Solution(tuple(steps))
