"""Scores: every verified solution a player submits, and the two boards of a level.

Every score is a row of ``scores`` (append only: a row is never updated), so concurrent
submissions cannot lose each other; the two boards of a level are queries over those rows
(each player's best by the board's order, ranked with ``row_number`` so a rank is never
shared). A solution made with help (a hint, the solver, the rewind) is kept as assisted:
it counts as solved for its player but is never on a board.
"""

from __future__ import annotations

import dataclasses
import datetime
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from sokoban.records.tables import key, now, players, scores, utc

if TYPE_CHECKING:
    from sokoban.store import Store


@dataclasses.dataclass(frozen=True, slots=True)
class Entry:
    """A player's best on one board of a level."""

    rank: int
    player_id: int
    name: str
    moves: int
    pushes: int
    submitted_at: datetime.datetime
    lurd: str
    seconds: float | None


#: The order of each board: fewest moves (ties pushes, then time) or fewest pushes.
BOARDS = ("moves", "pushes")


def _board_order(board: str, t: Any) -> list[Any]:
    first, second = (t.c.moves, t.c.pushes) if board == "moves" else (t.c.pushes, t.c.moves)
    return [first, second, t.c.submitted_at, t.c.id]


class ScoreRecords:
    """Scores and boards, on ``store``'s engine."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.engine = store.engine

    def add_score(
        self,
        player_id: int,
        level_id: str,
        moves: int,
        pushes: int,
        lurd: str,
        seconds: float | None = None,
        conn: Connection | None = None,
        assisted: bool = False,
    ) -> int:
        """Keep a verified solution; returns its row id. Committed before this returns
        (or with ``conn``'s transaction)."""
        values = dict(
            player_id=player_id,
            level_id=level_id,
            moves=moves,
            pushes=pushes,
            lurd=lurd,
            seconds=seconds,
            submitted_at=now(),
            assisted=assisted,
        )
        if conn is not None:
            return key(conn.execute(scores.insert().values(**values)))
        with self.engine.begin() as c:
            return key(c.execute(scores.insert().values(**values)))

    def submit(
        self, player_id: int, level_id: str, moves: int, pushes: int, lurd: str,
        seconds: float | None = None, assisted: bool = False,
    ) -> tuple[bool, int | None, int | None]:  # fmt: skip
        """Keep a verified solution and rank it, in one transaction: whether it improves
        the player's best on either board, and the player's rank on each board after it.
        An assisted solution is kept but never ranked: ``(False, None, None)`` unless the
        player has a ranked one already (their ranks then)."""
        mine = (scores.c.level_id == level_id) & ~scores.c.assisted
        if assisted:
            with self.engine.begin() as conn:
                self.add_score(player_id, level_id, moves, pushes, lurd, seconds, conn, True)
                ranked = conn.execute(
                    sa.select(sa.func.count()).where(mine, scores.c.player_id == player_id)
                ).scalar()
                if not ranked:
                    return False, None, None
                ranks = [self._rank(conn, level_id, board, player_id) for board in BOARDS]
            return False, ranks[0], ranks[1]
        with self.engine.begin() as conn:
            rows = conn.execute(
                sa.select(scores.c.moves, scores.c.pushes).where(
                    mine, scores.c.player_id == player_id
                )
            ).all()
            improved = not rows or (
                (moves, pushes) < min((r.moves, r.pushes) for r in rows)
                or (pushes, moves) < min((r.pushes, r.moves) for r in rows)
            )
            self.add_score(player_id, level_id, moves, pushes, lurd, seconds, conn)
            ranks = [self._rank(conn, level_id, board, player_id) for board in BOARDS]
        return improved, ranks[0], ranks[1]

    def _rank(self, conn: Connection, level_id: str, board: str, player_id: int) -> int:
        """The rank of ``player_id``'s best ranked row on ``board`` (they have one)."""
        best = conn.execute(
            sa.select(scores.c.moves, scores.c.pushes, scores.c.submitted_at, scores.c.id)
            .where(scores.c.level_id == level_id, ~scores.c.assisted)
            .where(scores.c.player_id == player_id)
            .order_by(*_board_order(board, scores))
            .limit(1)
        ).one()
        return 1 + self._better(conn, level_id, board, player_id, best)

    @staticmethod
    def _better(conn: Connection, level_id: str, board: str, player_id: int, best: Any) -> int:
        """Players other than ``player_id`` with a row ahead of ``best`` on ``board``
        (their best is ahead then): the player's rank is one more."""
        c = scores.c
        first, second = (c.moves, c.pushes) if board == "moves" else (c.pushes, c.moves)
        b1, b2 = (best.moves, best.pushes) if board == "moves" else (best.pushes, best.moves)
        ahead = sa.tuple_(first, second, c.submitted_at, c.id) < sa.tuple_(
            b1, b2, best.submitted_at, best.id
        )
        query = sa.select(sa.func.count(sa.distinct(c.player_id))).where(
            c.level_id == level_id, c.player_id != player_id, ~c.assisted, ahead
        )
        return int(conn.execute(query).scalar() or 0)

    def _board(self, level_id: str, board: str) -> Any:
        """Each player's best row on ``board`` of ``level_id``, ranked (a subquery)."""
        order = _board_order(board, scores)
        mine = (
            sa.select(
                scores,
                sa.func.row_number()
                .over(partition_by=scores.c.player_id, order_by=order)
                .label("n"),
            )
            .where(scores.c.level_id == level_id, ~scores.c.assisted)
            .subquery()
        )
        ranked_order = _board_order(board, mine)
        return (
            sa.select(mine, sa.func.row_number().over(order_by=ranked_order).label("rank"))
            .where(mine.c.n == 1)
            .subquery()
        )

    def leaderboard(
        self, level_id: str, board: str, limit: int = 20, player_id: int | None = None
    ) -> tuple[list[Entry], Entry | None]:
        """The first ``limit`` entries of a board, and ``player_id``'s entry (or None)."""
        ranked = self._board(level_id, board)
        base = sa.select(ranked, players.c.name).select_from(
            ranked.join(players, players.c.id == ranked.c.player_id)
        )
        with self.engine.connect() as conn:
            rows = conn.execute(base.order_by(ranked.c.rank).limit(limit)).all()
            me = None
            if player_id is not None:
                me = conn.execute(base.where(ranked.c.player_id == player_id)).first()
        return [_entry(r) for r in rows], None if me is None else _entry(me)

    def board_size(self, level_id: str) -> int:
        query = sa.select(sa.func.count(sa.distinct(scores.c.player_id))).where(
            scores.c.level_id == level_id, ~scores.c.assisted
        )
        with self.engine.connect() as conn:
            return int(conn.execute(query).scalar() or 0)

    def best(self, player_id: int, level_id: str, board: str) -> Entry | None:
        _, me = self.leaderboard(level_id, board, 0, player_id)
        return me

    def progress(self, player_id: int) -> dict[str, dict[str, dict[str, Any]]]:
        """The player's best solution per level and board: ``{level_id: {board: row}}``."""
        out: dict[str, dict[str, dict[str, Any]]] = {}
        for board in BOARDS:
            order = _board_order(board, scores)
            numbered = (
                sa.select(
                    scores,
                    sa.func.row_number()
                    .over(partition_by=scores.c.level_id, order_by=order)
                    .label("n"),
                )
                .where(scores.c.player_id == player_id)
                .subquery()
            )
            with self.engine.connect() as conn:
                rows = conn.execute(sa.select(numbered).where(numbered.c.n == 1)).all()
            for r in rows:
                out.setdefault(r.level_id, {})[board] = {
                    "moves": r.moves,
                    "pushes": r.pushes,
                    "lurd": r.lurd,
                    "assisted": bool(r.assisted),
                }
        return out

    def count_scores(self) -> int:
        with self.engine.connect() as conn:
            return int(conn.execute(sa.select(sa.func.count()).select_from(scores)).scalar() or 0)

    def daily_solve_days(self, player_id: int) -> set[datetime.date]:
        """The days whose daily level the player solved on that very (UTC) day."""
        query = (
            sa.select(scores.c.level_id, sa.func.min(scores.c.submitted_at).label("first"))
            .where(scores.c.player_id == player_id, scores.c.level_id.like("daily/%"))
            .where(~scores.c.assisted)
            .group_by(scores.c.level_id)
        )
        with self.engine.connect() as conn:
            rows = conn.execute(query).all()
        days = set()
        for row in rows:
            try:
                day = datetime.date.fromisoformat(row.level_id.removeprefix("daily/"))
            except ValueError:
                continue
            if utc(row.first).date() == day:
                days.add(day)
        return days

    def solved_levels(self, player_id: int) -> int:
        query = sa.select(sa.func.count(sa.distinct(scores.c.level_id))).where(
            scores.c.player_id == player_id
        )
        with self.engine.connect() as conn:
            return int(conn.execute(query).scalar() or 0)


def _entry(row: Any) -> Entry:
    return Entry(
        rank=int(row.rank),
        player_id=row.player_id,
        name=row.name,
        moves=row.moves,
        pushes=row.pushes,
        submitted_at=utc(row.submitted_at),
        lurd=row.lurd,
        seconds=row.seconds,
    )
