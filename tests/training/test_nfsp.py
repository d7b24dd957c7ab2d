"""The NFSP trainer (``trainer: nfsp``): the reservoir's uniform sample, the transitions and targets of a hand worked
out by hand, the modes drawn per hand, a smoke run of ``train.py`` whose average policy ``load_bot`` plays, a seed
that fixes a run, and bad configs."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch
from train_script import smoke_fixture

import sam_env
from sam_env import N_ACTIONS, RuleConfig
from sam_env.agents.networks.policy.bot import PPOBot
from sam_env.agents.networks.policy.checkpoint import load_policy
from sam_env.agents.networks.qnet.bot import QBot
from sam_env.agents.registry import load_bot
from sam_env.evaluation.tournament import play_out
from sam_env.training import run_script
from sam_env.training.config import ConfigError
from sam_env.training.nfsp.buffers import ReplayBuffer, ReservoirBuffer, Transitions
from sam_env.training.nfsp.config import NFSPConfig
from sam_env.training.nfsp.selfplay import BEST_RESPONSE, sample_masked
from sam_env.training.nfsp.targets import double_q_targets, value_targets
from sam_env.training.nfsp.trainer import ALGORITHM, NFSPTrainer
from sam_env.training.nfsp.transitions import NO_DECISION, OpenDecisions
from sam_env.training.trainers import TRAINERS, config_from_dict, load_config

SMOKE = ("--config", "tests/training/configs/nfsp_smoke.yaml")
CHI2_29_DOF_999 = 58.30
"""The 0.999 quantile of the chi-square distribution with 29 degrees of freedom: a uniform sample's statistic over 30
bins exceeds it once in a thousand."""


def _inclusion_counts(keep: str, capacity: int = 600, offered: int = 6000, repeats: int = 200) -> np.ndarray:
    """How often each of ``offered`` entries (offered in batches of random sizes) is in a buffer of ``capacity`` at
    the end, over ``repeats`` fills: the reservoir (``keep="reservoir"``) or the newest (``keep="newest"``)."""
    rng = np.random.default_rng(2016)
    counts = np.zeros(offered, dtype=np.int64)
    for _ in range(repeats):
        buffer = ReservoirBuffer(capacity, 1) if keep == "reservoir" else ReplayBuffer(capacity, 1)
        start = 0
        while start < offered:
            k = min(int(rng.integers(1, 300)), offered - start)
            items = np.arange(start, start + k)
            if keep == "reservoir":
                buffer.add(np.zeros((k, 1)), np.zeros((k, N_ACTIONS), bool), items, rng)
            else:
                buffer.add(_transitions(items))
            start += k
        assert len(buffer) == capacity
        counts[buffer.action] += 1
    return counts


def _transitions(actions: np.ndarray) -> Transitions:
    k = len(actions)
    zeros = np.zeros((k, 1), np.float32)
    return Transitions(
        zeros, actions, np.zeros(k, np.float32), zeros, np.zeros((k, N_ACTIONS), bool), *[np.zeros(k, bool)] * 2
    )


def _chi_square(counts: np.ndarray, bins: int = 30) -> float:
    observed = counts.reshape(bins, -1).sum(axis=1)
    expected = counts.sum() / bins
    return float(((observed - expected) ** 2 / expected).sum())


def test_the_reservoir_keeps_a_uniform_sample_of_everything_offered() -> None:
    """Every entry of a stream is kept with the same chance, capacity / offered, however the stream is batched: the
    counts of 30 bins of consecutive entries pass a chi-square test at 0.1 %, where keeping the newest (the
    circular buffer) fails it by far, so the test can fail."""
    counts = _inclusion_counts("reservoir")
    assert counts.sum() == 200 * 600
    assert _chi_square(counts) < CHI2_29_DOF_999
    assert abs(counts[:3000].mean() - counts[3000:].mean()) < 2.0  # 20 expected per entry: no drift to either end
    assert _chi_square(_inclusion_counts("newest", repeats=5)) > 100 * CHI2_29_DOF_999


def test_a_batch_offered_at_once_is_kept_as_offered_one_by_one() -> None:
    """Algorithm R entry by entry: a later entry of a batch drawn to the slot of an earlier one replaces it."""
    one_by_one, at_once = ReservoirBuffer(50, 2), ReservoirBuffer(50, 2)
    first, second = np.random.default_rng(5), np.random.default_rng(5)
    obs = np.arange(1000, dtype=np.float32).repeat(2).reshape(1000, 2)
    masks = np.ones((1000, N_ACTIONS), bool)
    actions = np.arange(1000)
    for i in range(1000):
        one_by_one.add(obs[i : i + 1], masks[i : i + 1], actions[i : i + 1], first)
    at_once.add(obs, masks, actions, second)
    assert one_by_one.offered == at_once.offered == 1000 and len(at_once) == 50
    np.testing.assert_array_equal(one_by_one.action, at_once.action)
    np.testing.assert_array_equal(at_once.obs[:, 0], at_once.action)  # each entry's observation beside its move
    small = ReservoirBuffer(50, 2)
    small.add(obs[:20], masks[:20], actions[:20], first)
    np.testing.assert_array_equal(small.action[:20], np.arange(20))  # below capacity everything is kept, in order
    assert len(small) == 20


def _money(**seats: float) -> np.ndarray:
    """Money of one step at two tables of two seats: keys like ``t0s1``."""
    out = np.zeros((2, 2), dtype=np.float32)
    for key, amount in seats.items():
        out[int(key[1]), int(key[3])] = amount
    return out


def test_transitions_and_targets_of_a_hand_worked_out_by_hand() -> None:
    """Table 0, two seats. Seat 1 is paid 2 X before its first decision (no decision of its own: left out). Seat 0
    decides (d0, average policy); seat 1 decides (d1, best response) and chops seat 0 for 4 X; seat 0 decides (d2);
    seat 1's forced move is no decision; seat 0 decides (d3) and goes out: it wins 10 X from seat 1. Seat 0's
    transitions: d0 -> d2 with -4, d2 -> d3 with 0, d3 -> end with +10; seat 1's: d1 -> end with +4 - 10 = -6."""
    decisions = OpenDecisions(num_tables=2, n_players=2, obs_size=3)
    legal = np.zeros((1, N_ACTIONS), bool)

    def decide(table: int, seat: int, action: int, mode: int):
        obs = np.full((1, 3), 10 * action, np.float32)
        mask = legal.copy()
        mask[0, action] = True
        return decisions.decide(np.array([table]), np.array([seat]), obs, mask, np.array([action]), np.array([mode]))

    decisions.credit(_money(t0s1=2))
    assert len(decide(0, 0, action=1, mode=0).action) == 0  # d0: nothing closes
    decisions.credit(_money())
    assert len(decide(0, 1, action=2, mode=1).action) == 0  # d1
    decisions.credit(_money(t0s0=-4, t0s1=4))
    [d0] = zip(*decide(0, 0, action=3, mode=0), strict=True)  # d2 closes d0
    decisions.credit(_money())
    decisions.credit(_money())  # seat 1's forced move
    [d2] = zip(*decide(0, 0, action=4, mode=0), strict=True)  # d3 closes d2
    decisions.credit(_money(t0s0=10, t0s1=-10))
    end = decisions.close(np.array([0]))
    obs, action, reward, next_obs, next_mask, done, average = d0
    assert (action, reward, done, average) == (1, -4.0, False, True)
    np.testing.assert_array_equal(obs, [10, 10, 10])
    np.testing.assert_array_equal(next_obs, [30, 30, 30])
    assert np.flatnonzero(next_mask).tolist() == [3]
    assert (d2[1], d2[2], d2[5]) == (3, 0.0, False)
    np.testing.assert_array_equal(end.action, [4, 2])  # seat 0's d3, seat 1's d1
    np.testing.assert_array_equal(end.reward, [10, -6])
    np.testing.assert_array_equal(end.done, [True, True])
    np.testing.assert_array_equal(end.average, [True, False])
    assert not end.next_mask.any() and not end.next_obs.any()
    assert (decisions.mode == NO_DECISION).all()

    # The Q-network's targets of those transitions. Online values of the next decision pick its move among the legal
    # ones (action 3, not the illegal 0 it values most); the target network values it.
    reward = torch.tensor([-4.0, 10.0, -6.0])
    done = torch.tensor([False, True, True])
    next_online = torch.zeros(3, N_ACTIONS)
    next_online[0, 0], next_online[0, 3], next_online[0, 5] = 9.0, 2.0, 1.0
    next_target = torch.full((3, N_ACTIONS), 100.0)
    next_target[0, 3], next_target[0, 5], next_target[0, 0] = 7.0, -1.0, 50.0
    next_mask = torch.zeros(3, N_ACTIONS, dtype=torch.bool)
    next_mask[0, 3] = next_mask[0, 5] = True
    targets = double_q_targets(reward, done, next_online, next_target, next_mask, gamma=1.0)
    torch.testing.assert_close(targets, torch.tensor([-4.0 + 7.0, 10.0, -6.0]))
    halved = double_q_targets(reward, done, next_online, next_target, next_mask, gamma=0.5)
    torch.testing.assert_close(halved, torch.tensor([-4.0 + 3.5, 10.0, -6.0]))
    critic = value_targets(reward, done, torch.tensor([1.5, 99.0, 99.0]), gamma=1.0)
    torch.testing.assert_close(critic, torch.tensor([-2.5, 10.0, -6.0]))


