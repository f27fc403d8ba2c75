"""Routes that run the solver: solve a position, rewind a history to its last solvable
position, and the list of methods. Solves run in the solver pool
(:mod:`sokoban.web.services.pool`)."""

from __future__ import annotations

import time
from typing import Annotated, Any

import anyio.to_thread
from fastapi import APIRouter, Depends, Request

from sokoban.errors import SokobanError
from sokoban.level import Level
from sokoban.lurd import Solution, replay
from sokoban.records import Player
from sokoban.web.models.convert import to_level
from sokoban.web.models.game import (
    ErrorOut,
    MethodOut,
    RewindIn,
    RewindOut,
    SolveIn,
    SolveOut,
    StepErrorOut,
)
from sokoban.web.routers.deps import NO_HELP, compete, optional_player, refuse_help
from sokoban.web.services.compete import Compete, client_address
from sokoban.web.settings import MAX_TIME_LIMIT, AppState, state

router = APIRouter(prefix="/api", tags=["solve"])

#: Longest history /api/rewind takes, in steps (each probe replays it).
MAX_HISTORY = 100_000

BUSY: dict[int | str, dict[str, Any]] = {
    **NO_HELP,
    429: {
        "model": ErrorOut,
        "description": "this client holds its share of the solvers: retry after Retry-After",
    },
    503: {
        "model": ErrorOut,
        "description": "every solver is busy: try again after the Retry-After seconds",
    },
}


def _fair(c: Compete, player: Player | None, level: Level) -> None:
    """403 on a board competed on now; else the help noted for the player's scores."""
    refuse_help(c, level)
    if player is not None:
        c.fair.note_help(player.id, level)


def _methods() -> dict[str, Any]:
    from sokoban.solve import METHODS

    return METHODS


def _playable(level: Level) -> Level:
    problems = level.problems()
    if problems:
        raise SokobanError(f"the level cannot be played: {'; '.join(problems)}")
    return level


@router.get("/methods", response_model=list[MethodOut])
def methods() -> list[MethodOut]:
    """The solver's methods: what each optimises and whether its solutions are optimal."""
    return [
        MethodOut(name=m.name, description=m.description, optimises=m.optimises, optimal=m.optimal)
        for m in _methods().values()
    ]


@router.post(
    "/solve",
    response_model=SolveOut,
    responses={422: {"model": ErrorOut, "description": "bad level or method"}, **BUSY},
)
async def solve(
    body: SolveIn,
    request: Request,
    app: Annotated[AppState, Depends(state)],
    c: Annotated[Compete, Depends(compete)],
    player: Annotated[Player | None, Depends(optional_player)],
) -> SolveOut:
    """Solve a position within ``time_limit`` seconds (at most 30) with a method of
    ``/api/methods`` (``fast`` by default). Identical requests are answered from a cache
    (``cached``). Not on today's daily level or a race's while it runs (403); a signed-in
    player's later score on this board is kept as assisted."""
    # Reading a large board takes milliseconds: off the event loop.
    level = await anyio.to_thread.run_sync(lambda: _playable(to_level(body.level)))
    await anyio.to_thread.run_sync(_fair, c, player, level)
    if body.method not in _methods():
        names = ", ".join(sorted(_methods()))
        raise SokobanError(f"unknown method {body.method!r}; choose from {names}")
    limit = body.time_limit or app.settings.time_limit
    answer, cached = await app.pool.solve(level, body.method, limit, client_address(request))
    return SolveOut(**answer, cached=cached)


@router.post(
    "/rewind",
    response_model=RewindOut,
    responses={
        422: {"model": StepErrorOut | ErrorOut, "description": "bad level or history"},
        **BUSY,
    },
)
async def rewind(
    body: RewindIn,
    request: Request,
    app: Annotated[AppState, Depends(state)],
    c: Annotated[Compete, Depends(compete)],
    player: Annotated[Player | None, Depends(optional_player)],
) -> RewindOut:
    """The longest prefix of a history (LURD) whose end position is still solvable.

    Solvability only ever goes from yes to no along a history, so a binary search of
    solves finds the last good step; the cheap check settles dead positions without a
    search. A position not settled within the time limit counts as unsolvable, so the
    answer may rewind further than needed but never to a dead position proven solvable.
    Every solve of the search together stops after 30 s. The same fair-play rules as
    ``/api/solve``.
    """
    from sokoban.solve.check import check

    def prepare() -> tuple[Level, tuple[Any, ...]]:
        level = _playable(to_level(body.level))
        steps = replay(level, body.lurd).solution.steps
        if len(steps) > MAX_HISTORY:
            raise SokobanError(f"history of {len(steps):,} steps, over {MAX_HISTORY:,}")
        return level, steps

    level, steps = await anyio.to_thread.run_sync(prepare)
    await anyio.to_thread.run_sync(_fair, c, player, level)
    client = client_address(request)
    limit = body.time_limit or app.settings.time_limit
    deadline = time.monotonic() + MAX_TIME_LIMIT
    known: dict[int, dict[str, Any]] = {}

    def dead_at(k: int) -> tuple[Level, bool]:
        position = replay(level, Solution(steps[:k])).final
        return position, check(position).dead

    async def probe(k: int) -> dict[str, Any]:
        # Replaying a long history and checking take CPU: off the event loop.
        position, dead = await anyio.to_thread.run_sync(dead_at, k)
        if dead:
            known[k] = {"status": "unsolvable", "lurd": None}
            return known[k]
        left = deadline - time.monotonic()
        if left <= 0.05:
            return {"status": "time limit", "lurd": None}
        answer, _ = await app.pool.solve(position, "fast", round(min(limit, left), 2), client)
        known[k] = answer
        return answer

    lo, hi = 0, len(steps)
    if (await probe(hi))["status"] == "solved":
        lo = hi
    while hi - lo > 1 and time.monotonic() < deadline:
        mid = (lo + hi) // 2
        if (await probe(mid))["status"] == "solved":
            lo = mid
        else:
            hi = mid
    found = known.get(lo) or await probe(lo)
    return RewindOut(
        steps=lo,
        lurd=Solution(steps[:lo]).lurd(),
        status=found["status"],
        solution=found["lurd"],
    )
