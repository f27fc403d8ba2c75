"""Solutions in LURD: parsing, errors, replay, verify, metrics worked out by hand, walk."""

from __future__ import annotations

import math
import re
import time
from datetime import timedelta

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from sokoban import (
    Game,
    IllegalMoveError,
    InvalidLevelError,
    Level,
    LurdError,
    Metrics,
    Solution,
    UnsolvedError,
    replay,
    verify,
)
from sokoban.direction import Direction
from sokoban.lurd import MAX_STEPS, walk

L, U, R, D = Direction.LEFT, Direction.UP, Direction.RIGHT, Direction.DOWN


@pytest.mark.parametrize(
    "text, lurd",
    [
        ("lurd", "lurd"),
        ("LURD", "LURD"),
        ("lUrD", "lUrD"),
        ("3r", "rrr"),
        ("2(lU)", "lUlU"),
        ("2(r2(u))d", "ruuruud"),
        ("10L", "L" * 10),
        (" r r\n\tU \r\n", "rrU"),
        ("", ""),
        ("0r", ""),
        ("2()", ""),
    ],
)
def test_parse(text: str, lurd: str) -> None:
    assert Solution.from_lurd(text).lurd() == lurd


def test_solution_value() -> None:
    s = Solution.from_lurd("rRuU")
    assert s.steps == ((R, False), (R, True), (U, False), (U, True))
    assert (len(s), s.moves, s.pushes) == (4, 4, 2)
    assert list(s) == list(s.steps)
    assert str(s) == "rRuU"
    assert eval(repr(s), {"Solution": Solution}) == s
    assert s + Solution.from_lurd("d") == Solution.from_lurd("rRuUd")
    assert hash(s) == hash(Solution.from_lurd("r1R(u)U"))


@pytest.mark.parametrize(
    "text, words",
    [
        ("rux", ["'x'", "position 2", "'rux'"]),
        ("2(r", ["unclosed '('", "'2(r'"]),
        ("r)", ["unmatched ')'", "position 1", "'r)'"]),
        ("rr3", ["nothing after", "position 2", "'rr3'"]),
        ("2(r3)", ["before ')'", "'2(r3)'"]),
        ("99999999999r", ["too large", "'99999999999r'"]),
        ("999(9999(r))", ["longer than 1,000,000 steps"]),
        ("999999(rl)", ["longer than 1,000,000 steps"]),
        ("r" * 200 + "?", ["'?'", "position 200", "..."]),
    ],
)
def test_parse_errors_quote_the_input(text: str, words: list[str]) -> None:
    started = time.perf_counter()
    with pytest.raises(LurdError) as info:
        Solution.from_lurd(text)
    message = str(info.value)
    for word in words:
        assert word in message
    assert len(message) < 200
    assert time.perf_counter() - started < 5  # refused before it is built


def test_max_steps_is_allowed() -> None:
    assert len(Solution.from_lurd(f"{MAX_STEPS}r")) == MAX_STEPS


CORRIDOR = Level.from_xsb("#######\n#@$  .#\n#######")
TWO = Level.from_xsb("######\n#@ $.#\n# $. #\n######")
TURN = Level.from_xsb("######\n#@$ .#\n# $  #\n# .  #\n######")


def test_replay_finds_the_pushes() -> None:
    result = replay(CORRIDOR, "rrr")  # lower case, but every step moves the box
    assert result.solution.lurd() == "RRR"
    assert result.is_solved and result.final.player == CORRIDOR.cell(4, 1)
    assert result.pushed_cells == (9, 10, 11)
    # A capital that moves no box is a walk.
    assert replay(TWO, "RRlldR").solution.lurd() == "rRlldR"


@pytest.mark.parametrize(
    "level, text, index, words",
    [
        (CORRIDOR, "l", 0, ["into a wall"]),
        (CORRIDOR, "RRRR", 3, ["cannot move"]),
        (TWO, "rRlldd", 5, ["into a wall"]),
        (TWO, "drRR", 3, ["cannot move"]),
        (Level.from_xsb("####\n@$.#\n####"), "l", 0, ["off the board"]),
    ],
)
def test_replay_errors_name_the_index(
    level: Level, text: str, index: int, words: list[str]
) -> None:
    with pytest.raises(IllegalMoveError) as info:
        replay(level, text)
    assert info.value.index == index
    assert f"at index {index}" in str(info.value)
    for word in words:
        assert word in str(info.value)


