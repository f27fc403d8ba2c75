"""The level model: geometry, status and problems, size limits, positions, equality, repr."""

from __future__ import annotations

import pytest

from sokoban import MAX_FLOOR, MAX_SIDE, BoardTooLargeError, Direction, Level, Problem

SIMPLE = "#####\n#@$.#\n#####"


def test_geometry() -> None:
    level = Level.from_xsb(SIMPLE)
    assert (level.width, level.height) == (5, 3)
    assert level.player == level.cell(1, 1) == 6
    assert level.xy(8) == (3, 1)
    assert level.boxes == {7} and level.goals == {8}
    assert len(level.walls) == 12
    assert level.neighbour(6, Direction.RIGHT) == 7
    assert level.neighbour(0, Direction.UP) is None and level.neighbour(4, Direction.RIGHT) is None
    assert dict(level.neighbours(0)) == {Direction.RIGHT: 1, Direction.DOWN: 5}
    with pytest.raises(ValueError, match=r"\(5, 0\) is off the 5 x 3 board"):
        level.cell(5, 0)


def test_interior_and_exterior() -> None:
    # Exterior space: outside the walls (left of the room, past the short first row) and a
    # closed pocket that the player cannot reach.
    level = Level.from_xsb("  ####\n###  ####\n#@ $ #  #\n#  . ####\n######")
    inside = {level.cell(x, y) for x, y in [(1, 2), (2, 2), (3, 2), (4, 2), (1, 3), (2, 3)]}
    inside |= {level.cell(3, 3), level.cell(4, 3), level.cell(3, 1), level.cell(4, 1)}
    assert level.interior == inside
    pocket = {level.cell(6, 2), level.cell(7, 2)}
    exterior = {level.cell(0, 0), level.cell(1, 0), level.cell(8, 0), level.cell(7, 4)}
    assert pocket | exterior <= level.floor
    assert not (pocket | exterior) & level.interior
    assert level.is_enclosed() and level.is_valid()
    # Boxes block reachability but not the interior.
    assert level.cell(3, 2) not in level.reachable()
    assert level.reachable() == level.interior - level.boxes
    simple = Level.from_xsb(SIMPLE)
    assert simple.reachable() == {6} and simple.reachable(8) == {8}


def test_interior_without_player_is_around_boxes_and_goals() -> None:
    level = Level.from_xsb("#####\n# $.#\n#####")
    assert level.interior == {6, 7, 8}
    assert level.reachable() == frozenset()


@pytest.mark.parametrize(
    "text, flag",
    [
        ("#####\n# $.#\n#####", Problem.NO_PLAYER),
        ("######\n#@$.@#\n######", Problem.SEVERAL_PLAYERS),
        ("####\n#@ #\n####", Problem.NO_BOXES),
        ("######\n#@$$.#\n######", Problem.BOX_GOAL_MISMATCH),
        ("########\n#@$. #$#\n#    #.#\n########", Problem.UNREACHABLE_BOX),
        ("########\n#@$. #.#\n#  $ ###\n########", Problem.UNREACHABLE_GOAL),
        ("####\n@$.#\n####", Problem.PLAYER_OUTSIDE),
        ("#####\n#@$.\n#####", Problem.PLAYER_OUTSIDE),
    ],
)
def test_each_problem(text: str, flag: Problem) -> None:
    level = Level.from_xsb(text)
    assert flag in level.status()
    assert not level.is_valid()
    assert len(level.problems()) == bin(level.status().value).count("1")


@pytest.mark.parametrize(
    "text, gap",
    [
        ("#####\n @$.#\n#####", (0, 1)),  # the left wall is missing
        ("#######\n#@$.  #\n### ###", (3, 2)),  # a gap in the bottom wall
        ("#####\n#@$.#\n#\n#####", (4, 2)),  # past a short row is exterior space
    ],
)
def test_an_open_wall_is_named_by_its_gap(text: str, gap: tuple[int, int]) -> None:
    level = Level.from_xsb(text)
    assert level.status() == Problem.PLAYER_OUTSIDE
    assert level.gap() == gap
    column, row = gap
    assert level.problems() == [
        f"the wall is open at row {row + 1}, column {column + 1}: the player can walk off the board"
    ]


def test_an_enclosed_level_has_no_gap() -> None:
    assert Level.from_xsb(SIMPLE).gap() is None


