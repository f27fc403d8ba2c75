"""What a server is made with (:class:`Settings`) and what it holds while it runs
(:class:`AppState`, on ``app.state.sokoban``)."""

from __future__ import annotations

import dataclasses
import datetime
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from fastapi import Request

if TYPE_CHECKING:
    from sokoban.records import DailyRow
    from sokoban.store import Store
    from sokoban.web.services.library import Library
    from sokoban.web.services.pool import SolverPool

#: The host names of the loopback interface: what a server answers by default.
LOOPBACK = ("localhost", "127.0.0.1", "::1")
#: Longest time a solve may be given, in seconds.
MAX_TIME_LIMIT = 30.0


@dataclasses.dataclass(frozen=True)
class Settings:
    """Settings of :func:`sokoban.web.app.create_app`.

    - ``collections``: XSB/SOK files offered after the built-in collection.
    - ``db``: a SQLAlchemy URL or a SQLite file path; ``None`` is the user's data directory
      (see :func:`sokoban.store.default_path`).
    - ``solvers``: solver processes (``None``: one per core).
    - ``time_limit``: a solve's default seconds; requests may ask up to ``MAX_TIME_LIMIT``.
    - ``queue``: solves that may wait for a free solver; past that, 503 with Retry-After.
    - ``cache``: solve results kept (identical requests are answered from it).
    - ``max_body``: largest request body, in bytes (413 past it).
    - ``memory``: search memory of one solve, in bytes.
    - ``warm``: compile the kernels (in every solver and in the server) at start-up.
    - ``daily_ahead``: days of daily levels made ahead of today (0: today only; -1: none
      are made, for servers that only read them).
    - ``daily_maker``: makes a day's level (``function(date) -> DailyRow``) in a thread of
      this process instead of the generator in a background process (tests).
    - ``rate``: score submissions and race messages per second per player (bursts of
      four times as many); ``address_rate``: the same per client address.
    - ``signup_rate``, ``signup_burst``: sign-ups per second per client address, and how
      many may come at once.
    - ``upgrade``: bring the database's schema up to date at start-up; ``False`` refuses
      to start on an old schema (``sokoban db upgrade`` first).
    - ``solver_share``: solver slots (running or queued) one client may hold at once.
    - ``allowed_hosts``: the ``Host`` names the server answers (400 for others, against
      DNS rebinding; ``"*"`` for any); a WebSocket's ``Origin`` must be its own host.
    - ``access_log``: one line per request on the ``sokoban.web.access`` logger (method,
      path without its query, status, milliseconds: never a token).
    """

    collections: tuple[Path, ...] = ()
    db: str | None = None
    solvers: int | None = None
    time_limit: float = 5.0
    queue: int = 8
    cache: int = 512
    max_body: int = 1 << 20
    memory: int = 512 << 20
    warm: bool = True
    daily_ahead: int = 7
    daily_maker: Callable[[datetime.date], DailyRow] | None = None
    rate: float = 5.0
    address_rate: float = 50.0
    signup_rate: float = 1 / 60
    signup_burst: int = 5
    upgrade: bool = True
    solver_share: int = 2
    allowed_hosts: tuple[str, ...] = LOOPBACK
    access_log: bool = False

    def __post_init__(self) -> None:
        if self.solvers is not None and self.solvers < 1:
            raise ValueError(f"solvers must be at least 1, not {self.solvers}")
        if not 0 < self.time_limit <= MAX_TIME_LIMIT:
            raise ValueError(f"time limit {self.time_limit} is outside (0, {MAX_TIME_LIMIT}]")
        if self.queue < 0:
            raise ValueError(f"queue must be 0 or more, not {self.queue}")

    @property
    def processes(self) -> int:
        return self.solvers or os.cpu_count() or 1


@dataclasses.dataclass
class AppState:
    settings: Settings
    store: Store
    library: Library
    pool: SolverPool


def state(request: Request) -> AppState:
    """The running server's state (a FastAPI dependency)."""
    found: AppState = request.app.state.sokoban
    return found
