"""The single environment: :class:`SokobanEnv`, a :class:`gymnasium.Env` over one board.

>>> from sokoban import Level
>>> env = SokobanEnv(levels=[Level.from_xsb("#####\\n#@$.#\\n#####")], observation="index")
>>> observation, info = env.reset(seed=0)
>>> observation.tolist(), info["deadlock"]
([[0, 0, 0, 0, 0], [0, 5, 3, 2, 0], [0, 0, 0, 0, 0]], False)
>>> observation, reward, terminated, truncated, info = env.step(2)  # right: the box onto its goal
>>> round(reward, 1), terminated
(10.9, True)

Its steps are those of the vector environment's kernel on a batch of one board, so the
two agree move for move; around them it adds what a batch leaves out: the deadlock check,
the optimal distance, pictures and the level itself.
"""

from __future__ import annotations

import collections
import os
import sys
from typing import Any, SupportsFloat

import gymnasium
import numpy as np
from gymnasium import spaces

from sokoban.env import _kernel
from sokoban.env.encoding import encode, position, text
from sokoban.env.pictures import rgb, tiles
from sokoban.env.sources import Entry, Generated, LevelFiles, LevelList, LevelSource
from sokoban.errors import SokobanError
from sokoban.level import Level

#: Observation kinds.
OBSERVATIONS = ("grid", "rgb", "index")
#: Action modes: four moves (left, up, right, down), or the Boxoban convention of nine
#: (no-op, push up/down/left/right, move up/down/left/right; a move never pushes).
ACTION_MODES = {
    "moves": (_kernel.MOVES_DIRECTION, _kernel.MOVES_PUSH),
    "boxoban": (_kernel.BOXOBAN_DIRECTION, _kernel.BOXOBAN_PUSH),
}
#: Rewards of gym-sokoban, the defaults: a step, a box onto a goal, a box off a goal, solved.
REWARD_STEP, REWARD_BOX_ON, REWARD_BOX_OFF, REWARD_SOLVED = -0.1, 1.0, -1.0, 10.0
#: Steps before an episode is truncated, gym-sokoban's default.
MAX_STEPS = 120
#: Positions whose optimal distance an environment keeps.
DISTANCE_CACHE = 100_000


def make_source(
    source: str | LevelSource | None,
    path: str | os.PathLike[str] | None = None,
    levels: list[Level] | None = None,
    size: tuple[int, int] = (10, 10),
    boxes: int = 4,
    band: str | None = None,
) -> LevelSource:
    """The level source an environment's arguments name: ``"boxoban"`` (a file or a
    directory of Boxoban files, ``path``), ``"collection"`` (an XSB/SOK file, ``path``),
    ``"generated"`` (``size``, ``boxes``, ``band``), or ``levels``, a list of levels."""
    if levels is not None:
        return LevelList(levels)
    if source is None:
        source = "collection" if path is not None else "generated"
    if not isinstance(source, str):
        return source
    if source in ("boxoban", "collection"):
        if path is None:
            raise SokobanError(
                f"the {source} environment needs path=, a level file"
                + (" or a directory of Boxoban files" if source == "boxoban" else "")
            )
        return LevelFiles(path, scan=source == "collection")
    if source == "generated":
        return Generated(tuple(size), boxes, band)  # type: ignore[arg-type]
    raise SokobanError(f"unknown level source {source!r}; use boxoban, collection or generated")


def check_choice(name: str, value: str, choices: Any) -> str:
    if value not in choices:
        raise SokobanError(f"{name}={value!r} is not one of {', '.join(choices)}")
    return value


def observation_space(observation: str, shape: tuple[int, int], cell: int) -> spaces.Box:
    """The space of one board's observation in a ``(height, width)`` frame."""
    h, w = shape
    if observation == "grid":
        return spaces.Box(0, 1, (len(_kernel.GRID_CHANNELS), h, w), np.uint8)
    if observation == "index":
        return spaces.Box(0, _kernel.PLAYER_ON_GOAL, (h, w), np.uint8)
    return spaces.Box(0, 255, (h * cell, w * cell, 3), np.uint8)


