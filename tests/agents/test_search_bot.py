"""``ppo_search`` (sam_env.agents.search): sampled deals agree with the seat's view, replays reproduce
its observation, rollout values equal hands played out in the reference engine, and it plays
legally under every rule configuration, at small search budgets. (That the batched engine makes
the per-decision search's moves is tests/agents/test_search_engine.py.)"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import sam_env
from sam_env import RuleConfig
from sam_env.agents.networks.catalogue import best_for, shipped_checkpoint, shipped_network_for
from sam_env.agents.networks.policy.bot import PPOBot
from sam_env.agents.networks.qnet.bot import QBot
from sam_env.agents.registry import load_bot
from sam_env.agents.search import SearchBot
from sam_env.agents.search.deals import resample, sample_deals
from sam_env.agents.search.models import dmc_search_settings, shipped_search
from sam_env.agents.search.reference import PRUNE_LOG_WEIGHT
from sam_env.core import SeatView
from sam_env.core.cards import FULL_DECK
from sam_env.core.rules import CARDS_PER_HAND, INSTANT_WIN_TYPES
from sam_env.evaluation.tournament import play_out
from sam_env.vector.reference_check import random_rules


def _search_bot(
    rules: RuleConfig,
    seed: int = 0,
    determinizations: int = 4,
    candidates: int = 3,
    opponent_models: tuple[object, ...] = (),
    proposals: int = 0,
    mismatch: float = 0.1,
) -> SearchBot:
    checkpoint = shipped_checkpoint(shipped_network_for("ppo", rules))
    return SearchBot(
        checkpoint,
        seed,
        determinizations,
        candidates,
        opponent_models=opponent_models,
        proposals=proposals,
        mismatch=mismatch,
    )


def _decision_points(
    rules: RuleConfig, hands: int, seed: int, players: list | None = None
) -> list[tuple[dict, SeatView]]:
    """(observation, view) at every decision of ``hands`` hands of random legal play (or of ``players``,
    one bot per seat)."""
    env = sam_env.env(rules=rules)
    rng = np.random.default_rng(seed)
    points = []

    def record(seat: int, observation: dict, view: SeatView) -> int:
        points.append(({k: v.copy() for k, v in observation.items()}, view))
        if players is not None:
            return players[seat].act(observation, view)
        return int(rng.choice(np.flatnonzero(observation["action_mask"])))

    for hand in range(hands):
        env.reset(seed=seed * 1000 + hand)
        play_out(env, record)
    return points


@pytest.mark.parametrize("seed", range(6))
def test_sampled_deals_agree_with_everything_the_seat_has_seen(seed: int) -> None:
    rules = random_rules(np.random.default_rng(seed))
    bot = _search_bot(rules, seed=seed, determinizations=5)
    checked = 0
    for _, view in _decision_points(rules, hands=3, seed=seed):
        for deal in sample_deals(view, 5, bot.rng).tolist():
            checked += 1
            assert deal[view.seat] == view.hand | view.played[view.seat]
            assert sum(hand.bit_count() for hand in deal) == rules.n_players * CARDS_PER_HAND
            assert np.bitwise_or.reduce(deal) == sum(deal), "a card dealt twice"
            for s, hand in enumerate(deal):
                assert hand.bit_count() == CARDS_PER_HAND
                assert hand & view.played[s] == view.played[s]
                if s != view.seat:
                    assert (hand ^ view.played[s]) & ~view.unseen & FULL_DECK == 0, "a card the seat can see"
    assert checked > 5, "deals of several decisions were checked"


@pytest.mark.parametrize("seed", range(8))
def test_search_plays_legally_under_random_rules_and_its_replays_match_the_observation(seed: int) -> None:
    """The bot raises if a replayed deal does not give the seat's own observation, so every search
    here also checks the replay against the reference environment's observation."""
    rules = random_rules(np.random.default_rng(100 + seed))
    env = sam_env.env(rules=rules)
    model = shipped_search(rules.n_players)  # inference on fewer proposals than ppo_search's
    proposals = min(model.proposals, 10)
    bots = [
        _search_bot(rules, s, opponent_models=model.opponent_models, proposals=proposals)
        for s in range(rules.n_players)
    ]
    searched = replayed = 0

    def choose(seat: int, observation: dict, view: SeatView) -> int:
        nonlocal searched, replayed
        action = bots[seat].act(observation, view)
        assert observation["action_mask"][action]
        searched += int(observation["action_mask"].sum() > 1)
        replayed += bots[seat].replayed
        return action

    for hand in range(4):
        env.reset(seed=seed * 100 + hand)
        play_out(env, choose)
    assert searched > 0 and replayed > searched, "the observation check ran on replayed deals"


