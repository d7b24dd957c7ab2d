"""The language-model agent (sam_env.agents.llm) against stand-in servers: real HTTP processes on loopback that answer
as the heuristic would, with nonsense, with one fixed text, or die mid-run."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from llm_servers import stand_in

import sam_env
from sam_env.agents.code_specs import is_code_spec
from sam_env.agents.llm import ChatSpec, ChatSpecError, parse
from sam_env.agents.llm.agent import ChatAgent, EndpointError
from sam_env.agents.llm.store import run_usage
from sam_env.core import RuleConfig, SeatView, Table
from sam_env.encoding import N_ACTIONS
from sam_env.evaluation.tournament import Match, run_matches


@pytest.fixture(autouse=True)
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test its own reply cache (the environment variable the agent reads), and no key of the machine's."""
    path = tmp_path / "replies.sqlite"
    monkeypatch.setenv("SAM_ENV_LLM_CACHE", str(path))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    return path


def decisions(count: int, seed: int = 0, players: int = 4) -> list[tuple[dict, SeatView]]:
    """The acting seat's observation and view at ``count`` decisions of random hands."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        hand = Table(RuleConfig(n_players=players), rng=int(rng.integers(2**31))).new_hand()
        while not hand.over and len(out) < count:
            view = SeatView.of(hand, hand.to_act)
            mask = np.zeros(N_ACTIONS, dtype=np.int8)
            mask[list(view.legal)] = 1
            out.append(({"action_mask": mask}, view))
            hand.step(int(rng.choice(hand.legal_moves())))
    return out


def test_a_spec_reads_its_options_and_refuses_bad_ones_by_name() -> None:
    chat = parse("openai:llama3.1:8b,legal_moves=withheld,temperature=0.7,max_tokens=32,concurrency=2")
    assert (chat.model, chat.legal_moves, chat.temperature, chat.max_tokens, chat.concurrency) == (
        "llama3.1:8b",
        "withheld",
        0.7,
        32,
        2,
    )
    assert parse("openai:Qwen/Qwen2.5-7B-Instruct").model == "Qwen/Qwen2.5-7B-Instruct"
    assert not is_code_spec("openai:gpt4")  # not a module:attr spec
    for spec, message in (
        ("openai:m,legal=listed", "'legal=listed' is not an option; the options are legal_moves=..."),
        ("openai:m,legal_moves=hidden", "legal_moves is listed or withheld, not 'hidden'"),
        ("openai:m,template=json-9", "template is one of json-1, text-1"),
        ("openai:m,temperature=hot", "temperature takes a number, not 'hot'"),
        ("openai:m,retries=-1", "retries is at least 0"),
        ("openai:bad name", "the model name 'bad name' must be"),
    ):
        with pytest.raises(ChatSpecError, match=re.escape(message)):
            parse(spec)
    with pytest.raises(ChatSpecError, match="legal_moves is listed or withheld"):
        sam_env.load_bot("openai:m,legal_moves=hidden")


def test_a_stand_in_answering_as_the_heuristic_plays_exactly_as_the_heuristic() -> None:
    """Move for move, through the HTTP wire format, with requests sent concurrently: the same results."""
    rules = RuleConfig()
    with stand_in("bot:heuristic") as url:
        spec = f"openai:stand-in,base_url={url}"
        chat, heuristic = run_matches(
            [Match(spec, ("greedy", "random", "greedy")), Match("heuristic", ("greedy", "random", "greedy"))],
            rules,
            6,
            seed=3,
            workers=1,
            progress=False,
        )
    np.testing.assert_array_equal(chat.metrics, heuristic.metrics)


def test_nonsense_is_retried_then_falls_back_and_every_event_is_counted(cache: Path) -> None:
    with stand_in("nonsense") as url:
        agent = sam_env.load_bot(f"openai:nonsense,base_url={url},retries=2,concurrency=4")
        asked = decisions(60)
        actions = agent.act_many([o for o, _ in asked], [v for _, v in asked])
        usage = agent.usage()
        # every answer is a legal move, whatever the server said
        assert all(a in view.legal for a, (_, view) in zip(actions, asked, strict=True))
        assert usage["decisions"] == 60
        for kind in ("unparsed", "illegal", "refused", "fallback"):
            assert usage[kind] > 0, kind
        assert usage["replies"] == usage["calls"] + usage["cached"]
        assert usage["replies"] <= 3 * 60
        assert usage["prompt_tokens"] > 0 and usage["completion_tokens"] > 0
        assert run_usage(cache, agent.run)["decisions"] == 60  # the log agrees with the agent
        # the same decisions again: all from the cache, the same moves, the same events
        again = sam_env.load_bot(f"openai:nonsense,base_url={url},retries=2,concurrency=1")
        assert again.act_many([o for o, _ in asked], [v for _, v in asked]) == actions
        repeat = again.usage()
        assert repeat["calls"] == 0 and repeat["cached"] == usage["replies"]
        for kind in ("unparsed", "illegal", "refused", "fallback", "replies", "prompt_tokens"):
            assert repeat[kind] == usage[kind], kind


def test_the_withheld_track_shows_no_legal_move_and_its_retry_lists_none(tmp_path: Path) -> None:
    log = tmp_path / "requests.jsonl"
    with stand_in("fixed:quad:2", "--log", str(log)) as url:
        agent = sam_env.load_bot(f"openai:m,base_url={url},legal_moves=withheld,retries=1")
        asked = decisions(10, seed=4)
        agent.act_many([o for o, _ in asked], [v for _, v in asked])
    requests = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(requests) >= 10
    for request in requests:
        view = json.loads(request["messages"][1]["content"])
        assert "legal_moves" not in view
        assert "not listed" in request["messages"][0]["content"]
        for message in request["messages"][2:]:  # the model's own reply, and the reason it is not a move: no list
            assert message["content"] in (
                "quad:2",
                "That is not a legal move (quad:2 is not a legal move now: 'quad:2'). Answer with one legal move's "
                "name only.",
            )
    assert any(len(r["messages"]) == 4 for r in requests)  # a retry, in the same conversation


def test_an_endpoint_that_refuses_every_request_stops_the_run_rather_than_falling_back_forever() -> None:
    """The stand-in's bot mode refuses a withheld-track prompt (as a hosted model refuses a parameter it rejects)."""
    with stand_in("bot:heuristic") as url:
        agent = sam_env.load_bot(f"openai:m,base_url={url},legal_moves=withheld,concurrency=1")
        asked = decisions(10, seed=7)
        stopped = r"refused every request of the first 8 decisions and answered none.*change the spec's options"
        with pytest.raises(EndpointError, match=stopped):
            agent.act_many([o for o, _ in asked], [v for _, v in asked])


