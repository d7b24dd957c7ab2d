"""The single-agent (gymnasium) view: ecosystem checkers, the learner's money, opponents, MaskablePPO."""

from __future__ import annotations

import pickle
import warnings
from collections import defaultdict

import gymnasium
import numpy as np
import pytest
from env_helpers import ALL_INSTANT_WINS, CHOP_CHAIN_DEAL, FOUR_TWOS_DEAL, random_legal
from gymnasium.utils.env_checker import check_env as gymnasium_check_env

from sam_env import IllegalMoveError, RuleConfig, SeatView, SingleAgentEnv, action_index
from sam_env.core import COMBOS, NO_PLAY
from sam_env.core.cards import RANK_NAMES, SUIT_NAMES
from sam_env.core.combos import IS_QUAD, Kind

DECLINE, PASS = action_index("decline_sam"), action_index("pass")


class ChopFirst:
    """A scripted opponent: never declares Sâm, chops (or plays any quad) when it can, else passes
    when allowed, else plays its lowest legal combination."""

    def __init__(self) -> None:
        self.seats: list[int] = []

    def act(self, observation: dict[str, np.ndarray], view: SeatView) -> int:
        self.seats.append(view.seat)
        legal = np.flatnonzero(observation["action_mask"]).tolist()
        assert legal == list(view.legal)
        if DECLINE in legal:
            return DECLINE
        quads = [a for a in legal if IS_QUAD[a] or COMBOS[a].kind is Kind.DOUBLE_QUAD]
        if quads:
            return quads[0]
        return PASS if PASS in legal else legal[0]


class LeadsTheTwo(ChopFirst):
    """Like :class:`ChopFirst`, but leads its single 2 first."""

    def act(self, observation: dict[str, np.ndarray], view: SeatView) -> int:
        two = action_index("single:2")
        if observation["action_mask"][two] and view.table_combo == NO_PLAY:
            self.seats.append(view.seat)
            return two
        return super().act(observation, view)


def play_episode(env: SingleAgentEnv, rng: np.random.Generator, first: list[int] | None = None) -> tuple[float, dict]:
    """Play the learner's hand to the end (scripted ``first`` actions, then random legal ones)."""
    script = list(first or [])
    total, terminated, info = 0.0, False, {}
    while not terminated:
        action = script.pop(0) if script else random_legal(rng, env.action_masks())
        _, reward, terminated, truncated, info = env.step(action)
        assert not truncated
        total += reward
    return total, info


# ----------------------------------------------------------------- ecosystem checkers


def test_gymnasium_check_env_on_the_registered_id() -> None:
    # gymnasium's determinism check steps both copies with one action sampled from the action
    # space *before* reset, when no mask matches the new hand yet: it is usually illegal. The id is
    # registered with on_illegal="penalty", which ends the hand with a penalty, the same for both
    # copies, so the check can compare them.
    env = gymnasium.make("sam_env/Sam-v1")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gymnasium_check_env(env.unwrapped)
    assert [str(w.message) for w in caught] == [], "the checker warns of nothing, from any file"


def test_direct_construction_raises_on_the_checkers_unmasked_step() -> None:
    """Why the id is registered with the penalty: built directly, the view raises (remove if gymnasium changes)."""
    with pytest.raises(IllegalMoveError):
        gymnasium_check_env(SingleAgentEnv())
    assert gymnasium.make("sam_env/Sam-v1", on_illegal="raise").unwrapped.on_illegal == "raise"


@pytest.mark.train
def test_sb3_check_env_on_the_default() -> None:
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # SB3 reports problems as warnings
        sb3_check_env(SingleAgentEnv(), warn=True)


def test_gymnasium_make() -> None:
    env = gymnasium.make("sam_env/Sam-v1", rules=RuleConfig(n_players=3), learner_seat=2)
    obs, info = env.reset(seed=3)
    assert env.observation_space.contains(obs)
    assert info["seat"] == 2
    masks = env.get_wrapper_attr("action_masks")
    terminated = False
    while not terminated:
        assert masks().any()
        obs, _, terminated, _, info = env.step(env.action_space.sample())
    assert not masks().any()
    assert info["reason"] == env.unwrapped.result.reason.value
    env.close()


def test_unmasked_sample_is_legal_and_pickles_as_a_plain_space() -> None:
    env = SingleAgentEnv()
    env.reset(seed=0)
    env.action_space.seed(0)
    for _ in range(50):
        assert env.action_masks()[env.action_space.sample()]
    copy = pickle.loads(pickle.dumps(env.action_space))
    assert copy.n == env.action_space.n
    assert copy._legal_mask is None


# ----------------------------------------------------------------- the learner's money


