"""A chat-completions server for the tests: a real HTTP server process speaking the OpenAI wire format, with no model.

``python tests/agents/chat_server.py MODE [--die-after N]`` listens on 127.0.0.1 (a free port, printed as
``PORT <n>`` on its first line) and answers ``POST /v1/chat/completions``:

* ``bot:NAME``: the move sam-env's bot ``NAME`` makes for the seat in the conversation's first user message (the
  ``json-1`` template's JSON view, legal moves listed), by its name — a "model" that plays exactly as the bot;
* ``nonsense``: by the request's hash, one of: prose naming no move, an illegal move, two moves, an empty message,
  a body with no choices, a 400 refusal, and now and then a legal move (so every path of the agent is taken);
* ``fixed:TEXT``: always ``TEXT``.

``--die-after N``: the process exits at once (no answer, the connection dropped) on request ``N + 1``. Every answer
reports token usage (``prompt_tokens``: the prompt's characters / 4), as servers do.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np

NONSENSE = ("I think I will wait and see.", "quad:2", "pair:3 and pair:4", "", None, "refuse", "legal")


class Answers:
    def __init__(self, mode: str, die_after: int | None) -> None:
        self.mode, self.die_after = mode, die_after
        self.requests = 0
        self.lock = threading.Lock()
        self.bot = None
        if mode.startswith("bot:"):
            import sam_env

            self.bot = sam_env.load_bot(mode[4:])

    def count(self) -> None:
        with self.lock:
            self.requests += 1
            if self.die_after is not None and self.requests > self.die_after:
                os._exit(3)

    def answer(self, request: dict) -> tuple[int, dict]:
        messages = request["messages"]
        prompt = "".join(m["content"] for m in messages)
        if self.mode.startswith("fixed:"):
            return 200, completion(request, self.mode[6:], prompt)
        if self.bot is not None:
            return 200, completion(request, self.bot_move(messages), prompt)
        kind = NONSENSE[int(hashlib.sha256(prompt.encode()).hexdigest(), 16) % len(NONSENSE)]
        if kind is None:
            return 200, {"id": "x", "object": "chat.completion", "model": request["model"], "choices": []}
        if kind == "refuse":
            return 400, {"error": {"message": "this prompt is refused (a test)", "type": "invalid_request_error"}}
        if kind == "legal":
            view = json.loads(messages[1]["content"])
            kind = f"Let me play {view['legal_moves'][0]}" if "legal_moves" in view else "pass"
        return 200, completion(request, kind, prompt)

    def bot_move(self, messages: list[dict]) -> str:
        from sam_env.encoding import N_ACTIONS, action_name
        from sam_env.text_views import seat_view_from_json

        view = seat_view_from_json(json.loads(messages[1]["content"]))
        mask = np.zeros(N_ACTIONS, dtype=np.int8)
        mask[list(view.legal)] = 1
        return action_name(self.bot.act({"action_mask": mask}, view))


def completion(request: dict, content: str, prompt: str) -> dict:
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 0,
        "model": request["model"],
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {
            "prompt_tokens": len(prompt) // 4,
            "completion_tokens": len(content) // 4 + 1,
            "total_tokens": len(prompt) // 4 + len(content) // 4 + 1,
        },
    }


def handler(answers: Answers) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            answers.count()
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            if not self.path.endswith("/chat/completions"):
                status, payload = 404, {"error": {"message": f"no route {self.path}"}}
            else:
                status, payload = answers.answer(body)
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: object) -> None:
            pass

    return Handler


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode")
    parser.add_argument("--die-after", type=int, default=None)
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler(Answers(args.mode, args.die_after)))
    print(f"PORT {server.server_address[1]}", flush=True)
    sys.stdout.flush()
    server.serve_forever()


if __name__ == "__main__":
    main()
