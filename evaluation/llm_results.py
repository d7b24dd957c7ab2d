"""A language-model candidate's part of a results file: the ``agent`` block, what its moves cost and how often its
replies failed.

A run of protocol v1 seats a language model (:mod:`sam_env.agents.llm`) as a spec ``openai:MODEL[,...]``;
:func:`chat_candidate` gives it the run's id, under which every process logs its decisions, and :func:`agent_block`
sums them when the run ends (:func:`sam_env.agents.llm.store.run_usage`). The block records the settings that
decide the moves (model, track, template, temperature, max tokens, retries) and the counts (docs/llm.md says what
each means); :func:`check_agent_block` holds a file's block to its candidate's spec and recomputes its rates.
"""

from __future__ import annotations

import math
import uuid
from typing import Any

from sam_env.agents.llm import ChatSpec, is_chat_spec, parse
from sam_env.agents.llm.store import run_usage

from .protocol import rules_for

COUNTS = (
    "decisions",
    "replies",
    "first_reply_legal",
    "unparsed",
    "illegal",
    "refused",
    "fallbacks",
    "calls",
    "cached",
    "prompt_tokens",
    "completion_tokens",
)
"""The block's counts, in its order."""
RATES = {
    "first_reply_legal_rate": ("first_reply_legal", "decisions"),
    "invalid_reply_rate": (("unparsed", "illegal", "refused"), "replies"),
    "illegal_reply_rate": ("illegal", "replies"),
    "fallback_rate": ("fallbacks", "decisions"),
}
"""Each rate: the counts it sums over the count it divides by."""
DIGITS = 6


def is_chat_candidate(spec: object) -> bool:
    return is_chat_spec(spec) or isinstance(spec, ChatSpec)


def chat_candidate(spec: str | ChatSpec) -> ChatSpec:
    """The candidate as it plays a run: its settings with a new run id, under which its decisions are logged."""
    chat = parse(spec) if isinstance(spec, str) else spec
    return chat.with_run(uuid.uuid4().hex)


def agent_block(chat: ChatSpec) -> dict[str, Any]:
    """The ``agent`` block of a run that seated ``chat`` (with its run id): its settings and its decisions summed."""
    usage = run_usage(chat.cache_path(), str(chat.run))
    counts = {
        "decisions": usage["decisions"],
        "replies": usage["replies"],
        "first_reply_legal": usage["first_reply_legal"],
        "unparsed": usage["unparsed"],
        "illegal": usage["illegal"],
        "refused": usage["refused"],
        "fallbacks": usage["fallback"],
        "calls": usage["calls"],
        "cached": usage["cached"],
        "prompt_tokens": usage["prompt_tokens"],
        "completion_tokens": usage["completion_tokens"],
    }
    decisions = max(1, counts["decisions"])
    return {
        "kind": "language model",
        **chat.scoring(),
        **{k: int(v) for k, v in counts.items()},
        **rates(counts),
        "reply_seconds": round(float(usage["wait_s"]), 3),
        "harness_ms_per_decision": round(1000 * float(usage["harness_s"]) / decisions, 3),
    }


def rates(counts: dict[str, int]) -> dict[str, float]:
    """The block's rates from its counts (:data:`RATES`; 0 where nothing was counted)."""
    out = {}
    for name, (over, by) in RATES.items():
        top = sum(counts[k] for k in over) if isinstance(over, tuple) else counts[over]
        out[name] = round(top / counts[by], DIGITS) if counts[by] else 0.0
    return out


def check_agent_block(document: dict[str, Any]) -> tuple[str, str] | None:
    """``(field, what is wrong)`` for a file whose ``agent`` block does not fit its candidate or itself, else None:
    a language model's file has the block, with its spec's settings and rates that follow from its counts; any
    other candidate's has none."""
    spec, block = document["candidate"]["spec"], document.get("agent")
    if not is_chat_spec(spec):
        return None if block is None else ("agent", f"is for language-model candidates; {spec!r} is not one")
    if block is None:
        return "agent", f"is missing: the candidate {spec!r} is a language model, whose file records its replies"
    try:
        settings = parse(spec).scoring()
    except ValueError as err:
        return "candidate.spec", str(err)
    for key, value in settings.items():
        if block.get(key) != value:
            return f"agent.{key}", f"is {block.get(key)!r}; the candidate's spec {spec!r} has {value!r}"
    for name, value in rates({k: block[k] for k in COUNTS}).items():
        if not math.isclose(block[name], value, abs_tol=10**-DIGITS):
            return f"agent.{name}", f"is {block[name]!r}; its counts give {value!r}"
    wrong = _impossible_counts(block)
    if wrong:
        return wrong
    from .fingerprints import fingerprint  # a language model's is its settings' text: cheap to recompute

    expected = fingerprint(spec, rules_for(document["protocol"]["players"]))["sha256"]
    if document["candidate"]["fingerprint"]["sha256"] != expected:
        return "candidate.fingerprint.sha256", f"is not the fingerprint of the spec {spec!r} ({expected})"
    return None


def _impossible_counts(block: dict[str, Any]) -> tuple[str, str] | None:
    """``(field, why)`` when the counts cannot all be true of one run. Every decision reads replies until one names a
    legal move (at most ``retries + 1``) or falls back after ``retries + 1`` invalid ones, so: replies = the decisions
    that found a legal move + the invalid replies; a decision whose first reply was not legal had at least one invalid
    reply (at most ``retries``), and a fallback exactly ``retries + 1``."""
    decisions, fallbacks, first = block["decisions"], block["fallbacks"], block["first_reply_legal"]
    invalid = block["unparsed"] + block["illegal"] + block["refused"]
    tries = block["retries"] + 1
    if first + fallbacks > decisions:
        return (
            "agent.first_reply_legal",
            f"and the fallbacks ({first} + {fallbacks}) exceed the decisions ({decisions})",
        )
    if block["replies"] != decisions - fallbacks + invalid:
        found = decisions - fallbacks + invalid
        return (
            "agent.replies",
            f"is {block['replies']}; the decisions that found a legal move plus the invalid replies are {found}",
        )
    later = decisions - fallbacks - first  # decisions whose legal move came after 1 to retries invalid replies
    least, most = later + fallbacks * tries, later * (tries - 1) + fallbacks * tries
    if not least <= invalid <= most:
        return "agent.unparsed", f"with illegal and refused ({invalid} invalid replies) is not within [{least}, {most}]"
    if block["replies"] != block["calls"] + block["cached"]:
        return "agent.replies", f"is {block['replies']}; calls + cached is {block['calls'] + block['cached']}"
    return None
