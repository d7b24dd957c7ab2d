"""The spec of a language-model agent: ``openai:MODEL[,option=value ...]``, plain data that any process builds from.

``openai:`` names an OpenAI-compatible chat-completions endpoint (vLLM, llama.cpp's server, Ollama, a hosted
API), reached through the official ``openai`` client and configured the way that client is: ``OPENAI_BASE_URL``
and ``OPENAI_API_KEY`` in the environment (a local server needs no key). ``MODEL`` is the model's name as the
server knows it, and may hold ``:`` and ``/`` (``llama3.1:8b``, ``Qwen/Qwen2.5-7B-Instruct``). Options follow
after commas (docs/llm.md lists them): what the model is shown and how it is asked — which change its moves,
and so its scores — and how the run is carried out, which do not.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

from ..code_specs import CHAT_PREFIX, BotSpecError
from . import prompts
from .prompts import TEMPLATES

PREFIX = CHAT_PREFIX
LEGAL_MOVES = ("listed", "withheld")
"""The two tracks: the legal moves listed in the prompt, or withheld (the model must know the rules)."""
CACHE_ENV = "SAM_ENV_LLM_CACHE"
"""Environment variable naming the reply cache's file (default: ``~/.cache/sam-env/llm-replies.sqlite``)."""


class ChatSpecError(BotSpecError):
    """A spec that names no agent: the message says what was wrong and what was expected."""


@dataclass(frozen=True)
class ChatSpec:
    """A language-model agent's settings (see the module docstring); :func:`parse` reads them from a spec string."""

    model: str
    legal_moves: str = "listed"
    """``listed`` or ``withheld``: the track (:data:`LEGAL_MOVES`)."""
    template: str = "json-1"
    """The prompt template, by name and version (:mod:`.prompts`)."""
    temperature: float = 0.0
    max_tokens: int = 256
    """The most tokens a reply may have (a reasoning model needs more than a move's name)."""
    retries: int = 2
    """How many times a reply that names no legal move is answered with the reason and asked again."""
    concurrency: int = 8
    """Requests in flight at once, per evaluation process (docs/llm.md)."""
    timeout: float = 120.0
    """Seconds to wait for one reply."""
    max_retries: int = 4
    """The ``openai`` client's own retries of a failed request (a dropped connection, a 429 or a 5xx)."""
    base_url: str | None = None
    """The endpoint; None: the client's ``OPENAI_BASE_URL`` (or its own default)."""
    cache: str | None = None
    """The reply cache's file; None: :data:`CACHE_ENV`, else ``~/.cache/sam-env/llm-replies.sqlite``."""
    run: str | None = field(default=None, compare=False)
    """The run whose decisions this agent logs (set by ``sam-eval``, which reads the run's counts back)."""

    SCORING = ("model", "legal_moves", "template", "temperature", "max_tokens", "retries")
    """The settings that change what the model is asked, and so its moves: a results file records them."""

    def cache_path(self) -> Path:
        if self.cache:
            return Path(self.cache)
        if os.environ.get(CACHE_ENV):
            return Path(os.environ[CACHE_ENV])
        root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
        return root / "sam-env" / "llm-replies.sqlite"

    def scoring(self) -> dict[str, object]:
        """The settings that decide the agent's moves (:attr:`SCORING`), for a results file and a fingerprint."""
        return {name: getattr(self, name) for name in self.SCORING}

    def with_run(self, run: str) -> ChatSpec:
        return replace(self, run=run)

    def label(self) -> str:
        """The agent's name in reports and file names: ``openai:MODEL`` and the settings that change its moves
        where they are not the defaults, in a fixed order (``openai:m,legal_moves=withheld,temperature=0.7``); the
        options that only change how a run is carried out (concurrency, timeouts, the endpoint, the cache) are left
        out, so that they do not make another leaderboard entry."""
        default = ChatSpec(self.model)
        changed = [
            f"{name}={getattr(self, name)}"
            for name in self.SCORING
            if name != "model" and getattr(self, name) != getattr(default, name)
        ]
        return ",".join([f"{PREFIX}{self.model}", *changed])


_OPTIONS = {f.name: f for f in fields(ChatSpec) if f.name not in ("model", "run")}
_NAME = re.compile(r"^[\w.:/@+-]+$")


def is_chat_spec(spec: object) -> bool:
    """Whether ``spec`` is a string of the form ``openai:...`` (not whether it is a valid one)."""
    return isinstance(spec, str) and spec.startswith(PREFIX)


def parse(spec: str) -> ChatSpec:
    """The :class:`ChatSpec` of ``openai:MODEL[,option=value ...]``; :class:`ChatSpecError` naming what is wrong."""
    if not is_chat_spec(spec):
        raise ChatSpecError(f"a language-model agent is named {PREFIX}MODEL[,option=value ...], not {spec!r}")
    model, *options = spec[len(PREFIX) :].split(",")
    if not _NAME.match(model):
        raise ChatSpecError(
            f"agent spec {spec!r}: the model name {model!r} must be letters, digits and . _ - : / @ + (the name the "
            "server knows the model by)"
        )
    values: dict[str, object] = {}
    for option in options:
        key, sep, text = option.partition("=")
        key = key.strip()
        if not sep or key not in _OPTIONS:
            raise ChatSpecError(
                f"agent spec {spec!r}: {option!r} is not an option; the options are "
                + ", ".join(f"{name}=..." for name in _OPTIONS)
            )
        values[key] = _value(spec, key, text.strip())
    chat = ChatSpec(model, **values)  # type: ignore[arg-type]
    _check(spec, chat)
    return chat


def _value(spec: str, key: str, text: str) -> object:
    kind = str(_OPTIONS[key].type)
    try:
        if "float" in kind:
            return float(text)
        if "int" in kind:
            return int(text)
    except ValueError:
        whole = "a whole number" if "int" in kind else "a number"
        raise ChatSpecError(f"agent spec {spec!r}: {key} takes {whole}, not {text!r}") from None
    return text


def _check(spec: str, chat: ChatSpec) -> None:
    problems = []
    if chat.legal_moves not in LEGAL_MOVES:
        problems.append(f"legal_moves is {' or '.join(LEGAL_MOVES)}, not {chat.legal_moves!r}")
    if chat.template not in TEMPLATES:
        problems.append(f"template is one of {', '.join(TEMPLATES)}, not {chat.template!r}")
    if not 0 <= chat.temperature <= 2:
        problems.append(f"temperature is 0 to 2, not {chat.temperature}")
    for name, least in (("max_tokens", 1), ("retries", 0), ("concurrency", 1), ("max_retries", 0)):
        if getattr(chat, name) < least:
            problems.append(f"{name} is at least {least}, not {getattr(chat, name)}")
    if chat.timeout <= 0:
        problems.append(f"timeout is a positive number of seconds, not {chat.timeout}")
    if problems:
        raise ChatSpecError(f"agent spec {spec!r}: " + "; ".join(problems))


def fingerprint_text(spec: ChatSpec) -> str:
    """What decides a language-model agent's moves, as text to hash: the model's name, the settings that change its
    prompt or its sampling (:meth:`ChatSpec.scoring`), the text of its messages and the versions of its view and
    of the reply's reading (the model's weights are the server's, and unseen)."""
    template = TEMPLATES[spec.template]
    texts = (prompts.SYSTEM, prompts.CHOOSE_LISTED, prompts.CHOOSE_WITHHELD, prompts.RETRY)
    texts += (prompts.ASK_LISTED, prompts.ASK_WITHHELD)
    return repr((spec.scoring(), texts, template.name, template.view_version, prompts.PARSER_VERSION))
