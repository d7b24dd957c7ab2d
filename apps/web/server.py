"""The ASGI app of ``sam-web`` (Starlette): the page, its static files and the JSON API.

The API (docs/web.md has it with examples); every refusal is ``{"error": "...", ...}`` with a 4xx
status, and a refused move changes nothing:

* ``POST /api/games`` ``{players, rules, seat, opponents, seed, coach, record, recording}`` → 201
  ``{game_id, view}`` (and ``recording``, the token, when ``record``)
* ``GET /api/games/{id}`` → ``view``; ``DELETE /api/games/{id}`` → 204, the game ends
* ``POST /api/games/{id}/moves`` ``{action}`` (an id or a name such as ``"pair:K"``) → ``view``, after
  the bots have answered (``view.moves``: the moves they made)
* ``POST /api/games/{id}/next`` → ``view`` of the next hand of the same table
* ``POST /api/games/{id}/think`` (a coached game, the person's turn) → a search's values of the coach's
  preferred moves
* ``GET /api/options`` (bots, rule options), ``GET /api/actions`` (every action and its ranks),
  ``GET /api/files`` (records and summaries under ``--serve``)
* ``POST /api/replays`` ``{path}`` or ``{name, text}`` → ``{replay_id, source, hands}``;
  ``GET /api/replays/{replay_id}/hands/{index}`` → the hand's frames, face up
* ``POST /api/leaderboard`` ``{paths: [...], files: [{name, text}]}`` → ``{boards}``
* ``POST /api/recordings/replay`` ``{token}`` → the token's recorded hands opened as a replay;
  ``DELETE /api/recordings`` ``{token}`` → ``{deleted}``, every one of them deleted
* ``GET /files/{path}`` → a plot (PNG or SVG) under ``--serve``

Every body is read up to a size limit and checked by its endpoint's schema (:mod:`.schemas`);
requests for another host, and state changes from another site or without a JSON content type (a
bodiless ``DELETE`` needs none), are refused before they reach a route (:mod:`.guard`). Games, bots
and file reading run in worker threads (``run_in_threadpool``), so a slow bot in one game never holds
up the event loop that answers every other game.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from sam_env.core import COMBOS
from sam_env.core.cards import RANK_NAMES

from .bots import BotCatalogue, new_game, rules_options
from .coach import coach_networks
from .errors import BadRequest, Faults, Forbidden, NotFound, TooLarge, WebError
from .files import IMAGE_TYPES, existing_file, listing, parse_summary, read_text, summary_from_path
from .games import Game, GameStore
from .guard import RequestGuard, allowed_hosts
from .recordings import Recordings
from .replays import ReplayStore, hand_frames, hand_summary, open_records
from .schemas import Leaderboard, Move, NewGame, NextHand, OpenReplay, Recording, parse

STATIC = Path(__file__).resolve().parent / "static"
SMALL_BODY = 64 * 1024
"""Bytes a game request may carry."""
LARGE_BODY = 64 * 1024 * 1024
"""Bytes an uploaded file of hand records or summaries may carry."""


MAX_INDEX_DIGITS = 9


async def read_body(request: Request, limit: int = SMALL_BODY) -> bytes:
    """The request's body, at most ``limit`` bytes (:class:`TooLarge` as soon as it is known to be larger)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise TooLarge(f"the body is larger than {limit} bytes")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise TooLarge(f"the body is larger than {limit} bytes")
    return bytes(body)


def client_of(request: Request) -> str:
    """Who sent a request, for the per-client limit on live games: its address."""
    return request.client.host if request.client is not None else ""


