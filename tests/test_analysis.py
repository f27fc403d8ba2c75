"""Single-box tables: the backward kernels against the forward-search oracle, witnesses by
replay, and the empty-room maxima."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sokoban import Level, verify
from sokoban.analysis import AnalysisError, analyse, forward_solution, room_floor
from sokoban.analysis.single_box import placement_level

sys.path.insert(0, str(Path(__file__).resolve().parent))
import naive_single_box as naive  # noqa: E402

ROOMS = {
    "pillar": ["######", "#    #", "#  # #", "#    #", "######"],
    "corridor bend": ["#######", "#     #", "### # #", "  #   #", "  #####"],
    "two parts": ["#########", "#   #   #", "#   #   #", "#########"],
    "ragged": ["  #####", "###   #", "#   # #", "# #   #", "#    ##", "######"],
    "corridor": ["#######", "#     #", "#######"],
}


def room_level(rows: list[str]) -> Level:
    return Level.from_xsb("\n".join(rows))


def fast_table(rows: list[str]) -> dict:
    """The kernel's table in the oracle's form: ``(x, y)`` cells."""
    level = room_level(rows)
    table = analyse(level)
    out = {}
    n = len(table.cells)
    for g in range(n):
        for b in range(n):
            for p in range(n):
                m = int(table.moves[g, b, p])
                if m == -2:
                    continue
                xy = [level.xy(int(table.cells[i])) for i in (p, b, g)]
                out[tuple(xy)] = None if m == -1 else (m, int(table.pushes[g, b, p]))
    return out


@pytest.mark.parametrize("name", sorted(ROOMS))
def test_whole_table_matches_forward_search(name):
    rows = ROOMS[name]
    expected = naive.table(rows)
    assert fast_table(rows) == expected
    assert any(v is None for v in expected.values()) or name == "corridor"


@pytest.mark.parametrize("size", [(w, h) for w in range(1, 6) for h in range(1, w + 1)])
def test_empty_room_tables_match_forward_search(size):
    rows = naive.empty_room(*size)
    assert fast_table(rows) == naive.table(rows)


@settings(max_examples=25, deadline=None)
@given(
    st.integers(2, 5),
    st.integers(2, 4),
    st.sets(st.tuples(st.integers(0, 4), st.integers(0, 3)), max_size=5),
)
def test_random_rooms_match_forward_search(width, height, obstacles):
    rows = [list(r) for r in naive.empty_room(width, height)]
    for x, y in obstacles:
        if x < width and y < height:
            rows[y + 1][x + 1] = "#"
    text = ["".join(r) for r in rows]
    if not room_floor(room_level(text)):
        return
    assert fast_table(text) == naive.table(text)


def expected_empty_maxima(width: int, height: int) -> tuple[int | None, int | None]:
    """The truth, checked with the oracle for every size up to 8 x 8 (docs/single-box.md):
    2(W+H)-5 moves and W+H-4 pushes when both sides are at least 2, except 2 x 2, where no
    placement is solvable; a corridor of length L >= 3 allows L-2 of each."""
    long, short = max(width, height), min(width, height)
    if short == 1:
        return (long - 2, long - 2) if long >= 3 else (None, None)
    if (width, height) == (2, 2):
        return None, None
    return 2 * (width + height) - 5, width + height - 4


@pytest.mark.parametrize("size", [(w, h) for w in range(1, 9) for h in range(1, 9)])
def test_empty_room_maxima_for_every_size_to_8x8(size):
    table = analyse(room_level(naive.empty_room(*size)))
    moves, pushes = expected_empty_maxima(*size)
    got_moves = table.max_moves
    got_pushes = table.max_pushes
    assert (got_moves and got_moves.moves) == moves
    assert (got_pushes and got_pushes.pushes) == pushes


@pytest.mark.slow
@pytest.mark.parametrize("size", [(6, 5), (6, 6)])
def test_empty_room_maxima_by_forward_search(size):
    assert naive.maxima(naive.empty_room(*size)) == expected_empty_maxima(*size)


def test_the_article_claim_of_112_moves_is_false():
    table = analyse(room_level(naive.empty_room(8, 8)))
    assert table.max_moves.moves == 27
    assert int(table.moves.max()) == 27


@pytest.mark.parametrize("name", sorted(ROOMS))
def test_witnesses_replay_to_their_optimum(name):
    table = analyse(room_level(ROOMS[name]))
    for metric in ("moves", "pushes"):
        witness = table.longest(metric)
        result = verify(witness.level, witness.solution)
        assert result.is_solved
        count = getattr(result.metrics, metric)
        assert count == getattr(witness, metric) == int(table._values(metric).max())
        assert witness.level.player == witness.player
        assert witness.level.boxes == {witness.box} and witness.level.goals == {witness.goal}


def test_value_and_forward_solution_agree_on_every_placement_of_a_room():
    level = room_level(ROOMS["pillar"])
    table = analyse(level)
    floor = sorted(room_floor(level))
    checked = 0
    for goal in floor[::3]:
        for box in floor:
            for player in floor:
                if box in (goal, player):
                    continue
                value = table.value(player, box, goal)
                place = placement_level(level, player, box, goal)
                moves = forward_solution(place, "moves")
                pushes = forward_solution(place, "pushes")
                if value is None:
                    assert moves is None and pushes is None
                    continue
                assert verify(place, moves).metrics.moves == value[0]
                assert verify(place, pushes).metrics.pushes == value[1]
                checked += 1
    assert checked > 50


def test_value_refuses_walls_and_non_placements():
    level = room_level(ROOMS["pillar"])
    table = analyse(level)
    with pytest.raises(ValueError, match=r"\(0, 0\) is not floor"):
        table.value(0, level.cell(1, 1), level.cell(2, 1))
    with pytest.raises(ValueError, match="not a placement"):
        table.value(level.cell(1, 1), level.cell(2, 1), level.cell(2, 1))


def test_items_in_the_room_file_are_ignored():
    plain = analyse(room_level(ROOMS["pillar"]))
    with_items = ["######", "#@$. #", "#  # #", "#  * #", "######"]
    other = analyse(room_level(with_items))
    assert np.array_equal(plain.moves, other.moves)
    assert np.array_equal(plain.pushes, other.pushes)


def test_floor_outside_the_walls_is_not_room():
    level = room_level(["   ####", "####  #", "#     #", "#######"])
    assert len(room_floor(level)) == 7


def test_room_without_floor_is_refused():
    with pytest.raises(AnalysisError, match="no floor"):
        analyse(room_level(["####", "#  ", "####"]))


def test_counts_add_up():
    table = analyse(room_level(ROOMS["two parts"]))
    # Each part has 6 cells: goal 6 ways, box 5, player 5 (on the goal too); none spans parts.
    assert table.placements == 2 * 6 * 5 * 5
    assert table.solvable + table.unsolvable == table.placements
    squares = analyse(room_level(["#######", "#  #  #", "#  #  #", "#######"]))
    assert squares.placements == 2 * 4 * 3 * 3
    assert squares.solvable == 0 and squares.max_moves is None
    assert table.solvable + table.unsolvable == table.placements
    hist = analyse(room_level(ROOMS["pillar"])).histogram("pushes")
    assert hist.sum() == analyse(room_level(ROOMS["pillar"])).solvable


@pytest.mark.parametrize("number", [1, 2, 3, 4, 5])
def test_microban_rooms_against_forward_search(number, public_levels):
    import random

    level = public_levels.level("microban.xsb", number)
    table = analyse(level)
    floor = sorted(room_floor(level))
    rng = random.Random(number)
    for _ in range(40):
        player, box, goal = rng.sample(floor, 3)
        value = table.value(player, box, goal)
        place = placement_level(level, player, box, goal)
        moves = forward_solution(place, "moves")
        if value is None:
            assert moves is None
            continue
        assert verify(place, moves).metrics.moves == value[0]
        assert verify(place, forward_solution(place, "pushes")).metrics.pushes == value[1]
    for witness in (table.max_moves, table.max_pushes):
        assert verify(witness.level, witness.solution).is_solved


def test_large_room_with_progress_matches_the_formula(tmp_path):
    from click.testing import CliRunner

    from sokoban.cli import main

    path = tmp_path / "big.xsb"
    path.write_text("\n".join(naive.empty_room(12, 11)) + "\n")
    result = CliRunner().invoke(main, ["single-box", str(path)])
    assert result.exit_code == 0, result.output
    assert "132 floor cells" in result.output
    assert "Most moves: 41 moves" in result.output and "Most pushes: 19 pushes" in result.output
