"""The vector environment: :class:`VectorSokobanEnv` steps ``num_envs`` boards in one
kernel call, with no Python per board.

>>> from sokoban import Level
>>> envs = VectorSokobanEnv(levels=[Level.from_xsb("#####\\n#@$.#\\n#####")], num_envs=3)
>>> observations, info = envs.reset(seed=0)
>>> observations.shape
(3, 5, 3, 5)
>>> observations, rewards, terminated, truncated, info = envs.step([2, 2, 0])
>>> terminated.tolist(), rewards.round(1).tolist()
([True, True, False], [10.9, 10.9, -0.1])

Boards that end start again at their next step (Gymnasium's ``NEXT_STEP`` auto-reset): that
step returns the new level's first observation, a reward of 0 and neither flag. Levels are
drawn from the source's whole pool by the environment's seed.
"""

from __future__ import annotations

import os
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from sokoban.env import _kernel
from sokoban.env.encoding import Encoded, encode, position
from sokoban.env.env import (
    ACTION_MODES,
    MAX_STEPS,
    REWARD_BOX_OFF,
    REWARD_BOX_ON,
    REWARD_SOLVED,
    REWARD_STEP,
    check_choice,
    make_source,
    observation_space,
)
from sokoban.env.sources import LevelFiles, LevelList, LevelSource, cached_playable, playable
from sokoban.errors import SokobanError
from sokoban.level import Level

#: The observations a vector environment keeps (pictures belong to the single one).
VECTOR_OBSERVATIONS = ("grid", "index")


class Pool:
    """Every level a vector environment may start, encoded once in the frame of the largest:
    ``index`` (``uint8[L, h, w]``), ``player`` and ``off`` (``int32[L]``), the levels'
    ``ids``, and :meth:`level` to get a level back. A file source keeps only the arrays (a
    level object takes about 16 KB, its arrays 108 bytes on a 10 x 10 board, about 300 with
    its id): :meth:`level` reads the level's file again when asked."""

    def __init__(self, source: LevelSource) -> None:
        self.ids: list[str] = []
        self._list: list[Level] | None = None
        self._files: list[str] = []
        self._where: list[tuple[int, int]] = []
        # One pass over the levels, each encoded in its own frame; then every board in the
        # largest frame (a file is parsed once, and no level object is kept).
        boards: list[Encoded] = []
        if isinstance(source, LevelList):
            self._list = source.levels
            self.ids = list(source.ids)
            boards = [encode(level) for level in source.levels]
        elif isinstance(source, LevelFiles):
            for f, path in enumerate(source.files):
                self._files.append(str(path))
                levels, ids = playable(str(path))
                self.ids += ids
                self._where += [(f, k) for k in range(len(levels))]
                boards += [encode(level) for level in levels]
        else:
            raise SokobanError(
                "a vector environment plays levels from files or a list; "
                "make a list of generated levels first"
            )
        h = max([source.shape[0]] + [b.index.shape[0] for b in boards])
        w = max([source.shape[1]] + [b.index.shape[1] for b in boards])
        self.shape = (h, w)
        self.index = np.zeros((len(boards), h, w), np.uint8)  # walls around
        self.player = np.empty(len(boards), np.int32)
        self.off = np.empty(len(boards), np.int32)
        for i, board in enumerate(boards):
            rows, cols = board.index.shape
            self.index[i, :rows, :cols] = board.index
            y, x = divmod(board.player, cols)
            self.player[i] = y * w + x
            self.off[i] = board.off

    def __len__(self) -> int:
        return len(self.ids)

    def level(self, i: int) -> Level:
        """Level ``i`` of the pool."""
        if self._list is not None:
            return self._list[i]
        f, k = self._where[i]
        return cached_playable(self._files[f])[0][k]


