"""The behaviour-cloning trainer (``trainer: bc``): datasets checked against the config (missing, empty, another
table, other rules, another or mixed encoding, a panel bot's, an illegal move), the split by hand, duplicate hands
kept once, a run of ``train.py`` whose clone ``load_bot`` plays, and a clone of a deterministic bot that learns it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import torch
import yaml
from train_script import run_train

import sam_env
from sam_env import RuleConfig
from sam_env.agents.networks.policy.bot import PPOBot
from sam_env.agents.networks.policy.checkpoint import load_policy
from sam_env.agents.registry import load_bot
from sam_env.encoding import observation_size
from sam_env.evaluation.dataset import decisions, read_dataset, write_dataset
from sam_env.evaluation.replay import record_from_dict
from sam_env.evaluation.tournament import Match, play_out, run_matches
from sam_env.training import run_script
from sam_env.training.bc.config import BCConfig
from sam_env.training.bc.data import load_decisions, split_by_hand
from sam_env.training.bc.trainer import BCTrainer
from sam_env.training.config import ConfigError
from sam_env.training.trainers import TRAINERS


def _records(candidate: str, opponent: str, deals: int, n_players: int = 4, seed: int = 4) -> list:
    kept: list[dict] = []
    match = Match(candidate, (opponent,) * (n_players - 1))
    rules = RuleConfig(n_players=n_players)
    run_matches([match], rules, deals, seed=seed, workers=1, progress=False, record=kept.append)
    return [record_from_dict(r) for r in kept]


@pytest.fixture(scope="module")
def greedy_records() -> list:
    """Greedy (a deterministic bot: its lowest combination) against random ×3: 600 hands."""
    return _records("greedy", "random", 150)


@pytest.fixture(scope="module")
def greedy_file(greedy_records: list, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_dataset(tmp_path_factory.mktemp("data") / "greedy.npz", decisions(greedy_records, ["greedy"]))


def _config(*files: Path, **fields: object) -> BCConfig:
    return BCConfig(data=[str(f) for f in files], progress_bar=False, final_eval_deals=0, **fields)


def _dataset(path: Path, records: list, keep: list[str] | None = None, **change: object) -> Path:
    """The decisions of ``keep``'s bots in ``records`` written to ``path``, with ``change`` in the metadata."""
    data = decisions(records, keep, encoding_version=int(change.pop("encoding_version", 1)))
    data["metadata"] |= change
    return write_dataset(path, data)


@pytest.mark.parametrize(
    ("fields", "says"),
    [
        ({"data": "x.npz"}, r"data = 'x.npz' is not allowed; expected a list of dataset files"),
        ({"data": [""]}, "data = "),
        ({"val_share": 1}, r"val_share = 1 is not allowed; expected a number in \[0, 1\)"),
        ({"epochs": 0}, "epochs = 0"),
        ({"learning_rate_end": 0}, "learning_rate_end = 0 is not allowed; expected null or a number > 0"),
        ({"keep_forced": "yes"}, "keep_forced = 'yes'"),
        ({"move_head": -1}, "move_head = -1"),
    ],
)
def test_bad_fields_are_refused_naming_the_field(fields: dict, says: str) -> None:
    with pytest.raises(ConfigError, match=says):
        BCConfig(**fields)


def test_missing_empty_and_unreadable_data_are_refused_before_training(tmp_path: Path, greedy_file: Path) -> None:
    with pytest.raises(ConfigError, match=r"config field data is empty: name the dataset files"):
        load_decisions(BCConfig())
    with pytest.raises(ConfigError, match=r"no_such\.npz does not exist \(relative paths are read from the folder"):
        load_decisions(_config(tmp_path / "no_such.npz"))
    (tmp_path / "text.npz").write_text("not a dataset", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"text\.npz is not a sam-env decisions dataset"):
        load_decisions(_config(tmp_path / "text.npz"))
    data = read_dataset(greedy_file)
    empty = {k: v[:0] for k, v in data.items() if k != "metadata"} | {"metadata": data["metadata"]}
    with pytest.raises(ConfigError, match=r"empty\.npz holds no decision"):
        load_decisions(_config(write_dataset(tmp_path / "empty.npz", empty)))
    forced = dict(data)
    forced["forced"] = np.ones_like(data["forced"])
    with pytest.raises(ConfigError, match=r"no decision left to learn from \(\d+ forced, 0 in duplicate hands"):
        load_decisions(_config(write_dataset(tmp_path / "forced.npz", forced)))
    illegal = dict(data)
    illegal["action_mask"] = data["action_mask"].copy()
    illegal["action_mask"][5, data["action"][5]] = False
    with pytest.raises(ConfigError, match=r"row 5's move \d+ is not among its legal moves"):
        load_decisions(_config(write_dataset(tmp_path / "illegal.npz", illegal)))


