"""Routes for players: sign up with a name, who am I, move to another device, progress.

No passwords: signing up gives a random token (32 bytes, URL-safe) that the browser keeps
and sends as ``Authorization: Bearer``; the server keeps only its hash. A transfer code
(short, typed by hand, single use, ten minutes) gives a second device a token of its own.
"""

from __future__ import annotations

import datetime
import secrets
from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Request

from sokoban.errors import SokobanError
from sokoban.lurd import verify
from sokoban.records import NameTakenError, Player, hash_secret, now
from sokoban.web.models.compete import (
    Best,
    ClaimIn,
    MeOut,
    MergeOut,
    PlayerIn,
    PlayerOut,
    ProgressIn,
    ProgressOut,
    RecoverIn,
    Refused,
    TransferOut,
)
from sokoban.web.models.game import ErrorOut
from sokoban.web.routers.deps import BAD, compete, current_player
from sokoban.web.services.compete import Compete, client_address, too_many

router = APIRouter(prefix="/api", tags=["players"], responses=BAD)

#: How long a transfer code lives.
TRANSFER_LIFE = datetime.timedelta(minutes=10)
#: Letters of a transfer code: no 0/O, 1/I/L to misread; 10 of them are 50 bits.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 10
#: Letters of a recovery code: 20 of them are 99 bits.
RECOVERY_LENGTH = 20

AUTH: dict[int | str, dict[str, Any]] = {
    401: {"model": ErrorOut, "description": "no token or an unknown one"}
}
LIMITED: dict[int | str, dict[str, Any]] = {
    429: {"model": ErrorOut, "description": "too many requests (see Retry-After)"}
}


def new_token() -> str:
    return secrets.token_urlsafe(32)


def check_name(name: str) -> str:
    """A display name as kept: trimmed, 1-32 printable characters."""
    name = name.strip()
    if not name:
        raise SokobanError("a name needs at least one visible character")
    if not name.isprintable():
        raise SokobanError("a name may hold only printable characters")
    return name


def _code_key(code: str) -> str:
    """A typed transfer code as stored: letters only, upper case."""
    return "".join(ch for ch in code.upper() if ch.isalnum())


@router.post(
    "/players",
    response_model=PlayerOut,
    status_code=201,
    responses={409: {"model": ErrorOut, "description": "the name is taken"}, **LIMITED},
)
def sign_up(body: PlayerIn, request: Request, c: Annotated[Compete, Depends(compete)]) -> PlayerOut:
    """Pick a display name: the answer holds the player's secret token and a recovery
    code, shown only here. A name is refused when it, or a name it cannot be told from
    ("Аlice" with a Cyrillic "А" beside "Alice"), is in use. Sign-ups are limited per
    client address (429 with Retry-After)."""
    c.limit(request, None)
    too_many(c.signup_limit.take(f"s:{client_address(request)}"))
    name = check_name(body.name)
    token = new_token()
    recovery = new_code(RECOVERY_LENGTH)
    try:
        player = c.records.add_player(name, hash_secret(token), hash_secret(recovery))
    except NameTakenError:
        raise HTTPException(
            409, f"the name {name!r} is taken (or one that looks the same); pick another"
        ) from None
    return PlayerOut(id=player.id, name=player.name, token=token, recovery=_grouped(recovery))


@router.post(
    "/players/recover",
    response_model=PlayerOut,
    responses={404: {"model": ErrorOut, "description": "no such name and code"}, **LIMITED},
)
def recover(
    body: RecoverIn, request: Request, c: Annotated[Compete, Depends(compete)]
) -> PlayerOut:
    """Sign in again with the name and the recovery code sign-up gave: a new token (the
    code stays valid). Tries are limited per address as sign-ups are."""
    c.limit(request, None)
    too_many(c.signup_limit.take(f"r:{client_address(request)}"))
    token = new_token()
    player = c.records.recover(body.name.strip(), hash_secret(_code_key(body.recovery)),
                               hash_secret(token))  # fmt: skip
    if player is None:
        raise HTTPException(404, "no player with that name and recovery code")
    return PlayerOut(id=player.id, name=player.name, token=token, recovery=None)


