"""``sam-web``: play Sâm Lốc against the bots, watch replays and compare bots in the browser.

Starts the app of :mod:`sam_env.apps.web.server` on uvicorn and serves its page at ``/``; plain HTML, CSS
and JavaScript files shipped with the package, no build step. Needs the ``web`` extra
(``pip install -e ".[web]"``).
"""

from __future__ import annotations

import argparse
import math
import sys
import threading
import time
import webbrowser
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from sam_env.utils.extras import MissingExtra, import_extra

if TYPE_CHECKING:
    from starlette.applications import Starlette

WEB_MODULES = ("starlette", "uvicorn", "pydantic")
"""What the ``web`` extra installs: sam-web imports them once its command line is read."""

MAX_PORT = 65535


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sam-web",
        description="A local web app: play against any bot (random, greedy, heuristic, ppo, ppo_search, or a "
        "checkpoint under --checkpoints, or your own with --bots), step through hands recorded with sam-play/sam-eval "
        "--record, and "
        "show sam-eval summaries as a leaderboard.",
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)"
    )
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 picks a free one)")
    parser.add_argument("--open", action="store_true", help="open the page in the default browser once it is up")
    parser.add_argument(
        "--checkpoints", type=Path, metavar="DIR", help="folder of policy checkpoints the page may seat as bots"
    )
    parser.add_argument(
        "--serve",
        type=Path,
        metavar="DIR",
        help="folder whose hand records (*.jsonl) and sam-eval summaries (summary.json, with their plots) the page "
        "may open; nothing outside it is read",
    )
    parser.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="another host name the server answers as, besides 127.0.0.1, localhost, [::1] and --host (e.g. the "
        "machine's name on the local network, with --host 0.0.0.0); requests naming any other host are refused "
        "(docs/web.md); repeatable",
    )
    parser.add_argument(
        "--bots",
        nargs="+",
        default=[],
        metavar="SPEC",
        help="bots of your own the page may seat besides the shipped ones: package.module:attr or "
        "path/to/file.py:attr (a sam_env.Bot class or factory, or a batched policy); their code runs in this "
        "server, and the page can name no other code",
    )
    parser.add_argument("--max-games", type=int, default=64, help="live games at most (default 64)")
    parser.add_argument(
        "--games-per-client",
        type=int,
        default=8,
        help="live games one client (address) may hold at once (default 8), so that one cannot take them all",
    )
    parser.add_argument("--idle-minutes", type=float, default=60.0, help="a game unused this long expires (default 60)")
    recording = parser.add_mutually_exclusive_group()
    recording.add_argument(
        "--record-dir",
        type=Path,
        metavar="DIR",
        help="where the games people choose to record (the page's 'Keep my games') are kept, one hand record a "
        "line (default: $XDG_DATA_HOME/sam-env/recordings, else ~/.local/share/sam-env/recordings; "
        "%%LOCALAPPDATA%%\\sam-env\\recordings on Windows); nothing is recorded unless a person asks",
    )
    recording.add_argument(
        "--no-record", action="store_true", help="keep no recordings: the page offers none and the API refuses them"
    )
    return parser


@contextmanager
def running(app: Starlette, host: str = "127.0.0.1", port: int = 0, log_level: str = "warning") -> Iterator[str]:
    """Serve ``app`` with uvicorn in a background thread; yield its base URL (``port=0``: a free port)."""
    import uvicorn

    server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level=log_level, lifespan="off"))
    thread = threading.Thread(target=server.run, name="sam-web", daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError(f"sam-web could not start on {host}:{port}")
        time.sleep(0.02)
    bound = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://{host}:{bound}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def check_own_bot(spec: str) -> None:
    """Refuse a ``--bots`` entry that is not a code spec of a bot (one that does not import, names no bot,
    or names a shipped bot the page offers anyway)."""
    from sam_env.agents.code_specs import is_code_spec
    from sam_env.agents.registry import available, load_bot

    if spec in available():
        raise ValueError(f"{spec!r} is a shipped bot, offered anyway")
    if not is_code_spec(spec):
        raise ValueError("expected package.module:attr or path/to/file.py:attr (checkpoints: --checkpoints DIR)")
    load_bot(spec)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    for name in ("checkpoints", "serve"):
        folder = getattr(args, name)
        if folder is not None and not folder.is_dir():
            parser.error(f"--{name} {folder}: not a folder")
    for name in ("max_games", "games_per_client"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1, got {getattr(args, name)}")
    if not (math.isfinite(args.idle_minutes) and args.idle_minutes > 0):
        parser.error(f"--idle-minutes must be a positive number of minutes, got {args.idle_minutes}")
    if not 0 <= args.port <= MAX_PORT:
        parser.error(f"--port must be from 0 (a free port) to {MAX_PORT}, got {args.port}")
    for spec in args.bots:
        try:
            check_own_bot(spec)
        except (ValueError, OSError) as err:  # a spec that does not import, an object that is not a bot
            parser.error(f"--bots {spec}: {err}")
    try:
        uvicorn = import_extra("uvicorn", extra="web", needs=WEB_MODULES, what="sam-web")
        server_module = import_extra(".server", package=__package__, extra="web", needs=WEB_MODULES, what="sam-web")
        guard = import_extra(".guard", package=__package__, extra="web", needs=WEB_MODULES, what="sam-web")
        recordings = import_extra(".recordings", package=__package__, extra="web", needs=WEB_MODULES, what="sam-web")
    except MissingExtra as err:
        parser.exit(2, f"sam-web: error: {err}\n")
    record_dir = None if args.no_record else args.record_dir or recordings.default_record_dir()
    problem = None if args.record_dir is None else recordings.writable(args.record_dir)
    if problem is not None:  # asked for by name: refused now; the default is checked when a person asks to record
        parser.error(f"--record-dir: {problem}")
    try:
        hosts = guard.allowed_hosts(args.host, args.allow_host)
    except ValueError as err:
        parser.error(f"--host/--allow-host: {err}")
    create_app = server_module.create_app
    app = create_app(
        args.checkpoints,
        args.serve,
        args.max_games,
        60 * args.idle_minutes,
        games_per_client=args.games_per_client,
        hosts=hosts,
        bots=tuple(args.bots),
        record_dir=record_dir,
    )
    server = uvicorn.Server(uvicorn.Config(app, host=args.host, port=args.port, log_level="info"))
    if args.open:

        def open_when_up() -> None:
            while not server.started and not server.should_exit:
                time.sleep(0.05)
            if server.started:
                port = server.servers[0].sockets[0].getsockname()[1]
                webbrowser.open(f"http://{args.host}:{port}/")

        threading.Thread(target=open_when_up, daemon=True).start()
    server.run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
