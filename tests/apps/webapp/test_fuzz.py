"""The JSON API fuzzed on a live server: hypothesis draws methods, paths, headers and bodies (JSON of every
shape, near-misses of each endpoint's schema, raw bytes, deep nesting); no answer is a 5xx, nothing is
logged as an error or with a traceback, and the game the requests aim at still plays to its end.

The examples are derandomized (the same requests every run, so CI is reproducible) and few enough to take
some seconds; ``SAM_WEB_FUZZ_EXAMPLES=5000`` draws more.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sam_env.apps.web.cli import running
from sam_env.apps.web.server import create_app
from sam_env.core.rules import INT_RANGES

EXAMPLES = int(os.environ.get("SAM_WEB_FUZZ_EXAMPLES", "400"))
JSON_TYPE = "application/json"


class Errors(logging.Handler):
    """Every log record at ERROR or above, or with a traceback."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno >= logging.ERROR or record.exc_info or "Traceback" in record.getMessage():
            self.records.append(record)


@pytest.fixture(scope="module")
def server(served: Path) -> Iterator[tuple[str, Errors]]:
    errors = Errors()
    loggers = [logging.getLogger(name) for name in ("", "uvicorn", "uvicorn.error", "uvicorn.asgi", "asyncio")]
    app = create_app(serve=served, max_games=16, games_per_client=8)
    with running(app) as url:
        for logger in loggers:
            logger.addHandler(errors)
        try:
            yield url, errors
        finally:
            for logger in loggers:
                logger.removeHandler(errors)


# ---------------------------------------------------------------- what the requests are made of

scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.sampled_from([0, 1, -1, 4, 1000, 1001, 10**309, 2**63, 2**64])
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=20)
    | st.sampled_from(["pass", "pair:K", "straight:A-3", "declare_sam", "random", "heuristic", "greedy", "", "\x00"])
)


def containers(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)


values = st.recursive(scalars, containers, max_leaves=12)
rule_keys = st.sampled_from([*INT_RANGES, "bao1", "first_leader", "finish_on_two", "instant_wins", "allow_sam", "x"])
files = st.lists(
    st.fixed_dictionaries({}, optional={"name": values, "text": values | st.text(max_size=60)}), max_size=3
)
paths_in_folder = st.sampled_from(
    ["eval/hands.jsonl", "eval/summary.json", "eval/x_per_hand.png", "notes.txt", "../x", "/etc/passwd", "a" * 300, ""]
) | st.text(max_size=30)
rule_values = (
    st.integers(-1, 1001)
    | st.booleans()
    | st.sampled_from(["forced", "penalty", "host", "random", "pay_played", "sometimes"])
    | st.lists(st.sampled_from(["dragon", "four_twos", "five_pairs", "royal"]), max_size=3)
)
new_game = st.fixed_dictionaries(
    {},
    optional={
        "players": st.integers(1, 6),
        "rules": st.dictionaries(rule_keys, rule_values, max_size=3),
        "seat": st.integers(-1, 5),
        "opponents": st.sampled_from(["random", "greedy", "heuristic", "nobody", "checkpoint:x"])
        | st.lists(st.sampled_from(["random", "greedy", "heuristic"]), max_size=5),
        "seed": st.integers(-1, 2**64),
        "coach": st.booleans(),
        "record": st.booleans(),  # this server keeps no recordings: refused
        "recording": st.sampled_from(["A" * 24, "short", ""]),
    },
)
actions = st.integers(-1, 205) | st.sampled_from(["pass", "pair:K", "single:3", "straight:A-3", "decline_sam", "x"])


def nudged(bodies: st.SearchStrategy[dict[str, Any]], keys: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    """``bodies`` as they are, or with one of ``keys`` (or a stranger) holding any JSON value at all."""
    keys_and_strangers = st.sampled_from([*keys, "colour"])
    return bodies | bodies.flatmap(lambda d: st.builds(lambda k, v: {**d, k: v}, keys_and_strangers, values))


def near_misses(record: str, summary: str) -> dict[str, st.SearchStrategy[Any]]:
    """Per endpoint, bodies near its schema (a field of another endpoint now and then); uploads are the served
    record and summary with a field replaced."""

    def edited(text: str) -> st.SearchStrategy[str]:
        data = json.loads(text)
        return st.builds(lambda key, value: json.dumps({**data, key: value}), st.sampled_from(sorted(data)), values)

    stray = st.dictionaries(st.sampled_from(["action", "path", "colour", "files"]), values, max_size=1)
    upload = st.fixed_dictionaries({"text": edited(summary)}, optional={"name": st.text(max_size=8)})
    uploads = st.lists(nudged(upload, ["text", "name"]), max_size=2)
    return {
        "/api/games": nudged(new_game, ["players", "rules", "seat", "opponents", "seed", "coach", "record"]),
        "/api/recordings/replay": nudged(st.fixed_dictionaries({"token": st.sampled_from(["A" * 24, "x"])}), ["token"]),
        "moves": nudged(st.fixed_dictionaries({"action": actions}), ["action"]),
        "next": st.just({}) | stray,
        "think": st.just({}) | stray,
        "/api/replays": nudged(st.fixed_dictionaries({"name": st.text(max_size=8), "text": edited(record)}), ["name"])
        | nudged(st.fixed_dictionaries({"path": paths_in_folder}), ["path", "name"]),
        "/api/leaderboard": nudged(st.fixed_dictionaries({"paths": st.lists(paths_in_folder, max_size=2)}), ["paths"])
        | nudged(st.fixed_dictionaries({"files": uploads}), ["files", "paths"]),
    }


def encoded(value: Any) -> bytes:
    return json.dumps(value).encode()  # NaN and Infinity as JavaScript writes them: refused all the same


bodies = (
    st.builds(encoded, values)
    | st.binary(max_size=200)
    | st.sampled_from([b"", b"{", b"[" * 5000, b'{"action": "\\ud800"}', b'{"a": 1}' * 3, b"\xff\xfe{}", b"null"])
    | st.builds(lambda n: b'{"rules": ' * n + b"{}" + b"}" * n, st.integers(1, 300))
)


def urls(game_id: str) -> st.SearchStrategy[str]:
    segment = st.text(max_size=12).map(lambda t: quote(t, safe=""))
    raw = st.sampled_from(["%ff", "%00", "%2e%2e", "..", "%ed%a0%80", "a" * 300, "-1", "99999999999", "١"])
    part = segment | raw
    return st.one_of(
        st.sampled_from(["/", "/api/games", "/api/options", "/api/actions", "/api/files", "/api/replays"]),
        st.sampled_from(["/api/leaderboard", "/static/app.js", "/nowhere"]),
        st.sampled_from(["/api/recordings", "/api/recordings/replay"]),
        st.sampled_from([f"/api/games/{game_id}{end}" for end in ("/moves", "/next", "/think", "")]),
        st.builds(lambda p: f"/api/games/{p}", part),
        st.builds(lambda p: f"/api/games/{p}/moves", part),
        st.builds(lambda a, b: f"/api/replays/{a}/hands/{b}", part, part),
        st.builds(lambda p: f"/files/{p}", part | st.sampled_from(["eval/x_per_hand.png", "../../etc/passwd"])),
        st.builds(lambda p: f"/static/{p}", part),
    )


header_text = st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=30).map(str.strip)


