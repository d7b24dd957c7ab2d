"""The single-learner views of the compiled engine: LearnerTables, gymnasium VectorEnv, SB3 VecEnv."""

from __future__ import annotations

import numpy as np
import pytest

from sam_env import IllegalMoveError, RuleConfig, VectorEnv
from sam_env.bot import RandomBot
from sam_env.vector.gym_adapter import GymVectorEnv
from sam_env.vector.learner_tables import LearnerTables
from sam_env.vector.reference_check import random_actions


def test_inactive_tables_do_not_move() -> None:
    venv = VectorEnv(4, RuleConfig(allow_sam=False), seed=0)
    batch = venv.reset()
    before = venv.state()
    seats = batch.current_seat.copy()
    active = np.array([True, False, True, False])
    actions = random_actions(np.random.default_rng(0), batch.action_mask)
    actions[~active] = -5  # ignored
    batch = venv.step(actions, active=active)
    after = venv.state()
    assert np.array_equal(after[~active], before[~active]) and not np.array_equal(after[active], before[active])
    assert np.array_equal(batch.current_seat[~active], seats[~active]) and not batch.rewards[~active].any()
    with pytest.raises(ValueError, match=r"active must be a bool array of shape \(4,\)"):
        venv.step(actions, active=[1, 0, 1, 0])


class CountingPolicy(RandomBot):
    def __init__(self) -> None:
        super().__init__(seed=0)
        self.calls: list[int] = []

    def __call__(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        assert observations.dtype == np.float32 and action_masks.dtype == bool
        assert len(observations) == len(action_masks)
        self.calls.append(len(observations))
        return super().__call__(observations, action_masks)


def test_the_learner_acts_at_every_table_and_its_reward_is_its_own_money() -> None:
    opponent = CountingPolicy()
    tables = LearnerTables(12, RuleConfig(n_players=3), opponent=opponent, seed=1)
    venv, rng = tables.venv, np.random.default_rng(0)
    obs, masks = tables.reset(seed=1)
    learner = tables.learner_seats
    assert learner.tolist() == [t % 3 for t in range(12)]
    total, settled = tables.reset_rewards.astype(float), np.zeros(12)
    for t, hands in tables.last_hands.items():
        settled[t] += sum(h.result.net[learner[t]] for h in hands)
    for _ in range(150):
        assert np.array_equal(venv.batch.current_seat, learner)
        assert np.array_equal(obs, venv.observe(learner)) and np.array_equal(masks, tables.action_masks())
        obs, masks, rewards, terminated = tables.step(random_actions(rng, masks))
        total += rewards
        for t, hands in tables.last_hands.items():
            assert terminated[t]
            settled[t] += sum(h.result.net[learner[t]] for h in hands)
    running = [
        sum(
            (tr.amount if tr.payee == learner[t] else -tr.amount)
            for tr in venv.ledger(t)
            if learner[t] in (tr.payer, tr.payee)
        )
        for t in range(12)
    ]
    assert np.array_equal(total, settled + running)
    assert opponent.calls and max(opponent.calls) <= 12, "the opponent is called once per inner step for all tables"


def test_an_illegal_opponent_move_is_refused_with_its_table() -> None:
    tables = LearnerTables(4, opponent=lambda obs, masks: np.full(len(obs), 200), seed=0)
    with pytest.raises(IllegalMoveError, match=r"table .*: seat .* may not play double_quad:A\+2 now; legal moves: "):
        tables.reset(seed=0)


def test_bad_learner_seats_and_opponents() -> None:
    with pytest.raises(ValueError, match=r"learner_seats must be a seat in 0\.\.3 or one per table \(2\)"):
        LearnerTables(2, learner_seats=[0, 4])
    with pytest.raises(TypeError, match="opponent must be a batched policy"):
        LearnerTables(2, opponent="random")


def test_gymnasium_vector_env() -> None:
    env = GymVectorEnv(8, seed=0)
    obs, info = env.reset(seed=3)
    assert obs.shape == (8, 586) and env.observation_space.contains(obs)
    assert info["action_mask"].shape == (8, 201) and env.single_action_space.n == 201
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(60):
        previous = obs
        obs, rewards, terminated, truncated, info = env.step(random_actions(rng, env.action_masks()))
        assert rewards.dtype == np.float32 and not truncated.any()
        if terminated.any():  # gymnasium's same-step format, as its SyncVectorEnv gives it
            ended += 1
            assert np.array_equal(info["_final_obs"], terminated) and np.array_equal(info["_final_info"], terminated)
            assert info["final_obs"].dtype == object and info["final_obs"].shape == (8,)
            for table in range(8):
                final = info["final_obs"][table]
                assert (final is None) != terminated[table]
                assert final is None or np.array_equal(final, previous[table]), "the learner's last decision"
        else:
            assert "final_obs" not in info and "final_info" not in info
    assert ended > 0


@pytest.mark.train
def test_sb3_vec_env_answers_sb3_contribs_mask_calls() -> None:
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    from sam_env.vector.sb3_adapter import Sb3VecEnv

    env = Sb3VecEnv(6, seed=0)
    obs = env.reset()
    assert obs.shape == (6, 586) and is_masking_supported(env)
    masks = get_action_masks(env)
    assert masks.shape == (6, 201) and masks.dtype == bool
    env.step_async(random_actions(np.random.default_rng(0), masks))
    obs, rewards, dones, infos = env.step_wait()
    assert len(infos) == 6 and rewards.shape == (6,) and dones.dtype == bool


@pytest.mark.train
def test_maskable_ppo_learns_a_few_hundred_steps_on_the_sb3_adapter() -> None:
    import torch
    from sb3_contrib import MaskablePPO

    from sam_env.vector.sb3_adapter import Sb3VecEnv

    torch.set_num_threads(1)
    env = Sb3VecEnv(16, RuleConfig(), seed=0)
    model = MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=64, n_epochs=1, seed=0, device="cpu")
    model.learn(total_timesteps=512)
    assert model.num_timesteps >= 512
    actions, _ = model.predict(env.reset(), action_masks=env.action_masks())
    assert env.action_masks()[np.arange(16), actions].all()


