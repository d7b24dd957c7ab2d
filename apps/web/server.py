"""The ASGI app of ``sam-web`` (Starlette): the page, its static files and the JSON API.

The API (docs/web.md has it with examples); every refusal is ``{"error": "...", ...}`` with a 4xx
status, and a refused move changes nothing:

* ``POST /api/games`` ``{players, rules, seat, opponents, seed}`` → 201 ``{game_id, view}``
* ``GET /api/games/{id}`` → ``view``
* ``POST /api/games/{id}/moves`` ``{action}`` (an id or a name such as ``"pair:K"``) → ``view``, after
  the bots have answered (``view.moves``: the moves they made)
* ``POST /api/games/{id}/next`` → ``view`` of the next hand of the same table
* ``GET /api/options`` (bots, rule options), ``GET /api/actions`` (every action and its ranks),
  ``GET /api/files`` (records and summaries under ``--serve``)
* ``POST /api/replays`` ``{path}`` or ``{name, text}`` → ``{replay_id, source, hands}``;
  ``GET /api/replays/{replay_id}/hands/{index}`` → the hand's frames, face up
* ``POST /api/leaderboard`` ``{paths: [...], files: [{name, text}]}`` → ``{boards}``
* ``GET /files/{path}`` → a plot (PNG or SVG) under ``--serve``

Games, bots and file reading run in worker threads (``run_in_threadpool``), so a slow bot in one
game never holds up the event loop that answers every other game.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from sam_env.core import COMBOS
from sam_env.core.cards import RANK_NAMES

from .bots import BotCatalogue, new_game, rules_options
from .errors import BadRequest, Forbidden, TooLarge, WebError
from .files import IMAGE_TYPES, existing_file, listing, parse_summary, summary_from_path
from .games import Game, GameStore
from .replays import ReplayStore, hand_frames, hand_summary, open_records

STATIC = Path(__file__).resolve().parent / "static"
SMALL_BODY = 64 * 1024
"""Bytes a game request may carry."""
LARGE_BODY = 64 * 1024 * 1024
"""Bytes an uploaded file of hand records or summaries may carry."""


async def read_json(request: Request, limit: int = SMALL_BODY) -> Any:
    """The request's JSON body (``{}`` when empty); :class:`BadRequest` or :class:`TooLarge` otherwise."""
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise TooLarge(f"the body is larger than {limit} bytes")
    if not body.strip():
        return {}
    try:
        return json.loads(body)
    except (ValueError, UnicodeDecodeError) as err:
        raise BadRequest(f"the body is not JSON: {err}") from None


def create_app(
    checkpoints: Path | None = None,
    serve: Path | None = None,
    max_games: int = 64,
    idle_seconds: float = 3600.0,
    clock: Callable[[], float] = time.monotonic,
) -> Starlette:
    """The app; ``checkpoints``: folder of networks the page may seat, ``serve``: folder of records
    and summaries it may open; ``max_games`` live games at most, each expiring after ``idle_seconds``."""
    games = GameStore(max_games, idle_seconds, clock)
    replays = ReplayStore(idle_seconds=idle_seconds, clock=clock)
    catalogue = BotCatalogue(checkpoints)
    serve = None if serve is None else serve.resolve()

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def options(request: Request) -> Response:
        bots = await run_in_threadpool(catalogue.listing)
        return JSONResponse({"bots": bots, "rules": rules_options(), "serving": serve is not None})

    async def actions(request: Request) -> Response:
        return JSONResponse(
            [
                {"id": c.id, "name": c.name, "ranks": [RANK_NAMES[r] for r, k in c.needs for _ in range(k)]}
                for c in COMBOS
            ]
        )

    async def create_game(request: Request) -> Response:
        body = await read_json(request)
        games.require_room()
        game, seed = await run_in_threadpool(new_game, body, catalogue)
        game_id = games.add(game)
        try:
            view = await run_in_threadpool(game.start, seed)
        except BaseException:
            games.discard(game_id)
            raise
        return JSONResponse({"game_id": game_id, "view": view}, status_code=201)

    async def get_game(request: Request) -> Response:
        return JSONResponse(games.get(request.path_params["game_id"]).view())

    async def move(request: Request) -> Response:
        game = games.get(request.path_params["game_id"])
        body = await read_json(request)
        legal = [m["name"] for m in game.snapshot.get("legal", [])]
        if not isinstance(body, dict) or "action" not in body or len(body) != 1:
            raise BadRequest(
                'a move is a JSON object {"action": <an action id or a name such as "pair:K">}', legal=legal
            )
        return JSONResponse(await run_in_threadpool(game.play, body["action"]))

    async def next_hand(request: Request) -> Response:
        game: Game = games.get(request.path_params["game_id"])
        return JSONResponse(await run_in_threadpool(game.next_hand))

    async def files(request: Request) -> Response:
        return JSONResponse(await run_in_threadpool(listing, serve))

    async def open_replay(request: Request) -> Response:
        body = await read_json(request, LARGE_BODY)
        if isinstance(body, dict) and set(body) == {"path"}:
            path = existing_file(serve, body["path"])
            text, source = await run_in_threadpool(path.read_text, "utf-8"), body["path"]
        elif isinstance(body, dict) and set(body) == {"name", "text"} and isinstance(body["text"], str):
            text, source = body["text"], str(body["name"])
        else:
            raise BadRequest(
                'open a file of hand records with {"path": <relative to the served folder>} or {"name", "text"}'
            )
        records = await run_in_threadpool(open_records, text, source)
        hands = [hand_summary(i, r) for i, r in enumerate(records)]
        return JSONResponse({"replay_id": replays.add(records), "source": source, "hands": hands})

    async def replay_hand(request: Request) -> Response:
        try:
            index = int(request.path_params["index"])
        except ValueError:
            raise BadRequest(f"a hand index is an int, got {request.path_params['index']!r}") from None
        record = replays.hand(request.path_params["replay_id"], index)
        return JSONResponse(await run_in_threadpool(hand_frames, record))

    async def leaderboard(request: Request) -> Response:
        body = await read_json(request, LARGE_BODY)
        if not isinstance(body, dict) or not set(body) <= {"paths", "files"} or not body:
            raise BadRequest(
                'a leaderboard takes {"paths": [summary.json paths under the served folder], '
                '"files": [{"name", "text"}]}'
            )
        paths, uploads = body.get("paths", []), body.get("files", [])
        if not isinstance(paths, list) or not isinstance(uploads, list):
            raise BadRequest('"paths" and "files" must be lists')
        boards = [await run_in_threadpool(summary_from_path, serve, p) for p in paths]
        for upload in uploads:
            if not isinstance(upload, dict) or not isinstance(upload.get("text"), str):
                raise BadRequest('an uploaded summary is {"name": <file name>, "text": <the file\'s content>}')
            board = parse_summary(upload["text"], str(upload.get("name", "upload")))
            boards.append(board | {"plots": []})
        return JSONResponse({"boards": boards})

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
        Route("/api/games/{game_id}", get_game),
        Route("/api/games/{game_id}/moves", move, methods=["POST"]),
        Route("/api/games/{game_id}/next", next_hand, methods=["POST"]),
        Route("/api/files", files),
        Route("/api/replays", open_replay, methods=["POST"]),
        Route("/api/replays/{replay_id}/hands/{index}", replay_hand),
        Route("/api/leaderboard", leaderboard, methods=["POST"]),
        Route("/files/{path:path}", image),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes, exception_handlers={WebError: refused, HTTPException: http_error})
    app.state.games = games
    app.state.replays = replays
    return app
