"""The coach (``"coach": true``): each legal move's value in X is the recommended Q-network's, computed from the
person's own observation and nothing else; two tables that differ only in cards the person cannot see get the
same values; the review after the hand adds up; a game without the coach shows none of it; bad requests are
refused with what was expected."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import httpx
import numpy as np
import pytest

import sam_env
from sam_env import RuleConfig, load_bot
from sam_env.agents.heuristic.bot import HeuristicBot
from sam_env.agents.networks.catalogue import BEST, entries, entry, resolve
from sam_env.agents.networks.qnet.bot import QBot
from sam_env.apps.web import coach as coach_module
from sam_env.apps.web.cli import running
from sam_env.apps.web.coach import coach_for, coach_network
from sam_env.apps.web.errors import BadRequest
from sam_env.apps.web.games import HUMAN, Game
from sam_env.apps.web.server import create_app
from sam_env.bot import Bot
from sam_env.core import SeatView
from sam_env.core.cards import FULL_DECK, cards_of, format_card
from sam_env.core.deal import random_deal

PLAIN_VIEW = {
    "hand_number", "players", "rules", "seat", "phase", "to_act", "your_turn", "leader", "sam_declarer", "table",
    "chain_value", "responsible", "seats", "legal", "history", "moves", "ledger", "result",
}  # fmt: skip
"""The keys of a view without coach or recording: what every existing client reads, unchanged."""


def value_in_x(bot: QBot, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """What the network computes for a seat's observation, in X (its training multiplied money by reward_scale)."""
    scale = bot.checkpoint.metadata["training"]["reward_scale"]
    return bot.legal_values(observation[None, :], np.asarray(mask, dtype=bool)[None, :])[0] / scale


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_best_is_a_q_network_at_every_size_and_the_coach_uses_it(players: int) -> None:
    assert resolve(BEST, players).kind == "qnet"
    assert coach_network(players) == (resolve(BEST, players).name, None)
    assert coach_for(players).network == resolve(BEST, players).name


def test_were_best_a_policy_network_the_coach_would_take_a_q_network_and_say_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(coach_module, "resolve", lambda name, n: entry("ppo_v3"))
    network, note = coach_network(4)
    assert network == "dmc_v2" and note == "best at 4 seats is ppo_v3, a policy network: the coach uses dmc_v2"
    monkeypatch.setattr(coach_module, "entries", lambda: [e for e in entries() if e.kind == "policy"])
    with pytest.raises(BadRequest, match="no Q-network is shipped for 4-player tables"):
        coach_network(4)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_each_legal_move_carries_the_networks_value_from_the_persons_observation(players: int) -> None:
    app = create_app()
    bot = load_bot(BEST, rules=RuleConfig(n_players=players))
    assert isinstance(bot, QBot)
    rng = random.Random(players)
    checked = 0
    with running(app) as url, httpx.Client(base_url=url, timeout=60) as client:
        body = {"players": players, "seat": players - 1, "opponents": "heuristic", "seed": 40 + players, "coach": True}
        created = client.post("/api/games", json=body)
        assert created.status_code == 201, created.text
        game_id, view = created.json()["game_id"], created.json()["view"]
        assert view["coach"]["network"] == resolve(BEST, players).name and view["coach"]["note"] is None
        for _ in range(3):  # hands
            while view["result"] is None:
                game = app.state.games.get(game_id)
                observed = game.env.observe(game.env.agent_of_seat(view["seat"]))  # what the environment gives the seat
                expected = value_in_x(bot, observed["observation"], observed["action_mask"])
                assert [m["id"] for m in view["legal"]] == list(np.flatnonzero(observed["action_mask"]))
                for move in view["legal"]:
                    assert move["value"] == pytest.approx(expected[move["id"]], abs=1e-3)
                best = max(view["legal"], key=lambda m: m["value"])
                assert view["coach"]["choice"] == best["name"]
                checked += 1
                view = client.post(f"/api/games/{game_id}/moves", json={"action": rng.choice(view["legal"])["id"]})
                view = view.json()
            assert view["legal"] == [] and view["coach"]["choice"] is None
            view = client.post(f"/api/games/{game_id}/next", json={}).json()
    assert checked >= 5


def test_a_game_without_the_coach_shows_nothing_of_it(live: str) -> None:
    created = httpx.post(f"{live}/api/games", json={"opponents": "random", "seed": 2}).json()
    assert set(created) == {"game_id", "view"}
    view = created["view"]
    assert set(view) == PLAIN_VIEW and all(set(m) == {"id", "name", "cards"} for m in view["legal"])
    while view["result"] is None:
        view = httpx.post(f"{live}/api/games/{created['game_id']}/moves", json={"action": view["legal"][0]["id"]})
        view = view.json()
    assert set(view) == PLAIN_VIEW


class Script(Bot):
    """Plays the moves it is given, in order: the same public moves at two tables."""

    name = "script"

    def __init__(self, moves: list[int]) -> None:
        super().__init__()
        self.moves = iter(moves)

    def act(self, observation: Mapping[str, np.ndarray], view: SeatView) -> int:
        return next(self.moves)