class RecordingOpponent(RandomBot):
    """Random legal play that logs each move under the table it was made at (for a replay)."""

    def __init__(self, moves: list[list[tuple[bool, int]]]) -> None:
        super().__init__(seed=2)
        self.moves = moves
        self.tables: LearnerTables | None = None

    def __call__(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        actions = super().__call__(observations, action_masks)
        assert self.tables is not None
        waiting = np.flatnonzero(self.tables.venv.batch.current_seat != self.tables.learner_seats)
        for t, a in zip(waiting.tolist(), actions.tolist(), strict=True):
            self.moves[t].append((False, a))
        return actions


def test_the_learners_rewards_equal_the_reference_envs_for_the_same_deals_and_moves() -> None:
    """Each learner step's reward is the money ``sam_env.env()`` credits the learner's seat from its
    move until its next decision, replaying every table's deals and moves (chops, Sâm, settlements)."""
    import sam_env

    rules = RuleConfig(n_players=3, instant_wins=frozenset(), chop_per_two=2, chop_per_quad=3)
    n_tables, n_steps = 6, 80
    moves: list[list[tuple[bool, int]]] = [[] for _ in range(n_tables)]
    opponent = RecordingOpponent(moves)
    env = GymVectorEnv(n_tables, rules, opponent=opponent, seed=4)
    opponent.tables = env.tables
    rng = np.random.default_rng(5)
    env.reset(seed=4)
    hands: list[list] = [list(env.tables.last_hands.get(t, [])) for t in range(n_tables)]
    rewards = [[float(r)] for r in env.tables.reset_rewards]  # bucket 0: before the first decision
    for _ in range(n_steps):
        actions = random_actions(rng, env.action_masks())
        for t in range(n_tables):
            moves[t].append((True, int(actions[t])))
        _, step_rewards, _, _, _ = env.step(actions)
        for t in range(n_tables):
            rewards[t].append(float(step_rewards[t]))
            hands[t].extend(env.tables.last_hands.get(t, []))
    venv = env.tables.venv
    for t in range(n_tables):
        learner = f"player_{env.tables.learner_seats[t]}"
        deals = [(h.deal, h.leader) for h in hands[t]] + [(tuple(venv.dealt()[t].tolist()), int(venv.leaders()[t]))]
        ref = sam_env.env(rules=rules)
        replayed, hand_no = [0.0], 0
        ref.reset(seed=0, options={"hands": list(deals[0][0]), "leader": deals[0][1]})
        for by_learner, action in moves[t]:
            if by_learner:
                replayed.append(0.0)
            ref.step(action)
            replayed[-1] += ref.unwrapped.rewards[learner]
            if ref.unwrapped.over:
                hand_no += 1
                ref.reset(seed=0, options={"hands": list(deals[hand_no][0]), "leader": deals[hand_no][1]})
        assert hand_no == len(hands[t]) and hand_no > 0
        assert replayed == rewards[t], f"table {t}"
