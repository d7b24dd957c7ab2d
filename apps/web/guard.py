"""Which requests the app serves at all: those sent to its own host names, and state changes only from
its own page.

Any page the person's browser opens can send requests to ``127.0.0.1``; two checks keep other
sites out:

* **Host** (Starlette's :class:`~starlette.middleware.trustedhost.TrustedHostMiddleware`): a request
  is served only when its ``Host`` header names one of the names the server answers as —
  ``127.0.0.1``, ``localhost``, ``[::1]``, the ``--host`` it listens on and any ``--allow-host``.
  A DNS-rebinding page (``evil.example`` resolving to 127.0.0.1) sends ``Host: evil.example``
  and gets 400, so it can read neither the API nor the files under ``--serve``.
* **Origin and content type** (:class:`RequestGuard`): a request that changes state (``POST``,
  ``PUT``, ``PATCH``, ``DELETE``) must say ``Content-Type: application/json`` (415 otherwise: an
  HTML form, or a ``text/plain`` fetch that a browser sends to any site without asking, cannot),
  and its ``Origin``, when the browser sends one, must be the app's own (403 otherwise). Clients
  that are not browsers (curl, httpx, the tests) send no ``Origin``.

  A ``POST`` says so even with an empty body: a bodiless ``POST`` is a request that any site's page
  sends without asking. A ``DELETE`` (or ``PUT``, ``PATCH``) without a body needs no content type
  (``curl -X DELETE URL``): a browser asks the server before it sends another site's ``DELETE`` (a
  CORS preflight), which this app never allows, and no form can send one, so the type would keep out
  no one. With a body, it is typed JSON like any other.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable

from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

LOCAL_HOSTS = ("127.0.0.1", "localhost", "[::1]")
"""The names of this machine the server always answers as."""
WILDCARD_HOSTS = ("0.0.0.0", "[::]")
"""``--host`` values that listen on every address and so name no host."""
STATE_CHANGING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
PREFLIGHTED = frozenset({"PUT", "PATCH", "DELETE"})
"""State changes that a browser sends to another site only after asking it (CORS preflight, which this app never
allows): without a body they need no content type."""
JSON_TYPE = "application/json"
_LABEL = r"[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?"
HOST_NAME = re.compile(rf"{_LABEL}(\.{_LABEL})*\.?")


def host_name(name: str) -> str:
    """A host name or address as a ``Host`` header carries it (lower case, an IPv6 address in brackets);
    ``ValueError`` if it is neither."""
    text = name.strip().lower()
    bare = text[1:-1] if text.startswith("[") and text.endswith("]") else text
    try:
        address = ipaddress.ip_address(bare)
    except ValueError:
        if not HOST_NAME.fullmatch(text) or len(text) > 253:
            raise ValueError(f"not a host name or address: {name!r}") from None
        return text
    return f"[{address}]" if address.version == 6 else str(address)


def allowed_hosts(listen: str | None = None, extra: Iterable[str] = ()) -> list[str]:
    """:data:`LOCAL_HOSTS`, the address the server listens on (unless a wildcard) and ``extra``
    (``ValueError`` for one that is no host name)."""
    names = [host_name(n) for n in (*LOCAL_HOSTS, *([] if listen is None else [listen]), *extra)]
    return list(dict.fromkeys(n for n in names if n not in WILDCARD_HOSTS))


class RequestGuard:
    """ASGI middleware: a state-changing request needs a JSON content type and the app's own (or no) Origin."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] in STATE_CHANGING:
            refusal = refuse(scope)
            if refusal is not None:
                await refusal(scope, receive, send)
                return
        await self.app(scope, receive, send)


def refuse(scope: Scope) -> JSONResponse | None:
    """The refusal of a state-changing request from another site or without a JSON body; None to serve it."""
    headers = Headers(scope=scope)
    origins = headers.getlist("origin")
    own = f"{scope.get('scheme', 'http')}://{headers.get('host', '')}".lower()
    if len(origins) > 1 or (origins and origins[0].lower() != own):
        sender = ", ".join(origins)
        message = f"a request from another site (Origin {sender}) may not change anything here; this app is {own}"
        return JSONResponse({"error": message}, status_code=403)
    if scope["method"] in PREFLIGHTED and not has_body(headers):
        return None
    media, *params = headers.get("content-type", "").lower().split(";")
    charsets = [p.strip().removeprefix("charset=").strip('"') for p in params if p.strip().startswith("charset=")]
    if media.strip() != JSON_TYPE or any(c not in ("utf-8", "utf8") for c in charsets):
        given = headers.get("content-type", "none")
        if scope["method"] in PREFLIGHTED:
            rule = f"a {scope['method']} with a body sends it as Content-Type: {JSON_TYPE} (UTF-8), or sends no body"
        else:
            rule = f"a {scope['method']} sends Content-Type: {JSON_TYPE} (UTF-8), even with an empty body"
        return JSONResponse({"error": f"Content-Type {given!r} is not allowed; {rule}"}, status_code=415)
    return None


def has_body(headers: Headers) -> bool:
    """Whether a request carries a body: a ``Content-Length`` other than 0, or a ``Transfer-Encoding`` (chunked)."""
    length = headers.get("content-length", "0").strip()
    return "transfer-encoding" in headers or not (length.isdigit() and int(length) == 0)