RULES = RuleConfig(n_players=3, bao1="penalty")
PERSON = 0


def play_through(hands: list[int], choose: Any) -> tuple[list[tuple[int, int]], list[np.ndarray], list[int]]:
    """Play a deal (PERSON leads) with the environment, ``choose(seat, observation, view)`` deciding; the moves
    ``(seat, action)``, the person's observations, and each seat's played cards after every move (flattened)."""
    env = sam_env.raw_env(rules=RULES)
    env.reset(options={"hands": [[format_card(c) for c in cards_of(h)] for h in hands], "leader": PERSON})
    moves, observed, played = [], [], []
    while not env.over:
        seat = env.seat_to_act
        agent = env.agent_of_seat(seat)
        observation = env.observe(agent)
        if seat == PERSON:
            observed.append(observation["observation"].copy())
        action = choose(seat, observation, env.seat_view(agent))
        if action not in env.legal_moves():
            raise ValueError("not legal at this table")
        env.step(action)
        moves.append((seat, action))
        played += list(env.hand.played)
    return moves, observed, played


def replaying(moves: list[tuple[int, int]]) -> Any:
    """A chooser that plays ``moves`` again, in order, whoever is to act."""
    script = iter(moves)
    return lambda seat, observation, view: next(script)[1]


def person_at_random(pick: random.Random) -> Any:
    """A chooser: the person picks a legal move at random, the other seats are the heuristic."""
    heuristic = HeuristicBot()

    def choose(seat: int, observation: dict, view: SeatView) -> int:
        legal = list(np.flatnonzero(observation["action_mask"]))
        return int(pick.choice(legal)) if seat == PERSON else heuristic.act(observation, view)

    return choose


def hidden_twin(hands: list[int], moves: list[tuple[int, int]], played: list[int], rng: np.random.Generator) -> list:
    """Another deal with the person's hand and every card the others play, the others' unplayed cards redealt
    from everything the person never sees, such that the same moves play the same cards; None if this draw fails."""
    env = sam_env.raw_env(rules=RULES)
    env.reset(options={"hands": [[format_card(c) for c in cards_of(h)] for h in hands], "leader": PERSON})
    for _, action in moves:
        env.step(action)
    kept = list(env.hand.played)  # every card a seat plays in the hand, public by the time it is played
    never_seen = FULL_DECK & ~hands[PERSON]
    for cards in kept:
        never_seen &= ~cards
    order = rng.permutation(cards_of(never_seen))
    twin, at = [hands[PERSON]], 0
    for s in range(1, RULES.n_players):
        need = 10 - bin(kept[s]).count("1")
        twin.append(kept[s] | sum(1 << int(c) for c in order[at : at + need]))
        at += need
    if twin == hands:
        return None
    try:
        _, _, again = play_through(twin, replaying(moves))
    except (ValueError, StopIteration):
        return None
    return twin if again == played else None


def coached_values(hands: list[int], moves: list[tuple[int, int]]) -> tuple[list[dict], dict, list[dict]]:
    """The coach's values at each of the person's decisions of the deal, through the web game, its review, and
    what *think longer* found at the person's first two decisions with a choice (its deals seeded alike)."""
    by_seat = {s: [a for t, a in moves if t == s] for s in range(RULES.n_players)}
    bots: list[Bot | None] = [None, Script(by_seat[1]), Script(by_seat[2])]
    game = Game(RULES, PERSON, [HUMAN, "script", "script"], bots, coach=coach_for(RULES.n_players))
    game.search_seed = 3
    deal = {"hands": [[format_card(c) for c in cards_of(h)] for h in hands], "leader": PERSON}
    view = game.start(None, deal)
    seen, thought = [], []
    for action in by_seat[PERSON]:
        seen.append({m["name"]: m["value"] for m in view["legal"]})
        if len(view["legal"]) > 1 and len(thought) < 2:
            thought.append(game.think())
        view = game.play(action)
    assert view["result"] is not None
    return seen, view["review"], thought


def test_cards_the_person_cannot_see_do_not_move_a_value() -> None:
    """Two deals that agree on the person's hand and on every public move but differ in the other seats' hidden
    cards (redealt from everything the person never sees) give the same observation and the same coach values,
    decision after decision, the same review, and (its sampled deals seeded alike) the same *think longer*."""
    rng = np.random.default_rng(7)
    twins = 0
    for _ in range(40):
        hands = random_deal(RULES, rng)
        try:
            moves, observed, played = play_through(hands, person_at_random(random.Random(int(rng.integers(1 << 30)))))
        except ValueError:
            continue
        twin = next((t for t in (hidden_twin(hands, moves, played, rng) for _ in range(30)) if t is not None), None)
        if twin is None or sum(1 for s, _ in moves if s == PERSON) < 3:
            continue
        assert twin[PERSON] == hands[PERSON] and twin[1:] != hands[1:]
        _, observed_twin, _ = play_through(twin, replaying(moves))
        assert all(np.array_equal(a, b) for a, b in zip(observed, observed_twin, strict=True))
        values, review, thought = coached_values(hands, moves)
        values_twin, review_twin, thought_twin = coached_values(twin, moves)
        assert values == values_twin and review == review_twin
        assert thought == thought_twin and thought and all(t["deals"] > 0 for t in thought)
        twins += 1
        if twins == 3:
            return
    pytest.fail(f"only {twins} pairs of deals differing in hidden cards alone were found")


