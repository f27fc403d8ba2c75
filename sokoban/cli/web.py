"""The ``serve`` command: the browser game on a local web server.

    sokoban serve                       # the built-in collection on http://127.0.0.1:8000
    sokoban serve Microban.xsb --open   # one more collection, and open the browser
    sokoban serve --get /api/collections   # answer one request here, no server (a smoke test)

The command only reads options and starts uvicorn; the application is
:func:`sokoban.web.create_app`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import click

from sokoban.cli import main
from sokoban.errors import SokobanError


def get(app: Any, path: str) -> tuple[int, dict[str, str], bytes]:
    """Answer ``GET path`` with ``app`` in this process (no network, no solver processes:
    no GET route solves). Returns the status, the headers and the body."""
    if not path.startswith("/"):
        raise SokobanError(f"--get needs a path starting with '/', not {path!r}")
    route, _, query = path.partition("?")
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": route,
        "raw_path": route.encode(),
        "query_string": query.encode(),
        "root_path": "",
        "headers": [(b"host", b"localhost")],
        "client": ("127.0.0.1", 0),
        "server": ("localhost", 80),
    }
    status = 500
    headers: dict[str, str] = {}
    body: list[bytes] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
            headers.update((k.decode(), v.decode()) for k, v in message.get("headers", []))
        elif message["type"] == "http.response.body":
            body.append(message.get("body", b""))

    asyncio.run(app(scope, receive, send))
    return status, headers, b"".join(body)


@main.command()
@click.argument(
    "files",
    nargs=-1,
    type=click.Path(exists=True, dir_okay=False, readable=True, path_type=Path),
)
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option(
    "--port", default=8000, show_default=True, type=click.IntRange(0, 65535), help="0: any free."
)
@click.option(
    "--db",
    "db",
    default=None,
    help="SQLite file or database URL [$XDG_DATA_HOME/sokoban/sokoban.db].",
)
@click.option(
    "--solvers",
    type=click.IntRange(1, 256),
    default=None,
    help="Solver processes [one per core].",
)
@click.option(
    "--queue",
    type=click.IntRange(0, 10_000),
    default=8,
    show_default=True,
    help="Solves that may wait for a solver; past that, 503 with Retry-After.",
)
@click.option(
    "--rate",
    type=click.FloatRange(0.1, 100_000),
    default=5.0,
    show_default=True,
    help="Score submissions a second per player (ten times it per client address).",
)
@click.option(
    "--signup-rate",
    type=click.FloatRange(0.01, 1_000_000),
    default=1.0,
    show_default=True,
    help="Sign-ups a minute per client address (bursts of five, or of the rate if larger).",
)
@click.option(
    "--daily-ahead",
    type=click.IntRange(-1, 60),
    default=7,
    show_default=True,
    help="Days of daily levels made ahead at start-up (-1: none; another server makes them).",
)
@click.option(
    "--time-limit",
    type=click.FloatRange(0, 30, min_open=True),
    default=5.0,
    show_default=True,
    help="Seconds a solve gets when the request does not say (requests may ask up to 30).",
)
@click.option(
    "--upgrade/--no-upgrade",
    default=True,
    show_default=True,
    help="Bring the database's schema up to date at start; --no-upgrade refuses an old one.",
)
@click.option(
    "--allowed-host",
    "allowed_hosts",
    multiple=True,
    metavar="NAME",
    help="A Host name the server answers (repeat for more; '*' any) [loopback and --host].",
)
@click.option(
    "--log-level",
    type=click.Choice(["debug", "info", "warning", "error"]),
    default="warning",
    show_default=True,
    help="The server's log level.",
)
@click.option(
    "--access-log", is_flag=True, help="Log one line per request (never a token or a query)."
)
@click.option("--open", "open_browser", is_flag=True, help="Open the game in the browser.")
@click.option(
    "--get",
    "get_path",
    metavar="PATH",
    default=None,
    help="Answer GET PATH here and print the body (no server is started; without --db, "
    "a throwaway database unless the default one exists).",
)
def serve(
    files: tuple[Path, ...],
    host: str,
    port: int,
    db: str | None,
    solvers: int | None,
    queue: int,
    rate: float,
    signup_rate: float,
    daily_ahead: int,
    time_limit: float,
    upgrade: bool,
    allowed_hosts: tuple[str, ...],
    log_level: str,
    access_log: bool,
    open_browser: bool,
    get_path: str | None,
) -> None:
    """Play in the browser: serve the built-in collection and FILE... (XSB/SOK).

    Prints the URL and serves until Ctrl-C. Solver hints run in a pool of processes;
    levels saved in the editor go to the database (--db).
    """

    from sokoban.web import Settings, create_app
    from sokoban.web.settings import LOOPBACK

    hosts = allowed_hosts or LOOPBACK + ((host,) if host not in ("0.0.0.0", "::", "") else ())
    with contextlib.ExitStack() as stack:
        if get_path is not None and db is None:
            from sokoban.store import default_path

            if not default_path().exists():
                # One request answered here makes no lasting database: a throwaway one.
                folder = stack.enter_context(
                    tempfile.TemporaryDirectory(prefix="sokoban-", ignore_cleanup_errors=True)
                )
                db = os.path.join(folder, "sokoban.db")
        settings = Settings(
            collections=files,
            db=db,
            solvers=solvers,
            queue=queue,
            rate=rate,
            address_rate=10 * rate,
            signup_rate=signup_rate / 60,
            signup_burst=max(5, int(signup_rate)),
            daily_ahead=daily_ahead,
            time_limit=time_limit,
            upgrade=upgrade,
            allowed_hosts=tuple(hosts),
            access_log=access_log,
        )
        app = create_app(settings)
        if get_path is not None:
            status, headers, body = get(app, get_path)
            text = body.decode("utf-8", errors="replace")
            if headers.get("content-type", "").startswith("application/json"):
                text = json.dumps(json.loads(text), indent=2, ensure_ascii=False)
            click.echo(text)
            if status >= 400:
                raise SokobanError(f"GET {get_path} answered {status}")
            return
    _run(app, host, port, open_browser, settings.processes, log_level, access_log)


def _run(
    app: Any,
    host: str,
    port: int,
    open_browser: bool,
    processes: int,
    log_level: str = "warning",
    access_log: bool = False,
) -> None:
    import uvicorn

    class Server(uvicorn.Server):
        async def startup(self, sockets: Any = None) -> None:
            await super().startup(sockets)
            if self.should_exit:
                return
            bound = port
            for server in self.servers:
                for sock in server.sockets:
                    bound = sock.getsockname()[1]
            shown = f"[{host}]" if ":" in host else host
            url = f"http://{shown}:{bound}/"
            click.echo(f"sokoban: serving on {url} (Ctrl-C to stop)")
            sys.stdout.flush()
            if open_browser:
                import webbrowser

                webbrowser.open(url)

    plural = "es" if processes > 1 else ""
    click.echo(
        f"sokoban: starting {processes} solver process{plural} "
        "(the first start after an install compiles the solver: up to a minute)"
    )
    # Race states are small and frequent: compressing each for every socket costs more
    # CPU than the bytes it saves on a local network.
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    ours = logging.getLogger("sokoban")
    ours.addHandler(handler)
    ours.setLevel(log_level.upper())
    ours.propagate = False
    if access_log:
        logging.getLogger("sokoban.web.access").setLevel(logging.INFO)
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level=log_level,
        # uvicorn's own access log would print query strings (a socket's token): ours
        # (Settings.access_log) does not.
        access_log=False,
        lifespan="on",
        ws_per_message_deflate=False,
    )
    server = Server(config)
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    if not server.started:
        raise SokobanError(f"could not serve on {host}:{port}")
