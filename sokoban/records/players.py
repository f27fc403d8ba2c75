"""Players: names, their hashed tokens, transfer codes and recovery codes.

>>> from sokoban.migrations import open_store
>>> players = PlayerRecords(open_store("sqlite://"))
>>> ada = players.add_player("Ada", hash_secret("secret"))
>>> players.player_by_token(hash_secret("secret")).name
'Ada'
>>> name_skeleton("\u0410da") == name_skeleton("ada")  # a Cyrillic A
True

Secrets (tokens, transfer and recovery codes) are kept as SHA-256 hashes: they are long
random strings, so an unsalted hash cannot be reversed by guessing. Names are compared
by their skeleton (:func:`name_skeleton`), so a lookalike of a name in use is refused.
"""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
import unicodedata
from typing import TYPE_CHECKING

import sqlalchemy as sa

from sokoban.records.tables import key, now, players, tokens, transfers, utc

if TYPE_CHECKING:
    from sokoban.store import Store


def hash_secret(secret: str) -> str:
    """The stored form of a token, transfer code or recovery code."""
    return hashlib.sha256(secret.encode()).hexdigest()


#: Letters of other scripts (and digits) drawn like a Latin letter, folded to it. The
#: common lookalikes of Cyrillic, Greek, Armenian and Cherokee lower case after case
#: folding, and the digits read as letters.
_CONFUSABLE = str.maketrans(
    {
        # Cyrillic
        "а": "a", "в": "b", "г": "r", "е": "e", "ё": "e", "з": "3", "і": "i", "ї": "i",
        "ј": "j", "к": "k", "м": "m", "н": "h", "о": "o", "п": "n", "р": "p", "с": "c",
        "т": "t", "у": "y", "х": "x", "ѕ": "s", "ԁ": "d", "ԛ": "q", "ԝ": "w", "һ": "h",
        "ь": "b", "ӏ": "l", "ү": "y", "ԍ": "g",
        # Greek
        "α": "a", "β": "b", "γ": "y", "ε": "e", "η": "n", "ι": "i", "κ": "k", "ν": "v",
        "ο": "o", "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "ω": "w", "ϲ": "c", "ϳ": "j",
        # Armenian
        "օ": "o", "ս": "u", "հ": "h", "ո": "n", "ց": "g",
        # digits and signs drawn as letters
        "0": "o", "1": "l", "|": "l", "5": "s",
        # Latin letters drawn alike
        "ı": "i", "ɑ": "a", "ɡ": "g", "ſ": "f",
    }
)  # fmt: skip
#: Invisible characters dropped before comparing (zero-width spaces and joiners, marks).
_INVISIBLE = dict.fromkeys(map(ord, "\u00ad\u034f\u200b\u200c\u200d\u2060\ufeff"))


def name_skeleton(name: str) -> str:
    """The form names are compared in: NFKC, case folded, invisible characters dropped,
    lookalike letters folded to one (``"Аlice"`` with a Cyrillic ``А`` is ``"alice"``),
    accents kept apart from their letter, ``"rn"`` read as ``"m"``, spaces, dashes and
    underscores ignored."""
    text = unicodedata.normalize("NFKC", name).casefold().translate(_INVISIBLE)
    text = unicodedata.normalize("NFD", text).translate(_CONFUSABLE)
    text = "".join(ch for ch in text if ch not in " -_.")
    return unicodedata.normalize("NFC", text.replace("rn", "m").replace("vv", "w"))


@dataclasses.dataclass(frozen=True, slots=True)
class Player:
    id: int
    name: str


class NameTakenError(Exception):
    """The name, or a name it cannot be told from, is in use."""


class PlayerRecords:
    """Players and their secrets, on ``store``'s engine."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.engine = store.engine

    def add_player(self, name: str, token_hash: str, recovery_hash: str | None = None) -> Player:
        """A new player with one token (and a recovery code's hash); :class:`NameTakenError`
        if the name or a lookalike of it is in use."""
        try:
            with self.engine.begin() as conn:
                made = key(
                    conn.execute(
                        players.insert().values(
                            name=name,
                            name_key=name.casefold(),
                            name_skeleton=name_skeleton(name),
                            recovery_hash=recovery_hash,
                            created_at=now(),
                        )
                    )
                )
                conn.execute(
                    tokens.insert().values(token_hash=token_hash, player_id=made, created_at=now())
                )
        except sa.exc.IntegrityError:
            raise NameTakenError(name) from None
        return Player(int(made), name)

    def player_by_token(self, token_hash: str) -> Player | None:
        query = (
            sa.select(players.c.id, players.c.name)
            .select_from(players.join(tokens))
            .where(tokens.c.token_hash == token_hash)
        )
        with self.engine.connect() as conn:
            row = conn.execute(query).first()
        return None if row is None else Player(row.id, row.name)

    def recover(self, name: str, recovery_hash: str, token_hash: str) -> Player | None:
        """A new token for the player ``name`` (compared by skeleton) whose recovery code
        hashes to ``recovery_hash``; ``None`` if there is no such player or code. The code
        stays valid (it is the player's to keep)."""
        with self.engine.begin() as conn:
            row = conn.execute(
                sa.select(players.c.id, players.c.name, players.c.recovery_hash).where(
                    players.c.name_skeleton == name_skeleton(name)
                )
            ).first()
            if row is None or row.recovery_hash is None or row.recovery_hash != recovery_hash:
                return None
            conn.execute(
                tokens.insert().values(token_hash=token_hash, player_id=row.id, created_at=now())
            )
        return Player(row.id, row.name)

    def add_transfer(self, player_id: int, code_hash: str, expires_at: datetime.datetime) -> None:
        with self.engine.begin() as conn:
            # One live code per player: a new one replaces the old, and expired codes go.
            conn.execute(
                transfers.delete().where(
                    (transfers.c.player_id == player_id) | (transfers.c.expires_at < now())
                )
            )
            conn.execute(
                transfers.insert().values(
                    code_hash=code_hash, player_id=player_id, expires_at=expires_at
                )
            )

    def claim_transfer(self, code_hash: str, token_hash: str) -> Player | None:
        """Use a transfer code once: a new token for its player, ``None`` if the code is
        unknown, used or expired."""
        with self.engine.begin() as conn:
            row = conn.execute(
                sa.select(transfers.c.player_id, transfers.c.expires_at).where(
                    transfers.c.code_hash == code_hash
                )
            ).first()
            if row is None:
                return None
            # The delete decides between two claims of one code: only one removes the row.
            gone = conn.execute(transfers.delete().where(transfers.c.code_hash == code_hash))
            if gone.rowcount != 1 or utc(row.expires_at) < now():
                return None
            conn.execute(
                tokens.insert().values(
                    token_hash=token_hash, player_id=row.player_id, created_at=now()
                )
            )
            name = conn.execute(
                sa.select(players.c.name).where(players.c.id == row.player_id)
            ).scalar_one()
        return Player(row.player_id, name)