def test_learner_pays_the_chop_during_the_opponents_turns() -> None:
    opponents = ChopFirst()
    env = SingleAgentEnv(opponents=opponents, learner_seat=0)
    env.reset(seed=0, options={"hands": CHOP_CHAIN_DEAL, "leader": 0})
    _, reward, *_ = env.step(DECLINE)  # the opponents decline too
    assert reward == 0.0
    # seat 1 chops the learner's 2 with quad 5, seats 2 and 3 chop over it (docs/rules.md §4)
    _, reward, terminated, _, _ = env.step(action_index("single:2"))
    assert (reward, terminated) == (-4.0, False)
    assert opponents.seats[-3:] == [1, 2, 3]
    total, info = play_episode(env, np.random.default_rng(0))
    total += reward
    assert total == info["net"] == env.result.net[0]


def test_learner_chops_and_is_chopped_over_in_one_step() -> None:
    env = SingleAgentEnv(opponents=[LeadsTheTwo(), ChopFirst(), ChopFirst()], learner_seat=1)
    env.reset(seed=0, options={"hands": CHOP_CHAIN_DEAL, "leader": 0})
    env.step(DECLINE)  # seat 0 declined before, and leads its 2 after seats 2 and 3 decline
    assert env.action_masks()[action_index("quad:5")]
    # +4 from seat 0 at the learner's chop, -8 to seat 2 when it chops over before the learner acts again
    _, reward, *_ = env.step(action_index("quad:5"))
    assert reward == -4.0
    total, info = play_episode(env, np.random.default_rng(1))
    assert total + reward == info["net"] == env.result.net[1]


def deal_with_quads(rng: np.random.Generator, n: int, learner: int) -> list[list[str]]:
    """A random deal in which every opponent holds a quad and the learner two 2s: chops happen."""
    quads = rng.choice(len(RANK_NAMES) - 1, size=n - 1, replace=False).tolist()  # never quad 2s
    hands = [[] for _ in range(n)]
    others = [s for s in range(n) if s != learner]
    for seat, rank in zip(others, quads, strict=True):
        hands[seat] = [RANK_NAMES[rank] + suit for suit in SUIT_NAMES]
    twos = ["2" + suit for suit in rng.permutation(SUIT_NAMES)]
    hands[learner], hands[others[0]] = twos[:2], hands[others[0]] + twos[2:]  # nobody holds four 2s
    used = {c for h in hands for c in h}
    rest = [r + s for r in RANK_NAMES for s in SUIT_NAMES if r + s not in used]
    rng.shuffle(rest)
    for hand in hands:
        while len(hand) < 10:
            hand.append(rest.pop())
    return hands


@pytest.mark.parametrize("n_players", [2, 3, 4, 5])
def test_episode_return_is_the_ledger_net(n_players: int) -> None:
    rules = RuleConfig(n_players=n_players)
    env = SingleAgentEnv(opponents=ChopFirst(), rules=rules, reward_scale=0.5, learner_seat=None)
    rng = np.random.default_rng(n_players)
    env.reset(seed=n_players)
    chops = 0
    for k in range(30):
        if k % 2:  # random deals, and deals where chops are likely
            env.reset(options={"hands": deal_with_quads(rng, n_players, env.seat), "learner_seat": env.seat})
        total, info = play_episode(env, rng)
        result = env.result.to_dict()
        assert total == pytest.approx(0.5 * info["net"]) and info["net"] == result["net"][info["seat"]]
        chops += sum(t["reason"] == "chop" and info["seat"] in (t["payer"], t["payee"]) for t in result["ledger"])
        env.reset()
    assert chops > 0, "the learner chopped or was chopped in some hands"


def test_skipped_hands_report_their_money() -> None:
    """A hand that ends before the learner acts (here an instant win) is skipped, its money reported."""
    # random opponents declare Sâm half the time and are often blocked before the learner acts;
    # every instant-win type makes deals that end at once more common
    rules = RuleConfig(n_players=5, instant_wins=ALL_INSTANT_WINS)
    env = SingleAgentEnv(learner_seat=0, rules=rules)
    results = []
    reset_table = env.aec.reset

    def spy(*args, **kwargs) -> None:  # every hand the table deals, skipped or played
        if env.aec.hand is not None:
            results.append(env.aec.hand.result)
        reset_table(*args, **kwargs)

    env.aec.reset = spy
    _, info = env.reset(seed=0)
    money = info["skipped_reward"]
    skipped = info["skipped_hands"]
    rng = np.random.default_rng(0)
    for _ in range(80):
        total, _ = play_episode(env, rng)
        _, info = env.reset()
        money += total + info["skipped_reward"]
        skipped += info["skipped_hands"]
    results.append(env.aec.hand.result)  # None: the hand in progress
    played = [r for r in results if r is not None]
    assert len(played) == 80 + skipped
    instant = [r for r in played if r.reason.value == "instant_win"]
    assert instant and skipped > len(instant), "instant wins and blocked Sâm before the learner's turn"
    assert money == sum(r.net[0] for r in played)


