"""Level generator: layouts, reverse (pull) search, solver verification, difficulty.

>>> from sokoban.generate import generate
>>> report = generate((10, 10), boxes=4, count=2, seed=7)  # doctest: +SKIP
>>> [g.difficulty.band for g in report.levels]  # doctest: +SKIP
['medium', 'easy']

Modules: :mod:`~sokoban.generate.layouts` (where the floor is),
:mod:`~sokoban.generate.reverse` (placing boxes by pulls),
:mod:`~sokoban.generate.dedup` (canonical forms), :mod:`~sokoban.generate.difficulty`
(measures, score, bands) and :mod:`~sokoban.generate.generator` (the loop).
"""

from sokoban.generate.dedup import Deduplicator, canonical
from sokoban.generate.difficulty import BANDS, Difficulty, measure
from sokoban.generate.generator import (
    Attempt,
    GeneratedLevel,
    GenerateError,
    GenerateReport,
    Spec,
    attempt,
    check_request,
    generate,
)
from sokoban.generate.layouts import LAYOUTS, LayoutError
from sokoban.generate.reverse import PullSearch, pull_search, reverse_walk

__all__ = [
    "BANDS",
    "LAYOUTS",
    "Attempt",
    "Deduplicator",
    "Difficulty",
    "GenerateError",
    "GenerateReport",
    "GeneratedLevel",
    "LayoutError",
    "PullSearch",
    "Spec",
    "attempt",
    "canonical",
    "check_request",
    "generate",
    "measure",
    "pull_search",
    "reverse_walk",
]
