"""Routes for scores: submit a solution (replayed by the server), the two leaderboards of a
level, and the ghost a player can race against.

A submission's counts come from replaying its LURD on the stored level
(:func:`sokoban.lurd.verify`); nothing the client claims is ranked. A forged or illegal
solution is a 422 naming the failing step.
"""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Depends, HTTPException, Query, Request

from sokoban.errors import LevelNotFoundError
from sokoban.lurd import verify
from sokoban.records import Entry, Player, now
from sokoban.web.models.compete import (
    Board,
    EntryOut,
    GhostOut,
    LeaderboardOut,
    LevelId,
    ScoreIn,
    ScoreOut,
)
from sokoban.web.models.game import ErrorOut, StepErrorOut
from sokoban.web.routers.deps import BAD, compete, current_player, optional_player
from sokoban.web.services.compete import DAILY, Compete

router = APIRouter(prefix="/api", tags=["scores"], responses=BAD)

#: A ghost's pace when its solve time is unknown: seconds per move.
GHOST_PACE = 0.25


def entry_out(entry: Entry) -> EntryOut:
    return EntryOut(
        rank=entry.rank,
        name=entry.name,
        moves=entry.moves,
        pushes=entry.pushes,
        submitted_at=entry.submitted_at,
    )


@router.post(
    "/scores",
    response_model=ScoreOut,
    status_code=201,
    responses={
        401: {"model": ErrorOut, "description": "not signed in"},
        404: {"model": ErrorOut, "description": "no such level"},
        422: {"model": StepErrorOut | ErrorOut, "description": "illegal step or not solved"},
        429: {"model": ErrorOut, "description": "too many submissions (see Retry-After)"},
    },
)
def submit(
    body: ScoreIn,
    request: Request,
    player: Annotated[Player, Depends(current_player)],
    c: Annotated[Compete, Depends(compete)],
) -> ScoreOut:
    """Submit a solution of a level: replayed on the stored level, kept (committed before
    the answer), ranked on both boards. An assisted solve (``assisted``, or the server's
    solver ran on this level for this player) is kept but not ranked."""
    c.limit(request, player)
    resolved = c.resolve(body.level_id)
    played = verify(resolved.level, body.lurd)
    moves, pushes = played.metrics.moves, played.metrics.pushes
    assisted = body.assisted or c.fair.helped(player.id, resolved.level)
    improved, rank_moves, rank_pushes = c.records.submit(
        player.id, body.level_id, moves, pushes, played.solution.lurd(), body.seconds, assisted
    )
    return ScoreOut(
        level_id=body.level_id,
        moves=moves,
        pushes=pushes,
        rank_moves=rank_moves,
        rank_pushes=rank_pushes,
        improved=improved,
        assisted=assisted,
    )


@router.get(
    "/leaderboard",
    response_model=LeaderboardOut,
    responses={404: {"model": ErrorOut, "description": "no such level"}},
)
def leaderboard(
    level: Annotated[LevelId, Query(description="a level id")],
    c: Annotated[Compete, Depends(compete)],
    player: Annotated[Player | None, Depends(optional_player)],
    board: Annotated[Board, Query()] = "moves",
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
) -> LeaderboardOut:
    """A board of a level: fewest moves (ties: pushes, then time) or fewest pushes (ties:
    moves, then time); one entry per player, their best; ``me`` is the signed-in player's."""
    resolved = c.resolve(level)
    entries, me = c.records.leaderboard(level, board, limit, player.id if player else None)
    return LeaderboardOut(
        level_id=level,
        board=board,
        optimal=resolved.optimal,
        count=c.records.board_size(level),
        entries=[entry_out(e) for e in entries],
        me=entry_out(me) if me else None,
    )


@router.get(
    "/ghost",
    response_model=GhostOut,
    responses={
        401: {"model": ErrorOut, "description": "source best needs a signed-in player"},
        403: {"model": ErrorOut, "description": "the board is competed on now"},
        404: {"model": ErrorOut, "description": "no such level, or no such solution yet"},
    },
)
def ghost(
    level: Annotated[LevelId, Query(description="a level id")],
    c: Annotated[Compete, Depends(compete)],
    player: Annotated[Player | None, Depends(optional_player)],
    source: Annotated[Literal["best", "leader", "optimal"], Query()] = "leader",
) -> GhostOut:
    """A stored solution to race against as a ghost: the player's best (fewest moves), the
    leader's, or the optimum. No one else's solution of today's daily level or of a
    running race's level is served while it runs (403)."""
    resolved = c.resolve(level)
    if source != "best":
        if level == f"{DAILY}/{now().date().isoformat()}":
            raise HTTPException(403, f"today's {source} solution is shown tomorrow")
        closed = c.fair.running(resolved.level)
        if closed is not None:
            raise HTTPException(403, f"no ghost of {closed} while it runs")
    if source == "optimal":
        if resolved.solution is None:
            raise LevelNotFoundError(f"no known optimal solution of {level!r}")
        moves = sum(1 for ch in resolved.solution if ch.isalpha())
        return GhostOut(name="optimum", lurd=resolved.solution, seconds=moves * GHOST_PACE)
    if source == "best":
        if player is None:
            raise HTTPException(401, "sign in to race your own best")
        entry = c.records.best(player.id, level, "moves")
    else:
        entries, _ = c.records.leaderboard(level, "moves", 1)
        entry = entries[0] if entries else None
    if entry is None:
        raise LevelNotFoundError(f"no solution of {level!r} on the board yet")
    seconds = entry.seconds if entry.seconds else entry.moves * GHOST_PACE
    return GhostOut(name=entry.name, lurd=entry.lurd, seconds=seconds)
