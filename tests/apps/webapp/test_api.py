"""The JSON API on a live server (uvicorn on 127.0.0.1, a free port): games, refusals that change
nothing, ids, expiry, 50 games at once from threads, and a slow bot that stalls no other game."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from policy_files import write_checkpoint

from sam_env.apps.web.cli import running
from sam_env.apps.web.server import create_app


def new_game(client: httpx.Client, **body: Any) -> tuple[str, dict]:
    response = client.post("/api/games", json={"opponents": ["random"], **body})
    assert response.status_code == 201, response.text
    return response.json()["game_id"], response.json()["view"]


def finish_hand(client: httpx.Client, game_id: str, view: dict) -> dict:
    while view["result"] is None:
        response = client.post(f"/api/games/{game_id}/moves", json={"action": view["legal"][-1]["id"]})
        assert response.status_code == 200, response.text
        view = response.json()
    return view


def test_a_table_plays_hand_after_hand_with_a_running_score(client: httpx.Client) -> None:
    game_id, view = new_game(client, players=3, seat=1, seed=7, rules={"bao1": "forced"})
    assert view["seat"] == 1 and view["players"] == 3 and view["rules"]["bao1"] == "forced"
    assert view["your_turn"] or view["result"] is not None
    assert len(view["seats"][1]["cards"]) == 10 and "cards" not in view["seats"][0]
    assert client.get(f"/api/games/{game_id}").json() == {**view, "busy": False}
    totals = [0, 0, 0]
    for number in (1, 2, 3):
        view = finish_hand(client, game_id, view)
        assert view["hand_number"] == number and sum(view["result"]["net"]) == 0
        totals = [t + x for t, x in zip(totals, view["result"]["net"], strict=True)]
        assert [s["total"] for s in view["seats"]] == totals
        assert all(len(s["dealt"]) == 10 for s in view["seats"])  # every hand revealed at the end
        view = client.post(f"/api/games/{game_id}/next", json={}).json()
    moves = [m for m in view["history"] if m["seat"] != 1]
    assert view["moves"] == view["history"][len(view["history"]) - len(view["moves"]) :]
    assert all(m["player"] == "random" for m in moves)


def test_moves_by_name_and_by_id(client: httpx.Client) -> None:
    game_id, view = new_game(client, seed=3, rules={"allow_sam": False})
    while not view["your_turn"]:
        view = client.post(f"/api/games/{game_id}/next", json={}).json()
    first = view["legal"][0]
    by_name = client.post(f"/api/games/{game_id}/moves", json={"action": first["name"]}).json()
    assert by_name["history"][len(view["history"])]["action"] == first["name"]
    assert by_name["history"][len(view["history"])]["cards"] == first["cards"]


def refused(client: httpx.Client, game_id: str, body: object, status: int) -> dict:
    """Send a refused move; check the status, that the legal moves are named, and that nothing changed."""
    before = client.get(f"/api/games/{game_id}").json()
    response = client.post(f"/api/games/{game_id}/moves", json=body)
    assert response.status_code == status, response.text
    assert client.get(f"/api/games/{game_id}").json() == before
    return response.json()


def test_illegal_malformed_and_out_of_turn_moves_are_refused_and_change_nothing(client: httpx.Client) -> None:
    game_id, view = new_game(client, seed=11, rules={"allow_sam": False})
    while not view["your_turn"]:
        view = client.post(f"/api/games/{game_id}/next", json={}).json()
    legal = [m["name"] for m in view["legal"]]
    for body in ({}, {"move": "pass"}, {"action": "pair:Z"}, {"action": 999}, {"action": [1]}, {"action": True}, []):
        answer = refused(client, game_id, body, 400)
        assert answer["legal"] == legal and answer["error"]
    illegal = "double_quad:3+4"
    answer = refused(client, game_id, {"action": illegal}, 409)
    assert answer["legal"] == legal and "do not hold" in answer["error"]
    not_json = client.post(
        f"/api/games/{game_id}/moves", content=b"{nope", headers={"content-type": "application/json"}
    )
    assert not_json.status_code == 400 and "not JSON" in not_json.json()["error"]
    next_too_early = client.post(f"/api/games/{game_id}/next", json={})
    assert next_too_early.status_code == 409 and next_too_early.json()["legal"] == legal
    view = finish_hand(client, game_id, view)
    after_the_end = refused(client, game_id, {"action": "pass"}, 409)
    assert "hand is over" in after_the_end["error"] and after_the_end["legal"] == []


def test_a_move_that_does_not_beat_the_table_is_refused_with_the_reason(client: httpx.Client) -> None:
    for seed in range(40):
        game_id, view = new_game(client, seed=seed, rules={"allow_sam": False})
        table = view["table"]
        if view["your_turn"] and table and table["action"].startswith("single:"):
            mine = [c[:-1] for c in view["seats"][view["seat"]]["cards"]]
            beaten = [r for r in mine if f"single:{r}" not in {m["name"] for m in view["legal"]}]
            if beaten:
                answer = refused(client, game_id, {"action": f"single:{beaten[0]}"}, 409)
                assert f"does not beat {table['action']}" in answer["error"]
                return
    pytest.fail("no deal of 40 put a single on the table that the person could not beat")


def test_unknown_ids_and_routes_are_404_and_ids_are_unguessable(client: httpx.Client) -> None:
    ids = {new_game(client, seed=1)[0] for _ in range(5)}
    assert len(ids) == 5 and all(len(i) >= 22 for i in ids)  # secrets.token_urlsafe(18): 144 random bits
    for path in ("/api/games/nope", "/api/games/nope/moves", "/api/nothing"):
        response = client.post(path, json={"action": 0}) if path.endswith("moves") else client.get(path)
        assert response.status_code == 404 and "error" in response.json()


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ({"players": 7}, "n_players"),
        ({"players": 3, "seat": 3}, "seat must be a seat from 0 to 2"),
        ({"opponents": ["random", "random"]}, "needs 3 names"),
        ({"opponents": ["nobody"]}, "unknown bot 'nobody'"),
        ({"players": 3, "opponents": ["ppo_v1"]}, "Bots that fit"),
        ({"rules": {"bao1": "sometimes"}}, "bao1"),
        ({"rules": {"n_players": 3}, "players": 4}, "disagree"),
        ({"colour": "red"}, "unknown field"),
        ({"seed": -1}, "seed"),
        ({"opponents": ["checkpoint:x"]}, "no checkpoint folder"),
    ],
)
def test_a_bad_table_is_refused_with_what_was_expected(live: str, body: dict, says: str) -> None:
    response = httpx.post(f"{live}/api/games", json=body)
    assert response.status_code == 400 and says in response.json()["error"], response.text


def test_a_checkpoint_under_the_folder_plays_and_nothing_outside_it(tmp_path: Path) -> None:
    write_checkpoint(tmp_path / "runs")
    with running(create_app(checkpoints=tmp_path / "runs")) as url, httpx.Client(base_url=url) as client:
        names = {b["name"]: b["players"] for b in client.get("/api/options").json()["bots"]}
        assert names["checkpoint:policy.json"] == [4] and "ppo_search" in names and names["heuristic"] == [2, 3, 4, 5]
        _, view = new_game(client, opponents=["checkpoint:policy.json", "random", "heuristic"])
        assert view["seats"][1]["player"] == "checkpoint:policy.json"
        escape = client.post("/api/games", json={"opponents": ["checkpoint:../runs/policy.json"]})
        assert escape.status_code == 403


def test_the_page_lists_best_first_then_the_bots_grouped_and_networks_by_family() -> None:
    with running(create_app()) as url, httpx.Client(base_url=url) as client:
        bots = client.get("/api/options").json()["bots"]
    assert bots[0] == {"name": "best", "group": "recommended", "players": [2, 3, 4, 5]}
    groups = list(dict.fromkeys(b["group"] for b in bots))
    assert groups == ["recommended", "rule bots", "held-out panel", "networks", "search"]
    networks = {b["name"]: b["players"] for b in bots if b["group"] == "networks"}
    assert networks["dmc_v2"] == [2, 4, 5] and networks["dmc_v1"] == [2, 3, 4, 5] and networks["ppo_v1"] == [4]
    assert not {"ppo", "dmc", "dmc_2p", "ppo_v3_2p"} & {b["name"] for b in bots}, "aliases and members load, unlisted"


def test_idle_games_expire_and_live_games_are_capped() -> None:
    now = [0.0]
    with (
        running(create_app(max_games=2, idle_seconds=60, clock=lambda: now[0])) as url,
        httpx.Client(base_url=url) as c,
    ):
        first, _ = new_game(c, seed=1)
        now[0] = 30
        second, _ = new_game(c, seed=2)
        full = c.post("/api/games", json={})
        assert full.status_code == 503 and "too many live games" in full.json()["error"]
        now[0] = 80  # the first is idle for 80 s, the second for 50 s
        assert c.get(f"/api/games/{first}").status_code == 404
        assert c.get(f"/api/games/{second}").status_code == 200  # and its idle time restarts
        new_game(c, seed=3)
        now[0] = 139
        assert c.get(f"/api/games/{second}").status_code == 200


def test_fifty_games_at_once_from_threads(live: str) -> None:
    def play(seed: int) -> tuple[str, list[int]]:
        with httpx.Client(base_url=live, timeout=120) as client:
            game_id, view = new_game(client, seed=seed, players=2 + seed % 4)
            view = finish_hand(client, game_id, view)
            assert client.get(f"/api/games/{game_id}").json()["result"] == view["result"]
            return game_id, view["result"]["net"]

    with ThreadPoolExecutor(50) as pool:
        outcomes = list(pool.map(play, range(50)))
    assert len({game_id for game_id, _ in outcomes}) == 50
    assert all(sum(net) == 0 and len(net) == 2 + seed % 4 for seed, (_, net) in enumerate(outcomes))


GATED_BOT = """
import time
from pathlib import Path

