"""Hard inputs on a live server: each request that once answered 500 now gets a 4xx naming what was wrong
and leaves the game it aimed at as it was, to play on to its end; other hosts and other sites are
refused while the app's own requests work; a client's games are capped and can be ended; a move that
fails inside applies not at all."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from sam_env.apps.web.cli import running
from sam_env.apps.web.server import create_app

JSON = {"content-type": "application/json"}
DEEP = b"[" * 3000  # a 3 KB body nested 3,000 deep


@pytest.fixture
def app_client(served: Path) -> Iterator[tuple[Any, httpx.Client]]:
    app = create_app(serve=served, games_per_client=3)
    with running(app) as url, httpx.Client(base_url=url, timeout=120) as client:
        yield app, client


def deal(client: httpx.Client, **body: Any) -> tuple[str, dict]:
    response = client.post("/api/games", json={"opponents": "random", "rules": {"allow_sam": False}, **body})
    assert response.status_code == 201, response.text
    return response.json()["game_id"], response.json()["view"]


def finish(client: httpx.Client, game_id: str, view: dict) -> dict:
    while view["result"] is None:
        response = client.post(f"/api/games/{game_id}/moves", json={"action": view["legal"][0]["id"]})
        assert response.status_code == 200, response.text
        view = response.json()
    return view


def bad_requests(game_id: str, served: Path) -> list[tuple[str, bytes, str]]:
    """(path, body, what the refusal says): the requests that answered 500 before, and their kin."""
    record = json.loads((served / "eval" / "hands.jsonl").read_text(encoding="utf-8").splitlines()[0])
    record["info"] = {"x_per_hand": float("nan")}
    summary = json.loads((served / "eval" / "summary.json").read_text(encoding="utf-8"))
    for match in summary["matches"]:
        del match["deals"]
    return [
        ("/api/games", DEEP, "recursion limit"),
        (f"/api/games/{game_id}/moves", DEEP, "recursion limit"),
        ("/api/replays", DEEP, "recursion limit"),
        ("/api/leaderboard", DEEP, "recursion limit"),
        ("/api/leaderboard", b'{"files": [{"name": "a", "text": "' + b"[" * 3000 + b'"}]}', "recursion limit"),
        ("/api/replays", b'{"name": "\\ud800", "text": "{}"}', "surrogate"),
        ("/api/replays", b'{"path": "\\ud800.jsonl"}', "surrogate"),
        ("/api/leaderboard", b'{"paths": ["\\udc00"]}', "surrogate"),
        ("/api/leaderboard", b'{"files": [{"name": "\\ud800", "text": "{}"}]}', "surrogate"),
        ("/api/games", b'{"seed": "\xff"}', "invalid unicode"),
        (
            "/api/leaderboard",
            json.dumps({"files": [{"name": "s.json", "text": json.dumps(summary)}]}).encode(),
            "matches[0].deals is missing",
        ),
        ("/api/replays", json.dumps({"name": "r", "text": json.dumps(record)}).encode(), "NaN is not a JSON number"),
        ("/api/games", b'{"rules": {"card_value": 1' + b"0" * 309 + b"}}", "expected an int from 0 to 1000"),
        ("/api/games", b'{"rules": {"card_value": NaN}}', "rules.card_value = nan"),
        ("/api/games", b'{"seed": 1e400}', "seed = inf"),
        (f"/api/games/{game_id}/moves", b'{"action": NaN}', "action = nan"),
        (f"/api/games/{game_id}/moves", b'{"action": 1, "action2": 2}', "unknown field 'action2'"),
        (f"/api/games/{game_id}/next", b'{"now": true}', "unknown field 'now'"),
        ("/api/replays", b'{"path": "eval/x_per_hand.png"}', "not a UTF-8 text file"),
        ("/api/replays", json.dumps({"path": "a" * 300 + ".jsonl"}).encode(), "File name too long"),
    ]


def test_every_bad_request_is_a_4xx_naming_it_and_the_game_plays_on(
    app_client: tuple[Any, httpx.Client], served: Path
) -> None:
    _, client = app_client
    game_id, view = deal(client, seed=4)
    before = client.get(f"/api/games/{game_id}").json()
    for path, body, says in bad_requests(game_id, served):
        response = client.post(path, content=body, headers=JSON)
        assert 400 <= response.status_code < 500, (path, body[:60], response.text)
        assert says in response.json()["error"], (path, body[:60], response.text)
        assert client.get(f"/api/games/{game_id}").json() == before
    assert finish(client, game_id, view)["result"] is not None


def test_a_huge_stake_is_refused_naming_the_range(app_client: tuple[Any, httpx.Client]) -> None:
    _, client = app_client
    response = client.post("/api/games", json={"players": 2, "rules": {"card_value": 10**309}, "opponents": "random"})
    assert response.status_code == 400
    assert "RuleConfig.card_value = 1000" in response.json()["error"]
    assert "expected an int from 0 to 1000 (units of the bet X)" in response.json()["error"]
    top = client.post("/api/games", json={"players": 2, "rules": {"card_value": 1000}, "opponents": "random"})
    assert top.status_code == 201
    view = finish(client, top.json()["game_id"], top.json()["view"])
    assert sum(view["result"]["net"]) == 0


def test_other_hosts_and_other_sites_are_refused_and_the_page_works(app_client: tuple[Any, httpx.Client]) -> None:
    _, client = app_client
    port = client.base_url.port
    assert client.get("/api/options", headers={"host": "evil.example"}).status_code == 400
    assert client.get("/", headers={"host": f"evil.example:{port}"}).status_code == 400
    for name in ("localhost", "[::1]", "127.0.0.1"):
        assert client.get("/api/options", headers={"host": f"{name}:{port}"}).status_code == 200, name
    # a form any site can send: text/plain, cross-origin
    form = client.post("/api/games", content=b"{}", headers={"content-type": "text/plain", "origin": "http://a.b"})
    assert form.status_code == 403 and "another site" in form.json()["error"]
    plain = client.post("/api/games", content=b"{}", headers={"content-type": "text/plain"})
    assert plain.status_code == 415 and "application/json" in plain.json()["error"]
    no_type = client.post("/api/games", content=b"{}")
    assert no_type.status_code == 415
    foreign = client.post("/api/games", json={}, headers={"origin": "http://evil.example"})
    assert foreign.status_code == 403
    own = client.post("/api/games", json={"opponents": "random"}, headers={"origin": f"http://127.0.0.1:{port}"})
    assert own.status_code == 201
    assert client.delete(f"/api/games/{own.json()['game_id']}", headers={"origin": "http://evil.example"}).status_code
    assert client.get(f"/api/games/{own.json()['game_id']}").status_code == 200  # still there
    latin = client.post("/api/games", json={}, headers={"content-type": "application/json; charset=latin-1"})
    assert latin.status_code == 415


def test_another_host_is_served_once_allowed(served: Path) -> None:
    from sam_env.apps.web.guard import allowed_hosts

    with running(create_app(hosts=allowed_hosts(extra=["sam.lan"]))) as url, httpx.Client(base_url=url) as client:
        assert client.get("/api/options", headers={"host": "sam.lan:8000"}).status_code == 200
        assert client.get("/api/options", headers={"host": "other.lan"}).status_code == 400


def test_a_client_holds_a_few_games_and_ends_them(app_client: tuple[Any, httpx.Client]) -> None:
    app, client = app_client
    ids = [deal(client)[0] for _ in range(3)]
    full = client.post("/api/games", json={})
    assert full.status_code == 429 and "DELETE /api/games/{id}" in full.json()["error"]
    ended = client.delete(f"/api/games/{ids[0]}", headers=JSON)
    assert ended.status_code == 204 and len(app.state.games) == 2
    assert client.get(f"/api/games/{ids[0]}").status_code == 404
    assert client.delete(f"/api/games/{ids[0]}", headers=JSON).status_code == 404
    typed = client.request("DELETE", f"/api/games/{ids[1]}", content=b"{}", headers={"content-type": "text/plain"})
    assert typed.status_code == 415 and len(app.state.games) == 2  # a body not typed JSON: refused, kept
    deal(client)  # room again


def test_a_delete_without_a_body_needs_no_content_type(app_client: tuple[Any, httpx.Client]) -> None:
    """``curl -X DELETE URL`` ends the game (issue 43): no body, no Content-Type. A body still says it is JSON, a
    POST even an empty one, and another site's DELETE is refused as before; each refusal says what to send."""
    app, client = app_client
    game_id, _ = deal(client)
    ended = client.delete(f"/api/games/{game_id}")
    assert "content-type" not in ended.request.headers and "content-length" not in ended.request.headers
    assert ended.status_code == 204, ended.text
    assert len(app.state.games) == 0 and client.get(f"/api/games/{game_id}").status_code == 404
    assert client.delete(f"/api/games/{game_id}").status_code == 404  # gone: nothing to end
    kept, _ = deal(client)
    for headers in ({"content-type": "text/plain"}, {}):  # a body, not typed JSON: refused, the game kept
        refused = client.request("DELETE", f"/api/games/{kept}", content=b"{}", headers=headers)
        assert refused.status_code == 415, (headers, refused.text)
        assert refused.json()["error"].endswith(
            "a DELETE with a body sends it as Content-Type: application/json (UTF-8), or sends no body"
        )
        assert client.get(f"/api/games/{kept}").status_code == 200
    foreign = client.delete(f"/api/games/{kept}", headers={"origin": "http://evil.example"})
    assert foreign.status_code == 403 and "another site" in foreign.json()["error"]
    empty_post = client.post(f"/api/games/{kept}/next")
    assert empty_post.status_code == 415
    assert "a POST sends Content-Type: application/json (UTF-8), even with an empty body" in empty_post.json()["error"]
    typed_but_empty = client.request("DELETE", f"/api/games/{kept}", headers={"content-type": "text/plain"})
    assert typed_but_empty.status_code == 204  # no body: nothing for the type to describe