@pytest.mark.parametrize(
    ("opponent_models", "proposals"), [((), 0), (("ppo_v1", "heuristic"), 0), (("heuristic",), 12)]
)
def test_rollout_values_equal_the_hands_played_out_in_the_reference_engine(
    opponent_models: tuple[str, ...], proposals: int
) -> None:
    """A candidate's value is the mean, over the sampled deals, of the money the seat gets from the
    decision to the end of the hand when that deal is replayed and then played by each seat's model
    (the network, or the opponent model drawn for that seat and deal) — recomputed here with
    ``sam_env.env()``, ``PPOBot`` and the Python ``HeuristicBot``. With inference (``proposals``), the
    deals and models are those its posterior drew (their weights are checked on their own below)."""
    rules = RuleConfig(instant_wins=frozenset(INSTANT_WIN_TYPES))  # rollouts' next hands may be instant wins
    network = PPOBot(shipped_checkpoint("ppo"))
    models = [network] + [load_bot(m, seed=0) for m in opponent_models]
    points = [p for p in _decision_points(rules, hands=3, seed=7) if p[0]["action_mask"].sum() > 2][::5]
    assert len(points) >= 3
    env = sam_env.env(rules=rules)
    chose = np.zeros(len(models), dtype=int)  # decisions with a choice each model made in the playouts
    repeats = 0  # (deal, models) pairs drawn more than once: rolled out once, counted as often as drawn
    compared = 0  # candidate values checked

    def play(seat: int, observation: dict, view: SeatView, bots: list) -> int:
        chose[models.index(bots[seat])] += int(observation["action_mask"].sum() > 1)
        return bots[seat].act(observation, view)

    for i, (observation, view) in enumerate(points):
        candidates = np.flatnonzero(observation["action_mask"])[:2]  # fewer than the bot's 3: idle tables
        bot = _search_bot(rules, seed=i, determinizations=3, opponent_models=opponent_models, proposals=proposals)
        twin = _search_bot(rules, seed=i, determinizations=3, opponent_models=opponent_models, proposals=proposals)
        deals, model_of = twin.deals_and_models(view)  # the same draws, in the same order as values() makes them
        deals = deals.tolist()
        repeats += len(deals) - len({(*deal, *row) for deal, row in zip(deals, model_of.tolist(), strict=True)})
        values = bot.values(observation["observation"], view, candidates)
        for value, candidate in zip(values, candidates, strict=True):
            money = []
            for deal, seat_models in zip(deals, model_of, strict=True):
                env.reset(options={"hands": deal, "leader": view.leader})
                raw = env.unwrapped
                if raw.over:  # an instant win: a deal the real hand could not have had
                    continue
                for _, move in view.history:
                    env.step(move)
                env.step(int(candidate))
                by_seat = [models[m] for m in seat_models]
                result = raw.result if raw.over else play_out(env, lambda s, o, v, bots=by_seat: play(s, o, v, bots))
                money.append(result.net[view.seat] - view.net[view.seat])
            assert money and value == pytest.approx(np.mean(money)), (i, candidate)
            compared += 1
    assert compared >= 2 * len(points), compared
    assert (chose > 0).all(), f"every model chose moves in the rollouts checked: {chose.tolist()}"
    assert repeats > 0 if proposals else repeats == 0, repeats


