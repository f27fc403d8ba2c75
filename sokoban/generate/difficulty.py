"""Difficulty: measures of a level's optimal solution and search, a score, and a band.

The score (documented with its calibration in ``docs/generator.md``) adds what makes a
level hard for people and for programs:

``score = pushes + 2 * box_changes + 4 * log2(1 + nodes / 100)``

- ``pushes``: the fewest pushes that solve the level (length of the task);
- ``box_changes``: how often the optimal solution turns from one box to another
  (interleaving, the thing that makes small levels tricky);
- ``nodes``: the states the optimal solver expanded (how much search the level needs),
  on a log scale so that a level needing ten times the search scores a fixed amount more.

Bands cut the score: :data:`BANDS`. A user targets a band with ``difficulty=``.

>>> band(10.0), band(30.0), band(45.0), band(70.0)
('easy', 'medium', 'hard', 'expert')
"""

from __future__ import annotations

import dataclasses
import math

from sokoban.level import Level
from sokoban.lurd import Metrics, Solution, replay

#: Weights of the score: ``score = pushes + W_CHANGES * box_changes + W_NODES * log2(1 +
#: nodes / NODES_UNIT)``.
W_CHANGES = 2.0
W_NODES = 4.0
NODES_UNIT = 100.0

#: Score bands, ``name: (low, high)``; a score falls in the band with ``low <= s < high``.
BANDS: dict[str, tuple[float, float]] = {
    "easy": (0.0, 25.0),
    "medium": (25.0, 40.0),
    "hard": (40.0, 60.0),
    "expert": (60.0, math.inf),
}


def band(score: float) -> str:
    """The band a score falls in."""
    for name, (low, high) in BANDS.items():
        if low <= score < high:
            return name
    return "easy"


def check_band(name: str) -> str:
    """``name`` if it is a band, else a ``ValueError`` that lists the bands."""
    if name not in BANDS:
        raise ValueError(f"unknown difficulty {name!r}; choose one of {', '.join(BANDS)}")
    return name


def score(pushes: int, box_changes: int, nodes: int) -> float:
    """The difficulty score (see the module documentation)."""
    return pushes + W_CHANGES * box_changes + W_NODES * math.log2(1.0 + nodes / NODES_UNIT)


@dataclasses.dataclass(frozen=True, slots=True)
class Difficulty(Metrics):
    """Measures of a level from its optimal solution and the solver's search: the
    solution's :class:`~sokoban.lurd.Metrics`, and more.

    ``walk_ratio`` is walking steps per push, ``cells_visited`` the distinct cells the
    player stands on while solving (start included), ``nodes`` the states the solver
    expanded. ``score`` and ``band`` combine them (see :func:`score`).
    """

    walk_ratio: float
    cells_visited: int
    nodes: int
    score: float
    band: str

    def as_dict(self) -> dict[str, object]:
        return dataclasses.asdict(self)


def measure(level: Level, solution: Solution | str, nodes: int) -> Difficulty:
    """Measure a level by its optimal ``solution`` and the solver's expanded ``nodes``.

    >>> lv = Level.from_xsb("######\\n#@$ .#\\n######")
    >>> d = measure(lv, "RR", nodes=3)
    >>> d.pushes, d.box_changes, d.cells_visited, d.band
    (2, 1, 3, 'easy')
    """
    played = replay(level, solution)
    m = played.metrics
    cell = level.player
    visited = {cell}
    width = level.width
    for direction, _ in played.solution.steps:
        assert cell is not None
        cell += direction.dy * width + direction.dx
        visited.add(cell)
    s = score(m.pushes, m.box_changes, nodes)
    return Difficulty(
        **dataclasses.asdict(m),
        walk_ratio=round((m.moves - m.pushes) / m.pushes, 3) if m.pushes else 0.0,
        cells_visited=len(visited),
        nodes=int(nodes),
        score=round(s, 2),
        band=band(s),
    )