def test_a_dataset_of_another_table_rules_or_encoding_is_refused(tmp_path: Path, greedy_records: list) -> None:
    three = _dataset(tmp_path / "three.npz", _records("greedy", "random", 2, n_players=3), ["greedy"])
    with pytest.raises(ConfigError, match=r"three\.npz holds decisions of a 3-seat table, but the config's rules are "):
        load_decisions(_config(three))
    assert load_decisions(_config(three, rules={"n_players": 3})).train.obs.shape[1] == observation_size(3)
    with pytest.raises(ConfigError, match=r"other rules than the config's: bao1: 'penalty' \(config 'forced'\)"):
        load_decisions(_config(three, rules={"n_players": 3, "bao1": "forced"}))
    v1 = _dataset(tmp_path / "v1.npz", greedy_records[:40], ["greedy"])
    v2 = _dataset(tmp_path / "v2.npz", greedy_records[:40], ["greedy"], encoding_version=2)
    with pytest.raises(ConfigError, match=r"v2\.npz is of observation encoding version 2, .*v1\.npz of version 1"):
        load_decisions(_config(v1, v2))
    data = read_dataset(v1)
    data["metadata"]["encoding_version"] = 99
    with pytest.raises(ConfigError, match=r"observation encoding version 99, which this sam-env does not encode"):
        load_decisions(_config(write_dataset(tmp_path / "v99.npz", data)))
    data["metadata"]["encoding_version"] = 2  # a v1 observation labelled v2: its width is wrong
    with pytest.raises(ConfigError, match=r"observation has shape \(\d+, 586\), expected \(\d+, \d+\)"):
        load_decisions(_config(write_dataset(tmp_path / "liar.npz", data)))
    panel = _dataset(tmp_path / "panel.npz", greedy_records[:4], ["greedy"], bots=["panel_noisy"])
    with pytest.raises(ConfigError, match=r"panel\.npz: its bots\) names panel_noisy: the held-out panel"):
        load_decisions(_config(panel))


def test_the_split_keeps_every_hand_on_one_side(greedy_file: Path) -> None:
    data = load_decisions(_config(greedy_file, val_share=0.25, drop_duplicate_hands=False))
    train, val = set(data.train.hand.tolist()), set(data.val.hand.tolist())
    assert train and val and not train & val
    assert data.report["val_hands"] == round(0.25 * (len(train) + len(val)))
    everything = read_dataset(greedy_file)
    chosen = ~everything["forced"]
    per_hand = np.bincount(everything["hand"][chosen])
    for side in (data.train, data.val):
        np.testing.assert_array_equal(np.bincount(side.hand, minlength=len(per_hand))[side.hand], per_hand[side.hand])
    assert data.train.mask[np.arange(data.train.size), data.train.action].all()
    again = split_by_hand(np.repeat(np.arange(100), 3), 0.2, seed=1)
    assert np.array_equal(again[1], split_by_hand(np.repeat(np.arange(100), 3), 0.2, seed=1)[1])
    assert not np.array_equal(again[1], split_by_hand(np.repeat(np.arange(100), 3), 0.2, seed=2)[1])
    with pytest.raises(ConfigError, match=r"val_share = 0.9: 1 hand\(s\) in the data leave none to train on"):
        split_by_hand(np.zeros(5, dtype=np.int64), 0.9, seed=1)


def test_a_mirror_matchs_identical_hands_are_kept_once(tmp_path: Path) -> None:
    """The heuristic against itself plays each deal identically in every seat rotation: one hand per deal stays."""
    mirror = _dataset(tmp_path / "mirror.npz", _records("heuristic", "heuristic", 3))
    data = load_decisions(_config(mirror, val_share=0, keep_forced=True))
    assert data.report["train_hands"] == 3 and data.report["duplicate_rows_dropped"] == 3 * data.train.size
    kept = load_decisions(_config(mirror, val_share=0, keep_forced=True, drop_duplicate_hands=False))
    assert kept.report["train_hands"] == 12 and kept.train.size == 4 * data.train.size


