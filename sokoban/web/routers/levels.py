"""Routes for collections and levels: list, page, one level, parse pasted text, save.

``mine`` is the collection of the player asking (the Bearer token): its list and count are
that player's levels, and saving needs a player. A saved level itself (``/api/levels/mine/N``)
opens for anyone, so its share link works signed out too.
"""

from __future__ import annotations

import io
from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Path, Query, Request

from sokoban import xsb
from sokoban.errors import SokobanError, XsbError
from sokoban.level import Level
from sokoban.records import Player
from sokoban.web.models.convert import level_out
from sokoban.web.models.game import (
    CollectionOut,
    CollectionSummary,
    ErrorOut,
    LevelOut,
    ParseError,
    ParseIn,
    ParseOut,
    SaveIn,
)
from sokoban.web.routers.deps import compete, optional_player
from sokoban.web.services.compete import Compete
from sokoban.web.services.library import MINE
from sokoban.web.settings import AppState, state

router = APIRouter(prefix="/api", tags=["levels"])

#: Most levels one parse answers with (the rest are reported as one error).
MAX_PARSED = 1000
#: Most levels one page of a collection holds.
MAX_PAGE = 500

NOT_FOUND: dict[int | str, dict[str, Any]] = {
    404: {"model": ErrorOut, "description": "no such collection or level"}
}
BAD: dict[int | str, dict[str, Any]] = {
    422: {"model": ErrorOut, "description": "the request is malformed"}
}
UNKNOWN_TOKEN: dict[int | str, dict[str, Any]] = {
    401: {"model": ErrorOut, "description": "an unknown token: sign in again"}
}


def _owner(player: Player | None) -> int | None:
    return None if player is None else player.id


@router.get("/collections", response_model=list[CollectionSummary], responses=UNKNOWN_TOKEN)
def collections(
    app: Annotated[AppState, Depends(state)],
    player: Annotated[Player | None, Depends(optional_player)],
) -> list[CollectionSummary]:
    """The collections: built-in first, then the files given to the server, then ``mine``
    (the levels the signed-in player saved; none signed out)."""
    return app.library.summaries(_owner(player))


@router.get(
    "/collections/{cid}",
    response_model=CollectionOut,
    responses={**NOT_FOUND, **BAD, **UNKNOWN_TOKEN},
)
def collection(
    cid: Annotated[str, Path(max_length=100)],
    app: Annotated[AppState, Depends(state)],
    c: Annotated[Compete, Depends(compete)],
    player: Annotated[Player | None, Depends(optional_player)],
    offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = MAX_PAGE,
) -> CollectionOut:
    """A page of a collection's levels (``offset`` 0-based, at most ``limit`` levels); the
    stored solution of a board a race is run on is left out until it ends. ``mine`` is the
    signed-in player's levels (empty signed out), each with its number as its index."""
    owner = _owner(player)
    return CollectionOut(
        id=cid,
        title=app.library.title(cid),
        count=app.library.count(cid, owner),
        offset=offset,
        levels=c.fair.hide_solutions(app.library.page(cid, offset, limit, owner)),
    )


@router.get("/levels/{cid}/{index}", response_model=LevelOut, responses={**NOT_FOUND, **BAD})
def level(
    cid: Annotated[str, Path(max_length=100)],
    index: Annotated[int, Path(ge=1, le=10_000_000)],
    app: Annotated[AppState, Depends(state)],
    c: Annotated[Compete, Depends(compete)],
) -> LevelOut:
    """Level ``index`` (1-based) of collection ``cid``, or the saved level numbered
    ``index`` of ``mine`` (anyone's: a share link opens it for everyone); its stored
    solution is left out while a race is run on its board."""
    (out,) = c.fair.hide_solutions([app.library.level(cid, index)])
    return out


@router.post("/parse", response_model=ParseOut, responses=BAD)
def parse(body: ParseIn) -> ParseOut:
    """Read pasted XSB/SOK text (RLE rows and ``|`` row separators included): the levels
    it holds (collection ``import``) and, for each broken one, its line and the reason."""
    errors: list[XsbError] = []
    levels: list[LevelOut] = []
    try:
        for level in xsb.iter_levels(io.StringIO(body.text, newline=None), errors):
            if len(levels) == MAX_PARSED:
                raise SokobanError(f"more than {MAX_PARSED} levels: send fewer at a time")
            levels.append(level_out(level, "import", len(levels) + 1))
    except XsbError as error:  # the text as a whole is not XSB (one endless line)
        errors.append(error)
    out = [ParseError(line=e.line, message=" ".join(str(e).split())) for e in errors]
    if not levels and not out:
        out.append(ParseError(line=None, message="no board rows in the text"))
    return ParseOut(levels=levels, errors=out)


@router.post(
    "/levels",
    response_model=LevelOut,
    status_code=201,
    responses={
        **BAD,
        401: {"model": ErrorOut, "description": "not signed in, or an unknown token"},
        429: {"model": ErrorOut, "description": "too many saves (see Retry-After)"},
    },
)
def save(
    body: SaveIn,
    request: Request,
    app: Annotated[AppState, Depends(state)],
    c: Annotated[Compete, Depends(compete)],
    player: Annotated[Player | None, Depends(optional_player)],
) -> LevelOut:
    """Save a level in the signed-in player's collection ``mine`` (401 signed out); a level
    with problems (no player, boxes and goals differ in number...) is refused with them.
    Its ``id`` (``mine/N``) names it for everyone from then on."""
    if player is None:
        raise HTTPException(
            401,
            "sign in to save levels: send Authorization: Bearer <token>",
            {"WWW-Authenticate": "Bearer"},
        )
    c.limit(request, player)
    level = Level.from_xsb(body.level)
    problems = level.problems()
    if problems:
        raise SokobanError(f"the level cannot be played: {'; '.join(problems)}")
    title = body.title if body.title is not None else level.title
    number = app.store.save_level(level, title, player.id)
    return app.library.level(MINE, number)