@pytest.mark.parametrize("proposals", [0, 60])
def test_the_seat_itself_is_always_played_by_the_network_in_rollouts(proposals: int) -> None:
    bot = _search_bot(RuleConfig(), determinizations=50, opponent_models=("ppo_v1", "heuristic"), proposals=proposals)
    _, view = next((o, v) for o, v in _decision_points(RuleConfig(), hands=1, seed=5) if len(v.history) > 6)
    deals, models = bot.deals_and_models(view)
    assert len(deals) == 50 and models.shape == (50, 4)
    others = [s for s in range(4) if s != view.seat]
    assert (models[:, view.seat] == 0).all() and set(np.unique(models[:, others])) == {0, 1, 2}


def _reference_loglik(
    rules: RuleConfig, view: SeatView, proposals: list[list[int]], models: list, mismatch: float
) -> tuple[np.ndarray, np.ndarray]:
    """``history_loglik`` recomputed with ``sam_env.env()`` and the Python bots: every past move of
    another seat with a choice, replayed on each proposal, scored for every model; then the pruning
    rule applied move by move. Also which proposals could not have been played."""
    env = sam_env.env(rules=rules)
    raw = env.unwrapped
    moves = list(view.history)
    scores = np.zeros((len(proposals), len(moves), len(models)))  # per proposal, past move and model
    choice = np.zeros((len(proposals), len(moves)), dtype=bool)  # another seat's move with a choice
    dropped_at = np.full(len(proposals), len(moves))  # the move a proposal cannot make (-1: an instant win)
    for p, deal in enumerate(proposals):
        env.reset(options={"hands": list(deal), "leader": view.leader})
        if raw.over:
            dropped_at[p] = -1
            continue
        for j, (seat, move) in enumerate(moves):
            observation = env.last()[0]
            if raw.seat_of(env.agent_selection) != seat or not observation["action_mask"][move]:
                dropped_at[p] = j
                break
            if seat != view.seat and observation["action_mask"].sum() > 1:
                choice[p, j] = True
                seat_view = raw.seat_view(env.agent_selection)
                chosen = [model.act(observation, seat_view) for model in models]
                scores[p, j] = [np.log1p(-mismatch) if c == move else np.log(mismatch) for c in chosen]
            env.step(move)
    loglik = np.zeros((len(proposals), view.rules.n_players, len(models)))
    alive = dropped_at >= 0
    for j, (seat, _) in enumerate(moves):
        alive &= dropped_at > j
        if seat == view.seat:
            continue
        per_seat = np.log(np.exp(loglik).mean(axis=2))
        weight = np.delete(per_seat, view.seat, axis=1).sum(axis=1)
        alive &= weight >= weight[alive].max(initial=-np.inf) - PRUNE_LOG_WEIGHT
        loglik[alive & choice[:, j], seat] += scores[alive & choice[:, j], j]
    loglik[~alive] = -np.inf
    return loglik, dropped_at < len(moves)


def test_history_loglik_equals_the_models_moves_in_the_reference_engine() -> None:
    """Inference weighs each proposed deal by how well each model explains the other seats' past
    moves on it, and drops the deals that could not have been played (instant wins, a forced báo 1)
    or fell too far behind."""
    rules = RuleConfig(instant_wins=frozenset(INSTANT_WIN_TYPES), bao1="forced")
    network, ppo_v1, heuristic = PPOBot(shipped_checkpoint("ppo")), load_bot("ppo_v1"), load_bot("heuristic")
    players = [heuristic, network, heuristic, ppo_v1]
    points = [p for p in _decision_points(rules, hands=3, seed=11, players=players) if len(p[1].history) > 10][::4]
    assert len(points) >= 3
    kept = pruned = dropped = 0
    for i, (_, view) in enumerate(points):
        # fewer proposals than ppo_search's and a smaller mismatch: more pruning, so the test sees it
        bot = _search_bot(rules, seed=i, opponent_models=("ppo_v1", "heuristic"), proposals=40, mismatch=0.05)
        proposals = sample_deals(view, 40, bot.rng)
        expected, unplayable = _reference_loglik(rules, view, proposals.tolist(), [network, ppo_v1, heuristic], 0.05)
        np.testing.assert_allclose(bot.history_loglik(view, proposals), expected)
        gone = np.isinf(expected[:, 0, 0])
        kept, pruned, dropped = kept + (~gone).sum(), pruned + (gone & ~unplayable).sum(), dropped + unplayable.sum()
    assert kept > 0 and pruned > 0 and dropped > 0, (kept, pruned, dropped)