def test_explicit_deal_without_a_learner_decision_raises() -> None:
    env = SingleAgentEnv(learner_seat=0)
    with pytest.raises(ValueError, match="ends \\(instant_win\\) before seat 0 acts"):
        env.reset(options={"hands": FOUR_TWOS_DEAL})


# ----------------------------------------------------------------- seats and opponents


def test_learner_seat_none_draws_seats() -> None:
    env = SingleAgentEnv(learner_seat=None)
    env.reset(seed=0)
    seats = [env.reset()[1]["seat"] for _ in range(40)]
    assert set(seats) == {0, 1, 2, 3}
    again = SingleAgentEnv(learner_seat=None)
    again.reset(seed=0)
    assert [again.reset()[1]["seat"] for _ in range(40)] == seats


def test_a_learner_dealt_an_instant_win_has_one_move_that_collects_it() -> None:
    env = SingleAgentEnv(learner_seat=2, reward_scale=0.5)
    _, info = env.reset(seed=0, options={"hands": FOUR_TWOS_DEAL})
    assert np.flatnonzero(env.action_masks()).tolist() == [DECLINE] == np.flatnonzero(info["action_mask"]).tolist()
    _, reward, terminated, truncated, info = env.step(DECLINE)
    assert (reward, terminated, truncated) == (30.0, True, False)
    assert {k: info[k] for k in ("net", "winner", "reason", "illegal_actions")} == {
        "net": 60,
        "winner": 2,
        "reason": "instant_win",
        "illegal_actions": 0,
    }
    assert "result" not in info and env.result.instant_win == "four_twos"


@pytest.mark.parametrize("result_info", [False, True])
def test_final_infos_hold_scalars_unless_the_result_is_asked_for(result_info: bool) -> None:
    env = SingleAgentEnv(learner_seat=0, result_info=result_info)
    env.reset(seed=2)
    _, info = play_episode(env, np.random.default_rng(2))
    scalars = {"seat", "action_mask", "net", "winner", "reason", "illegal_actions"}
    assert set(info) == (scalars | {"result"} if result_info else scalars)
    assert all(np.isscalar(info[k]) for k in scalars - {"action_mask"})
    if result_info:
        assert info["result"] == env.result.to_dict()
    penalised = SingleAgentEnv(learner_seat=0, on_illegal="penalty")
    penalised.reset(seed=2)
    _, _, _, _, info = penalised.step(PASS if not penalised.action_masks()[PASS] else 200)
    assert scalars <= set(info) and info["reason"] == "illegal_action" and info["winner"] == -1


def test_learner_seat_option_per_reset() -> None:
    env = SingleAgentEnv(learner_seat=0)
    assert env.reset(seed=0, options={"learner_seat": 3})[1]["seat"] == 3
    assert env.reset()[1]["seat"] == 0


def test_opponents_one_policy_a_list_or_callables() -> None:
    calls: dict[str, list[int]] = defaultdict(list)

    def plain(name: str):
        def policy(observation, view: SeatView) -> int:
            calls[name].append(view.seat)
            return ChopFirst().act(observation, view)

        return policy

    one = ChopFirst()
    env = SingleAgentEnv(opponents=one, learner_seat=2)
    env.reset(seed=1)
    play_episode(env, np.random.default_rng(0))
    assert set(one.seats) == {0, 1, 3}

    listed = ChopFirst()
    env = SingleAgentEnv(opponents=[plain("a"), listed, plain("c")], learner_seat=1)
    for seed in range(3):
        env.reset(seed=seed)
        play_episode(env, np.random.default_rng(seed))
    # in seat order, skipping the learner: seat 0, seat 2, seat 3
    assert set(calls["a"]) == {0} and set(listed.seats) == {2} and set(calls["c"]) == {3}

    env = SingleAgentEnv(opponents=plain("all"), learner_seat=0, rules=RuleConfig(n_players=3))
    env.reset(seed=0)
    play_episode(env, np.random.default_rng(0))
    assert set(calls["all"]) == {1, 2}


@pytest.mark.parametrize("count", [0, 2, 4])
def test_opponent_list_of_the_wrong_length(count: int) -> None:
    with pytest.raises(ValueError, match=f"4 seats need 3 opponents \\(or one for all\\), got {count}"):
        SingleAgentEnv(opponents=[ChopFirst()] * count)


