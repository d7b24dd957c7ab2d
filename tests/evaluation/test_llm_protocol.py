"""Protocol v1's text tier with a language model: ``sam-eval --protocol v1 --tier text --candidates openai:NAME``
against stand-in servers (real HTTP processes on loopback; sam_env.agents.llm.stand_in) — one that answers as the
heuristic, one that answers nonsense, one that dies mid-run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from llm_servers import stand_in

from sam_env.evaluation.results import ResultsError, read_results, validate

LEADERBOARD = Path(__file__).resolve().parents[2] / "leaderboard"


def sam_eval(*args: str, base_url: str, cache: Path) -> subprocess.CompletedProcess[str]:
    """``sam-eval ARGS`` with the endpoint and the cache given the way users give them: environment variables."""
    env = {**__import__("os").environ, "OPENAI_BASE_URL": base_url, "SAM_ENV_LLM_CACHE": str(cache)}
    env.pop("OPENAI_API_KEY", None)
    return subprocess.run(
        [sys.executable, "-m", "sam_env.apps.evaluate", *args, "--workers", "2", "--no-progress"],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )


def scored(document: dict) -> tuple[list, dict]:
    """What a results file scores: its rows' figures and per-deal values, and its headline."""
    rows = [{k: v for k, v in r.items() if k != "opponents"} for r in document["rows"]]
    return rows, document["headline"]


def test_a_model_answering_as_the_heuristic_scores_exactly_the_heuristic_s_committed_text_tier(tmp_path: Path) -> None:
    with stand_in("bot:heuristic") as url:
        run = sam_eval(
            "--protocol", "v1", "--tier", "text", "--candidates", "openai:heuristic-stand-in",
            "--out", str(tmp_path), base_url=url, cache=tmp_path / "replies.sqlite",
        )  # fmt: skip
    assert run.returncode == 0, run.stderr
    [path] = tmp_path.glob("*.results.json")
    document = read_results(path)
    assert scored(document) == scored(read_results(LEADERBOARD / "heuristic.v1-4p-text.results.json"))
    agent = document["agent"]
    assert agent["first_reply_legal_rate"] == 1.0 and agent["fallbacks"] == 0
    assert agent["calls"] + agent["cached"] == agent["replies"] == agent["decisions"] > 1000
    assert document["candidate"]["fingerprint"]["kind"] == "language model"
    assert "100.0% of first replies legal" in run.stdout


def test_nonsense_completes_with_a_valid_file_that_reports_its_invalid_replies_and_repeats_from_the_cache(
    tmp_path: Path,
) -> None:
    args = ("--protocol", "v1", "--tier", "text", "--players", "5", "--candidates", "openai:nonsense,retries=1")
    cache = tmp_path / "replies.sqlite"
    with stand_in("nonsense") as url:
        first = sam_eval(*args, "--out", str(tmp_path / "first"), base_url=url, cache=cache)
    assert first.returncode == 0, first.stderr
    [path] = (tmp_path / "first").glob("*.results.json")
    document = read_results(path)  # valid: the schema, the protocol, every figure, the agent block
    agent = document["agent"]
    for count in ("unparsed", "illegal", "refused", "fallbacks"):
        assert agent[count] > 0, count
    assert 0 < agent["fallback_rate"] < 1 and agent["retries"] == 1
    assert "fallbacks" in first.stdout and "invalid replies" in first.stdout
    # the same command again, with the server gone: every reply from the cache, the same numbers
    second = sam_eval(*args, "--out", str(tmp_path / "second"), base_url="http://127.0.0.1:9/v1", cache=cache)
    assert second.returncode == 0, second.stderr
    again = read_results(next((tmp_path / "second").glob("*.results.json")))
    assert scored(again) == scored(document)
    assert again["agent"]["calls"] == 0 and again["agent"]["cached"] == agent["replies"]
    for key in ("decisions", "replies", "unparsed", "illegal", "refused", "fallbacks", "prompt_tokens"):
        assert again["agent"][key] == agent[key], key
    reproduced = sam_eval("--reproduce", str(path), base_url="http://127.0.0.1:9/v1", cache=cache)
    assert reproduced.returncode == 0 and "every stored value is equal, and so is the fingerprint" in reproduced.stdout
    # the validator holds the block to its counts and its spec
    assert 0 < agent["first_reply_legal"] < agent["decisions"] - agent["fallbacks"]  # some found a move on a retry
    for changes, named in (
        ({"fallback_rate": 0.0}, "agent.fallback_rate"),
        ({"legal_moves": "withheld"}, "agent.legal_moves"),
        ({"calls": agent["calls"] + 1}, "agent.replies"),
        ({"illegal": agent["illegal"] + 1}, "agent.invalid_reply_rate"),
        ({"first_reply_legal": 0, "first_reply_legal_rate": 0.0}, "agent.unparsed"),
        (
            {"replies": 999_999, "calls": 999_999 - agent["cached"], "invalid_reply_rate": 1.0},
            "agent.invalid_reply_rate",
        ),
    ):
        tampered = json.loads(json.dumps(document))
        tampered["agent"].update(changes)
        with pytest.raises(ResultsError, match=rf"^{named}: "):
            validate(tampered)
    tampered = json.loads(json.dumps(document))
    tampered["candidate"]["fingerprint"]["sha256"] = "0" * 64
    with pytest.raises(ResultsError, match=r"candidate\.fingerprint\.sha256: is not the fingerprint of the spec"):
        validate(tampered)
    without = json.loads(json.dumps(document))
    del without["agent"]
    with pytest.raises(ResultsError, match="agent: is missing"):
        validate(without)


def test_a_run_whose_server_dies_stops_without_a_file_and_the_same_command_resumes_it(tmp_path: Path) -> None:
    args = ("--protocol", "v1", "--tier", "text", "--players", "3", "--candidates", "openai:m,max_retries=0")
    cache, out = tmp_path / "replies.sqlite", tmp_path / "out"
    before, after = tmp_path / "before.jsonl", tmp_path / "after.jsonl"
    with stand_in("bot:heuristic", "--die-after", "400", "--log", str(before)) as url:
        died = sam_eval(*args, "--out", str(out), base_url=url, cache=cache)
    assert died.returncode == 1
    assert "did not finish, so it wrote no results file" in died.stderr
    assert "run the same command again to resume" in died.stderr
    assert not out.exists()
    with stand_in("bot:heuristic", "--log", str(after)) as url:  # a new server, on another port
        resumed = sam_eval(*args, "--out", str(out), base_url=url, cache=cache)
    assert resumed.returncode == 0, resumed.stderr
    document = read_results(next(out.glob("*.results.json")))
    assert scored(document) == scored(read_results(LEADERBOARD / "heuristic.v1-3p-text.results.json"))
    # the second server was asked only what the first left unanswered: of the 400 requests it received, only those
    # in flight when it died (at most 2 processes x 8 requests) were asked again, and nothing was asked twice
    asked = [path.read_text().splitlines() for path in (before, after)]
    assert len(asked[0]) == 400 and len(set(asked[0]) & set(asked[1])) <= 2 * 8
    assert document["agent"]["calls"] == len(asked[1]) == len(set(asked[1]))
