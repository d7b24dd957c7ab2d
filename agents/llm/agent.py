"""``ChatAgent``: a seat played by a language model behind an OpenAI-compatible chat-completions endpoint.

At each decision the agent sends the prompt of its template (:mod:`.prompts`: the seat's view, with or without
its legal moves) and reads the reply with :func:`sam_env.text_views.parse_move`, which is forgiving but never
returns an illegal move. A reply that names no legal move — none, several, or an illegal one — is answered in the
same conversation with what was wrong; a request the server refuses (a 4xx such as a prompt over the model's
context) or answers with no message is sent again as it was. Up to ``retries`` times; then the **fallback**
plays: a legal move drawn uniformly at random by a generator seeded with the decision's first request, so that a
re-run repeats it. A model that never answers usefully so plays like ``random``, and every such event is counted
(:class:`.store.Decision`). An endpoint that refuses every request of the first decisions (:data:`REFUSALS_TO_STOP`)
and answers none stops the run instead: it rejects the request itself, and no move could come of it.

A server that stops answering — a refused connection, a timeout, a 429 or a 5xx still failing after the ``openai``
client's own retries, or a model or key it does not know — is not something a move can be made of: the run stops
with :class:`EndpointError`, and the same command run again resumes it, its finished decisions answered from the
reply cache (:mod:`.store`).

The agent is a :class:`~sam_env.ConcurrentBot`: an evaluation asks it for many hands' decisions at once, and it
sends up to ``concurrency`` requests together, each decision from its own prompt alone, so the results do not
depend on the grouping or the number of processes.
"""

from __future__ import annotations

import os
import threading
import time
import uuid
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import fields
from typing import Any

import numpy as np

from sam_env.concurrent_bot import ConcurrentBot
from sam_env.core import SeatView
from sam_env.text_views import MoveParseError, parse_move

from . import prompts
from .spec import ChatSpec, fingerprint_text
from .store import Decision, Reply, Store, request_key

REFUSALS_TO_STOP = 8
"""Decisions whose every request was refused, with no answer yet, after which the run stops
(:meth:`ChatAgent._note_refused_decision`)."""
LOCAL_API_KEY = "sam-env"
"""The key sent when ``OPENAI_API_KEY`` is not set: local servers (vLLM, llama.cpp, Ollama) need none."""


class EndpointError(RuntimeError):
    """The endpoint does not answer (or refuses the model or the key): the run stops, resumable from the cache."""


