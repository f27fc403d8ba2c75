"""Trajectories of the expert for imitation learning: levels drawn from a source, solved
optimally, replayed in :class:`~sokoban.env.SokobanEnv`, and written as one ``.npz`` file.

The arrays of :func:`collect` (``T`` steps of ``E`` episodes, end to end):

- ``observations``: ``uint8[T, ...]``, the observation before each action;
- ``actions``: ``int8[T]``; ``rewards``: ``float32[T]``;
- ``returns``: ``float32[T]``, the sum of the rewards from that step to the end,
  discounted by ``gamma``;
- ``pushes_to_go``: ``int16[T]``, the optimal pushes left before the action (a suffix of a
  push-optimal solution is push-optimal, so these are exact);
- ``episode``: ``int32[T]``, the episode of each step; ``starts``: ``int64[E + 1]``, where
  each episode starts (its last entry is ``T``);
- ``level_id``: ``str[E]``; ``optimal_pushes``: ``int32[E]``.

Levels the solver does not solve within the time limit are left out (the summary counts them).
"""

from __future__ import annotations

import dataclasses
import io
from typing import Any

import numpy as np

from sokoban.env.env import SokobanEnv
from sokoban.env.expert import actions_of
from sokoban.env.sources import Generated, LevelList, LevelSource
from sokoban.level import Level


@dataclasses.dataclass(frozen=True, slots=True)
class Task:
    """One level to solve and replay, picklable for workers: a level drawn already, or
    (``level`` ``None``) a generated source and the seed its worker draws with."""

    number: int
    level: Level | None
    id: str
    shape: tuple[int, int]
    observation: str
    action_mode: str
    time_limit: float | None
    gamma: float
    generator: Generated | None = None
    seed: int = 0


@dataclasses.dataclass(frozen=True, slots=True)
class Episode:
    """One replayed optimal solution, its arrays as in the module's list."""

    number: int
    id: str
    observations: np.ndarray
    actions: np.ndarray
    rewards: np.ndarray
    returns: np.ndarray
    pushes_to_go: np.ndarray


@dataclasses.dataclass(frozen=True, slots=True)
class Dataset:
    """What :func:`collect` made: the episodes in draw order and the levels left unsolved."""

    episodes: list[Episode]
    unsolved: list[str]

    @property
    def steps(self) -> int:
        return sum(len(e.actions) for e in self.episodes)

    def arrays(self) -> dict[str, np.ndarray]:
        """The arrays of the module's list."""
        episodes = self.episodes
        lengths = [len(e.actions) for e in episodes]
        starts = np.zeros(len(episodes) + 1, np.int64)
        np.cumsum(lengths, out=starts[1:])

        def joined(name: str, dtype: Any) -> np.ndarray:
            parts = [getattr(e, name) for e in episodes]
            return np.concatenate(parts).astype(dtype) if parts else np.zeros(0, dtype)

        return {
            "observations": (
                np.concatenate([e.observations for e in episodes])
                if episodes
                else np.zeros((0,), np.uint8)
            ),
            "actions": joined("actions", np.int8),
            "rewards": joined("rewards", np.float32),
            "returns": joined("returns", np.float32),
            "pushes_to_go": joined("pushes_to_go", np.int16),
            "episode": np.repeat(np.arange(len(episodes), dtype=np.int32), lengths),
            "starts": starts,
            "level_id": np.array([e.id for e in episodes], dtype=str),
            "optimal_pushes": np.array(
                [int(e.pushes_to_go[0]) if len(e.pushes_to_go) else 0 for e in episodes],
                np.int32,
            ),
        }

    def npz(self) -> bytes:
        """The arrays as the bytes of a compressed ``.npz`` file."""
        out = io.BytesIO()
        # numpy's stubs take the keywords for its allow_pickle flag
        np.savez_compressed(out, **self.arrays())  # type: ignore[arg-type]
        return out.getvalue()


def episode(task: Task) -> Episode | None:
    """Solve a task's level optimally and replay it; ``None`` when the solver finds nothing."""
    from sokoban.solve import Limits, solve

    if task.level is None:
        assert task.generator is not None
        drawn = task.generator.draw(np.random.default_rng(task.seed))
        task = dataclasses.replace(task, level=drawn.level, id=drawn.id)
    assert task.level is not None
    result = solve(task.level, "astar", Limits(time=task.time_limit))
    if not result.solved or result.solution is None:
        return None
    solution = result.solution
    actions = actions_of(solution, task.action_mode)
    env = SokobanEnv(
        LevelList([task.level], [task.id], shape=task.shape),
        observation=task.observation,
        action_mode=task.action_mode,
        max_steps=None,
    )
    observation, _ = env.reset(seed=0)
    observations, rewards = [], []
    terminated = not actions
    for action in actions:
        observations.append(observation)
        observation, reward, terminated, _, _ = env.step(action)
        rewards.append(float(reward))
    assert terminated, "an optimal solution replayed in the environment ends solved"
    left = solution.pushes - np.cumsum([0] + [int(push) for _, push in solution][:-1])
    returns = np.zeros(len(rewards), np.float64)
    total = 0.0
    for t in range(len(rewards) - 1, -1, -1):
        total = rewards[t] + task.gamma * total
        returns[t] = total
    return Episode(
        task.number,
        task.id,
        np.stack(observations) if observations else np.zeros((0,), np.uint8),
        np.array(actions, np.int8),
        np.array(rewards, np.float32),
        returns.astype(np.float32),
        left.astype(np.int16),
    )


def tasks(
    source: LevelSource,
    count: int,
    seed: int | None = None,
    observation: str = "grid",
    action_mode: str = "moves",
    time_limit: float | None = 10.0,
    gamma: float = 1.0,
) -> list[Task]:
    """``count`` levels drawn from ``source`` by ``seed``, as tasks (a generated level is
    made by the worker that solves it, from a seed drawn here)."""
    rng = np.random.default_rng(seed)
    made: list[Task] = []
    for i in range(count):
        if isinstance(source, Generated):
            drawn_seed = int(rng.integers(2**63))
            made.append(
                Task(
                    i,
                    None,
                    "",
                    source.shape,
                    observation,
                    action_mode,
                    time_limit,
                    gamma,
                    source,
                    drawn_seed,
                )
            )
        else:
            entry = source.draw(rng)
            made.append(
                Task(
                    i,
                    entry.level,
                    entry.id,
                    source.shape,
                    observation,
                    action_mode,
                    time_limit,
                    gamma,
                )
            )
    return made


def collect(
    source: LevelSource,
    count: int,
    *,
    seed: int | None = None,
    observation: str = "grid",
    action_mode: str = "moves",
    time_limit: float | None = 10.0,
    gamma: float = 1.0,
    workers: int | None = 0,
    scheduler: str | None = None,
    description: str | None = None,
) -> Dataset:
    """The expert's episodes on ``count`` levels drawn from ``source`` by ``seed``, solved on
    local processes (``workers``; 0 here) or a Dask cluster (``scheduler``), in draw order
    whatever order the workers finish in."""
    from sokoban import batch

    work = tasks(source, count, seed, observation, action_mode, time_limit, gamma)
    done: dict[int, Episode | None] = {}
    for task, result in batch.run(episode, work, workers, scheduler, description=description):
        done[task.number] = result
    episodes = [e for i in range(len(work)) if (e := done[i]) is not None]
    unsolved = [work[i].id or f"generated #{i + 1}" for i in range(len(work)) if done[i] is None]
    return Dataset(episodes, unsolved)
