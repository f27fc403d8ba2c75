"""The web game's server: :func:`create_app` makes the FastAPI application.

>>> from sokoban.web import Settings, create_app
>>> app = create_app(Settings(db="sqlite://", solvers=1, warm=False))  # doctest: +SKIP

Nothing starts on import or in :func:`create_app` beyond reading the collections and
opening the database: the solver processes start with the application (its lifespan), and
only the ``sokoban serve`` command runs a web server. Routes are grouped by area, one
module each: :mod:`~sokoban.web.routers.levels` (collections, levels, parse, save),
:mod:`~sokoban.web.routers.solve` (solve, rewind, methods), :mod:`~sokoban.web.routers.play` (check,
verify) and :mod:`~sokoban.web.routers.pages` (the page, static files, the API's docs).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.trustedhost import TrustedHostMiddleware

from sokoban import __version__
from sokoban.errors import IllegalMoveError, LevelNotFoundError, SokobanError, UnsolvedError
from sokoban.migrations import require_current, upgrade
from sokoban.records import RaceRecords, Records
from sokoban.store import Store
from sokoban.web.middleware import AccessLog, BodyLimit, SecurityHeaders
from sokoban.web.routers import daily, levels, pages, play, players, race, scores, solve
from sokoban.web.services.compete import MESSAGE_RATE, Compete, LevelResolver
from sokoban.web.services.daily_maker import DailyMaker
from sokoban.web.services.fair import FairPlay
from sokoban.web.services.library import Library
from sokoban.web.services.pool import Busy, ShareUsed, SolverPool
from sokoban.web.services.race_hub import RaceHub, describer
from sokoban.web.services.ratelimit import RateLimiter
from sokoban.web.settings import AppState, Settings

log = logging.getLogger("sokoban.web")

DESCRIPTION = """The JSON API of the sokoban web game.