def new_code(length: int) -> str:
    """A code of ``length`` letters of :data:`CODE_ALPHABET`."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(length))


def _grouped(code: str) -> str:
    """A code as shown: groups of four letters (the dashes are ignored when typed)."""
    return "-".join(code[i : i + 4] for i in range(0, len(code), 4))


def streaks(days: set[datetime.date], today: datetime.date) -> tuple[int, int]:
    """The current streak (days in a row ending today, or yesterday while today is still
    open) and the longest."""
    best = run = 0
    previous: datetime.date | None = None
    for day in sorted(days):
        run = run + 1 if previous is not None and (day - previous).days == 1 else 1
        best = max(best, run)
        previous = day
    current = 0
    day = today if today in days else today - datetime.timedelta(days=1)
    while day in days:
        current += 1
        day -= datetime.timedelta(days=1)
    return current, best


@router.get("/me", response_model=MeOut, responses=AUTH)
def me(
    player: Annotated[Player, Depends(current_player)], c: Annotated[Compete, Depends(compete)]
) -> MeOut:
    """The signed-in player: name, daily streaks, levels solved."""
    streak, best = streaks(c.records.daily_solve_days(player.id), now().date())
    return MeOut(
        id=player.id,
        name=player.name,
        streak=streak,
        best_streak=best,
        solved=c.records.solved_levels(player.id),
    )


@router.post("/me/transfer", response_model=TransferOut, responses={**AUTH, **LIMITED})
def transfer(
    request: Request,
    player: Annotated[Player, Depends(current_player)],
    c: Annotated[Compete, Depends(compete)],
) -> TransferOut:
    """A code to sign in on another device (single use, ten minutes; a new one replaces
    the old)."""
    c.limit(request, player)
    code = new_code(CODE_LENGTH)
    expires = now() + TRANSFER_LIFE
    c.records.add_transfer(player.id, hash_secret(code), expires)
    return TransferOut(code=f"{code[:5]}-{code[5:]}", expires_at=expires)


@router.post(
    "/players/claim",
    response_model=PlayerOut,
    responses={404: {"model": ErrorOut, "description": "unknown, used or expired"}, **LIMITED},
)
def claim(body: ClaimIn, request: Request, c: Annotated[Compete, Depends(compete)]) -> PlayerOut:
    """Use a transfer code on the new device: a token of its own for the same player."""
    c.limit(request, None)  # per address: guessing codes is as slow as signing up
    token = new_token()
    player = c.records.claim_transfer(hash_secret(_code_key(body.code)), hash_secret(token))
    if player is None:
        raise HTTPException(404, "unknown, used or expired transfer code")
    return PlayerOut(id=player.id, name=player.name, token=token, recovery=None)


def _progress(c: Compete, player: Player) -> dict[str, dict[str, Best]]:
    return {
        level_id: {board: Best(**row) for board, row in boards.items()}
        for level_id, boards in c.records.progress(player.id).items()
    }


@router.get("/me/progress", response_model=ProgressOut, responses=AUTH)
def progress(
    player: Annotated[Player, Depends(current_player)], c: Annotated[Compete, Depends(compete)]
) -> ProgressOut:
    """The player's best solution per level, on each board."""
    return ProgressOut(levels=_progress(c, player))


@router.post("/me/progress", response_model=MergeOut, responses={**AUTH, **LIMITED})
def merge(
    body: ProgressIn,
    request: Request,
    player: Annotated[Player, Depends(current_player)],
    c: Annotated[Compete, Depends(compete)],
) -> MergeOut:
    """Merge the browser's solutions after signing in: each is verified on its level and
    kept as a score (assisted, off the boards, when it says so); the ones that do not play
    are listed, not fatal. The answer is the merged progress."""
    c.limit(request, player)
    accepted = 0
    refused: list[Refused] = []
    known = c.records.progress(player.id)
    with c.records.engine.begin() as conn:
        for item in body.solutions:
            try:
                resolved = c.resolve(item.level_id)
                played = verify(resolved.level, item.lurd)
            except SokobanError as error:
                refused.append(Refused(level_id=item.level_id, detail=" ".join(str(error).split())))
                continue
            lurd = played.solution.lurd()
            mine = known.get(item.level_id, {})
            if any(row["lurd"] == lurd for row in mine.values()):
                continue  # already on the server
            c.records.add_score(
                player.id,
                item.level_id,
                played.metrics.moves,
                played.metrics.pushes,
                lurd,
                conn=conn,
                assisted=item.assisted or c.fair.helped(player.id, resolved.level),
            )
            accepted += 1
    return MergeOut(accepted=accepted, refused=refused, levels=_progress(c, player))
