"""``sam-web``: play Sâm Lốc against the bots, watch replays and compare bots in the browser.

Starts the app of :mod:`sam_env.apps.web.server` on uvicorn and serves its page at ``/``; plain HTML, CSS
and JavaScript files shipped with the package, no build step. Needs the ``web`` extra
(``pip install -e ".[web]"``).
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
import webbrowser
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from starlette.applications import Starlette


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sam-web",
        description="A local web app: play against any bot (random, greedy, heuristic, ppo, ppo_search, or a "
        "checkpoint under --checkpoints), step through hands recorded with sam-play/sam-eval --record, and "
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
    parser.add_argument("--max-games", type=int, default=64, help="live games at most (default 64)")
    parser.add_argument("--idle-minutes", type=float, default=60.0, help="a game unused this long expires (default 60)")
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


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    for name in ("checkpoints", "serve"):
        folder = getattr(args, name)
        if folder is not None and not folder.is_dir():
            parser.error(f"--{name} {folder}: not a folder")
    if args.max_games < 1 or args.idle_minutes <= 0:
        parser.error("--max-games must be at least 1 and --idle-minutes positive")
    try:
        import uvicorn

        from .server import create_app
    except ImportError as err:
        parser.exit(2, f"sam-web: error: {err.name} is missing; install the web extra: pip install -e '.[web]'\n")
    app = create_app(args.checkpoints, args.serve, args.max_games, 60 * args.idle_minutes)
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
