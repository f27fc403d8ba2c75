"""Layouts: every maker gives a walled, connected floor; the rules of each method hold."""

from __future__ import annotations

import numpy as np
import pytest

from sokoban import Level
from sokoban.generate import layouts
from sokoban.generate.layouts import LAYOUTS, LayoutError


@pytest.mark.parametrize("name", sorted(LAYOUTS))
@pytest.mark.parametrize("size", [(10, 10), (7, 12), (15, 9)])
def test_makers_give_walled_connected_floor(name: str, size: tuple[int, int]) -> None:
    width, height = size
    rng = np.random.default_rng(5)
    for _ in range(10):
        floor = LAYOUTS[name](width, height, rng)
        assert floor.shape == (height, width) and floor.dtype == bool
        assert not floor[0].any() and not floor[-1].any()
        assert not floor[:, 0].any() and not floor[:, -1].any()
        assert layouts.is_connected(floor)
        assert floor.sum() >= 4


@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_same_seed_same_layout(name: str) -> None:
    a = LAYOUTS[name](10, 10, np.random.default_rng(42))
    b = LAYOUTS[name](10, 10, np.random.default_rng(42))
    c = LAYOUTS[name](10, 10, np.random.default_rng(43))
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c) or name == "rooms"  # rooms has few 10 x 10 plans


def test_templates_obey_rejection_rules() -> None:
    rng = np.random.default_rng(0)
    for _ in range(20):
        floor = layouts.templates(11, 11, rng)
        assert not layouts.dead_ends(floor).any()
        assert not layouts.open_areas(floor)
        assert floor.sum() * 3 >= 81


def test_templates_give_up_with_a_clear_error() -> None:
    # A 5 x 3 board has a 3 x 1 corridor: filling its dead ends leaves no floor.
    with pytest.raises(LayoutError, match="passed the rules in 5 tries"):
        layouts.templates(5, 3, np.random.default_rng(0), attempts=5)


def test_random_walk_fill_and_obstacle_density() -> None:
    rng = np.random.default_rng(1)
    floor = layouts.random_walk(12, 12, rng, fill=0.5)
    assert floor.sum() >= 50  # half of the 10 x 10 interior, brushes may overshoot
    open_room = layouts.obstacles(12, 12, rng, density=0.0)
    assert open_room.sum() == 100
    dense = layouts.obstacles(12, 12, rng, density=0.3)
    assert dense.sum() == 70


def test_rule_helpers_on_known_shapes() -> None:
    floor = np.zeros((5, 7), dtype=bool)
    floor[1:4, 1:5] = True  # a 3 x 4 open area
    assert layouts.open_areas(floor)
    floor[2, 2] = False
    assert not layouts.open_areas(floor)
    corridor = np.zeros((3, 6), dtype=bool)
    corridor[1, 1:5] = True
    ends = layouts.dead_ends(corridor)
    assert ends[1, 1] and ends[1, 4] and not ends[1, 2]
    split = corridor.copy()
    split[1, 2] = False
    assert not layouts.is_connected(split)
    assert layouts.largest_region(split).sum() == 2


def test_too_small_board() -> None:
    with pytest.raises(LayoutError, match="2 x 9"):
        layouts.random_walk(2, 9, np.random.default_rng(0))


def test_layout_from_level_and_to_level() -> None:
    text = "\n".join(["  #####", "###   #", "#   $ #", "# . @ #", "#######"])
    floor = layouts.parse_layout(text)
    assert floor.sum() == 3 + 5 + 5
    level = layouts.to_level(floor)
    assert Level.from_xsb(text).walls <= level.walls
    assert len(level.walls) == level.width * level.height - 13
    assert not level.boxes and not level.goals


def test_layout_file_without_a_room() -> None:
    with pytest.raises(LayoutError, match="no room"):
        layouts.parse_layout("#####\n#   \n#####")  # open on the right: nothing enclosed
