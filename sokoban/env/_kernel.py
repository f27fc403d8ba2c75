"""The environment's kernel: one step of many boards, with auto-reset, in one call.

A board is its *index* array, one small integer a cell (:data:`WALL` ... :data:`PLAYER_ON_GOAL`),
and it is the state itself: a step rewrites the two or three cells that change, and the
``grid`` observation (one-hot channels, see :data:`GRID_CHANNELS`) when it is kept, so a
step costs the same on any board size. Boards of one batch share a frame of ``h x w``
cells; smaller levels are padded with walls. Cells are ``y * w + x`` in that frame.

Every level the boards may start from is in a *pool*: ``levels`` (``uint8[L, h, w]``,
index arrays), ``level_player`` (``int32[L]``, the player's cell) and ``level_off``
(``int32[L]``, boxes off goals). A board that ended (solved or out of steps) is marked
``pending`` and starts the next level of ``stream`` (``int64[S]``, pool indices drawn by the
caller) at its next step, in board order: the caller's seed fixes which board gets which.
"""

from __future__ import annotations

import numpy as np

from sokoban._jit import njit

#: Cell kinds of the ``index`` observation.
WALL, FLOOR, GOAL, BOX, BOX_ON_GOAL, PLAYER, PLAYER_ON_GOAL = range(7)
#: Channels of the ``grid`` observation, in order.
GRID_CHANNELS = ("wall", "floor", "goal", "box", "player")

#: Action modes: for each action, its direction (0..3 left, up, right, down as
#: :data:`sokoban.DIRECTIONS`; -1 no move) and whether it may push a box.
MOVES_DIRECTION = np.array([0, 1, 2, 3], np.int8)
MOVES_PUSH = np.array([1, 1, 1, 1], np.uint8)
#: The Boxoban convention: no-op, push up/down/left/right, move up/down/left/right.
BOXOBAN_DIRECTION = np.array([-1, 1, 3, 0, 2, 1, 3, 0, 2], np.int8)
BOXOBAN_PUSH = np.array([0, 1, 1, 1, 1, 0, 0, 0, 0], np.uint8)


@njit(internal=True)
def _put(index, grid, with_grid, i, cell, kind):
    """Write ``kind`` into board ``i``'s cell (and its box and player channels)."""
    w = index.shape[2]
    y = cell // w
    x = cell - y * w
    index[i, y, x] = kind
    if with_grid:
        grid[i, 3, y, x] = 1 if (kind == BOX or kind == BOX_ON_GOAL) else 0
        grid[i, 4, y, x] = 1 if (kind == PLAYER or kind == PLAYER_ON_GOAL) else 0


@njit(internal=True)
def _load(index, grid, with_grid, player, off, steps, i, levels, level_player, level_off, level):
    """Board ``i`` at the start of pool level ``level``."""
    h = index.shape[1]
    w = index.shape[2]
    for y in range(h):
        for x in range(w):
            kind = levels[level, y, x]
            index[i, y, x] = kind
            if with_grid:
                grid[i, 0, y, x] = 1 if kind == WALL else 0
                grid[i, 1, y, x] = 0 if kind == WALL else 1
                grid[i, 2, y, x] = (
                    1 if (kind == GOAL or kind == BOX_ON_GOAL or kind == PLAYER_ON_GOAL) else 0
                )
                grid[i, 3, y, x] = 1 if (kind == BOX or kind == BOX_ON_GOAL) else 0
                grid[i, 4, y, x] = 1 if (kind == PLAYER or kind == PLAYER_ON_GOAL) else 0
    player[i] = level_player[level]
    off[i] = level_off[level]
    steps[i] = 0


@njit(internal=True)
def _is_goal(kind):
    return kind == GOAL or kind == BOX_ON_GOAL or kind == PLAYER_ON_GOAL


@njit(internal=True)
def _kind_at(index, i, cell):
    w = index.shape[2]
    y = cell // w
    return index[i, y, cell - y * w]


