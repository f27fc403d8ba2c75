"""The expert: the solver's optimal solution of a level as environment actions.

>>> from sokoban import Level
>>> expert_actions(Level.from_xsb("#######\\n#@ $ .#\\n#######"))
[2, 2, 2]
>>> expert_actions(Level.from_xsb("#######\\n#@ $ .#\\n#######"), action_mode="boxoban")
[8, 4, 4]
"""

from __future__ import annotations

from sokoban.direction import DIRECTIONS, Direction
from sokoban.env.encoding import check_playable
from sokoban.errors import SokobanError
from sokoban.level import Level
from sokoban.lurd import Solution

#: Boxoban's push actions by direction; its move actions are these plus 4.
_BOXOBAN_PUSH = {Direction.UP: 1, Direction.DOWN: 2, Direction.LEFT: 3, Direction.RIGHT: 4}


def actions_of(solution: Solution | str, action_mode: str = "moves") -> list[int]:
    """The actions that play ``solution`` (LURD, upper case a push) in an action mode."""
    if isinstance(solution, str):
        solution = Solution.from_lurd(solution)
    if action_mode == "moves":
        return [DIRECTIONS.index(direction) for direction, _ in solution]
    if action_mode == "boxoban":
        return [_BOXOBAN_PUSH[d] + (0 if push else 4) for d, push in solution]
    raise SokobanError(f"action_mode={action_mode!r} is not one of moves, boxoban")


def expert_actions(
    level: Level,
    action_mode: str = "moves",
    *,
    method: str = "astar",
    time_limit: float | None = 60.0,
) -> list[int]:
    """The actions of an optimal solution of ``level`` (fewest pushes with ``"astar"``,
    the default method), found by :func:`sokoban.solve.solve` within ``time_limit``
    seconds; :class:`~sokoban.errors.SokobanError` when the solver finds none."""
    from sokoban.solve import Limits, solve

    check_playable(level)
    result = solve(level, method, Limits(time=time_limit))
    if not result.solved or result.solution is None:
        name = f"level {level.title!r}" if level.title else "the level"
        raise SokobanError(f"the solver found no solution of {name}: {result.status.value}")
    return actions_of(result.solution, action_mode)
