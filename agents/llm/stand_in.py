"""A stand-in chat-completions endpoint: a real HTTP server speaking the OpenAI wire format, with no model behind it.

It answers as a sam-env bot would, or with nonsense, so that a language-model pipeline can be checked end to end —
the agent, its retries and fallback, its cache, a whole protocol run — without a model or a bill; the test suite
and ``benchmarks/bench_llm_harness.py`` run against it (docs/llm.md#a-dry-run-without-a-model)::

    python -m sam_env.agents.llm.stand_in bot:heuristic --port 8000

listens on 127.0.0.1 (``--port 0``, the default: a free port; the port is printed as ``PORT <n>`` on the first line)
and answers ``POST /v1/chat/completions``:

* ``bot:NAME``: the move sam-env's bot ``NAME`` makes for the seat in the conversation's first user message — the
  ``json-1`` template's JSON view, with its legal moves (:func:`sam_env.text_views.seat_view_from_json`) — by its
  name: a "model" that plays exactly as the bot (the protocol scores it exactly as the bot itself);
* ``nonsense``: by the request's hash, one of: prose naming no move, an illegal move, two moves, an empty message,
  a body with no choices, a 400 refusal, and now and then a legal move (so that every path of the agent is taken);
* ``fixed:TEXT``: always ``TEXT``.

``--model NAME``: serve that model only, answering a request for another with a 404, as servers do.
``--die-after N`` makes the process exit at once (no answer, the connection dropped) on request ``N + 1``: a server
that dies mid-run. ``--log FILE`` appends every request body to ``FILE``, one JSON document per line. Every answer
reports token usage as servers do (``prompt_tokens``: the prompt's characters / 4, an estimate, not a tokenizer's).
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
    """The answers of one server (see the module docstring)."""

    def __init__(
        self, mode: str, die_after: int | None = None, log: str | None = None, model: str | None = None
    ) -> None:
        if not mode.startswith(("bot:", "fixed:")) and mode != "nonsense":
            raise ValueError(f"a stand-in answers as bot:NAME, nonsense or fixed:TEXT, not {mode!r}")
        self.mode, self.die_after, self.log, self.model = mode, die_after, log, model
        self.requests = 0
        self.lock = threading.Lock()
        self.bot = None
        if mode.startswith("bot:"):
            import sam_env

            self.bot = sam_env.load_bot(mode[4:])

    def count(self, body: dict) -> None:
        with self.lock:
            self.requests += 1
            if self.die_after is not None and self.requests > self.die_after:
                os._exit(3)
            if self.log:
                with open(self.log, "a", encoding="utf-8") as f:
                    f.write(json.dumps(body, ensure_ascii=False) + "\n")

    def answer(self, request: dict) -> tuple[int, dict]:
        if self.model is not None and request.get("model") != self.model:
            message = f"The model `{request.get('model')}` does not exist."
            return 404, {"error": {"message": message, "type": "NotFoundError", "code": 404}}
        messages = request["messages"]
        prompt = "".join(m["content"] for m in messages)
        if self.mode.startswith("fixed:"):
            return 200, completion(request, self.mode[6:], prompt)
        if self.bot is not None:
            try:
                return 200, completion(request, self.bot_move(messages), prompt)
            except (ValueError, IndexError, KeyError) as err:  # the withheld track, or another template's prompt
                message = f"a stand-in bot answers the json-1 template with legal moves listed: {err}"
                return 400, {"error": {"message": message, "type": "invalid_request_error"}}
        kind = NONSENSE[int(hashlib.sha256(prompt.encode()).hexdigest(), 16) % len(NONSENSE)]
        if kind is None:
            return 200, {"id": "x", "object": "chat.completion", "model": request["model"], "choices": []}
        if kind == "refuse":
            return 400, {"error": {"message": "this prompt is refused (a test)", "type": "invalid_request_error"}}
        if kind == "legal":
            try:
                kind = f"Let me play {json.loads(messages[1]['content'])['legal_moves'][0]}"
            except (ValueError, KeyError, IndexError):  # the text template, or the withheld track
                kind = "pass"
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
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            answers.count(body)
            if self.path != "/v1/chat/completions":
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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m sam_env.agents.llm.stand_in", description=(__doc__ or "").split("\n\n")[0]
    )
    parser.add_argument("mode", help="bot:NAME, nonsense or fixed:TEXT")
    parser.add_argument("--port", type=int, default=0, help="the port on 127.0.0.1 (default: a free one)")
    parser.add_argument("--die-after", type=int, default=None, metavar="N", help="exit on request N + 1")
    parser.add_argument("--log", default=None, metavar="FILE", help="append every request body to FILE")
    parser.add_argument("--model", default=None, help="serve this model only (404 for another)")
    return parser


def main(argv: list[str] | None = None) -> None:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        answers = Answers(args.mode, args.die_after, args.log, args.model)
    except ValueError as err:
        parser.error(str(err))
    server = ThreadingHTTPServer(("127.0.0.1", args.port), handler(answers))
    print(f"PORT {server.server_address[1]}", flush=True)
    sys.stdout.flush()
    server.serve_forever()


if __name__ == "__main__":
    main()