def create_app(
    checkpoints: Path | None = None,
    serve: Path | None = None,
    max_games: int = 64,
    idle_seconds: float = 3600.0,
    clock: Callable[[], float] = time.monotonic,
    bots: tuple[str, ...] = (),
    games_per_client: int = 8,
    hosts: Sequence[str] | None = None,
    record_dir: Path | None = None,
) -> Starlette:
    """The app; ``checkpoints``: folder of networks the page may seat, ``bots``: specs of bots of one's own
    it may seat too (``package.module:attr``, ``path/to/file.py:attr``), ``serve``: folder of records
    and summaries it may open; ``max_games`` live games at most (``games_per_client`` of one client),
    each expiring after ``idle_seconds``; ``hosts``: the host names it answers as (default
    :func:`.guard.allowed_hosts`: this machine's); ``record_dir``: where the games people choose to record
    are kept (None: none are; ``sam-web`` passes its ``--record-dir``)."""
    games = GameStore(max_games, idle_seconds, clock, per_client=games_per_client)
    recordings = Recordings(record_dir)
    replays = ReplayStore(idle_seconds=idle_seconds, clock=clock)
    catalogue = BotCatalogue(checkpoints, bots)
    serve = None if serve is None else serve.resolve()

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def options(request: Request) -> Response:
        bots = await run_in_threadpool(catalogue.listing)
        return JSONResponse(
            {
                "bots": bots,
                "rules": rules_options(),
                "serving": serve is not None,
                "coach": coach_networks(),
                "recording": recordings.available,
            }
        )

    async def actions(request: Request) -> Response:
        return JSONResponse(
            [
                {"id": c.id, "name": c.name, "ranks": [RANK_NAMES[r] for r, k in c.needs for _ in range(k)]}
                for c in COMBOS
            ]
        )

    async def create_game(request: Request) -> Response:
        body = parse(NewGame, await read_body(request))
        client = client_of(request)
        games.require_room(client)
        game, seed = await run_in_threadpool(new_game, body, catalogue, recordings)
        game_id = games.add(game, client)
        try:
            view = await run_in_threadpool(game.start, seed)
        except BaseException:
            games.discard(game_id)
            raise
        created = {"game_id": game_id, "view": view}
        if game.recording is not None:
            created["recording"] = game.recording[1]
        return JSONResponse(created, status_code=201)

    async def get_game(request: Request) -> Response:
        return JSONResponse(games.get(request.path_params["game_id"]).view())

    async def delete_game(request: Request) -> Response:
        parse(NextHand, await read_body(request))  # no field: only an empty object or no body
        games.delete(request.path_params["game_id"])
        return Response(status_code=204)

    async def move(request: Request) -> Response:
        game = games.get(request.path_params["game_id"])
        legal = [m["name"] for m in game.snapshot.get("legal", [])]
        body = parse(Move, await read_body(request), legal=legal)
        return JSONResponse(await run_in_threadpool(game.play, body.action))

    async def next_hand(request: Request) -> Response:
        game: Game = games.get(request.path_params["game_id"])
        parse(NextHand, await read_body(request))
        return JSONResponse(await run_in_threadpool(game.next_hand))

    async def think(request: Request) -> Response:
        game: Game = games.get(request.path_params["game_id"])
        parse(NextHand, await read_body(request))  # no field
        return JSONResponse(await run_in_threadpool(game.think))

    async def files(request: Request) -> Response:
        return JSONResponse(await run_in_threadpool(listing, serve))

    async def open_replay(request: Request) -> Response:
        body = await run_in_threadpool(parse, OpenReplay, await read_body(request, LARGE_BODY))
        if body.path is not None:
            path = existing_file(serve, body.path)
            text, source = await run_in_threadpool(read_text, path, body.path), body.path
        else:
            text, source = body.text or "", body.name or "upload"
        records = await run_in_threadpool(open_records, text, source)
        hands = [hand_summary(i, r) for i, r in enumerate(records)]
        return JSONResponse({"replay_id": replays.add(records), "source": source, "hands": hands})

    async def replay_hand(request: Request) -> Response:
        text = request.path_params["index"]
        if not (text.isascii() and text.isdigit()):
            raise BadRequest(f"a hand index is an int >= 0, got {text!r}")
        if len(text) > MAX_INDEX_DIGITS:
            raise NotFound(f"no hand {text} in this file")
        record = replays.hand(request.path_params["replay_id"], int(text))
        return JSONResponse(await run_in_threadpool(hand_frames, record))

    async def leaderboard(request: Request) -> Response:
        # Every file is checked on its own: one that does not validate (an edited or a format-1 results file) is
        # refused beside the others, with why, and the request fails only when no file is left to show.
        body = await run_in_threadpool(parse, Leaderboard, await read_body(request, LARGE_BODY))
        boards, refused = [], []
        readers = [(p, lambda p=p: summary_from_path(serve, p)) for p in body.paths]
        readers += [
            (u.name or "upload", lambda u=u: parse_summary(u.text, u.name or "upload") | {"plots": []})
            for u in body.files
        ]
        for source, read in readers:
            try:
                boards.append(await run_in_threadpool(read))
            except BadRequest as err:
                refused.append({"source": source, "error": str(err)})
        if refused and not boards:
            raise BadRequest("; ".join(r["error"] for r in refused))
        return JSONResponse({"boards": boards, "refused": refused})

    async def replay_recordings(request: Request) -> Response:
        body = parse(Recording, await read_body(request))
        records = await run_in_threadpool(recordings.records, body.token)
        hands = [hand_summary(i, r) for i, r in enumerate(records)]
        return JSONResponse({"replay_id": replays.add(records), "source": "your recorded games", "hands": hands})

    async def delete_recordings(request: Request) -> Response:
        body = parse(Recording, await read_body(request))
        return JSONResponse({"deleted": await run_in_threadpool(recordings.delete, body.token)})

    async def image(request: Request) -> Response:
        relative = request.path_params["path"]
        path = existing_file(serve, relative)
        if path.suffix.lower() not in IMAGE_TYPES:
            raise Forbidden(f"{relative!r}: only plots ({', '.join(IMAGE_TYPES)}) are served from the folder")
        return FileResponse(path, media_type=IMAGE_TYPES[path.suffix.lower()])

    async def refused(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, WebError)
        return JSONResponse(exc.body(), status_code=exc.status)

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        return JSONResponse(
            {"error": f"{exc.detail}: {request.method} {request.url.path}"}, status_code=exc.status_code
        )

    routes = [
        Route("/", index),
        Route("/api/options", options),
        Route("/api/actions", actions),
        Route("/api/games", create_game, methods=["POST"]),
        Route("/api/games/{game_id}", get_game, methods=["GET"]),
        Route("/api/games/{game_id}", delete_game, methods=["DELETE"]),
        Route("/api/games/{game_id}/moves", move, methods=["POST"]),
        Route("/api/games/{game_id}/next", next_hand, methods=["POST"]),
        Route("/api/games/{game_id}/think", think, methods=["POST"]),
        Route("/api/files", files),
        Route("/api/replays", open_replay, methods=["POST"]),
        Route("/api/replays/{replay_id}/hands/{index}", replay_hand),
        Route("/api/leaderboard", leaderboard, methods=["POST"]),
        Route("/api/recordings/replay", replay_recordings, methods=["POST"]),
        Route("/api/recordings", delete_recordings, methods=["DELETE"]),
        Route("/files/{path:path}", image),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    middleware = [
        Middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts() if hosts is None else list(hosts)),
        Middleware(RequestGuard),
        Middleware(Faults),
    ]
    handlers = {WebError: refused, HTTPException: http_error}
    app = Starlette(routes=routes, middleware=middleware, exception_handlers=handlers)
    app.state.games = games
    app.state.replays = replays
    app.state.recordings = recordings
    return app