def test_the_average_policys_moves_are_drawn_from_its_legal_softmax() -> None:
    logits = torch.tensor([[0.0, np.log(3.0), 50.0, 0.0]]).repeat(4000, 1)
    masks = np.zeros((4000, 4), bool)
    masks[:, [0, 1, 3]] = True  # the 50 is illegal: probabilities 1/5, 3/5, 0, 1/5
    uniform = np.random.default_rng(0).random(4000)
    drawn = sample_masked(logits, masks, uniform)
    share = np.bincount(drawn, minlength=4) / 4000
    assert share[2] == 0 and np.allclose(share, [0.2, 0.6, 0.0, 0.2], atol=0.03)
    assert sample_masked(logits[:1], masks[:1], np.array([0.0]))[0] == 0  # u = 0 never picks an illegal first move


def _small(**fields: object) -> NFSPConfig:
    base = {
        "num_tables": 32,
        "n_steps": 8,
        "pi_layers": (32,),
        "vf_layers": (16,),
        "q_layers": (32,),
        "rl_batch_size": 64,
        "sl_batch_size": 32,
        "rl_buffer_size": 2000,
        "reservoir_size": 500,
        "learning_starts": 64,
        "target_update_every": 5,
        "anticipatory_param": 0.3,
        "total_timesteps": 3000,
        "eval_every": 0,
        "checkpoint_every": 0,
        "progress_bar": False,
        "seed": 3,
    }
    return NFSPConfig(**{**base, **fields})


