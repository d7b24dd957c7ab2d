"""The rollout-advantage trainer: a label on a hand-made deal is the money worked out by hand, common random
numbers make two labels of one move equal, the update learns from differences only, and ``train.py`` runs it
end to end: a smoke run whose checkpoints play legal moves through ``sam_env.load_bot``, and a run resumed
twice whose lineage names both parents and whose curves go on where each chunk stopped."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch
from tensorboard.backend.event_processing.event_file_loader import EventFileLoader
from train_script import run_train, smoke_fixture

import sam_env
from sam_env import N_ACTIONS, RuleConfig
from sam_env.agents.networks.policy.bot import PPOBot
from sam_env.agents.networks.policy.checkpoint import PolicyArch, PolicyCheckpoint, load_policy, policy_metadata
from sam_env.agents.search.network import CompiledNetwork
from sam_env.core.cards import mask_of
from sam_env.core.combos import combo_index
from sam_env.evaluation.tournament import play_out
from sam_env.training.common.seating import HEURISTIC, LEARNER, RANDOM
from sam_env.training.config import ConfigError
from sam_env.training.lineage import fingerprints
from sam_env.training.rollout_advantage.config import RolloutAdvantageConfig
from sam_env.training.rollout_advantage.labels import RolloutLabeller, common_uniforms
from sam_env.training.rollout_advantage.players import SeatPlayers
from sam_env.training.rollout_advantage.update import centred, move_estimates
from sam_env.training.trainers import load_config
from sam_env.vector.playouts import Playouts

SMOKE = ("--config", "tests/training/configs/rollout_smoke.yaml")
# tests/scenarios/chops.yaml, chop_single_two_with_quad: seat 0 leads its 2S, seat 1 chops it with quad 5
# (seat 0 pays 4X at once), everyone passes, seat 1 goes out with 8-K: net [-13, +33, -10, -10].
CHOP_DEAL = [
    ["2S", "3S", "4S", "6S", "7S", "9S", "10S", "JS", "QS", "8H"],
    ["5S", "5C", "5D", "5H", "8C", "9C", "10C", "JC", "QC", "KC"],
    ["3C", "4C", "6C", "7C", "AC", "2C", "3D", "4D", "6D", "7D"],
    ["3H", "4H", "6H", "7H", "AH", "2H", "8D", "9D", "10D", "KS"],
]
TINY = PolicyArch(pi=(8,), vf=(8,), activation="tanh")


def scripted(rules: RuleConfig, preferences: dict[str, float]) -> CompiledNetwork:
    """A network that ignores the table and prefers moves by ``preferences`` (logit biases; every other move 0):
    a gap of 40 leaves the others about 4e-18 of the probability, so it plays as a script."""
    meta = policy_metadata(rules, TINY)
    shapes = TINY.tensor_shapes(meta["observation_shape"][0], N_ACTIONS)
    tensors = {name: np.zeros(shape, dtype=np.float32) for name, shape in shapes.items()}
    for move, bias in preferences.items():
        tensors["action_net.bias"][combo_index(move)] = bias
    return CompiledNetwork(PolicyCheckpoint.in_memory(tensors, meta, f"scripted {preferences}"))


def test_a_label_on_a_hand_made_deal_is_the_money_worked_out_by_hand() -> None:
    """CHOP_DEAL after four declines of Sâm; seat 0 (the learner) leads. Scripts: seat 0 prefers single:2, then
    single:3; seat 1 prefers quad:5, then straight:8-K, then pass; seats 2 and 3 pass whenever they may.

    * single:2 — seat 1 chops with quad 5 (seat 0 pays 4), seats 2, 3 and 0 pass, seat 1 goes out with 8-K:
      seat 0 keeps 9 cards and no 2, so it pays 9 + 4 = 13 (the scenario's net). Label −13.
    * single:3 — seat 1 passes (a quad answers nothing but a 2), so do seats 2 and 3; seat 0 leads again
      and plays its 2; seat 1 chops it (4X) and goes out with 8-K. Seat 0 keeps 8 cards: 8 + 4 = 12.
      Seats 2 and 3 never played (cóng, 10 each). Label −12: the 3 first is worth 1 X more.
    """
    rules = RuleConfig()
    origin = Playouts(1, rules)
    origin.deal(np.array([0]), np.array([[mask_of(h) for h in CHOP_DEAL]]), np.array([0]))
    for _ in range(4):
        origin.step(np.array([combo_index("decline_sam")]), np.array([True]))
    assert origin.current_seat[0] == 0 and origin.n_legal[0] > 2
    origin.observe(np.array([0]))
    seat_one, passers = 0, 1  # the pool's occupant ids
    pool = {
        seat_one: scripted(rules, {"quad:5": 40, "straight:8-K": 30, "pass": 20}),
        passers: scripted(rules, {"pass": 40}),
    }
    learner = scripted(rules, {"single:2": 40, "single:3": 30})
    labeller = RolloutLabeller(rules, 8, SeatPlayers(rules, learner, pool))
    occupants = np.array([[LEARNER, seat_one, passers, passers]])
    uniforms = common_uniforms(np.random.default_rng(0), 1, 4)
    candidates = [np.array([combo_index("single:2"), combo_index("single:3")])]
    [labels] = labeller.label(origin, np.array([0]), candidates, occupants, uniforms)
    np.testing.assert_array_equal(labels, [-13.0, -12.0])
    assert labeller.play.over()[:2].all()
    assert [t.reason for t in labeller.play.ledger(1)] == ["chop", "cards", "cong", "cong"]


def random_decisions(rules: RuleConfig, tables: int, seed: int) -> Playouts:
    """Random deals, each played by random moves into its play phase, stopped where the seat to act has a choice."""
    rng = np.random.default_rng(seed)
    play = Playouts(tables, rules)
    deals = np.array([sam_env.core.deal.random_deal(rules, rng) for _ in range(tables)], dtype=np.int64)
    play.deal(np.arange(tables), deals, rng.integers(rules.n_players, size=tables))
    moves = rng.integers(rules.n_players, 3 * rules.n_players, size=tables)
    actions = np.zeros(tables, dtype=np.int64)
    for step in range(int(moves.max())):
        going = (play.n_legal > 0) & ((step < moves) | (play.n_legal < 2))
        for t in np.flatnonzero(going):
            legal = np.flatnonzero(play.action_mask[t] & (np.arange(N_ACTIONS) != combo_index("declare_sam")))
            actions[t] = rng.choice(legal if legal.size else np.flatnonzero(play.action_mask[t]))
        play.step(actions, going)
    play.observe(np.arange(tables))
    return play


def test_common_random_numbers_make_two_labels_of_one_move_on_one_deal_equal() -> None:
    """Every seat plays a stochastic network (or the random player) from the numbers it is handed: two copies
    of one move meet the same numbers and end with the same money; fresh numbers change some labels."""
    rules = RuleConfig()
    rng = np.random.default_rng(3)
    meta = policy_metadata(rules, TINY)
    shapes = TINY.tensor_shapes(meta["observation_shape"][0], N_ACTIONS)
    tensors = {k: rng.normal(0, 0.5, size=s).astype(np.float32) for k, s in shapes.items()}
    network = CompiledNetwork(PolicyCheckpoint.in_memory(tensors, meta, "random weights"))
    labeller = RolloutLabeller(rules, 256, SeatPlayers(rules, network, {}))
    origin = random_decisions(rules, 24, seed=5)
    tables = np.flatnonzero(origin.n_legal > 1)
    assert tables.size >= 16
    candidates = []
    for t in tables:
        first, second = np.flatnonzero(origin.action_mask[t])[:2]
        candidates.append(np.array([first, first, second]))
    occupants = np.tile([LEARNER, LEARNER, RANDOM, HEURISTIC], (tables.size, 1))
    occupants[np.arange(tables.size), origin.current_seat[tables]] = LEARNER
    uniforms = common_uniforms(rng, tables.size, 4)
    labels = labeller.label(origin, tables, candidates, occupants, uniforms)
    for values in labels:
        assert values[0] == values[1]
    again = labeller.label(origin, tables, candidates, occupants, uniforms)
    np.testing.assert_array_equal(np.concatenate(again), np.concatenate(labels))
    fresh = labeller.label(origin, tables, candidates, occupants, common_uniforms(rng, tables.size, 4))
    assert any(f[0] != v[0] for f, v in zip(fresh, labels, strict=True)), "the numbers should drive the play"


def test_the_update_learns_from_differences_only() -> None:
    """A shift common to a decision's labels (the deal's luck) changes neither the centred labels the advantage
    head fits nor the advantages; a move not rolled out gets the head's estimate on the labels' level."""
    nan = float("nan")
    money = torch.tensor([[1.0, 3.0, nan, nan], [11.0, 13.0, nan, nan]])
    rolled = ~torch.isnan(money)
    np.testing.assert_array_equal(
        centred(torch.nan_to_num(money), rolled)[0].numpy(), centred(torch.nan_to_num(money), rolled)[1].numpy()
    )
    head = torch.tensor([[0.0, 2.0, 5.0, 0.0], [0.0, 2.0, 5.0, 0.0]])
    mask = torch.tensor([[True, True, True, False]] * 2)
    filled = move_estimates(money, head, mask)
    np.testing.assert_array_equal(filled.numpy(), [[1.0, 3.0, 6.0, 0.0], [11.0, 13.0, 16.0, 0.0]])


def test_bad_configs_are_refused_naming_the_field() -> None:
    with pytest.raises(ConfigError, match="improvement"):
        RolloutAdvantageConfig(improvement="greedy")
    with pytest.raises(ConfigError, match="rollout_tables"):
        RolloutAdvantageConfig(rollout_tables=4, max_moves=8)
    with pytest.raises(ConfigError, match="label_share"):
        RolloutAdvantageConfig(label_share=0.0)
    with pytest.raises(ConfigError, match="chunk_minutes"):
        RolloutAdvantageConfig(chunk_minutes=-1)
    with pytest.raises(ConfigError, match="panel"):
        RolloutAdvantageConfig(fixed_opponents=("panel_chopper",))
    with pytest.raises(ConfigError, match="another trainer"):
        load_config(Path("tests/training/configs/rollout_smoke.yaml"), ["clip_range=0.2"])


smoke = smoke_fixture(*SMOKE)


def test_smoke_run_saves_networks_that_play_legal_moves_through_load_bot(smoke: tuple[Path, str]) -> None:
    run, stdout = smoke
    assert run.name.startswith("rollout_smoke__s7__")
    assert "labelled decisions/s" in stdout and "random x3" in stdout and "95% CI" in stdout
    state = json.loads((run / "final" / "trainer.json").read_text())
    assert state["trainer"] == "rollout_advantage" and state["num_timesteps"] >= 600 and state["n_updates"] >= 3
    assert state["history"][0]["step"] == 0
    speed = json.loads((run / "speed.json").read_text())
    assert speed["copies_rolled_out"] > state["num_timesteps"]
    rules = RuleConfig()
    for folder in [*sorted((run / "checkpoints").iterdir()), run / "final"]:
        bot = sam_env.load_bot(str(folder), seed=0, rules=rules)
        assert isinstance(bot, PPOBot)
        env = sam_env.env(rules=rules)
        for hand in range(3):
            env.reset(seed=hand)
            play_out(env, lambda seat, observation, view, bot=bot: legal(bot.act(observation, view), observation))


def legal(action: int, observation: dict[str, np.ndarray]) -> int:
    assert observation["action_mask"][action], f"illegal action {action}"
    return action


def scalar_steps(run: Path, tag: str) -> list[list[int]]:
    """The steps of ``tag`` in each of a run's TensorBoard event files, the files in the order they were written."""
    out = []
    for path in sorted(run.glob("events.out.tfevents.*"), key=lambda p: p.name.split(".")[3]):
        steps = [
            event.step
            for event in EventFileLoader(str(path)).Load()
            if any(value.tag == tag for value in event.summary.value)
        ]
        out.append(steps)
    return out


