"""Language-model agents: a seat played by a model behind an OpenAI-compatible chat-completions endpoint.

* :mod:`.spec`: the spec ``openai:MODEL[,option=value ...]`` (:class:`~.spec.ChatSpec`), plain data;
* :mod:`.prompts`: the versioned prompt templates (``json-1``, ``text-1``) and the retry message;
* :mod:`.agent`: :class:`~.agent.ChatAgent`, retries, the fallback, concurrency;
* :mod:`.store`: the reply cache and the log of a run's decisions (one SQLite file).

The agent needs the ``llm`` extra (``pip install "sam-env[llm]"``: the official ``openai`` client); docs/llm.md
says how to evaluate a model under protocol v1's text tier.
"""

from __future__ import annotations

from .spec import ChatSpec, ChatSpecError, is_chat_spec, parse

__all__ = ["ChatSpec", "ChatSpecError", "chat_agent", "is_chat_spec", "parse"]


def chat_agent(spec: str | ChatSpec, seed: int | None = None, label: str | None = None):  # -> ChatAgent
    """The agent a spec names; ``ImportError`` saying how to install the ``llm`` extra where ``openai`` is missing."""
    chat = parse(spec) if isinstance(spec, str) else spec
    try:
        import openai  # noqa: F401
    except ModuleNotFoundError:
        raise ChatSpecError(
            f'the language-model agent {label or chat.model!r} needs the openai client: pip install "sam-env[llm]"'
        ) from None
    from .agent import ChatAgent

    return ChatAgent(chat, seed=seed, name=label or chat.label())