import numpy as np
import sam_env


class Gated(sam_env.Bot):
    \"\"\"Thinks until the file GATE exists (a minute at most), then plays its lowest legal move.\"\"\"

    def act(self, observation, view):
        deadline = time.monotonic() + 60
        while not Path(GATE).exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        return int(np.flatnonzero(observation["action_mask"])[0])
"""


def test_a_slow_bots_game_does_not_delay_another_games_responses(tmp_path: Path) -> None:
    """While a bot thinks in one game (as ``ppo_search`` does, for seconds on a busy machine), another game's
    requests are answered, and a move sent to the busy game is refused at once (409) instead of waiting behind
    the first. The bot thinks until the test opens its gate, so no timing of the machine decides the test."""
    gate = tmp_path / "gate"
    (tmp_path / "gated.py").write_text(GATED_BOT.replace("GATE", repr(str(gate))), encoding="utf-8")
    gated = f"{tmp_path / 'gated.py'}:Gated"
    rules = {"allow_sam": False}
    with running(create_app(bots=(gated,))) as live, httpx.Client(base_url=live, timeout=120) as client:
        _, probe = new_game(client, seed=5, rules=rules)
        # the person leads (the deal and its leader depend on the seed only), then three gated bots answer
        slow, slow_view = new_game(client, seed=5, seat=probe["leader"], opponents=[gated], rules=rules)
        fast, fast_view = new_game(client, seed=6, rules=rules)
        assert slow_view["your_turn"] and slow_view["history"] == []
        answer: list[httpx.Response] = []

        def lead() -> None:
            with httpx.Client(base_url=live, timeout=120) as own:
                answer.append(own.post(f"/api/games/{slow}/moves", json={"action": slow_view["legal"][-1]["name"]}))

        leading = threading.Thread(target=lead)
        leading.start()
        try:
            deadline = time.monotonic() + 30
            while not client.get(f"/api/games/{slow}").json()["busy"]:
                assert time.monotonic() < deadline, "the gated bot never started thinking"
                time.sleep(0.002)
            for _ in range(5):  # a server that let the bot block its event loop would answer none of these
                second = client.post(f"/api/games/{slow}/moves", json={"action": "double_quad:3+4"})
                assert second.status_code == 409 and "still answering" in second.json()["error"], second.text
                if fast_view["result"] is not None:
                    response = client.post(f"/api/games/{fast}/next", json={})
                else:
                    response = client.post(f"/api/games/{fast}/moves", json={"action": fast_view["legal"][0]["id"]})
                assert response.status_code == 200, response.text
                fast_view = response.json()
            assert leading.is_alive() and not answer, "the slow game answered before its bot was let go"
        finally:
            gate.touch()  # a failing test lets the bots go, so its worker does not hang
        leading.join(timeout=60)
        assert answer and answer[0].status_code == 200, answer[0].text if answer else "no answer"
        assert [m["player"] for m in answer[0].json()["moves"]][:1] == [gated]