def test_opponent_that_is_not_a_policy() -> None:
    with pytest.raises(TypeError, match="opponent 1 must have act"):
        SingleAgentEnv(opponents=[ChopFirst(), "random", ChopFirst()])


@pytest.mark.parametrize(
    ("kwargs", "says"),
    [
        ({"learner_seat": 4}, "learner_seat must be None or a seat in 0..3"),
        ({"learner_seat": True}, "learner_seat"),
        ({"on_illegal": "ignore"}, "on_illegal='ignore' is not allowed"),
        ({"illegal_penalty": -1}, "illegal_penalty"),
        ({"illegal_penalty": float("nan")}, "illegal_penalty=nan must be a finite non-negative number"),
        ({"illegal_penalty": float("inf")}, "illegal_penalty=inf must be a finite"),
    ],
)
def test_bad_arguments(kwargs: dict, says: str) -> None:
    with pytest.raises(ValueError, match=says.replace("(", "\\(").replace(".", "\\.")):
        SingleAgentEnv(**kwargs)


# ----------------------------------------------------------------- illegal actions


def test_illegal_action_raises_by_default() -> None:
    env = SingleAgentEnv(learner_seat=0)
    env.reset(seed=0, options={"hands": CHOP_CHAIN_DEAL, "leader": 0})
    with pytest.raises(IllegalMoveError, match="legal moves: declare_sam, decline_sam"):
        env.step(PASS)
    env.step(DECLINE)  # still usable


def test_illegal_action_penalty() -> None:
    env = SingleAgentEnv(on_illegal="penalty", illegal_penalty=7, reward_scale=0.5, learner_seat=0)
    env.reset(seed=0, options={"hands": CHOP_CHAIN_DEAL, "leader": 0})
    _, reward, terminated, _, info = env.step(PASS)
    assert (reward, terminated, info["illegal_action"], info["illegal_actions"]) == (-3.5, True, "0", 1)
    assert env.illegal_actions == 1
    assert not env.action_masks().any()
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(DECLINE)
    env.reset()
    env.step(DECLINE)
    _, info = play_episode(env, np.random.default_rng(0))
    assert (info["illegal_actions"], env.illegal_actions) == (0, 1)  # the hand's count; the total


@pytest.mark.parametrize("action", [True, 1.0, "decline_sam", None])
def test_penalty_answers_a_non_action_too(action: object) -> None:
    """Under the penalty a value that is no action id is penalised like an illegal one, not raised,
    even where it would index a legal move (True is 1, declare_sam, legal here)."""
    env = SingleAgentEnv(on_illegal="penalty", learner_seat=0)
    env.reset(seed=0, options={"hands": CHOP_CHAIN_DEAL, "leader": 0})
    assert env.action_masks()[1]
    _, reward, terminated, _, info = env.step(action)
    assert (reward, terminated, info["illegal_action"]) == (-10.0, True, repr(action))


# ----------------------------------------------------------------- MaskablePPO


@pytest.mark.train
def test_maskable_ppo_smoke_and_masked_evaluation() -> None:
    import torch
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.evaluation import evaluate_policy
    from stable_baselines3.common.monitor import Monitor

    torch.set_num_threads(1)
    env = SingleAgentEnv(reward_scale=0.1)
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, n_epochs=1, seed=0, device="cpu")
    model.learn(128)
    assert model.num_timesteps >= 128

    nets: list[float] = []

    def record(local_vars: dict, _globals: dict) -> None:
        if local_vars["done"]:
            info = local_vars["info"]
            nets.append(0.1 * info["net"])

    evaluation_env = Monitor(SingleAgentEnv(reward_scale=0.1))
    returns, lengths = evaluate_policy(
        model, evaluation_env, n_eval_episodes=4, return_episode_rewards=True, callback=record, use_masking=True
    )
    assert len(returns) == len(lengths) == 4
    assert returns == pytest.approx(nets)


@pytest.mark.parametrize("seat", [4, -1, True, "1", 1.0])
def test_a_bad_learner_seat_is_refused_by_the_constructor_and_by_reset(seat: object) -> None:
    """A seat outside the table, or not an int, used to crash deep in reset or (True) pass as seat 1."""
    with pytest.raises(ValueError, match=r"learner_seat must be None or a seat in 0\.\.3"):
        SingleAgentEnv(learner_seat=seat)
    env = SingleAgentEnv()
    with pytest.raises(ValueError, match=r"learner_seat must be None or a seat in 0\.\.3"):
        env.reset(seed=0, options={"learner_seat": seat})
    env.reset(seed=0, options={"learner_seat": np.int64(2)})
    assert env.seat == 2
