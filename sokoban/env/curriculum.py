"""A curriculum: a callback that moves a generated environment up the difficulty bands as
the agent's success rate passes a threshold. It trains nothing; the training loop calls it
at the end of every episode.

>>> from sokoban.env import SokobanEnv
>>> env = SokobanEnv("generated", band="easy")
>>> curriculum = Curriculum(env, threshold=0.5, window=4)
>>> [curriculum(solved) for solved in (True, False, True, True)]
[None, None, None, 'medium']
>>> curriculum.band, env.source.band
('medium', 'medium')
"""

from __future__ import annotations

import collections
from collections.abc import Sequence
from typing import Any

from sokoban.errors import SokobanError

#: The bands of :data:`sokoban.generate.BANDS`, easiest first.
BANDS = ("easy", "medium", "hard", "expert")


class Curriculum:
    """Records episode outcomes; when the share solved among the last ``window`` episodes
    reaches ``threshold``, moves ``env`` (a :class:`~sokoban.env.SokobanEnv` on generated
    levels, wrapped or not) to the next band of ``bands`` and starts counting afresh.

    Calling it with an episode's outcome returns the new band when it moved, else ``None``.
    """

    def __init__(
        self,
        env: Any,
        bands: Sequence[str] = BANDS,
        threshold: float = 0.8,
        window: int = 100,
    ) -> None:
        if not 0.0 < threshold <= 1.0:
            raise SokobanError(f"threshold={threshold!r} is not in (0, 1]")
        if window < 1:
            raise SokobanError(f"window={window!r} is below 1")
        if not bands:
            raise SokobanError("a curriculum needs at least one band")
        self.env = getattr(env, "unwrapped", env)
        self.bands = list(bands)
        self.threshold = threshold
        self.window = window
        self.stage = 0
        self.results: collections.deque[bool] = collections.deque(maxlen=window)
        self.env.set_band(self.bands[0])

    @property
    def band(self) -> str:
        return self.bands[self.stage]

    @property
    def success_rate(self) -> float:
        """The share solved among the episodes recorded since the last move (0 before any)."""
        return sum(self.results) / len(self.results) if self.results else 0.0

    def __call__(self, solved: bool) -> str | None:
        self.results.append(bool(solved))
        full = len(self.results) == self.window
        if full and self.success_rate >= self.threshold and self.stage + 1 < len(self.bands):
            self.stage += 1
            self.results.clear()
            self.env.set_band(self.band)
            return self.band
        return None
