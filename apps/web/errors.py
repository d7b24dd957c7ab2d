"""The web app's refusals: each carries its HTTP status and a message saying what was wrong and what
was expected; the server turns them into ``{"error": message, ...}`` JSON responses."""

from __future__ import annotations

from typing import Any


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
    status = 413


class Unavailable(WebError):
    """Too many live games or replays; older ones expire when idle."""

    status = 503