class ChatAgent(ConcurrentBot):
    """A language model's seat (see the module docstring), from a :class:`.spec.ChatSpec`."""

    def __init__(self, spec: ChatSpec, seed: int | None = None, name: str | None = None) -> None:
        super().__init__(seed)
        self.spec = spec
        self.name = name or spec.label()
        self.run = spec.run or uuid.uuid4().hex
        self.totals = Decision()
        """This agent's decisions summed, in this process (a run's, over all processes: :func:`.store.run_usage`)."""
        self.decisions = 0
        self._store: Store | None = None
        self._client: Any = None
        self._pool: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()
        self._answers = self._refusals = 0

    # ----------------------------------------------------------------- deciding

    def act_many(self, observations: Sequence[Mapping[str, np.ndarray]], views: Sequence[SeatView]) -> list[int]:
        _ = self.store, self.client  # opened here, not by the first threads at once
        if len(views) == 1 or self.spec.concurrency == 1:
            answers = [self._decide(view) for view in views]
        else:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.spec.concurrency, thread_name_prefix="sam-env-llm")
            answers = list(self._pool.map(self._decide, views))
        decisions = [d for _, d in answers]
        self.store.log(self.run, decisions)
        for d in decisions:
            for f in fields(Decision):
                setattr(self.totals, f.name, getattr(self.totals, f.name) + getattr(d, f.name))
        self.decisions += len(decisions)
        return [action for action, _ in answers]

    def _decide(self, view: SeatView) -> tuple[int, Decision]:
        start = time.perf_counter()
        decision = Decision()
        listed = self.spec.legal_moves == "listed"
        messages = prompts.messages(view, self.spec.template, listed)
        first_key = ""
        waited = 0.0
        action = None
        repeat = 0
        for _ in range(self.spec.retries + 1):
            request = self._request(messages)
            # a request sent again as it was (after a refusal) is a new key, so that it reaches the server once more
            key = request_key({**request, "repeat": repeat} if repeat else request)
            first_key = first_key or key
            reply, fetched = self._reply(key, request)
            waited += reply.latency_s if fetched else 0.0
            decision.calls += fetched
            decision.cached += not fetched
            decision.replies += 1
            decision.prompt_tokens += reply.prompt_tokens
            decision.completion_tokens += reply.completion_tokens
            decision.wait_s += reply.latency_s
            if reply.kind != "text":  # refused, or no message: the same request again
                decision.refused += reply.kind == "refused"
                decision.unparsed += reply.kind == "malformed"
                repeat += 1
                continue
            repeat = 0
            self._note_answer()
            try:
                action = parse_move(reply.content, view.legal)
                break
            except MoveParseError as err:
                decision.illegal += err.names_illegal_move
                decision.unparsed += not err.names_illegal_move
                feedback = prompts.retry_message(err, listed)
            said = [{"role": "assistant", "content": reply.content}] if reply.content.strip() else []
            messages = [*messages, *said, {"role": "user", "content": feedback}]
        if action is None:
            if decision.refused == decision.replies:
                self._note_refused_decision(reply)
            action = fallback_move(view, first_key)
            decision.fallback = 1
        decision.harness_s = max(0.0, time.perf_counter() - start - waited)
        return action, decision

    def _note_answer(self) -> None:
        with self._lock:
            self._answers += 1

    def _note_refused_decision(self, reply: Reply) -> None:
        """Stop the run when :data:`REFUSALS_TO_STOP` decisions had every request refused and no request has been
        answered yet: a model that rejects the request itself (a hosted model refusing ``max_tokens`` or a
        temperature) would otherwise play the fallback at every decision and still write a results file."""
        with self._lock:
            self._refusals += 1
            if self._answers or self._refusals < REFUSALS_TO_STOP:
                return
        raise EndpointError(
            f"{self.name}: the endpoint {self.client.base_url} refused every request of the first {REFUSALS_TO_STOP} "
            f"decisions and answered none, the last with {reply.content[:300]!r}; a model that rejects the request's "
            "parameters can make no move: change the spec's options (max_tokens, temperature) or the model"
        )

    def _request(self, messages: list[dict[str, str]]) -> dict[str, Any]:
        return {
            "model": self.spec.model,
            "messages": messages,
            "temperature": self.spec.temperature,
            "max_tokens": self.spec.max_tokens,
        }

    def _reply(self, key: str, request: dict[str, Any]) -> tuple[Reply, bool]:
        """The reply to ``request``, from the cache or the server; whether it was fetched now. Every answer is kept
        in the cache, refusals too (so that a re-run repeats the run), and the one kept first is played should two
        processes ask at once."""
        cached = self.store.reply(key)
        if cached is not None:
            return cached, False
        return self.store.keep(key, self._fetch(request)), True

    def _fetch(self, request: dict[str, Any]) -> Reply:
        import openai

        client = self.client
        start = time.perf_counter()
        try:
            response = client.chat.completions.create(**request)
        except (openai.AuthenticationError, openai.PermissionDeniedError, openai.NotFoundError) as err:
            raise EndpointError(
                f"{self.name}: the endpoint {client.base_url} refuses the request ({err.status_code}: {_said(err)}); "
                "check the model name, OPENAI_BASE_URL and OPENAI_API_KEY"
            ) from None
        except openai.APIStatusError as err:
            if err.status_code == 429 or err.status_code >= 500:
                raise self._stopped(f"{err.status_code}: {_said(err)}") from None
            return Reply("refused", f"{err.status_code}: {_said(err)}", 0, 0, time.perf_counter() - start)
        except openai.APIConnectionError as err:  # a refused connection or a timeout, after the client's retries
            raise self._stopped(f"{type(err).__name__}: {err}") from None
        latency = time.perf_counter() - start
        try:
            content = response.choices[0].message.content or ""
        except (AttributeError, IndexError, TypeError):
            return Reply("malformed", "", 0, 0, latency)
        usage = getattr(response, "usage", None)
        prompt_tokens = int(getattr(usage, "prompt_tokens", 0) or 0)
        completion_tokens = int(getattr(usage, "completion_tokens", 0) or 0)
        return Reply(
            "text", content if isinstance(content, str) else str(content), prompt_tokens, completion_tokens, latency
        )

    def _stopped(self, why: str) -> EndpointError:
        return EndpointError(
            f"{self.name}: the endpoint {self.client.base_url} stopped answering ({why}) after "
            f"{self.spec.max_retries} retries; the replies received so far are kept in {self.store.path}: run the "
            "same command again to resume where it stopped"
        )

    # ----------------------------------------------------------------- resources

    @property
    def store(self) -> Store:
        if self._store is None:
            self._store = Store(self.spec.cache_path())
        return self._store

    @property
    def client(self) -> Any:
        """The ``openai`` client, made on first use (a bot built only to be checked never needs it)."""
        if self._client is None:
            from openai import OpenAI

            self._client = OpenAI(
                base_url=self.spec.base_url,
                api_key=os.environ.get("OPENAI_API_KEY") or LOCAL_API_KEY,
                timeout=self.spec.timeout,
                max_retries=self.spec.max_retries,
            )
        return self._client

    def usage(self) -> dict[str, int | float]:
        """This agent's decisions in this process, summed: ``decisions`` and :class:`.store.Decision`'s fields."""
        return {"decisions": self.decisions, **{f.name: getattr(self.totals, f.name) for f in fields(Decision)}}

    def fingerprint(self) -> str:
        return fingerprint_text(self.spec)

    def __getstate__(self) -> dict[str, Any]:
        # a copy or a pickle gets the settings and the run; it opens its own file, client and threads
        return {**self.__dict__, "_store": None, "_client": None, "_pool": None, "_lock": None}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()


def fallback_move(view: SeatView, first_key: str) -> int:
    """The move played when no reply named a legal one: uniform over the legal moves, drawn by a generator seeded
    with the decision's first request (its SHA-256), so that the same decision falls back to the same move."""
    rng = np.random.default_rng(int(first_key[:16] or "0", 16))
    return int(rng.choice(sorted(view.legal)))


def _said(err: Exception) -> str:
    """What an error answer said, in one line."""
    body = getattr(err, "body", None)
    message = body.get("message") if isinstance(body, dict) else None
    return " ".join(str(message or getattr(err, "message", err)).split())[:300]
