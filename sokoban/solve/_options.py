"""The options several methods share, declared once (see
:class:`~sokoban.solve.types.Option`); a method's own options stay beside it.

The deadlock tests come in three sets of defaults: the optimal methods leave the corral
sub-searches off (their cost outweighs the few expansions they save there); greedy and
weighted A* turn them on; the feature-space search and ``fast`` also give a corral's
sub-search the boxes next to its fence, which catches fences locked from outside.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from sokoban.solve._packed_walls import PACKED_WALLS
from sokoban.solve.types import Option

#: The lower bound of the methods that take one.
BOUND_OPTION = Option(
    "bound",
    str,
    "matching",
    "the lower bound on pushes",
    choices=("matching", "nearest"),
)
CORRALS_OPTION = Option("corrals", bool, True, "PI-corral pruning")
TUNNELS_OPTION = Option("tunnels", bool, True, "tunnel macros (a box goes through in one push)")
#: Greedy search's guide by the packing order (:mod:`sokoban.solve._packing`).
PLAN_OPTION = Option(
    "plan",
    int,
    0,
    "what each box on a goal out of the packing order's plan adds to the bound (0: nothing)",
    minimum=-100,
    maximum=100,
)
#: The heuristic test of :mod:`sokoban.solve._packed_walls` (``fess`` and ``fast``).
PACKED_WALLS_OPTION = Option(
    "packed_walls",
    str,
    "chain",
    "prune positions where, the packed goals standing as walls, some empty goal can get no "
    "box of its own (a heuristic: running out of positions then proves nothing): off, "
    "prefix (the order's filled prefix as walls) or chain (the goals packed by its chains)",
    choices=tuple(PACKED_WALLS),
)

#: The deadlock tests of the searches on the node store, with the optimal methods'
#: defaults: the two-box table, corral sub-searches and the patterns they prove, and the
#: frozen-on-goals test.
DEADLOCK_OPTIONS = (
    Option("pairs", bool, True, "two-box deadlocks from a table built per level"),
    Option("corral_deadlocks", bool, False, "corral deadlocks by sub-searches of their fences"),
    Option(
        "learn",
        bool,
        True,
        "keep each corral deadlock proved as a pattern checked on every later position"
        " [corral_deadlocks]",
    ),
    Option(
        "neighbours",
        bool,
        False,
        "a corral's sub-search also moves the boxes next to its fence [corral_deadlocks]",
    ),
    # Off in every method: on the development suite it gained no level for 6-10% more
    # time on the levels solved either way (benchmarks/solver.md).
    Option(
        "tangles",
        bool,
        False,
        "sub-searches of the tangles a push makes or leaves (boxes off goals, each a step"
        " from another, diagonals too), which no corral holds when the player walks around"
        " them [corral_deadlocks]",
    ),
    Option(
        "frozen_goals",
        bool,
        True,
        "prune a position whose boxes frozen on goals, as walls, leave some goal no box can"
        " reach alone (a proof)",
    ),
)
#: The same for greedy and weighted A*: corral deadlocks on.
FAST_DEADLOCK_OPTIONS = (
    DEADLOCK_OPTIONS[0],
    dataclasses.replace(DEADLOCK_OPTIONS[1], default=True),
    *DEADLOCK_OPTIONS[2:],
)
#: The same for the feature-space search and ``fast``: corral deadlocks with the fence's
#: neighbours on, and the switch of the deadlock sets of :mod:`sokoban.solve._deadlock_sets`.
FESS_DEADLOCK_OPTIONS = (
    *FAST_DEADLOCK_OPTIONS[:3],
    dataclasses.replace(DEADLOCK_OPTIONS[3], default=True),
    *FAST_DEADLOCK_OPTIONS[4:],
    # Off by default: on the development suite the corral sub-searches learn the same
    # patterns as the search meets them (benchmarks/solver.md).
    Option(
        "deadlock_sets",
        bool,
        False,
        "prove small groups of boxes near walls dead by turns beside the searches and keep"
        " them as patterns [corral_deadlocks, learn]",
    ),
)


def deadlocks(options: dict[str, Any]) -> dict[str, Any]:
    """The values of :data:`DEADLOCK_OPTIONS` among a method's checked options."""
    return {option.name: options[option.name] for option in DEADLOCK_OPTIONS}
