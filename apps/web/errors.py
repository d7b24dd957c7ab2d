"""The web app's refusals: each carries its HTTP status and a message saying what was wrong and what
was expected; the server turns them into ``{"error": message, ...}`` JSON responses. A fault of the
app itself (:class:`Faults`) is a 500 of the same form."""

from __future__ import annotations

import logging
from typing import Any

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

LOG = logging.getLogger("sam_env.apps.web")


class WebError(Exception):
    """A request the app refuses; ``extra`` goes into the JSON body beside ``error`` (e.g. ``legal``)."""

    status = 400

    def __init__(self, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.message = message
        self.extra = extra

    def body(self) -> dict[str, Any]:
        return {"error": self.message, **self.extra}


class BadRequest(WebError):
    """Malformed input: not JSON, a missing or mistyped field, an unknown name."""

    status = 400


class Forbidden(WebError):
    """A path outside the served folder."""

    status = 403


class NotFound(WebError):
    """An unknown or expired game or replay, a missing file."""

    status = 404


class Conflict(WebError):
    """Well formed, but not allowed now: an illegal move, a move after the hand, a game still busy."""

    status = 409


class TooLarge(WebError):
    """A body larger than the endpoint takes."""

    status = 413


class TooManyGames(WebError):
    """One client holds as many live games as one client may."""

    status = 429


class Unavailable(WebError):
    """Too many live games or replays; older ones expire when idle."""

    status = 503


class Faults:
    """ASGI middleware: an exception the app did not expect becomes a 500 JSON response saying so, logged
    with its traceback; the connection stays open (an exception left to the server would close it, and a
    browser's next request on it would fail)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracked(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, tracked)
        except Exception as exc:
            where = f"{scope['method']} {scope['path']}"
            LOG.exception("internal error answering %s", where)
            if started:
                raise
            message = f"internal error ({type(exc).__name__}) answering {where}; nothing was changed"
            await JSONResponse({"error": message}, status_code=500)(scope, receive, send)
