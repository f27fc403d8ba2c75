"""Game: moves and pushes, undo and redo, restart, history."""

from __future__ import annotations

from datetime import timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sokoban import Direction, Game, Level

L, U, R, D = Direction.LEFT, Direction.UP, Direction.RIGHT, Direction.DOWN
TWO = Level.from_xsb("######\n#@ $.#\n# $. #\n######")


def test_move_and_push() -> None:
    game = Game(TWO)
    assert game.player == TWO.cell(1, 1)
    assert game.move(R) and game.player == TWO.cell(2, 1)
    assert game.position.boxes == TWO.boxes and game.pushes == 0
    assert game.move(R)  # pushes the box onto its goal
    assert game.position.boxes == {TWO.cell(4, 1), TWO.cell(2, 2)}
    assert (game.moves, game.pushes) == (2, 1)
    assert game.lurd() == "rR"
    assert not game.is_solved


def test_blocked_moves_change_nothing() -> None:
    game = Game(TWO)
    assert not game.can_move(U) and not game.move(U)  # wall
    assert not game.move(L)
    game.play("rR")
    assert not game.can_move(R) and not game.move(R)  # box against the wall
    assert game.lurd() == "rR" and game.moves == 2


def test_play_stops_at_a_blocked_step() -> None:
    game = Game(TWO)
    assert game.play("rRrr") == 2
    assert game.lurd() == "rR"
    game.restart()
    assert game.play("rRlldR") == 6 and game.is_solved


def test_undo_redo() -> None:
    game = Game(TWO)
    assert not game.undo() and not game.redo()
    game.play("rRlldR")
    solved = game.position
    assert game.is_solved
    assert game.undo()  # the last push is taken back
    assert not game.is_solved and game.position.boxes == {TWO.cell(4, 1), TWO.cell(2, 2)}
    assert game.player == TWO.cell(1, 2)
    assert game.undo() and game.undo() and game.undo()
    assert game.position == TWO.moved(boxes={TWO.cell(4, 1), TWO.cell(2, 2)}, player=TWO.cell(3, 1))
    assert game.lurd() == "rR"
    assert game.redo() and game.redo() and game.redo() and game.redo()
    assert not game.redo()
    assert game.position == solved and game.lurd() == "rRlldR" and game.is_solved


def test_a_new_move_clears_redo() -> None:
    game = Game(TWO)
    game.play("rRl")
    game.undo()
    game.undo()
    assert game.move(L)  # instead of redoing the push
    assert not game.redo()
    assert game.lurd() == "rl"


def test_restart_keeps_the_history_for_redo() -> None:
    game = Game(TWO)
    game.play("rRlldR")
    game.restart()
    assert game.position == TWO and game.moves == 0 and game.lurd() == ""
    while game.redo():
        pass
    assert game.is_solved and game.history.lurd() == "rRlldR"
    assert game.start == TWO


def test_history_is_a_solution() -> None:
    game = Game(TWO)
    game.play("rrlldr")  # cases are found by play, not trusted
    assert game.history.lurd() == "rRlldR"
    assert TWO.replay(game.history).is_solved


def test_needs_one_player() -> None:
    with pytest.raises(ValueError, match="2 players"):
        Game(Level.from_xsb("######\n#@$.@#\n######"))
    with pytest.raises(ValueError, match="no player"):
        Game(Level.from_xsb("#####\n# $.#\n#####"))


@settings(max_examples=100, deadline=timedelta(milliseconds=500))
@given(st.lists(st.sampled_from([L, U, R, D]), max_size=30))
def test_game_agrees_with_replay_and_undoes_everything(directions: list[Direction]) -> None:
    level = Level.from_xsb("#######\n#  .  #\n# $@$ #\n#  .  #\n#######")
    game = Game(level)
    positions = [game.position]
    for direction in directions:
        if game.move(direction):
            positions.append(game.position)
    assert level.replay(game.history).final == game.position
    while game.undo():
        positions.pop()
        assert game.position == positions[-1]
    assert game.position == level
