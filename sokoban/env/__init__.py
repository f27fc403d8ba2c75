"""Reinforcement learning: a Gymnasium environment of Sokoban, vectorised in numba, with the
solver as expert and oracle. Needs the ``rl`` extra (``pip install "sokoban[rl]"``).

Importing this package registers three environment ids with Gymnasium:

- ``sokoban/Boxoban-v0``: levels of a Boxoban file or directory (``path=``);
- ``sokoban/Collection-v0``: levels of any XSB/SOK file (``path=``);
- ``sokoban/Generated-v0``: levels of the generator (``size=``, ``boxes=``, ``band=``).

``gymnasium.make_vec`` on the first two makes a :class:`VectorSokobanEnv`.

Modules: :mod:`~sokoban.env.env` (:class:`SokobanEnv`), :mod:`~sokoban.env.vector`
(:class:`VectorSokobanEnv`), :mod:`~sokoban.env.sources` (where levels come from),
:mod:`~sokoban.env.encoding` (levels as arrays), :mod:`~sokoban.env.pictures` (the ``rgb``
observation), :mod:`~sokoban.env.expert` (:func:`expert_actions`),
:mod:`~sokoban.env.dataset` (trajectories for imitation learning),
:mod:`~sokoban.env.curriculum` (:class:`Curriculum`) and the kernel,
:mod:`~sokoban.env._kernel`.
"""

from __future__ import annotations

import gymnasium

from sokoban.env.curriculum import Curriculum
from sokoban.env.env import ACTION_MODES, OBSERVATIONS, SokobanEnv
from sokoban.env.expert import actions_of, expert_actions
from sokoban.env.sources import Generated, LevelFiles, LevelList
from sokoban.env.vector import VectorSokobanEnv

#: The registered ids and the level source each one reads.
IDS = {
    "sokoban/Boxoban-v0": "boxoban",
    "sokoban/Collection-v0": "collection",
    "sokoban/Generated-v0": "generated",
}

for _id, _source in IDS.items():
    if _id not in gymnasium.registry:
        gymnasium.register(
            id=_id,
            entry_point="sokoban.env.env:SokobanEnv",
            # gymnasium.make_vec makes the vector environment of the file sources
            vector_entry_point=(
                "sokoban.env.vector:VectorSokobanEnv" if _source != "generated" else None
            ),
            kwargs={"source": _source},
        )

__all__ = [
    "ACTION_MODES",
    "IDS",
    "OBSERVATIONS",
    "Curriculum",
    "Generated",
    "LevelFiles",
    "LevelList",
    "SokobanEnv",
    "VectorSokobanEnv",
    "actions_of",
    "expert_actions",
]