@pytest.mark.parametrize("players", [2, 4])
def test_the_review_lists_every_decision_with_a_choice_and_adds_up(live: str, players: int) -> None:
    rng = random.Random(players)
    body = {"players": players, "opponents": "heuristic", "seed": 11, "coach": True, "rules": {"allow_sam": True}}
    created = httpx.post(f"{live}/api/games", json=body).json()
    game_id, view = created["game_id"], created["view"]
    for _ in range(4):
        shown: list[tuple[int, dict[str, float]]] = []  # (history index of the person's move, values then)
        played: list[str] = []
        while view["result"] is None:
            assert "review" not in view  # only once the hand is over
            shown.append((len(view["history"]), {m["name"]: m["value"] for m in view["legal"]}))
            played.append(rng.choice(view["legal"])["name"])
            view = httpx.post(f"{live}/api/games/{game_id}/moves", json={"action": played[-1]}).json()
        review = view["review"]
        with_choice = [(at, values, move) for (at, values), move in zip(shown, played, strict=True) if len(values) > 1]
        assert review["forced"] == len(shown) - len(with_choice)
        assert len(review["decisions"]) == len(with_choice)
        for decision, (at, values, move) in zip(review["decisions"], with_choice, strict=True):
            assert decision["move"] == at and view["history"][at]["action"] == move
            assert decision["played"]["action"] == move and decision["played"]["value"] == values[move]
            assert decision["best"]["value"] == max(values.values())
            assert values[decision["best"]["action"]] == decision["best"]["value"]
            assert decision["played"]["cards"] == view["history"][at]["cards"]
            regret = decision["regret"]
            assert regret >= 0 and regret == pytest.approx(decision["best"]["value"] - decision["played"]["value"])
        assert review["total_regret"] == pytest.approx(sum(d["regret"] for d in review["decisions"]))
        view = httpx.post(f"{live}/api/games/{game_id}/next", json={}).json()


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ({"coach": "yes"}, "coach = 'yes' is not allowed; expected true (each legal move's value and a review)"),
        ({"coach": 1}, "coach = 1 is not allowed"),
        ({"coach": None}, "coach = None is not allowed"),
        ({"coach": True, "colour": "red"}, "unknown field 'colour'"),
    ],
)
def test_a_bad_coach_field_is_refused_with_what_was_expected(live: str, body: dict, says: str) -> None:
    response = httpx.post(f"{live}/api/games", json={"opponents": "random", **body})
    assert response.status_code == 400 and says in response.json()["error"], response.text


def test_think_longer_values_the_networks_preferred_moves_by_search(live: str) -> None:
    body = {"opponents": "heuristic", "seed": 9, "coach": True, "rules": {"allow_sam": False}}
    created = httpx.post(f"{live}/api/games", json=body).json()
    game_id, view = created["game_id"], created["view"]
    thought = 0
    while view["result"] is None and thought < 3:
        if len(view["legal"]) > 1:
            found = httpx.post(f"{live}/api/games/{game_id}/think", json={}, timeout=120)
            assert found.status_code == 200, found.text
            found = found.json()
            preferred = sorted(view["legal"], key=lambda m: (-m["value"], m["id"]))[:8]
            assert [m["id"] for m in found["values"]] == [m["id"] for m in preferred]
            assert found["network"] == "dmc_v2" and 0 < found["deals"] <= found["sampled"] == 64
            assert all(np.isfinite(m["value"]) for m in found["values"])
            assert httpx.get(f"{live}/api/games/{game_id}").json() == {**view, "busy": False}  # nothing changed
            thought += 1
        view = httpx.post(f"{live}/api/games/{game_id}/moves", json={"action": view["legal"][0]["id"]}).json()
    assert thought
    while view["result"] is None:
        view = httpx.post(f"{live}/api/games/{game_id}/moves", json={"action": view["legal"][0]["id"]}).json()
    over = httpx.post(f"{live}/api/games/{game_id}/think", json={})
    assert over.status_code == 409 and "not your turn" in over.json()["error"]
    plain = httpx.post(f"{live}/api/games", json={"opponents": "random"}).json()["game_id"]
    refused = httpx.post(f"{live}/api/games/{plain}/think", json={})
    assert refused.status_code == 409 and '"coach": true' in refused.json()["error"]
    stray = httpx.post(f"{live}/api/games/{game_id}/think", json={"deals": 1000})
    assert stray.status_code == 400 and "unknown field 'deals'" in stray.json()["error"]
