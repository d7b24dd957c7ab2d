"""No card of another seat leaves the server before the hand ends, over 1,000 random hands.

Every response of random tables (2–5 seats, random rules, random and greedy bots, the person in a
random seat making random moves, illegal ones and other refusals among them, half of the tables
coached: a value on every legal move, the network's choice, the review) is searched for card
strings, and so is the 500 of a bot that fails saying its hand. Before the
hand ends each must be the person's own dealt card or a card already played at that point, judged
against the hand's truth revealed at its end: the final view's deal and history.

The requests go to the ASGI app in process, through :func:`call`: a plain ASGI request, with
no socket and no HTTP client. The app, its routing, its worker threads and its JSON responses are
the ones a browser gets; a client library's own per-request work (httpx's ASGI transport costs ten
times the app's) would make a thousand hands take minutes. The live-server tests
(``test_api.py``) cover the HTTP layer.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest
from starlette.applications import Starlette

from sam_env.apps.web.server import create_app
from sam_env.apps.web.views import cards_json
from sam_env.core import N_COMBOS, SeatView
from sam_env.core.rules import BAO1_CHOICES, FINISH_ON_TWO_CHOICES, FIRST_LEADER_CHOICES, INSTANT_WIN_TYPES

HANDS = 1000
HANDS_PER_TABLE = 10
CARD = re.compile(r"(?<![0-9A-Za-z_-])(?:10|[2-9JQKA])[SCDH](?![0-9A-Za-z_-])")
"""A card in the engine's notation, not inside a longer word or a game id (URL-safe base64: ``A-Za-z0-9_-``)."""


def card_strings(text: str) -> set[str]:
    """Every card notation anywhere in a response's text (values, keys, inside messages)."""
    return set(CARD.findall(text))


class Reply:
    """A response of :func:`call`: its status and text, and the text as JSON."""

    def __init__(self, status: int, text: str) -> None:
        self.status_code, self.text = status, text

    def json(self) -> Any:
        return json.loads(self.text)


async def call(app: Starlette, method: str, path: str, body: object = None) -> Reply:
    """One request to the ASGI app (see the module docstring)."""
    data = b"" if body is None else json.dumps(body).encode()
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method, "scheme": "http",
        "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "",
        "headers": [(b"content-type", b"application/json"), (b"host", b"127.0.0.1")],
        "client": ("127.0.0.1", 50000), "server": ("sam-web", 80),
    }  # fmt: skip
    messages = [{"type": "http.request", "body": data, "more_body": False}]
    status, chunks = 0, []

    async def receive() -> dict[str, Any]:
        return messages.pop() if messages else {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))

    await app(scope, receive, send)
    return Reply(status, b"".join(chunks).decode())


def random_table(rng: random.Random) -> dict[str, Any]:
    players = rng.randint(2, 5)
    rules = {
        "bao1": rng.choice(BAO1_CHOICES),
        "finish_on_two": rng.choice(FINISH_ON_TWO_CHOICES),
        "first_leader": rng.choice(FIRST_LEADER_CHOICES),
        "allow_sam": rng.random() < 0.5,
        "straights_with_two": rng.random() < 0.5,
        "instant_wins": [w for w in INSTANT_WIN_TYPES if rng.random() < 0.2],
    }
    opponents = [rng.choice(["random", "greedy"]) for _ in range(players - 1)]
    return {
        "players": players,
        "rules": rules,
        "seat": rng.randrange(players),
        "opponents": opponents,
        "seed": rng.randrange(2**31),
        "coach": rng.random() < 0.5,
    }


def check_hand(responses: list[tuple[str, int]], final: dict[str, Any]) -> None:
    """Each response before the end shows only the person's cards and cards played by then."""
    me = final["seat"]
    mine = set(final["seats"][me]["dealt"])
    dealt = [set(s["dealt"]) for s in final["seats"]]
    assert sum(map(len, dealt)) == len(set().union(*dealt)) == 10 * final["players"]
    history = final["history"]
    for body, shown in responses:
        played = {c for move in history[:shown] for c in move["cards"]}
        leaked = card_strings(body) - mine - played
        assert not leaked, f"cards of other seats in a response before the hand ended: {sorted(leaked)}\n{body}"


REFUSED = [
    ("/api/games/{game_id}/next", None),  # the hand is not over
    ("/api/games/{game_id}/moves", {"action": "pair:Z"}),  # no such move
    ("/api/games/{game_id}/moves", {"action": True}),  # not an action
    ("/api/games/{game_id}/moves", {"action": 1, "seat": 2}),  # an unknown field
]
"""Requests refused during a hand, besides an illegal move: (path, body)."""


