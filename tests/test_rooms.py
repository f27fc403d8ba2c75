"""The level's rooms and the links between them (FESS's room connectivity feature):
hand-made levels checked against the rule written out plainly, and the feature's count
of obstructed links."""

from __future__ import annotations

import numpy as np
from public import PUBLIC

from sokoban import Level
from sokoban.solve._board import Board
from sokoban.solve._features import feature_cell, obstructed
from sokoban.solve._packing import packing_order
from sokoban.solve._rooms import ROOM_BLOCKS, no_links, room_cells, room_links

# Two rooms joined by a corridor (x 4..8, y 2), a box in each, and a dead-end corridor
# off the right room (x 9, y 4..5) that links nothing.
TWO_ROOMS = """
#############
#   #####   #
# $   $   . #
#@  #####   #
#########.###
######### ###
#############
"""
# One room with a corridor that leaves it and comes back into it.
LOOP = """
########
#      #
# $  . #
# @    #
##    ##
 # ## #
 #    #
 ######
"""


def board_of(text: str) -> Board:
    return Board(Level.from_xsb(text.strip("\n")))


def xy(board: Board, floor: int) -> tuple[int, int]:
    cell = int(board.cells[floor])
    return cell % board.width, cell // board.width


def plain_room_cells(board: Board) -> set[tuple[int, int]]:
    """The cells in some all-floor block of 2x3 or 3x2 cells, block by block."""
    floor = {xy(board, f) for f in range(board.n)}
    inside = set()
    for w, h in ROOM_BLOCKS:
        for x0, y0 in floor:
            block = {(x0 + dx, y0 + dy) for dx in range(w) for dy in range(h)}
            if block <= floor:
                inside |= block
    return inside


def test_room_cells_are_the_cells_of_all_floor_blocks() -> None:
    boards = [board_of(TWO_ROOMS), board_of(LOOP)]
    boards += [Board(lv) for _, lv in PUBLIC.levels("xsokoban.xsb", range(1, 11))]
    for board in boards:
        got = {xy(board, f) for f in np.flatnonzero(room_cells(board))}
        assert got == plain_room_cells(board)


def test_a_corridor_between_two_rooms_is_a_link_and_a_dead_end_is_not() -> None:
    board = board_of(TWO_ROOMS)
    links = room_links(board)
    assert links.nlinks == 1
    assert {xy(board, int(f)) for f in links.cells} == {(x, 2) for x in range(4, 9)}


def test_a_corridor_back_into_its_own_room_links_nothing() -> None:
    assert room_links(board_of(LOOP)).nlinks == 0


def test_obstructed_counts_links_holding_a_box() -> None:
    board = board_of(TWO_ROOMS)
    links = room_links(board)
    occ = np.full(board.n, -1, np.int32)
    assert obstructed(occ, links.start, links.cells) == 0
    inside = int(links.cells[0])
    occ[inside] = 0
    assert obstructed(occ, links.start, links.cells) == 1
    occ[int(links.cells[-1])] = 1  # a second box in the same link counts once
    assert obstructed(occ, links.start, links.cells) == 1


def test_feature_cell_takes_the_obstructed_links_as_its_third_feature() -> None:
    board = board_of(TWO_ROOMS)
    plan = packing_order(board)
    links = room_links(board)
    ok = np.ones(len(plan.steps), np.uint8)
    occ = np.full(board.n, -1, np.int32)
    occ[int(links.cells[0])] = 0
    occ[board.index[2 * board.width + 2]] = 1

    def cell(with_links) -> int:
        seen = np.zeros(board.n, np.int32)
        queue = np.empty(board.n, np.int32)
        rooms_cap = 3 if with_links.nlinks else 1
        found, _ = feature_cell(
            occ, board.nbr, plan.steps, plan.step_parent, plan.feeds, ok, seen, 1, queue,
            seen, -1, with_links, 4, rooms_cap, 4,
        )  # fmt: skip
        return int(found)

    off, on = cell(no_links()), cell(links)
    # Without links the room column is 0 of 1; with them, 1 of 3.
    oop, rest = off % 4, off // 4
    assert on == (rest * 3 + 1) * 4 + oop
