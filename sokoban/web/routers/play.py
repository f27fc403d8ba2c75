"""Routes the game calls as it is played: the deadlock check after a push, and verify."""

from __future__ import annotations

import dataclasses
from typing import Annotated, Any

from fastapi import APIRouter, Depends

from sokoban.lurd import replay
from sokoban.web.models.convert import to_level
from sokoban.web.models.game import CheckIn, CheckOut, ErrorOut, StepErrorOut, VerifyIn, VerifyOut
from sokoban.web.routers.deps import NO_HELP, compete, refuse_help
from sokoban.web.services.compete import Compete

router = APIRouter(prefix="/api", tags=["play"])


@router.post(
    "/check",
    response_model=CheckOut,
    responses={
        422: {"model": ErrorOut, "description": "malformed or unplayable level"},
        **NO_HELP,
    },
)
def check(body: CheckIn, c: Annotated[Compete, Depends(compete)]) -> CheckOut:
    """The deadlock tests (dead squares, freeze, two boxes, bipartite, and the corral and
    tangle sub-searches, run once per group of boxes and board) on a position:
    milliseconds, run in the server process with warm kernels. ``dead`` is never a false
    alarm; a position that passes may still be dead (ask ``/api/solve``). Not on today's
    daily level or a race's while it runs (403)."""
    from sokoban.solve.check import check as run_check

    level = to_level(body.level)
    refuse_help(c, level)
    verdict = run_check(level)
    width = level.width
    return CheckOut(
        dead=verdict.dead,
        reason=verdict.reason,
        dead_boxes=[[c // width, c % width] for c in sorted(verdict.dead_boxes)],
    )


@router.post(
    "/verify",
    response_model=VerifyOut,
    responses={
        422: {
            "model": StepErrorOut | ErrorOut,
            "description": "an illegal step (with its 0-based index), bad LURD or level",
        }
    },
)
def verify(body: VerifyIn) -> dict[str, Any]:
    """Play a solution (LURD) from a position: whether it solves it and its metrics (those
    of :class:`sokoban.lurd.Metrics`). An illegal step is a 422 naming the step's index."""
    level = to_level(body.level)
    played = replay(level, body.solution)
    return {"solved": played.is_solved, **dataclasses.asdict(played.metrics)}