def test_replay_needs_one_player() -> None:
    with pytest.raises(InvalidLevelError, match="^the level has no player$"):
        replay(Level.from_xsb("#####\n# $.#\n#####"), "r")
    with pytest.raises(InvalidLevelError, match="^the level has 2 players, not one$"):
        replay(Level.from_xsb("######\n#@$.@#\n######"), "r")
    with pytest.raises(InvalidLevelError, match="no player"):
        Game(Level.from_xsb("#####\n# $.#\n#####"))


def test_verify() -> None:
    assert verify(TWO, "rRlldR").metrics.pushes == 2
    with pytest.raises(UnsolvedError) as info:
        verify(TWO, "rR")
    assert str(info.value) == "the solution ends with 1 box off goals after 2 moves"
    assert (info.value.moves, info.value.off_goal) == (2, 1)
    assert isinstance(info.value, ValueError) and not isinstance(info.value, IllegalMoveError)
    with pytest.raises(UnsolvedError, match="2 boxes off goals after 0 moves"):
        verify(Level.from_xsb("#######\n#@$ $.#\n#  .  #\n#######"), "")
    with pytest.raises(InvalidLevelError, match="1 boxes and 2 goals"):
        verify(Level.from_xsb("######\n#@$..#\n######"), "R")


@pytest.mark.parametrize(
    "level, text, metrics",
    [
        # Three pushes of one box in one line.
        (CORRIDOR, "RRR", Metrics(3, 3, 1, 1, 1, 1)),
        # r R | l l | d | R: two sessions of one push each, two boxes, four player lines.
        (TWO, "rRlldR", Metrics(6, 2, 2, 2, 2, 4)),
        # R (box A), D (box B) with no walk between: one session, two box lines, two boxes;
        # u walks; R pushes box A again: a third box line, a third box change.
        (TURN, "RDuR", Metrics(4, 3, 3, 3, 2, 4)),
        # Walking only.
        (TWO, "dudu", Metrics(4, 0, 0, 0, 0, 4)),
    ],
)
def test_metrics_by_hand(level: Level, text: str, metrics: Metrics) -> None:
    assert replay(level, text).metrics == metrics


def test_metrics_same_box_after_a_walk() -> None:
    # Push, step back, push the same box on in the same direction: the walk between
    # makes a second box line and a second session, but no box change.
    level = Level.from_xsb("#######\n#@$  .#\n#######")
    m = replay(level, "RlrRR").metrics
    assert (m.box_lines, m.box_changes, m.pushing_sessions, m.player_lines) == (2, 1, 2, 3)
    assert replay(level, "RlrRR").is_solved


def test_walk() -> None:
    level = Level.from_xsb("#######\n#@ $  #\n#  #  #\n#     #\n#######")
    start = level.player
    assert start is not None
    assert walk(level, start, start) == Solution()
    path = walk(level, start, level.cell(4, 1))
    assert path is not None and len(path) == 7 and path.pushes == 0  # round the box and wall
    assert replay(level, path).final.player == level.cell(4, 1)
    # Blocked cells close the way.
    assert walk(level, start, level.cell(4, 1), blocked=[level.cell(3, 3)]) is None
    assert walk(level, start, level.cell(2, 1)) == Solution.from_lurd("r")
    assert walk(level, start, level.cell(3, 1)) is None  # a box is in the way


@settings(max_examples=200, deadline=timedelta(milliseconds=500))
@given(st.text(st.sampled_from(list("lurdLURD0123456789() \n?x")), max_size=80))
def test_random_text_parses_or_raises_lurd_error(text: str) -> None:
    # Keep expansions small (long ones are refused fast, but building 10M steps is slow).
    assume(math.prod(int(n) for n in re.findall(r"\d+", text)) <= 100_000)
    try:
        solution = Solution.from_lurd(text)
    except LurdError as error:
        assert repr(text)[:20] in str(error) or "..." in str(error) or "steps" in str(error)
        return
    # What parses, formats canonically and parses back to the same steps.
    assert Solution.from_lurd(solution.lurd()) == solution


@settings(max_examples=100, deadline=timedelta(milliseconds=500))
@given(st.text(st.sampled_from(list("lurd")), max_size=40))
def test_replay_agrees_with_step_by_step_play(text: str) -> None:
    level = Level.from_xsb("#######\n#  .  #\n# $@$ #\n#  .  #\n#######")
    try:
        result = replay(level, text)
    except IllegalMoveError as error:
        prefix = replay(level, text[: error.index])
        assert len(prefix.solution) == error.index
        return
    assert len(result.solution) == len(text)
    assert result.metrics.pushes == len(result.pushed_cells) == result.solution.pushes
    assert result.metrics.box_lines <= result.metrics.pushes
    assert result.metrics.pushing_sessions <= result.metrics.box_lines
    assert result.metrics.player_lines <= result.metrics.moves