def test_each_seat_plays_one_mode_a_hand_best_response_with_chance_eta() -> None:
    """Modes are drawn per hand and seat (best response with chance η), kept until the table's hand ends, and only the
    best response's decisions reach the reservoir."""
    trainer = NFSPTrainer(_small(num_tables=64))
    selfplay = trainer.selfplay
    many = np.arange(100_000) % 64
    draws = []
    for start in range(0, many.size, 64):
        selfplay.draw_modes(many[start : start + 64])
        draws.append(selfplay.mode.copy())
    share = np.mean(draws)
    assert abs(share - 0.3) < 4 * np.sqrt(0.3 * 0.7 / (len(draws) * 64 * 4))  # 4 standard deviations
    selfplay.draw_modes(np.arange(64))
    decisions = best = 0
    for _ in range(200):
        before = selfplay.mode.copy()
        stats = selfplay.collect(1, epsilon=0.1)
        ended = selfplay.batch.terminated
        assert (selfplay.mode[~ended] == before[~ended]).all(), "a seat's mode changed during its hand"
        decisions += stats.decisions
        best += stats.best_response_decisions
    assert selfplay.reservoir.offered == best and len(selfplay.transitions) > 0
    assert 0.15 < best / decisions < 0.45  # decisions of a seat's hand share its mode: a loose bound around η
    assert set(np.unique(selfplay.mode)) <= {0, BEST_RESPONSE}


def test_a_seed_fixes_a_run() -> None:
    """Two runs of one config train the same weights, to the last bit; another seed trains others."""
    weights = []
    for seed in (3, 3, 4):
        trainer = NFSPTrainer(_small(seed=seed))
        trainer.learn()
        assert trainer.rl_updates > 10 and trainer.sl_updates > 10
        weights.append({**trainer.snapshot().tensors, **trainer.best_response_snapshot().tensors})
    assert all(np.array_equal(v, weights[1][k]) for k, v in weights[0].items())
    assert not all(np.array_equal(v, weights[2][k]) for k, v in weights[0].items())


