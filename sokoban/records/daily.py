"""Daily levels: one level per (UTC) day, made ahead and kept first come."""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from sokoban.records.tables import daily_levels, now

if TYPE_CHECKING:
    from sokoban.store import Store


@dataclasses.dataclass(frozen=True, slots=True)
class DailyRow:
    day: datetime.date
    band: str
    xsb: str
    solution: str
    moves: int
    pushes: int
    seed: int


class DailyRecords:
    """The daily levels, on ``store``'s engine."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.engine = store.engine

    def daily(self, day: datetime.date) -> DailyRow | None:
        with self.engine.connect() as conn:
            row = conn.execute(
                sa.select(daily_levels).where(daily_levels.c.day == day.isoformat())
            ).first()
        return None if row is None else _daily(row)

    def add_daily(self, row: DailyRow) -> bool:
        """Store a day's level unless the day has one (made by another process, or
        earlier by an older generator: the first one stays). Returns whether it was new."""
        try:
            with self.engine.begin() as conn:
                conn.execute(
                    daily_levels.insert().values(
                        day=row.day.isoformat(),
                        band=row.band,
                        xsb=row.xsb,
                        solution=row.solution,
                        moves=row.moves,
                        pushes=row.pushes,
                        seed=row.seed,
                        created_at=now(),
                    )
                )
        except sa.exc.IntegrityError:
            return False
        return True

    def daily_days(self, until: datetime.date, limit: int = 366) -> list[DailyRow]:
        """Stored days up to ``until``, newest first."""
        query = (
            sa.select(daily_levels)
            .where(daily_levels.c.day <= until.isoformat())
            .order_by(daily_levels.c.day.desc())
            .limit(limit)
        )
        with self.engine.connect() as conn:
            return [_daily(r) for r in conn.execute(query).all()]

    def stored_days(self, days: Iterable[datetime.date]) -> set[datetime.date]:
        wanted = [d.isoformat() for d in days]
        query = sa.select(daily_levels.c.day).where(daily_levels.c.day.in_(wanted))
        with self.engine.connect() as conn:
            return {datetime.date.fromisoformat(r.day) for r in conn.execute(query).all()}


def _daily(row: Any) -> DailyRow:
    return DailyRow(
        day=datetime.date.fromisoformat(row.day),
        band=row.band,
        xsb=row.xsb,
        solution=row.solution,
        moves=row.moves,
        pushes=row.pushes,
        seed=int(row.seed),
    )
