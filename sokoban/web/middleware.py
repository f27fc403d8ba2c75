"""ASGI middleware on every response: security headers, a cap on request bodies, and
the access log (one line per request, off by default).

They are plain ASGI (not Starlette's ``BaseHTTPMiddleware``) so that they see every
response, static files and errors included, and can refuse a body as it streams in.
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any

Scope = dict[str, Any]
Message = dict[str, Any]
App = Any

#: The page's Content-Security-Policy: only our own files, no inline script or style.
CSP = (
    "default-src 'self'; img-src 'self' data: blob:; style-src 'self'; script-src 'self'; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; "
    "form-action 'self'"
)

HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
    (b"permissions-policy", b"camera=(), microphone=(), geolocation=(), payment=()"),
]


class SecurityHeaders:
    """Adds :data:`HEADERS` to every HTTP response."""

    def __init__(self, app: App) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                names = {name for name, _ in message.get("headers", [])}
                extra = [(n, v) for n, v in HEADERS if n not in names]
                message["headers"] = list(message.get("headers", [])) + extra
            await send(message)

        await self.app(scope, receive, send_with_headers)


class BodyLimit:
    """Refuses a request body over ``max_body`` bytes with 413: at once when its
    Content-Length says so, else as soon as the bytes streamed in pass the limit. The body
    is read whole before the application sees it (it is small by then)."""

    def __init__(self, app: App, max_body: int) -> None:
        self.app = app
        self.max_body = max_body

    async def _refuse(self, send: Any) -> None:
        body = json.dumps({"detail": f"request body over {self.max_body:,} bytes"}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"connection", b"close"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", []):
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = self.max_body + 1
                if declared > self.max_body:
                    await self._refuse(send)
                    return
        chunks: list[bytes] = []
        size = 0
        while True:
            message: Message = await receive()
            if message["type"] != "http.request":  # the client went away
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body:
                await self._refuse(send)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        delivered = False

        async def replay() -> Message:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            return dict(await receive())

        await self.app(scope, replay, send)


access = logging.getLogger("sokoban.web.access")


class AccessLog:
    """One line per request on the ``sokoban.web.access`` logger: the client, the method,
    the path (never its query string, which may hold a race socket's token), the status
    and the milliseconds taken. Headers are never logged."""

    def __init__(self, app: App) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 0

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            elif message["type"] == "websocket.accept":
                status = 101
            elif message["type"] == "websocket.close" and not status:
                status = 403
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            client = scope.get("client") or ("-", 0)
            method = scope.get("method", "WS")
            path = "".join(ch if ch.isprintable() else "?" for ch in scope.get("path", ""))
            access.info(
                "%s %s %s %d %.1f ms",
                client[0],
                method,
                path[:300],
                status,
                (time.perf_counter() - started) * 1000,
            )