smoke = smoke_fixture(*SMOKE)


def legal(action: int, observation: dict[str, np.ndarray]) -> int:
    assert observation["action_mask"][action], f"illegal action {action}"
    return action


def test_smoke_run_saves_an_average_policy_that_load_bot_plays(smoke: tuple[Path, str]) -> None:
    run, stdout = smoke
    assert run.name.startswith("nfsp_smoke__s7__") and "NFSP" in stdout and "random x3" in stdout
    state = json.loads((run / "final" / "trainer.json").read_text())
    assert state["trainer"] == "nfsp" and state["num_timesteps"] >= 3000
    assert state["rl_updates"] > 0 and state["sl_updates"] > 0 and [row["step"] for row in state["history"]] == [0]
    assert 0 < state["best_response_decisions"] < state["decisions"]
    speed = json.loads((run / "speed.json").read_text())
    assert speed["trainer"] == "nfsp" and speed["decisions_per_second"] > 0
    folders = [*sorted((run / "checkpoints").iterdir()), run / "final"]
    assert len(folders) == 2
    rules = RuleConfig()
    for folder in folders:
        policy = load_policy(folder / "policy.json")
        assert policy.metadata["policy"]["algorithm"] == ALGORITHM and policy.arch.pi == (32,)
        assert np.abs(policy.tensors["value_net.weight"]).sum() > 0, "the critic is trained, not left at zero"
        bot = load_bot(str(folder), seed=0, rules=rules)
        assert isinstance(bot, PPOBot)
        assert isinstance(load_bot(str(folder / "best_response.json"), seed=0, rules=rules), QBot)
        env = sam_env.env(rules=rules)
        for hand in range(3):
            env.reset(seed=hand)
            play_out(env, lambda seat, observation, view, bot=bot: legal(bot.act(observation, view), observation))


def test_a_run_is_not_resumed(smoke: tuple[Path, str], capsys: pytest.CaptureFixture[str]) -> None:
    assert not TRAINERS["nfsp"].resumes
    assert run_script.main(["--resume", str(smoke[0] / "final")]) == 2
    assert "trainer: nfsp runs cannot be resumed" in capsys.readouterr().err
    from sam_env.training.nfsp import train

    with pytest.raises(ConfigError, match="cannot be resumed"):
        train(_small(), smoke[0], resume=smoke[0] / "final")


@pytest.mark.parametrize(
    ("fields", "says"),
    [
        ({"anticipatory_param": 0}, r"anticipatory_param = 0 is not allowed; expected a number in \(0, 1\]"),
        ({"anticipatory_param": 1.5}, "anticipatory_param = 1.5"),
        ({"eps_start": 2}, r"eps_start = 2 is not allowed; expected a number in \[0, 1\]"),
        ({"rl_learning_rate": 0}, "rl_learning_rate = 0"),
        ({"sl_replay_ratio": -1}, "sl_replay_ratio = -1"),
        ({"rl_buffer_size": 100}, r"rl_buffer_size = 100 is not allowed; expected an int >= rl_batch_size \(512\)"),
        ({"reservoir_size": 10, "sl_batch_size": 20}, r"reservoir_size = 10 .* sl_batch_size \(20\)"),
        ({"q_layers": []}, "q_layers = "),
        ({"target_update_every": 0}, "target_update_every = 0"),
        ({"num_tables": True}, "num_tables = True"),
    ],
)
def test_bad_configs_are_refused_naming_the_field(fields: dict, says: str) -> None:
    with pytest.raises(ConfigError, match=says):
        NFSPConfig(**fields)


def test_the_recipe_loads_and_a_field_of_another_trainer_is_refused() -> None:
    config = load_config("nfsp")
    assert isinstance(config, NFSPConfig) and config.anticipatory_param == 0.1 and config.policy_label == "nfsp[nfsp]"
    with pytest.raises(ConfigError, match=r"another trainer with trainer: nfsp: epsilon \(dmc\)"):
        config_from_dict({"trainer": "nfsp", "epsilon": 0.1})
    assert config.epsilon(0) == 0.06 and config.epsilon(10**9) == 0.0
    assert config.epsilon(config.eps_decay_steps // 2) == pytest.approx(0.03)