def test_problem_combinations_and_texts() -> None:
    level = Level.from_xsb("####\n#  #\n####")
    assert level.status() == Problem.NO_PLAYER | Problem.NO_BOXES
    assert level.problems() == ["no player", "no boxes"]
    unreachable = Level.from_xsb("########\n#@$. #$#\n#    #.#\n########")
    # The box in the pocket is off goal; the pocket's goal is covered... by nothing.
    assert unreachable.status() == Problem.UNREACHABLE_BOX | Problem.UNREACHABLE_GOAL
    assert Level.from_xsb(SIMPLE).status() == Problem.NONE
    assert Level.from_xsb(SIMPLE).problems() == []
    # A box on a goal outside the player's region harms nothing.
    assert Level.from_xsb("########\n#@$. #*#\n########").is_valid()


def test_size_limits() -> None:
    assert Level.from_xsb("\n".join(["#" * MAX_SIDE] * MAX_SIDE)).width == MAX_SIDE
    with pytest.raises(BoardTooLargeError, match="outside 1..100 a side"):
        Level(MAX_SIDE + 1, 1, frozenset(), frozenset(), frozenset(), frozenset())
    with pytest.raises(BoardTooLargeError):
        Level(1, 0, frozenset(), frozenset(), frozenset(), frozenset())

    # A room with 44 x 44 = 1936 inside cells is allowed, 45 x 45 = 2025 is not.
    def room(n: int) -> str:
        return "\n".join(
            ["#" * (n + 2), "#@" + " " * (n - 1) + "#"]
            + ["#" + " " * n + "#"] * (n - 1)
            + ["#" * (n + 2)]
        )

    assert len(Level.from_xsb(room(44)).interior) == 1936 <= MAX_FLOOR
    with pytest.raises(BoardTooLargeError, match="2025 interior floor cells, over 2000"):
        Level.from_xsb(room(45))
    # Exterior space does not count: a small room on a big, mostly empty grid.
    big = Level.from_xsb("#####\n#@$.#\n#####" + "\n" + "\n".join([" " * 98 + "#"] * 90))
    assert (big.width, big.height) == (99, 93) and big.is_valid()


def test_bad_cells_are_refused() -> None:
    with pytest.raises(ValueError, match="outside the 2 x 2 board"):
        Level(2, 2, frozenset({4}), frozenset(), frozenset(), frozenset())
    with pytest.raises(ValueError, match="wall and something else"):
        Level(2, 2, frozenset({0}), frozenset(), frozenset({0}), frozenset())
    with pytest.raises(ValueError, match="holds a box and the player"):
        Level(2, 2, frozenset(), frozenset(), frozenset({1}), frozenset({1}))
    # Plain iterables become frozensets.
    level = Level(2, 1, [0], [], [], [1])  # type: ignore[arg-type]
    assert level.walls == frozenset({0}) and level.player == 1


def test_moved_and_is_solved() -> None:
    level = Level.from_xsb(SIMPLE).with_metadata(title="t")
    assert not level.is_solved
    after = level.moved(boxes=[8], player=7)
    assert after.is_solved and after.player == 7 and after.boxes == {8}
    assert after.title == "t" and after.walls is level.walls and after.goals == level.goals
    assert level.boxes == {7} and level.player == 6  # unchanged
    assert level.moved() == level
    assert level.moved(player=8).boxes == level.boxes
    # Solved needs as many boxes as goals.
    assert not Level.from_xsb("######\n#@*..#\n######").is_solved
    assert Level.from_xsb("#####\n#@* #\n#####").is_solved


def test_equality_and_hash() -> None:
    a = Level.from_xsb(SIMPLE)
    b = Level.from_xsb("5#|#@$.#|5#")
    assert a == b and hash(a) == hash(b)
    assert len({a, b, a.moved(player=8)}) == 2
    assert a != a.with_metadata(title="x")
    assert a != a.moved(boxes=[8])


def test_repr_evaluates_back() -> None:
    levels = [
        Level.from_xsb(SIMPLE),
        Level.from_xsb("  ###\n###@###\n#  $ .#\n#######"),
        Level.from_xsb(SIMPLE).with_metadata(
            title="T", author="A", comment="c\nd", metadata=(("K", "v"),), solutions=("R",)
        ),
    ]
    for level in levels:
        assert repr(level).startswith("Level.from_xsb(")
        assert eval(repr(level), {"Level": Level}) == level
    assert str(levels[0]) == SIMPLE == levels[0].xsb()
    assert levels[0].xsb(rle=True) == "5#|#@$.#|5#"


def test_replay_method() -> None:
    level = Level.from_xsb(SIMPLE)
    assert level.replay("R").is_solved
