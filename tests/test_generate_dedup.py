"""De-duplication: the canonical form is the same across the eight symmetries only."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from sokoban import Level
from sokoban.generate.dedup import Deduplicator, canonical, orientations

LEVEL = """\
#######
#.  # #
#  $  #
# #@$.#
#     #
#######"""


def _transform(level: Level, k: int) -> Level:
    """Rotate/reflect a level by drawing it as a grid and reading it back."""
    rows = np.array([list(r.ljust(level.width)) for r in level.xsb().split("\n")])
    grid = orientations(rows)[k]
    return Level.from_xsb("\n".join("".join(r).rstrip() for r in grid))


def test_eight_orientations_share_one_form() -> None:
    level = Level.from_xsb(LEVEL)
    forms = {canonical(_transform(level, k)) for k in range(8)}
    assert forms == {canonical(level)}
    # The eight drawings really differ from each other (the level has no symmetry).
    assert len({_transform(level, k).xsb() for k in range(8)}) == 8


def test_player_anywhere_in_its_region_is_the_same_level() -> None:
    a = Level.from_xsb(LEVEL)
    b = a.moved(player=a.cell(1, 4))
    assert canonical(a) == canonical(b)
    # Walled off behind boxes, the player is in another region: another level.
    c = Level.from_xsb("######\n#@$ .#\n######")
    d = Level.from_xsb("######\n# $@.#\n######")
    assert canonical(c) != canonical(d)


def test_outside_decoration_does_not_matter() -> None:
    a = Level.from_xsb("#####\n#@$.#\n#####")
    b = Level.from_xsb("  #######\n  ##@$.##\n  #######")
    assert canonical(a) == canonical(b)


def test_different_levels_differ() -> None:
    a = Level.from_xsb(LEVEL)
    b = a.moved(boxes=(a.boxes - {a.cell(3, 2)}) | {a.cell(2, 2)})
    assert canonical(a) != canonical(b)


def test_deduplicator_counts_new_levels() -> None:
    seen = Deduplicator()
    level = Level.from_xsb(LEVEL)
    assert seen.add(level)
    assert all(not seen.add(_transform(level, k)) for k in range(8))
    assert len(seen) == 1 and level in seen


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 7))
def test_random_levels_canonical_under_symmetry(seed: int, k: int) -> None:
    rng = np.random.default_rng(seed)
    grid = np.full((6, 7), "#")
    grid[1:-1, 1:-1] = rng.choice([" ", " ", " ", "#", "$", "."], size=(4, 5))
    grid[1 + rng.integers(4), 1 + rng.integers(5)] = "@"
    level = Level.from_xsb("\n".join("".join(r) for r in grid))
    assert canonical(_transform(level, k)) == canonical(level)