class SokobanEnv(gymnasium.Env[np.ndarray, np.int64]):
    """A Sokoban level as a Gymnasium environment.

    :param source: ``"boxoban"``, ``"collection"``, ``"generated"`` or a level source of
        :mod:`sokoban.env.sources`; ``path``, ``levels``, ``size``, ``boxes`` and ``band``
        describe it (see :func:`make_source`).
    :param observation: ``"grid"`` (one-hot ``uint8[5, h, w]``: wall, floor, goal, box,
        player), ``"rgb"`` (``uint8[h * cell, w * cell, 3]``) or ``"index"`` (``uint8[h, w]``,
        one kind a cell: 0 wall, 1 floor, 2 goal, 3 box, 4 box on goal, 5 player, 6 player
        on goal).
    :param action_mode: ``"moves"`` (4) or ``"boxoban"`` (9), see :data:`ACTION_MODES`.
    :param max_steps: steps before ``truncated`` (``None``: never).
    :param terminate_on_deadlock: end the episode (``terminated``) when the deadlock check
        proves the position dead.
    :param pushes_to_go: add ``info["pushes_to_go"]``, the optimal remaining pushes found by
        A* within ``distance_time`` seconds (``None`` past it, or when dead), kept per position.
    """

    metadata = {"render_modes": ["human", "rgb_array", "ansi"], "render_fps": 8}

    def __init__(
        self,
        source: str | LevelSource | None = None,
        *,
        path: str | os.PathLike[str] | None = None,
        levels: list[Level] | None = None,
        size: tuple[int, int] = (10, 10),
        boxes: int = 4,
        band: str | None = None,
        observation: str = "grid",
        action_mode: str = "moves",
        max_steps: int | None = MAX_STEPS,
        reward_step: float = REWARD_STEP,
        reward_box_on: float = REWARD_BOX_ON,
        reward_box_off: float = REWARD_BOX_OFF,
        reward_solved: float = REWARD_SOLVED,
        terminate_on_deadlock: bool = False,
        pushes_to_go: bool = False,
        distance_time: float = 0.1,
        cell: int = 16,
        render_mode: str | None = None,
    ) -> None:
        self.source = make_source(source, path, levels, size, boxes, band)
        self.observation = check_choice("observation", observation, OBSERVATIONS)
        self.action_mode = check_choice("action_mode", action_mode, ACTION_MODES)
        if render_mode is not None:
            check_choice("render_mode", render_mode, self.metadata["render_modes"])
        self.render_mode = render_mode
        self.max_steps = max_steps or 0
        self.rewards = (reward_step, reward_box_on, reward_box_off, reward_solved)
        self.terminate_on_deadlock = terminate_on_deadlock
        self.pushes_to_go = pushes_to_go
        self.distance_time = distance_time
        self.cell = cell
        self._tiles = tiles(cell)
        self.shape = self.source.shape
        self.observation_space = observation_space(self.observation, self.shape, cell)
        self.action_space = spaces.Discrete(len(ACTION_MODES[self.action_mode][0]))
        h, w = self.shape
        # The kernel's arrays, for one board; the pool holds the level being played.
        self._index = np.zeros((1, h, w), np.uint8)
        self._grid = np.zeros((1, len(_kernel.GRID_CHANNELS), h, w), np.uint8)
        self._player = np.zeros(1, np.int32)
        self._off = np.zeros(1, np.int32)
        self._steps = np.zeros(1, np.int32)
        self._pending = np.zeros(1, np.uint8)
        self._level_of = np.zeros(1, np.int64)
        self._pool = np.zeros((1, h, w), np.uint8)
        self._pool_player = np.zeros(1, np.int32)
        self._pool_off = np.zeros(1, np.int32)
        self._stream = np.zeros(1, np.int64)
        self._cursor = np.zeros(1, np.int64)
        self._action = np.zeros(1, np.int64)
        self._reward = np.zeros(1, np.float64)
        self._terminated = np.zeros(1, np.bool_)
        self._truncated = np.zeros(1, np.bool_)
        self._pushed = np.zeros(1, np.int8)
        self._distances: collections.OrderedDict[tuple[object, ...], int | None] = (
            collections.OrderedDict()
        )
        self._entry: Entry | None = None
        self._dead = False

    # --- the level -----------------------------------------------------------------------

    @property
    def level(self) -> Level:
        """The level being played, at its start (``reset`` draws it)."""
        if self._entry is None:
            raise SokobanError("no level yet: call reset() first")
        return self._entry.level

    @property
    def position(self) -> Level:
        """The position now, as a :class:`sokoban.Level`."""
        return position(self.level, self._index[0])

    def set_band(self, band: str | None) -> None:
        """Change the difficulty band of a generated source from the next reset on."""
        if not isinstance(self.source, Generated):
            raise SokobanError("only a generated level source has difficulty bands")
        from sokoban.generate.difficulty import check_band

        self.source.band = None if band is None else check_band(band)

    # --- the Gymnasium API ---------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Draw a level from the source (with the seed, if given) and start it.

        ``options={"level": level}`` starts that :class:`sokoban.Level` instead."""
        super().reset(seed=seed)
        if options and options.get("level") is not None:
            chosen = options["level"]
            self._entry = Entry(chosen, chosen.title)
        else:
            self._entry = self.source.draw(self.np_random)
        board = encode(self._entry.level, self.shape)
        self._pool[0] = board.index
        self._pool_player[0] = board.player
        self._pool_off[0] = board.off
        _kernel._reset(
            self._index,
            self._grid,
            self.observation == "grid",
            self._player,
            self._off,
            self._steps,
            self._pending,
            self._level_of,
            self._pool,
            self._pool_player,
            self._pool_off,
            self._stream,
        )
        self._dead = self._check_dead()
        if self.render_mode == "human":
            self.render()
        return self._observe(), self._info()

    def step(
        self, action: np.int64 | int
    ) -> tuple[np.ndarray, SupportsFloat, bool, bool, dict[str, Any]]:
        if self._entry is None:
            raise SokobanError("call reset() before step()")
        if not self.action_space.contains(action):
            raise SokobanError(f"action {action!r} is not in {self.action_space}")
        self._action[0] = action
        direction, push = ACTION_MODES[self.action_mode]
        self._pending[0] = 0
        _kernel._step(
            self._action,
            direction,
            push,
            self._index,
            self._grid,
            self.observation == "grid",
            self._player,
            self._off,
            self._steps,
            self._pending,
            self._level_of,
            self._pool,
            self._pool_player,
            self._pool_off,
            self._stream,
            self._cursor,
            self._reward,
            self._terminated,
            self._truncated,
            self._pushed,
            self.max_steps,
            *self.rewards,
        )
        self._pending[0] = 0
        terminated = bool(self._terminated[0])
        truncated = bool(self._truncated[0])
        if self._pushed[0]:
            self._dead = self._check_dead()
        if self._dead and self.terminate_on_deadlock and not terminated:
            terminated, truncated = True, False
        if self.render_mode == "human":
            self.render()
        return self._observe(), float(self._reward[0]), terminated, truncated, self._info()

    def render(self) -> Any:
        """``"rgb_array"``: the picture; ``"ansi"``: the board as XSB text; ``"human"``:
        that text printed to the terminal."""
        if self._entry is None:
            raise SokobanError("call reset() before render()")
        if self.render_mode == "rgb_array":
            return rgb(self._index[0], self._tiles)
        if self.render_mode in ("ansi", "human"):
            board = self._board_text()
            if self.render_mode == "ansi":
                return board
            sys.stdout.write(board + "\n\n")
            sys.stdout.flush()
        return None

    # --- the parts around the kernel -----------------------------------------------------

    def _board_text(self) -> str:
        level = self.level
        return text(self._index[0, : level.height, : level.width])

    def _observe(self) -> np.ndarray:
        if self.observation == "grid":
            return np.array(self._grid[0])
        if self.observation == "index":
            return np.array(self._index[0])
        return rgb(self._index[0], self._tiles)

    def _check_dead(self) -> bool:
        from sokoban.solve.check import check

        # The cheap tests only: a step costs microseconds.
        return check(self.position, searches=False).dead

    def _info(self) -> dict[str, Any]:
        assert self._entry is not None
        info: dict[str, Any] = {
            "deadlock": self._dead,
            "level_id": self._entry.id,
            "title": self._entry.level.title,
            "steps": int(self._steps[0]),
        }
        if self.pushes_to_go:
            info["pushes_to_go"] = self.distance()
        return info

    def distance(self) -> int | None:
        """The optimal pushes from the position now to solved, from A* within
        ``distance_time`` seconds; ``None`` when dead or out of time. Kept per position
        (boxes and the player's region)."""
        now = self.position
        if now.is_solved:
            return 0
        if self._dead:
            return None
        key = (self.level.walls, self.level.goals, now.boxes, min(now.reachable()))
        if key in self._distances:
            self._distances.move_to_end(key)
            return self._distances[key]
        from sokoban.solve import Limits, solve

        result = solve(now, "astar", Limits(time=self.distance_time))
        found = (
            result.solution.pushes
            if result.solved and result.optimal and result.solution is not None
            else None
        )
        self._distances[key] = found
        if len(self._distances) > DISTANCE_CACHE:
            self._distances.popitem(last=False)
        return found