def headers(own: str) -> st.SearchStrategy[dict[str, str]]:
    content_types = st.sampled_from(
        [JSON_TYPE, f"{JSON_TYPE}; charset=utf-8", f"{JSON_TYPE}; charset=latin-1", "text/plain", "multipart/form-data"]
    )
    origins = st.sampled_from([f"http://{own}", "http://evil.example", "null", f"https://{own}"]) | header_text
    hosts = st.sampled_from([own, "localhost", "[::1]", "evil.example", own + ".evil", ""]) | header_text
    return st.fixed_dictionaries(
        {}, optional={"content-type": content_types | header_text, "origin": origins, "host": hosts}
    )


def requests(game_id: str, own: str, served: Path) -> st.SearchStrategy[tuple[str, str, bytes, dict[str, str]]]:
    """``(method, path, body, headers)``: half aimed at an endpoint with a near-miss of its body (so that the
    schemas, the games and the files are reached), half anything at all."""
    record = (served / "eval" / "hands.jsonl").read_text(encoding="utf-8").splitlines()[0]
    near = near_misses(record, (served / "eval" / "summary.json").read_text(encoding="utf-8"))
    paths = {key: f"/api/games/{game_id}/{key}" for key in ("moves", "next", "think")}
    plain = st.just({}) | st.just({})  # the client's own headers, twice as likely as fuzzed ones
    aimed = st.sampled_from(sorted(near)).flatmap(
        lambda key: st.tuples(
            st.just("POST"),
            st.just(paths.get(key, key)),
            st.builds(encoded, near[key]),
            plain | headers(own),
        )
    )
    methods = st.sampled_from(["GET", "POST", "DELETE", "PUT", "PATCH", "HEAD", "OPTIONS"])
    anything = st.tuples(methods, urls(game_id), bodies, headers(own))
    return aimed | anything


# ---------------------------------------------------------------- the test


def play_to_the_end(client: httpx.Client, game_id: str) -> dict:
    """Finish the hand in progress (or, if it is over, the next one) by legal moves; the final view."""
    view = client.get(f"/api/games/{game_id}").json()
    if view["result"] is not None:
        view = client.post(f"/api/games/{game_id}/next", json={}).json()
    while view["result"] is None:
        response = client.post(f"/api/games/{game_id}/moves", json={"action": view["legal"][0]["id"]})
        assert response.status_code == 200, response.text
        view = response.json()
    return view


def test_no_request_gets_a_5xx_or_a_traceback_and_the_game_plays_on(server: tuple[str, Errors], served: Path) -> None:
    url, errors = server
    own = url.removeprefix("http://")
    with httpx.Client(base_url=url, timeout=60) as client:
        created = client.post("/api/games", json={"opponents": "random", "seed": 5, "rules": {"allow_sam": False}})
        assert created.status_code == 201, created.text
        game_id = created.json()["game_id"]
        statuses: dict[int, int] = {}

        @settings(
            max_examples=EXAMPLES,
            deadline=None,
            derandomize=True,
            database=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
        )
        @given(request=requests(game_id, own, served))
        def one_request(request: tuple[str, str, bytes, dict[str, str]]) -> None:
            method, path, body, extra = request
            if method == "DELETE" and path.rstrip("/") == f"/api/games/{game_id}" and "origin" not in extra:
                extra = {**extra, "origin": "http://evil.example"}  # ending the game aimed at is no fault
            content = body if method not in ("GET", "HEAD") else None
            response = client.request(method, path, content=content, headers={"content-type": JSON_TYPE, **extra})
            statuses[response.status_code] = statuses.get(response.status_code, 0) + 1
            assert response.status_code < 500, (method, path, body[:200], extra, response.text[:500])
            if response.status_code >= 400 and method != "HEAD" and response.headers.get("content-type") == JSON_TYPE:
                assert response.json()["error"], response.text

        one_request()
        assert not errors.records, [r.getMessage() for r in errors.records]
        assert sum(n for status, n in statuses.items() if 400 <= status < 500) > EXAMPLES // 2, statuses
        final = play_to_the_end(client, game_id)
        assert sum(final["result"]["net"]) == 0 and final["hand_number"] >= 1
