"""The web game's competitive records in the store: players, scores, daily levels, races
(SQLAlchemy Core, SQLite or PostgreSQL), one module each; the tables in
:mod:`~sokoban.records.tables`.

>>> from sokoban.migrations import open_store
>>> records = Records(open_store("sqlite://"))
>>> player = records.add_player("Ada", hash_secret("secret"))
>>> records.player_by_token(hash_secret("secret")).name
'Ada'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sokoban.records.daily import DailyRecords, DailyRow
from sokoban.records.players import NameTakenError, Player, PlayerRecords, hash_secret
from sokoban.records.races import RACE_CHANNEL, RaceClosedError, Racer, RaceRecords, RaceRow
from sokoban.records.scores import BOARDS, Entry, ScoreRecords
from sokoban.records.tables import now, utc

if TYPE_CHECKING:
    from sokoban.store import Store


class Records(PlayerRecords, ScoreRecords, DailyRecords):
    """The players, scores and daily levels of ``store``, in one object (the races are
    :class:`RaceRecords`, which the race hub keeps)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.engine = store.engine


__all__ = [
    "BOARDS",
    "RACE_CHANNEL",
    "DailyRecords",
    "DailyRow",
    "Entry",
    "NameTakenError",
    "Player",
    "PlayerRecords",
    "RaceClosedError",
    "RaceRecords",
    "RaceRow",
    "Racer",
    "Records",
    "ScoreRecords",
    "hash_secret",
    "now",
    "utc",
]