async def play_hand(app: Starlette, rng: random.Random, game_id: str, text: str, view: dict) -> None:
    """Play the hand dealt (``text``: the response that dealt it, ``view`` its view) to its end by random
    moves, with refused ones among them; check every response."""
    responses = []  # (response text, moves made by then)
    while view["result"] is None:
        responses.append((text, len(view["history"])))
        if rng.random() < 0.1:  # an illegal action id: refused, and its message shows nothing hidden
            legal = {m["id"] for m in view["legal"]}
            bad = rng.choice([a for a in range(N_COMBOS) if a not in legal])
            refused = await call(app, "POST", f"/api/games/{game_id}/moves", {"action": bad})
            assert refused.status_code == 409
            responses.append((refused.text, len(view["history"])))
        if rng.random() < 0.05:  # the other refusals, which name the legal moves: the person's own
            for path, body in REFUSED:
                refused = await call(app, "POST", path.format(game_id=game_id), body)
                assert refused.status_code in (400, 409), refused.text
                responses.append((refused.text, len(view["history"])))
        if "coach" in view and len(view["legal"]) > 1 and rng.random() < 0.03:  # think longer: a search's values
            thought = await call(app, "POST", f"/api/games/{game_id}/think")
            assert thought.status_code == 200, thought.text
            responses.append((thought.text, len(view["history"])))
        if rng.random() < 0.05:
            again = await call(app, "GET", f"/api/games/{game_id}")
            assert again.json()["history"] == view["history"]
            responses.append((again.text, len(view["history"])))
        before = view["history"]
        response = await call(app, "POST", f"/api/games/{game_id}/moves", {"action": rng.choice(view["legal"])["name"]})
        assert response.status_code == 200, response.text
        text, view = response.text, response.json()
        assert view["history"][: len(before)] == before
    if "coach" in view:  # a coached hand ends with its review: every decision with a choice, valued
        assert "review" in view and all(d["regret"] >= 0 for d in view["review"]["decisions"])
    check_hand(responses, view)


@pytest.mark.anyio
async def test_no_card_of_another_seat_in_any_response_before_the_hand_ends() -> None:
    rng = random.Random(2024)
    app = create_app(max_games=HANDS // HANDS_PER_TABLE, games_per_client=HANDS // HANDS_PER_TABLE)
    coached = 0
    for _ in range(HANDS // HANDS_PER_TABLE):
        table = random_table(rng)
        created = await call(app, "POST", "/api/games", table)
        assert created.status_code == 201, created.text
        coached += table["coach"]
        assert ("coach" in created.json()["view"]) == table["coach"]
        game_id, view, text = created.json()["game_id"], created.json()["view"], created.text
        for hand in range(HANDS_PER_TABLE):
            if hand:
                dealt = await call(app, "POST", f"/api/games/{game_id}/next")
                text, view = dealt.text, dealt.json()
            await play_hand(app, rng, game_id, text, view)
    assert 30 <= coached <= 70, f"{coached} coached tables of {HANDS // HANDS_PER_TABLE}"


@pytest.mark.anyio
async def test_a_bot_that_fails_with_its_cards_in_the_message_shows_none_of_them() -> None:
    """A fault inside a move (a bot that raises, saying its hand) answers 500 without the bot's words."""
    app = create_app()
    created = await call(app, "POST", "/api/games", {"players": 4, "seat": 0, "opponents": "random", "seed": 3,
                                                     "rules": {"allow_sam": False}})  # fmt: skip
    game_id, view = created.json()["game_id"], created.json()["view"]
    game = app.state.games.get(game_id)
    hidden = {c for s in range(1, 4) for c in cards_json(game.env.seat_view(game.env.agent_of_seat(s)).hand)}

    class Telling:
        def act(self, observation: object, seat_view: SeatView) -> int:
            raise RuntimeError(f"a bot failed holding {' '.join(cards_json(seat_view.hand))}")

    game.bots = [None, Telling(), Telling(), Telling()]
    assert view["your_turn"]  # the bots before the person's seat have answered
    failed = await call(app, "POST", f"/api/games/{game_id}/moves", {"action": view["legal"][-1]["name"]})
    assert failed.status_code == 500 and "nothing was changed" in failed.text
    assert not card_strings(failed.text) & hidden, failed.text