Cells are `[row, col]`, 0-based. A position is sent as XSB text or as a LevelJson object.
Every error is a 4xx (or 503 when the solvers are busy) with `{"detail": "one line"}`."""


def create_app(settings: Settings | None = None) -> FastAPI:
    """The application for ``settings``: collections read, database opened and upgraded
    (``settings.upgrade``; else an old schema is refused); solver processes start when the
    application does (and stop with it)."""
    settings = settings or Settings()
    store = Store(settings.db)
    try:
        if settings.upgrade:
            upgrade(store)
        else:
            require_current(store)
        library = Library.load(list(settings.collections), store)
    except BaseException:
        store.close()
        raise
    pool = SolverPool(
        settings.processes,
        settings.queue,
        settings.cache,
        settings.memory,
        warm=settings.warm,
        share=settings.solver_share,
    )

    users = 0  # running lifespans: a test client inside another shares its pool

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        import anyio.to_thread

        nonlocal users
        if users == 0:
            if settings.warm:
                from sokoban.web.services.pool import warm

                await anyio.to_thread.run_sync(warm)  # the in-process check's kernels
            await anyio.to_thread.run_sync(pool.start)
        users += 1
        try:
            async with _competing(c):
                yield
        finally:
            users -= 1
            if users == 0:
                pool.close()
                store.close()

    app = FastAPI(
        title="sokoban",
        version=__version__,
        description=DESCRIPTION,
        lifespan=lifespan,
        docs_url=None,  # our own page: Swagger UI would load scripts from a CDN
        redoc_url=None,
    )
    app.state.sokoban = state = AppState(settings, store, library, pool)
    app.state.compete = c = _compete(state)
    _add_error_handlers(app)
    app.add_middleware(BodyLimit, max_body=settings.max_body)
    app.add_middleware(TrustedHostMiddleware, allowed_hosts=list(settings.allowed_hosts))
    app.add_middleware(SecurityHeaders)
    if settings.access_log:
        app.add_middleware(AccessLog)
    for module in (levels, solve, play, pages, players, scores, daily, race):
        app.include_router(module.router)
    pages.mount_static(app)
    return app


def _compete(state: AppState) -> Compete:
    """The competitive side: records, rate limits, the daily maker, the level resolver
    and the race hub (which describes a race's level through the resolver)."""
    settings = state.settings
    records = Records(state.store)
    maker = DailyMaker(records, settings.daily_ahead, settings.daily_maker)
    resolver = LevelResolver(state.library, maker)
    message_rate = max(MESSAGE_RATE, 4 * settings.rate)
    races = RaceRecords(state.store)
    return Compete(
        app=state,
        records=records,
        levels=resolver,
        player_limit=RateLimiter(settings.rate, 4 * settings.rate),
        address_limit=RateLimiter(settings.address_rate, 4 * settings.address_rate),
        message_limit=RateLimiter(message_rate, 4 * message_rate),
        signup_limit=RateLimiter(settings.signup_rate, settings.signup_burst),
        daily=maker,
        hub=RaceHub(races, describer(resolver.resolve)),
        fair=FairPlay(records, races),
    )


@contextlib.asynccontextmanager
async def _competing(c: Compete) -> AsyncIterator[None]:
    """The competitive side's background work (daily levels made ahead, the race hub)
    for the application's lifespan; a lifespan inside another (nested test clients)
    shares the first's."""
    c.users += 1
    if c.users > 1:
        try:
            yield
        finally:
            c.users -= 1
        return
    await c.daily.start()
    await c.hub.start()
    try:
        yield
    finally:
        c.users -= 1
        await c.hub.close()
        await c.daily.close()


def one_line(text: Any) -> str:
    return " ".join(str(text).split())


#: Errors that only say the input is of another branch of a union (XSB text or a
#: LevelJson object): the other branch's errors say what is wrong.
_BRANCH_MISMATCH = {"string_type", "dict_type", "model_type", "model_attributes_type"}


def _is_tag(part: object) -> bool:
    """A union branch's tag in an error's location (``constrained-str``, ``LevelJson``),
    not a field name."""
    return isinstance(part, str) and (
        "-" in part or "[" in part or part[:1].isupper() or part == "body"
    )


def _validation_message(error: RequestValidationError) -> str:
    """FastAPI's list of validation errors as one line: where and what, of the first
    (of the union branch the input is of), with the bad value when it is short."""
    errors = error.errors()
    if not errors:
        return "invalid request"
    chosen = [e for e in errors if e.get("type") not in _BRANCH_MISMATCH] or list(errors)
    first = chosen[0]
    where = ".".join(str(p) for p in first.get("loc", ()) if not _is_tag(p))
    message = first.get("msg", "invalid")
    if first.get("type") == "json_invalid":
        message = "the body is not valid JSON"
        where = ""
    got = first.get("input")
    if isinstance(got, bool | int | float) or (isinstance(got, str) and 0 < len(got) <= 40):
        message = f"{message}, not {got!r}"
    more = f" (and {len(chosen) - 1} more)" if len(chosen) > 1 else ""
    return one_line(f"{where}: {message}{more}" if where else f"{message}{more}")


def _add_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(RequestValidationError)
    async def validation(request: Request, error: RequestValidationError) -> JSONResponse:
        return JSONResponse({"detail": _validation_message(error)}, status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def http(request: Request, error: StarletteHTTPException) -> JSONResponse:
        return JSONResponse(
            {"detail": one_line(error.detail)},
            status_code=error.status_code,
            headers=getattr(error, "headers", None),
        )

    @app.exception_handler(LevelNotFoundError)
    async def not_found(request: Request, error: LevelNotFoundError) -> JSONResponse:
        return JSONResponse({"detail": one_line(error)}, status_code=404)

    @app.exception_handler(IllegalMoveError)
    async def illegal(request: Request, error: IllegalMoveError) -> JSONResponse:
        return JSONResponse({"detail": one_line(error), "step": error.index}, status_code=422)

    @app.exception_handler(UnsolvedError)
    async def unsolved(request: Request, error: UnsolvedError) -> JSONResponse:
        # Every step played; the one that fails is the missing step after the last.
        return JSONResponse({"detail": one_line(error), "step": error.moves}, status_code=422)

    @app.exception_handler(SokobanError)
    async def bad_input(request: Request, error: SokobanError) -> JSONResponse:
        return JSONResponse({"detail": one_line(error)}, status_code=422)

    @app.exception_handler(Busy)
    async def busy(request: Request, error: Busy) -> JSONResponse:
        return JSONResponse(
            {"detail": one_line(error)},
            status_code=429 if isinstance(error, ShareUsed) else 503,
            headers={"Retry-After": str(error.retry_after)},
        )

    @app.exception_handler(Exception)
    async def internal(request: Request, error: Exception) -> JSONResponse:
        # A bug: logged with its traceback here, one line without it to the client.
        log.exception("error answering %s %s", request.method, request.url.path)
        return JSONResponse({"detail": "internal error"}, status_code=500)
