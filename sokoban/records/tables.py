"""The competitive tables: players, tokens, transfer codes, scores, daily levels, races.

:func:`tables_v2` declares them as migration 2 made them (kept as it was: databases in
the field have run it); the module's tables are the current schema, what queries use:
those of migration 2, with ``players`` and ``scores`` as migration 3 left them (the
confusable-folded name, the recovery code, the assisted flag). Also the helpers every
record module shares: the time now, times read back in UTC, an insert's key.
"""

from __future__ import annotations

import datetime
from typing import Any

import sqlalchemy as sa

UTC = datetime.UTC


def now() -> datetime.datetime:
    return datetime.datetime.now(UTC)


def utc(value: datetime.datetime) -> datetime.datetime:
    """A time read back from the database, in UTC (SQLite hands back naive times)."""
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def key(result: Any) -> int:
    """The primary key of an insert's row."""
    return int(result.inserted_primary_key[0])


def tables_v2(m: sa.MetaData) -> dict[str, sa.Table]:
    """The tables as migration 2 made them, on ``m``. It stays as it is (databases in the
    field have run it); a table a later migration changed is declared again below in its
    current form."""
    ts = sa.DateTime(timezone=True)
    players = sa.Table(
        "players",
        m,
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(32), nullable=False),
        # Names are unique ignoring case: "Ada" and "ada" cannot both exist.
        sa.Column("name_key", sa.String(32), nullable=False, unique=True),
        sa.Column("created_at", ts, nullable=False),
    )
    tokens = sa.Table(
        "player_tokens",
        m,
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column(
            "player_id", sa.Integer, sa.ForeignKey("players.id", ondelete="CASCADE"), index=True
        ),
        sa.Column("created_at", ts, nullable=False),
    )
    transfers = sa.Table(
        "transfer_codes",
        m,
        sa.Column("code_hash", sa.String(64), primary_key=True),
        sa.Column("player_id", sa.Integer, sa.ForeignKey("players.id", ondelete="CASCADE")),
        sa.Column("expires_at", ts, nullable=False),
    )
    scores = sa.Table(
        "scores",
        m,
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("player_id", sa.Integer, sa.ForeignKey("players.id"), nullable=False),
        sa.Column("level_id", sa.String(120), nullable=False),
        sa.Column("moves", sa.Integer, nullable=False),
        sa.Column("pushes", sa.Integer, nullable=False),
        sa.Column("lurd", sa.Text, nullable=False),
        # What the client said the solve took (for a ghost's pace; never ranked on).
        sa.Column("seconds", sa.Float, nullable=True),
        sa.Column("submitted_at", ts, nullable=False),
        sa.Index("ix_scores_level_player", "level_id", "player_id"),
        # The boards' orders, for counting the rows ahead of a score.
        sa.Index("ix_scores_level_moves", "level_id", "moves", "pushes"),
        sa.Index("ix_scores_level_pushes", "level_id", "pushes", "moves"),
        sa.Index("ix_scores_player", "player_id"),
    )
    daily = sa.Table(
        "daily_levels",
        m,
        sa.Column("day", sa.String(10), primary_key=True),  # YYYY-MM-DD, UTC
        sa.Column("band", sa.String(16), nullable=False),
        sa.Column("xsb", sa.Text, nullable=False),
        sa.Column("solution", sa.Text, nullable=False),
        sa.Column("moves", sa.Integer, nullable=False),
        sa.Column("pushes", sa.Integer, nullable=False),
        sa.Column("seed", sa.BigInteger, nullable=False),
        sa.Column("created_at", ts, nullable=False),
    )
    races = sa.Table(
        "races",
        m,
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("code", sa.String(64), nullable=False, unique=True),
        sa.Column("host_id", sa.Integer, sa.ForeignKey("players.id"), nullable=False),
        sa.Column("level_id", sa.String(120), nullable=False),
        sa.Column("xsb", sa.Text, nullable=False),
        sa.Column("time_limit", sa.Integer, nullable=False),
        sa.Column("countdown", sa.Integer, nullable=False),
        sa.Column("created_at", ts, nullable=False),
        sa.Column("starts_at", ts, nullable=True),
        sa.Column("ends_at", ts, nullable=True),
        # Set when every player has finished (before ends_at).
        sa.Column("closed_at", ts, nullable=True),
        # Bumped by every change: other server processes compare it to know to resend.
        sa.Column("version", sa.Integer, nullable=False),
    )
    racers = sa.Table(
        "race_players",
        m,
        sa.Column(
            "race_id",
            sa.Integer,
            sa.ForeignKey("races.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("player_id", sa.Integer, sa.ForeignKey("players.id"), primary_key=True),
        sa.Column("joined_at", ts, nullable=False),
        sa.Column("lurd", sa.Text, nullable=False),
        sa.Column("moves", sa.Integer, nullable=False),
        sa.Column("pushes", sa.Integer, nullable=False),
        sa.Column("boxes_on_goals", sa.Integer, nullable=False),
        sa.Column("solved", sa.Boolean, nullable=False),
        sa.Column("finished_at", ts, nullable=True),
    )
    return {
        "players": players,
        "tokens": tokens,
        "transfers": transfers,
        "scores": scores,
        "daily": daily,
        "races": races,
        "racers": racers,
    }


def players_v3(m: sa.MetaData) -> sa.Table:
    """``players`` as migration 3 leaves it."""
    ts = sa.DateTime(timezone=True)
    return sa.Table(
        "players",
        m,
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(32), nullable=False),
        sa.Column("name_key", sa.String(32), nullable=False, unique=True),
        # The name folded for lookalikes (NFKC, case, confusable letters): unique, so
        # "Alice" with a Cyrillic "А" cannot sit beside "Alice".
        sa.Column("name_skeleton", sa.String(128), nullable=True, unique=True),
        # The hash of the recovery code given at sign-up (a new token from name and code).
        sa.Column("recovery_hash", sa.String(64), nullable=True),
        sa.Column("created_at", ts, nullable=False),
    )


def scores_v3(m: sa.MetaData) -> sa.Table:
    """``scores`` as migration 3 leaves it."""
    ts = sa.DateTime(timezone=True)
    return sa.Table(
        "scores",
        m,
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("player_id", sa.Integer, sa.ForeignKey("players.id"), nullable=False),
        sa.Column("level_id", sa.String(120), nullable=False),
        sa.Column("moves", sa.Integer, nullable=False),
        sa.Column("pushes", sa.Integer, nullable=False),
        sa.Column("lurd", sa.Text, nullable=False),
        sa.Column("seconds", sa.Float, nullable=True),
        sa.Column("submitted_at", ts, nullable=False),
        # The solve used a hint, the solver or the rewind: kept, shown, never ranked.
        sa.Column("assisted", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Index("ix_scores_level_player", "level_id", "player_id"),
        sa.Index("ix_scores_level_moves", "level_id", "moves", "pushes"),
        sa.Index("ix_scores_level_pushes", "level_id", "pushes", "moves"),
        sa.Index("ix_scores_player", "player_id"),
    )


metadata = sa.MetaData()
players = players_v3(metadata)
_v2 = tables_v2(sa.MetaData())
scores = scores_v3(metadata)
tokens = _v2["tokens"].to_metadata(metadata)
transfers = _v2["transfers"].to_metadata(metadata)
daily_levels = _v2["daily"].to_metadata(metadata)
races = _v2["races"].to_metadata(metadata)
race_players = _v2["racers"].to_metadata(metadata)

#: Every table of the competitive side, in an order that respects foreign keys.
TABLES = [players, tokens, transfers, scores, daily_levels, races, race_players]