@pytest.fixture
def one_thread() -> Iterator[None]:
    """torch on one thread, as ``train.py`` sets it (``torch_threads``): two on shared cores crawl."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def test_a_clone_of_a_deterministic_bot_learns_its_moves(greedy_file: Path, one_thread: None) -> None:
    """Greedy's move is a function of what the seat sees: 8 epochs on the decisions of 540 hands take the held-out
    accuracy far above a uniform legal move's (a trainer that learned nothing, or the wrong rows, stays near it)."""
    data = load_decisions(_config(greedy_file))
    config = _config(greedy_file, pi_layers=[128], epochs=8, batch_size=64, learning_rate=2e-3)
    trainer = BCTrainer(config, data)
    trainer.learn()
    last = trainer.epochs_log[-1]
    chance = data.val.chance_accuracy()
    assert chance < 0.5 and last["val_chance_accuracy"] == chance
    assert last["val_accuracy"] > max(0.8, chance + 0.4), trainer.epochs_log
    assert last["train_policy_loss"] < trainer.epochs_log[0]["train_policy_loss"]
    assert trainer.num_timesteps == 8 * data.train.size and trainer.epoch == 8


@pytest.fixture(scope="module")
def run(greedy_file: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """``train.py`` on a config file of ``trainer: bc``: 3 epochs, a checkpoint and an evaluation after the second
    (the final evaluation is every trainer's, tested with theirs: each spawns its workers, seconds apiece)."""
    folder = tmp_path_factory.mktemp("bc_run")
    config = {
        "trainer": "bc",
        "name": "bc_smoke",
        "seed": 3,
        "data": [str(greedy_file)],
        "epochs": 3,
        "pi_layers": [32],
        "vf_layers": [8],
        "fit_critic": True,
        "eval_every": 2,
        "eval_deals": 2,
        "eval_opponents": ["random"],
        "checkpoint_every": 2,
        "final_eval_deals": 0,
        "progress_bar": False,
    }
    path = folder / "bc_smoke.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    stdout = run_train(folder / "runs", "--config", str(path))
    [run_dir] = list((folder / "runs").iterdir())
    return run_dir, stdout


def test_train_py_saves_a_clone_that_load_bot_plays(run: tuple[Path, str], greedy_file: Path) -> None:
    run_dir, stdout = run
    assert "behaviour cloning from 1 dataset file(s)" in stdout and "epoch 3/3: train loss" in stdout
    assert "epoch 2, " in stdout and "vs random x3" in stdout
    state = json.loads((run_dir / "final" / "trainer.json").read_text())
    assert state["trainer"] == "bc" and state["epoch"] == 3 and len(state["epochs"]) == 3
    assert [row["epoch"] for row in state["history"]] == [2]
    assert all(0 <= row["val_accuracy"] <= 1 and row["train_value_loss"] >= 0 for row in state["epochs"])
    assert state["num_timesteps"] == 3 * state["data"]["train_rows"]
    assert [p.name for p in (run_dir / "checkpoints").iterdir()] == [f"step_{2 * state['data']['train_rows']:09d}"]
    assert list(run_dir.glob("events.out.tfevents.*")) and (run_dir / "speed.json").is_file()
    policy = load_policy(run_dir / "final")
    assert policy.encoding_version == 1 and policy.metadata["bc_data"]["files"][0]["path"] == str(greedy_file)
    assert policy.metadata["policy"]["algorithm"].startswith("behaviour cloning")
    rules = RuleConfig()
    bot = load_bot(str(run_dir / "final"), rules=rules)
    assert isinstance(bot, PPOBot) and bot.deterministic
    env = sam_env.env(rules=rules)
    env.reset(seed=0)
    result = play_out(env, lambda seat, observation, view: bot.act(observation, view))
    assert sum(result.net) == 0


def test_a_run_is_not_resumed(run: tuple[Path, str], capsys: pytest.CaptureFixture[str]) -> None:
    assert not TRAINERS["bc"].resumes
    assert run_script.main(["--resume", str(run[0] / "final")]) == 2
    assert "trainer: bc runs cannot be resumed" in capsys.readouterr().err


def test_a_refused_dataset_stops_train_py_before_a_run_folder_stays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--config", "bc", "--set", f"data=[{tmp_path / 'absent.npz'}]", "--set", f"run_dir={tmp_path / 'runs'}"]
    assert run_script.main(args) == 2
    assert "absent.npz does not exist" in capsys.readouterr().err
    assert not list((tmp_path / "runs").iterdir())