def test_resampling_draws_deals_by_weight_and_models_by_posterior() -> None:
    rng = np.random.default_rng(0)
    picks, models = resample(0, np.zeros((4, 4, 3)), 8, rng)
    assert sorted(picks.tolist()) == [0, 0, 1, 1, 2, 2, 3, 3], "equal weights: each drawn equally often"
    assert (models[:, 0] == 0).all()
    loglik = np.full((4, 4, 3), -60.0)
    loglik[2] = 0.0  # only proposal 2 explains the history ...
    loglik[2, 1] = [-60.0, -60.0, 0.0]  # ... and at seat 1 only the heuristic does
    picks, models = resample(0, loglik, 8, rng)
    assert (picks == 2).all() and (models[:, 1] == 2).all() and (models[:, 0] == 0).all()
    loglik[:] = -np.inf
    picks, models = resample(0, loglik, 8, rng)
    assert picks.tolist() == [0, 1, 2, 3, 0, 1, 2, 3], "no weight left: the uniform search on the proposals"
    assert (models[:, 0] == 0).all() and set(np.unique(models[:, 1:])) == {0, 1, 2}


@pytest.mark.parametrize(
    ("model", "error", "message"),
    [
        ("nobody", ValueError, "expected 'heuristic', a shipped network of 4 seats"),
        ("ppo_3p", ValueError, "'ppo_3p' plays 3 seats; the searched network plays 4"),
        (3, TypeError, "expected 'heuristic'"),
    ],
)
def test_bad_opponent_models_are_refused(model: object, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        _search_bot(RuleConfig(), opponent_models=(model,))


def test_a_bare_string_of_opponent_models_is_refused() -> None:
    with pytest.raises(TypeError, match="expected a sequence of models, got the string 'heuristic'"):
        _search_bot(RuleConfig(), opponent_models="heuristic")


def test_the_opponent_models_are_rebuilt_for_new_rules() -> None:
    """The compiled heuristic's tables depend on the rules: a bot that meets other rules must not
    roll out with a heuristic built for the old ones."""
    bot = _search_bot(RuleConfig(), opponent_models=("heuristic",))
    for rules in (RuleConfig(), RuleConfig(straights_with_two=False)):
        observation, view = next(
            (o, v) for o, v in _decision_points(rules, hands=2, seed=4) if o["action_mask"].sum() > 1
        )
        bot.act(observation, view)
        assert bot.search.policies(rules)[1].rules == rules and bot.search._rollouts.rules == rules


def test_with_one_candidate_it_plays_the_networks_move() -> None:
    rules = RuleConfig()
    bot = _search_bot(rules, candidates=1)
    network = PPOBot(shipped_checkpoint("ppo"))
    points = _decision_points(rules, hands=2, seed=3)
    assert sum(o["action_mask"].sum() > 1 for o, _ in points) > 5, "decisions with a choice were checked"
    for observation, view in points:
        assert bot.act(observation, view) == network.act(observation, view)


def test_a_view_that_disagrees_with_the_observation_is_refused() -> None:
    rules = RuleConfig()
    observation, view = next(
        (o, v) for o, v in _decision_points(rules, hands=2, seed=1) if v.history and o["action_mask"].sum() > 1
    )
    lowest = view.hand & -view.hand
    highest_unseen = 1 << (view.unseen.bit_length() - 1)
    assert (lowest.bit_length() - 1) >> 2 != (highest_unseen.bit_length() - 1) >> 2, "the swap must change a rank"
    hand = view.hand ^ lowest | highest_unseen  # a hand the observation does not show
    with pytest.raises(RuntimeError, match=r"does not give seat [0-9]+.s observation \(block .hand. differs\)"):
        _search_bot(rules).act(observation, dataclasses.replace(view, hand=hand))


@pytest.mark.parametrize("n_players", [2, 3, 4, 5])
def test_ppo_search_loads_for_every_table_size(n_players: int) -> None:
    rules = RuleConfig(n_players=n_players)
    bot = load_bot("ppo_search", seed=1, rules=rules)
    assert isinstance(bot, SearchBot) and bot.n_players == n_players and bot.name == "ppo_search"
    assert bot.opponent_models == (("ppo_v1", "heuristic") if n_players == 4 else ())
    assert bot.proposals == (512 if n_players == 4 else 0)
    assert load_bot("ppo_search").n_players == 4 and load_bot("ppo_search").opponent_models == ("ppo_v1", "heuristic")


def test_a_search_over_a_shipped_q_network_is_built_by_name() -> None:
    """``SearchBot.over_shipped`` takes any shipped network's name, ``dmc`` (a Q-network) as well as ``ppo``."""
    bot = SearchBot.over_shipped("dmc", seed=1, label="dmc_search")
    assert isinstance(bot.network, QBot) and bot.network.checkpoint is shipped_checkpoint("dmc")
    assert bot.n_players == 4 and bot.name == "dmc_search"
    assert bot.opponent_models == ("ppo_v1", "heuristic") and bot.proposals == 512


@pytest.mark.parametrize("n_players", [2, 3, 4, 5])
def test_dmc_search_searches_over_the_recommended_q_network_of_every_table_size(n_players: int) -> None:
    rules = RuleConfig(n_players=n_players)
    bot = load_bot("dmc_search", seed=1, rules=rules)
    assert isinstance(bot, SearchBot) and bot.name == "dmc_search" and bot.n_players == n_players
    assert bot.network.checkpoint is shipped_checkpoint(best_for(n_players).name)
    assert isinstance(bot.network, QBot)
    settings = dmc_search_settings(n_players)
    assert bot.opponent_models == settings.opponent_models and bot.proposals == settings.proposals
    observation, view = next((o, v) for o, v in _decision_points(rules, hands=1, seed=3) if o["action_mask"].sum() > 1)
    assert observation["action_mask"][bot.act(observation, view)]
    assert load_bot("dmc_search").n_players == 4


def test_bad_candidates_are_refused() -> None:
    observation, view = next(
        (o, v) for o, v in _decision_points(RuleConfig(), hands=1, seed=2) if o["action_mask"].sum() > 1
    )
    bot, legal = _search_bot(RuleConfig()), list(view.legal)
    illegal = next(a for a in range(len(observation["action_mask"])) if not observation["action_mask"][a])
    cases = (([], "1 to 3 action indices"), (legal[:1] * 4, "1 to 3 action indices"), ([illegal], "not legal"))
    for bad, message in cases:
        with pytest.raises(ValueError, match=message):
            bot.values(observation["observation"], view, bad)


def test_bad_budgets_and_tables_are_refused() -> None:
    checkpoint = shipped_checkpoint("ppo")
    for field in ("determinizations", "candidates"):
        for bad in (0, -1, 2.5, True):
            with pytest.raises(ValueError, match=f"{field} must be an int >= 1"):
                SearchBot(checkpoint, **{field: bad})
    for kwargs, message in (
        ({"proposals": -1}, "proposals must be an int >= 0"),
        ({"proposals": 1.5}, "proposals must be an int >= 0"),
        ({"mismatch": 0.0}, "mismatch must be a probability strictly between 0 and 1"),
        ({"mismatch": 1.0}, "mismatch must be a probability"),
        ({"mismatch": "0.1"}, "mismatch must be a probability"),
    ):
        with pytest.raises(ValueError, match=message):
            SearchBot(checkpoint, **kwargs)
    observation, view = _decision_points(RuleConfig(n_players=3), hands=1, seed=0)[0]
    with pytest.raises(ValueError, match="3-player table, but the network plays 4 players"):
        SearchBot(checkpoint).act(observation, view)