@njit(internal=True)
def _move(index, grid, with_grid, player, off, i, direction, may_push):
    """Move board ``i``'s player one step; returns 0 blocked, 1 walked, 2 pushed, and
    the change in boxes on goals (-1, 0, 1)."""
    w = index.shape[2]
    if direction < 0:
        return 0, 0
    if direction == 0:
        delta = -1
    elif direction == 1:
        delta = -w
    elif direction == 2:
        delta = 1
    else:
        delta = w
    here = player[i]
    target = here + delta
    kind = _kind_at(index, i, target)
    if kind == WALL:
        return 0, 0
    pushed = kind == BOX or kind == BOX_ON_GOAL
    change = 0
    if pushed:
        if not may_push:
            return 0, 0
        beyond = target + delta
        after = _kind_at(index, i, beyond)
        if after != FLOOR and after != GOAL:
            return 0, 0
        if after == GOAL:
            _put(index, grid, with_grid, i, beyond, BOX_ON_GOAL)
            change += 1
        else:
            _put(index, grid, with_grid, i, beyond, BOX)
        if kind == BOX_ON_GOAL:
            change -= 1
    # The player leaves its cell and enters the target.
    _put(index, grid, with_grid, i, here, GOAL if _is_goal(_kind_at(index, i, here)) else FLOOR)
    _put(index, grid, with_grid, i, target, PLAYER_ON_GOAL if _is_goal(kind) else PLAYER)
    player[i] = target
    off[i] -= change
    return 2 if pushed else 1, change


@njit
def _step(
    actions,
    action_direction,
    action_push,
    index,
    grid,
    with_grid,
    player,
    off,
    steps,
    pending,
    level_of,
    levels,
    level_player,
    level_off,
    stream,
    cursor,
    rewards,
    terminated,
    truncated,
    pushes,
    max_steps,
    reward_step,
    reward_box_on,
    reward_box_off,
    reward_solved,
):
    """One step of every board.

    :param actions: ``int64[n]``, an action per board (checked by the caller).
    :param action_direction: ``int8[A]``, ``action_push``: ``uint8[A]``: the action mode.
    :param index: ``uint8[n, h, w]``; ``grid``: ``uint8[n, 5, h, w]`` (kept when
        ``with_grid``); ``player``, ``off``, ``steps``: ``int32[n]``; ``pending``:
        ``uint8[n]``; ``level_of``: ``int64[n]``, each board's pool level.
    :param stream: ``int64[S]`` pool levels for boards that start again, read from
        ``cursor[0]`` on; the caller leaves at least ``n`` unread.
    :param rewards: ``float64[n]``; ``terminated``, ``truncated``: ``bool[n]``;
        ``pushes``: ``int8[n]``, 1 where the step pushed a box: outputs.
    :param max_steps: steps after which a board is truncated (0: never).
    """
    n = index.shape[0]
    for i in range(n):
        terminated[i] = False
        truncated[i] = False
        pushes[i] = 0
        if pending[i]:
            level = stream[cursor[0]]
            cursor[0] += 1
            _load(
                index,
                grid,
                with_grid,
                player,
                off,
                steps,
                i,
                levels,
                level_player,
                level_off,
                level,
            )
            level_of[i] = level
            pending[i] = 0
            rewards[i] = 0.0
            continue
        a = actions[i]
        moved, change = _move(
            index, grid, with_grid, player, off, i, action_direction[a], action_push[a]
        )
        reward = reward_step
        if change > 0:
            reward += reward_box_on
        elif change < 0:
            reward += reward_box_off
        if moved == 2:
            pushes[i] = 1
        steps[i] += 1
        if off[i] == 0:
            reward += reward_solved
            terminated[i] = True
            pending[i] = 1
        elif max_steps > 0 and steps[i] >= max_steps:
            truncated[i] = True
            pending[i] = 1
        rewards[i] = reward


@njit
def _reset(
    index,
    grid,
    with_grid,
    player,
    off,
    steps,
    pending,
    level_of,
    levels,
    level_player,
    level_off,
    chosen,
):
    """Every board at the start of its level ``chosen[i]`` (``int64[n]``)."""
    for i in range(index.shape[0]):
        _load(
            index,
            grid,
            with_grid,
            player,
            off,
            steps,
            i,
            levels,
            level_player,
            level_off,
            chosen[i],
        )
        level_of[i] = chosen[i]
        pending[i] = 0