def test_a_run_resumed_twice_records_its_lineage_and_continues_its_curves(smoke: tuple[Path, str]) -> None:
    run, _ = smoke
    first = load_policy(run / "final" / "policy")
    quick = ("--set", "eval_every=0", "--set", "final_eval_deals=0")
    run_train(run.parent, "--resume", str(run / "final"), "--set", "total_timesteps=900", *quick)
    second = load_policy(run / "final" / "policy")
    run_train(run.parent, "--resume", str(run / "final"), "--set", "total_timesteps=1200", *quick)
    third = load_policy(run / "final" / "policy")
    digests = [c.metadata["weights"]["sha256"] for c in (first, second, third)]
    assert len(set(digests)) == 3
    assert fingerprints(third.metadata["lineage"]) == digests[:2]
    assert [r["steps"] for r in third.metadata["lineage"]] == [
        first.metadata["num_timesteps"],
        second.metadata["num_timesteps"],
    ]
    assert third.metadata["lineage"][0]["config"]["total_timesteps"] == 600
    assert all(r["how"] == "resume" for r in third.metadata["lineage"])
    assert json.loads((run / "final" / "trainer.json").read_text())["lineage"] == third.metadata["lineage"]
    chunks = scalar_steps(run, "train/policy_loss")
    assert len(chunks) == 3 and all(chunks)
    steps = [s for chunk in chunks for s in chunk]
    assert steps == sorted(steps) and len(set(steps)) == len(steps), chunks
    assert chunks[1][0] > first.metadata["num_timesteps"] and chunks[2][0] > second.metadata["num_timesteps"]