def test_a_server_that_dies_stops_the_agent_with_what_to_do_and_keeps_every_reply(cache: Path) -> None:
    asked = decisions(30, seed=5)
    with stand_in("bot:heuristic", "--die-after", "12") as url:
        agent = sam_env.load_bot(f"openai:m,base_url={url},max_retries=0,concurrency=1")
        with pytest.raises(EndpointError, match=r"stopped answering .* run the same command again to resume"):
            agent.act_many([o for o, _ in asked], [v for _, v in asked])
    with stand_in("bot:heuristic") as url:
        resumed = sam_env.load_bot(f"openai:m,base_url={url},concurrency=1")
        resumed.act_many([o for o, _ in asked], [v for _, v in asked])
    assert resumed.usage()["cached"] >= 12  # what the first server answered is not asked again


def test_an_endpoint_that_does_not_serve_the_model_or_the_path_is_named_at_once() -> None:
    obs, view = decisions(1)[0]
    with stand_in("bot:heuristic", "--model", "served") as url:
        for spec in (f"openai:other,base_url={url}", f"openai:served,base_url={url.removesuffix('/v1')}/nowhere"):
            agent = sam_env.load_bot(f"{spec},max_retries=0")
            with pytest.raises(EndpointError, match=r"refuses the request \(404: .*check the model name, OPENAI_BASE"):
                agent.act(obs, view)
        assert sam_env.load_bot(f"openai:served,base_url={url}").act(obs, view) in view.legal


def test_an_agent_copies_and_pickles_without_its_connection() -> None:
    import copy
    import pickle

    agent = sam_env.load_bot("openai:m")
    assert isinstance(agent, ChatAgent)
    _ = agent.store  # opened
    for twin in (copy.deepcopy(agent), pickle.loads(pickle.dumps(agent))):
        assert twin.spec == agent.spec and twin.run == agent.run and twin._store is None
    assert isinstance(pickle.loads(pickle.dumps(parse("openai:m"))), ChatSpec)


def test_the_text_template_sends_the_text_view_and_each_setting_of_a_move_has_its_own_fingerprint(
    tmp_path: Path,
) -> None:
    from sam_env.evaluation.fingerprints import fingerprint

    log = tmp_path / "requests.jsonl"
    with stand_in("fixed:pass", "--log", str(log)) as url:
        agent = sam_env.load_bot(f"openai:m,base_url={url},template=text-1,retries=0")
        asked = decisions(5, seed=6)
        actions = agent.act_many([o for o, _ in asked], [v for _, v in asked])
    assert all(a in view.legal for a, (_, view) in zip(actions, asked, strict=True))
    first = json.loads(log.read_text().splitlines()[0])
    assert first["messages"][1]["content"].startswith("You are seat ")
    assert "Legal moves: " in first["messages"][1]["content"]
    assert "as lines of text" in first["messages"][0]["content"]
    rules = RuleConfig()
    prints = {
        spec: fingerprint(spec, rules)["sha256"]
        for spec in (
            "openai:m",
            "openai:n",
            "openai:m,template=text-1",
            "openai:m,legal_moves=withheld",
            "openai:m,temperature=1",
            "openai:m,max_tokens=8",
            "openai:m,retries=0",
        )
    }
    assert len(set(prints.values())) == len(prints)
    # how a run is carried out changes no move, and no fingerprint
    assert fingerprint("openai:m,concurrency=1,timeout=5,cache=/tmp/x", rules)["sha256"] == prints["openai:m"]