class VectorSokobanEnv(gymnasium.vector.VectorEnv[np.ndarray, np.ndarray, np.ndarray]):
    """``num_envs`` Sokoban boards stepped together.

    :param path: a level file or a directory of them (Boxoban's), or ``levels``: a list.
    :param observation: ``"grid"`` (``uint8[n, 5, h, w]``) or ``"index"`` (``uint8[n, h, w]``),
        as :class:`~sokoban.env.SokobanEnv` gives them.
    :param copy: return a copy of the observations; ``False`` returns the environment's own
        array, which the next step overwrites.

    The other parameters are :class:`~sokoban.env.SokobanEnv`'s.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        num_envs: int = 1,
        *,
        levels: list[Level] | None = None,
        source: str | LevelSource | None = None,
        observation: str = "grid",
        action_mode: str = "moves",
        max_steps: int | None = MAX_STEPS,
        reward_step: float = REWARD_STEP,
        reward_box_on: float = REWARD_BOX_ON,
        reward_box_off: float = REWARD_BOX_OFF,
        reward_solved: float = REWARD_SOLVED,
        copy: bool = True,
    ) -> None:
        if num_envs < 1:
            raise SokobanError(f"num_envs must be at least 1, not {num_envs}")
        if levels is None and path is not None and source in (None, "boxoban", "collection"):
            # The pool finds the frame as it reads the files: no scan before.
            self.pool = Pool(LevelFiles(path))
        else:
            self.pool = Pool(make_source(source, path, levels))
        self.observation = check_choice("observation", observation, VECTOR_OBSERVATIONS)
        self.action_mode = check_choice("action_mode", action_mode, ACTION_MODES)
        self.num_envs = num_envs
        self.max_steps = max_steps or 0
        self.rewards = (reward_step, reward_box_on, reward_box_off, reward_solved)
        self.copy = copy
        self.shape = h, w = self.pool.shape
        self.single_observation_space = observation_space(self.observation, self.shape, 1)
        self.single_action_space = spaces.Discrete(len(ACTION_MODES[action_mode][0]))
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._direction, self._push = ACTION_MODES[action_mode]
        self._levels = self.pool.index
        self._level_player = self.pool.player
        self._level_off = self.pool.off
        n = num_envs
        self._index = np.zeros((n, h, w), np.uint8)
        grid_shape = (n, len(_kernel.GRID_CHANNELS), h, w) if observation == "grid" else (1,) * 4
        self._grid = np.zeros(grid_shape, np.uint8)
        self._player = np.zeros(n, np.int32)
        self._off = np.zeros(n, np.int32)
        self._steps = np.zeros(n, np.int32)
        self._pending = np.zeros(n, np.uint8)
        self._level_of = np.zeros(n, np.int64)
        self._stream = np.zeros(max(4096, 4 * n), np.int64)
        self._cursor = np.zeros(1, np.int64)
        self._rewards = np.zeros(n, np.float64)
        self._terminated = np.zeros(n, np.bool_)
        self._truncated = np.zeros(n, np.bool_)
        self._pushed = np.zeros(n, np.int8)
        self._rng = np.random.default_rng()
        self._started = False

    # --- the boards ----------------------------------------------------------------------

    @property
    def level_indices(self) -> np.ndarray:
        """``int64[n]``: each board's level, as an index into :attr:`pool`."""
        return self._level_of.copy()

    def level(self, board: int) -> Level:
        """The level board ``board`` plays, at its start."""
        return self.pool.level(int(self._level_of[board]))

    def position(self, board: int) -> Level:
        """Board ``board``'s position now, as a :class:`sokoban.Level`."""
        return position(self.level(board), self._index[board])

    # --- the Gymnasium API ---------------------------------------------------------------

    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Every board at the start of a level drawn by the seed."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        chosen = self._rng.integers(len(self.pool), size=self.num_envs)
        self._refill()
        _kernel._reset(
            self._index,
            self._grid,
            self.observation == "grid",
            self._player,
            self._off,
            self._steps,
            self._pending,
            self._level_of,
            self._levels,
            self._level_player,
            self._level_off,
            chosen,
        )
        self._started = True
        return self._observe(), {}

    def _refill(self) -> None:
        self._stream[:] = self._rng.integers(len(self.pool), size=len(self._stream))
        self._cursor[0] = 0

    def step(
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        if not self._started:
            raise SokobanError("call reset() before step()")
        actions = np.asarray(actions, dtype=np.int64)
        if actions.shape != (self.num_envs,):
            raise SokobanError(
                f"actions of shape {actions.shape} for {self.num_envs} boards; "
                f"give one action a board"
            )
        top = len(self._direction)
        if actions.min() < 0 or actions.max() >= top:
            bad = actions[(actions < 0) | (actions >= top)][0]
            raise SokobanError(f"action {int(bad)} is outside 0..{top - 1}")
        if self._cursor[0] + self.num_envs > len(self._stream):
            self._refill()
        _kernel._step(
            actions,
            self._direction,
            self._push,
            self._index,
            self._grid,
            self.observation == "grid",
            self._player,
            self._off,
            self._steps,
            self._pending,
            self._level_of,
            self._levels,
            self._level_player,
            self._level_off,
            self._stream,
            self._cursor,
            self._rewards,
            self._terminated,
            self._truncated,
            self._pushed,
            self.max_steps,
            *self.rewards,
        )
        if self.copy:
            return (
                self._observe(),
                self._rewards.copy(),
                self._terminated.copy(),
                self._truncated.copy(),
                {},
            )
        return self._observe(), self._rewards, self._terminated, self._truncated, {}

    def _observe(self) -> np.ndarray:
        array = self._grid if self.observation == "grid" else self._index
        return array.copy() if self.copy else array