def test_a_move_that_fails_inside_changes_nothing(app_client: tuple[Any, httpx.Client]) -> None:
    """A bot that breaks while answering: the request fails (500, saying nothing changed), and the table,
    the score and the history are those before the move, which then plays."""
    app, client = app_client
    game_id, view = deal(client, seed=9, seat=0)
    while not view["your_turn"] or view["phase"] != "play":
        view = finish(client, game_id, view)
        view = client.post(f"/api/games/{game_id}/next", json={}).json()
    game = app.state.games.get(game_id)
    bots, before = list(game.bots), client.get(f"/api/games/{game_id}").json()
    calls = []

    class Broken:
        def act(self, observation: object, view: object) -> int:
            calls.append(1)
            if len(calls) == 2:
                raise RuntimeError("a bot failed")
            return bots[1].act(observation, view)

    game.bots = [None, Broken(), Broken(), Broken()]
    move = view["legal"][-1]["name"]
    response = client.post(f"/api/games/{game_id}/moves", json={"action": move})
    assert response.status_code == 500 and "nothing was changed" in response.json()["error"]
    assert calls and client.get(f"/api/games/{game_id}").json() == before
    assert game.env.seat_to_act == 0 and len(game.history) == len(before["history"])
    game.bots = bots
    again = client.post(f"/api/games/{game_id}/moves", json={"action": move})
    assert again.status_code == 200 and again.json()["history"][len(before["history"])]["action"] == move
