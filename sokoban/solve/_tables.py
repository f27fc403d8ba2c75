"""The tables built from a level alone, built once for every search of it: the board
encoding, the two-box deadlock table and the packing plans. The portfolio of ``fast``
(:mod:`sokoban.solve._portfolio`) hands one :class:`Tables` to each search it runs, so no
search builds them again; each is built when first asked for.
"""

from __future__ import annotations

import threading

import numpy as np

from sokoban.level import Level
from sokoban.solve._board import Board
from sokoban.solve._packing import PackingOrder, packing_order
from sokoban.solve._pairs import no_table, pair_table


class Tables:
    """The tables of ``level``: :attr:`board`, :meth:`pairs`, :meth:`plan`. Safe to share
    between threads (a table is built once, under a lock)."""

    def __init__(self, level: Level) -> None:
        self.level = level
        self._lock = threading.Lock()
        self._board: Board | None = None
        self._pairs: tuple[np.ndarray, ...] | None = None
        self._plans: dict[bool, PackingOrder] = {}

    @property
    def board(self) -> Board:
        """The board encoding (:class:`~sokoban.solve._board.Board`)."""
        with self._lock:
            if self._board is None:
                self._board = Board(self.level)
            return self._board

    def pairs(self, wanted: bool = True) -> tuple[np.ndarray, ...]:
        """The two-box deadlock table (:func:`~sokoban.solve._pairs.pair_table`), or the
        empty one when not ``wanted``."""
        if not wanted:
            return no_table()
        board = self.board
        with self._lock:
            if self._pairs is None:
                self._pairs = pair_table(board)
            return self._pairs

    def plan(self, parking: bool = True) -> PackingOrder:
        """The packing plan (:func:`~sokoban.solve._packing.packing_order`), with parking
        steps or goals only."""
        board = self.board
        with self._lock:
            if parking not in self._plans:
                self._plans[parking] = packing_order(board, parking=parking)
            return self._plans[parking]
