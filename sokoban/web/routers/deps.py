"""What the competitive routers share: the 422 they answer, the :class:`Compete` state
and who is asking (a Bearer token), as FastAPI dependencies; and the refusal of the
solver's help on a board competed on now."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, HTTPException, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from sokoban.level import Level
from sokoban.records import Player, hash_secret
from sokoban.web.models.game import ErrorOut
from sokoban.web.services.compete import KNOWN_TOKENS, Compete, client_address

__all__ = [
    "BAD",
    "NO_HELP",
    "client_address",
    "compete",
    "current_player",
    "optional_player",
    "player_of",
    "refuse_help",
]

#: The 422 of every competitive route: one line, not FastAPI's list of errors.
BAD: dict[int | str, dict[str, Any]] = {
    422: {"model": ErrorOut, "description": "the request is malformed"}
}
#: The 401 of the routes that need a player.
UNAUTHORIZED: dict[int | str, dict[str, Any]] = {
    401: {"model": ErrorOut, "description": "not signed in, or an unknown token"}
}

#: The 403 of the routes that help solve (solve, rewind, check).
NO_HELP: dict[int | str, dict[str, Any]] = {
    403: {
        "model": ErrorOut,
        "description": "the board is today's daily level or a race's: no solver help while it runs",
    }
}

#: The Bearer scheme, declared in the OpenAPI document; the routes answer its 401s.
bearer_scheme = HTTPBearer(auto_error=False, description="the token sign-up or a claim gave")


def compete(request: Request) -> Compete:
    found: Compete = request.app.state.compete
    return found


def player_of(c: Compete, token: str | None) -> Player | None:
    """The player of ``token``. Known tokens are remembered (tokens are never revoked,
    and a player's id and name never change), so most requests skip the query."""
    if not token or len(token) > 200:
        return None
    key = hash_secret(token)
    found = c.known.get(key)
    if found is None:
        found = c.records.player_by_token(key)
        if found is not None:
            if len(c.known) >= KNOWN_TOKENS:
                c.known.clear()
            c.known[key] = found
    return found


def optional_player(
    request: Request,
    c: Annotated[Compete, Depends(compete)],
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer_scheme)],
) -> Player | None:
    """The player whose token signs the request, ``None`` for none (401 for a bad one)."""
    if credentials is None:
        if request.headers.get("authorization") is None:
            return None
        raise HTTPException(401, "unknown token: sign in again", {"WWW-Authenticate": "Bearer"})
    player = player_of(c, credentials.credentials.strip())
    if player is None:
        raise HTTPException(401, "unknown token: sign in again", {"WWW-Authenticate": "Bearer"})
    return player


def current_player(player: Annotated[Player | None, Depends(optional_player)]) -> Player:
    """The signed-in player: 401 without a token."""
    if player is None:
        raise HTTPException(
            401, "sign in first: send Authorization: Bearer <token>", {"WWW-Authenticate": "Bearer"}
        )
    return player


def refuse_help(c: Compete, level: Level) -> None:
    """403 when ``level``'s board is competed on now (today's daily level, a race not
    over): the solver's answers about it (a solution, a rewind, a deadlock) are help."""
    running = c.fair.running(level)
    if running is not None:
        raise HTTPException(403, f"no solver help on {running} while it runs")
