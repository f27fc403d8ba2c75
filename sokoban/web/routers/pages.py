"""The page, its static files, the API's documentation page and a health check."""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, Depends
from fastapi.responses import FileResponse, HTMLResponse, Response
from fastapi.staticfiles import StaticFiles

from sokoban import __version__
from sokoban.web.models.game import HealthOut
from sokoban.web.settings import AppState, state

router = APIRouter()

WEB = Path(str(resources.files("sokoban.web")))
STATIC = WEB / "static"
APIDOCS = WEB / "apidocs"


def _page(path: Path) -> HTMLResponse:
    # The page names its files with ?v=<version>, so that a new release is fetched anew.
    text = path.read_text(encoding="utf-8").replace("{{version}}", __version__)
    return HTMLResponse(text, headers={"Cache-Control": "no-cache"})


@router.api_route("/", methods=["GET", "HEAD"], include_in_schema=False)
def index() -> Response:
    return _page(STATIC / "index.html")


@router.get("/docs", include_in_schema=False)
def docs() -> Response:
    """The API's documentation, drawn from /openapi.json by a script of our own (Swagger
    UI would fetch its scripts from a CDN, which the page's CSP forbids)."""
    return _page(APIDOCS / "index.html")


@router.get("/docs/{name}", include_in_schema=False)
def docs_file(name: str) -> Response:
    if name not in ("apidocs.js", "apidocs.css"):
        return Response(status_code=404)
    return FileResponse(APIDOCS / name, headers={"Cache-Control": "no-cache"})


@router.get("/api/health", response_model=HealthOut, tags=["pages"])
def health(app: Annotated[AppState, Depends(state)]) -> HealthOut:
    """Whether the server is up: its version and solver processes."""
    return HealthOut(status="ok", version=__version__, solvers=app.pool.processes)


class CachedStatic(StaticFiles):
    """Static files: one asked for by version (``?v=0.1.0``) is kept by the browser for a
    year (the next release asks for another URL); one asked for by its bare name (a module
    another imports) is revalidated each time, cheaply (ETag, 304)."""

    def file_response(  # type: ignore[no-untyped-def]
        self, full_path, stat_result, scope, status_code=200
    ):
        response = super().file_response(full_path, stat_result, scope, status_code)
        versioned = b"v=" in scope.get("query_string", b"")
        response.headers["Cache-Control"] = (
            "public, max-age=31536000, immutable" if versioned else "no-cache"
        )
        return response


def mount_static(app) -> None:  # type: ignore[no-untyped-def]
    app.mount("/static", CachedStatic(directory=STATIC), name="static")
