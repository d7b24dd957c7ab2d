"""The agent registry, and the terminal player driven by scripted input."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

from sam_env import BatchedPolicy, Bot, RandomBot, VectorEnv
from sam_env.agents.greedy_bot import GreedyBot
from sam_env.agents.heuristic.compiled import BatchedHeuristic
from sam_env.agents.human import HumanPlayer, QuitGame, parse_move
from sam_env.agents.networks.catalogue import shipped_bot
from sam_env.agents.registry import UnknownAgentError, available, grouped, load_bot, make_agent
from sam_env.apps import play
from sam_env.core import RuleConfig, SeatView, Table, combo_index


def test_registry_builds_every_rule_based_bot_by_name() -> None:
    assert {"greedy", "heuristic", "random"} <= set(available())
    for name in ("greedy", "heuristic", "random"):
        assert make_agent(name, seed=1).name == name
    assert isinstance(make_agent("greedy"), GreedyBot)


def test_every_bot_is_a_sam_env_bot_and_so_is_anything_with_act() -> None:
    """One name for what picks an action: the bots derive from it, duck-typed players count too."""
    for name in available():
        assert isinstance(load_bot(name), Bot)
    assert isinstance(HumanPlayer(stdin=io.StringIO(""), stdout=io.StringIO()), Bot)

    class FirstLegal:
        def act(self, observation: dict, view: SeatView) -> int:
            return int(observation["action_mask"].argmax())

    assert isinstance(FirstLegal(), Bot)
    assert not isinstance(object(), Bot)
    assert not isinstance(lambda observation, view: 0, Bot)


def test_the_batched_policies_are_one_protocol_beside_bot() -> None:
    """What decides for a batch of seats at once has one shape too: ``policy(observations, masks) -> actions``."""
    batch = VectorEnv(32, seed=4).reset()
    policies = [RandomBot(seed=0), BatchedHeuristic(), shipped_bot("ppo").best_actions]
    for policy in policies:
        assert isinstance(policy, BatchedPolicy)
        actions = policy(batch.observation, batch.action_mask)
        assert actions.shape == (32,) and batch.action_mask[np.arange(32), actions].all()
    assert not isinstance(GreedyBot(), BatchedPolicy)


def test_the_random_player_is_one_bot_for_single_decisions_and_batches() -> None:
    """``make_agent("random")`` is the batched random opponent too; both ways draw every legal move alike."""
    bot = make_agent("random", seed=0)
    assert type(bot) is RandomBot and isinstance(bot, Bot) and isinstance(bot, BatchedPolicy)
    mask = np.zeros((20_000, 201), dtype=bool)
    mask[:, [0, 5, 17, 200]] = True
    picked = bot(np.zeros((20_000, 1), dtype=np.float32), mask)
    counts = np.bincount(picked, minlength=201)[[0, 5, 17, 200]]
    assert counts.sum() == 20_000 and (abs(counts - 5_000) < 300).all()
    view = SeatView.of(Table(RuleConfig(), np.random.default_rng(0)).new_hand(), 0)
    singles = [bot.act({"observation": np.zeros(1), "action_mask": mask[0]}, view) for _ in range(4_000)]
    assert set(singles) == {0, 5, 17, 200} and (abs(np.bincount(singles)[[0, 5, 17, 200]] - 1_000) < 150).all()


def test_unknown_agent_names_list_the_known_ones() -> None:
    with pytest.raises(UnknownAgentError, match="'alphasam'; known agents: ") as error:
        make_agent("alphasam")
    listed = [name for _, names in grouped() for name in names]  # best, rule bots, panel, families, search
    assert all(name in str(error.value) for name in listed) and set(listed) <= set(available())
    assert "python -m sam_env.agents.networks.catalogue" in str(error.value), "where the networks' own names are"


def test_the_readmes_table_of_bots_names_every_bot_the_registry_lists() -> None:
    """The README's table of bot names is written by hand: it must keep up with the registry's groups."""
    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    table = readme.split("| bots | names |", 1)[1].split("\n\n", 1)[0]
    listed = {name for group, names in grouped() if group not in ("recommended", "registered") for name in names}
    assert {name for name in listed if f"`{name}`" not in table} == set()


def test_parse_move_accepts_numbers_names_case_and_t() -> None:
    legal = [0, combo_index("single:10"), combo_index("pair:K"), combo_index("straight:10-A")]
    assert parse_move("2", legal) == (legal[1], "")
    assert parse_move("PAIR:k", legal)[0] == legal[2]
    assert parse_move("straight:t-a", legal)[0] == legal[3]
    assert parse_move("Pass", legal)[0] == 0
    assert parse_move("9", legal)[0] is None
    assert "not legal now" in parse_move("single:3", legal)[1]
    assert "not a move name" in parse_move("bogus", legal)[1]


def _first_view() -> SeatView:
    hand = Table(RuleConfig(allow_sam=False), 0).new_hand()
    return SeatView.of(hand, hand.to_act)


def test_human_reprompts_on_bad_input_then_accepts_a_legal_move() -> None:
    view = _first_view()
    out = io.StringIO()
    human = HumanPlayer(stdin=io.StringIO("\nnonsense\n0\n1\n"), stdout=out)
    assert human.act({}, view) == view.legal[0]
    text = out.getvalue()
    assert "'nonsense' is not a move name" in text
    assert "there is no move number 0" in text
    assert text.count("legal moves:") == 4


def test_human_end_of_input_and_quit_raise_quit_game() -> None:
    for script in ("", "quit\n", "junk\nEXIT\n"):
        with pytest.raises(QuitGame):
            HumanPlayer(stdin=io.StringIO(script), stdout=io.StringIO()).act({}, _first_view())


def test_play_cli_runs_a_scripted_hand_to_the_end() -> None:
    # Always answer with the first listed move (pass when allowed, the first play otherwise).
    out = io.StringIO()
    argv = ["--seed", "5", "--opponents", "greedy", "--hands", "2"]
    code = play.main(argv, stdin=io.StringIO("1\n" * 200), stdout=out)
    text = out.getvalue()
    assert code == 0
    assert "=== hand 2 of 2" in text
    assert "result:" in text and "in total" in text
    assert "bye" not in text


def test_play_cli_stops_cleanly_on_end_of_input_and_bad_input() -> None:
    out = io.StringIO()
    assert play.main(["--seed", "1", "--players", "3"], stdin=io.StringIO("what?\n99\n"), stdout=out) == 0
    text = out.getvalue()
    assert "'what?' is not a move name" in text
    assert "bye" in text


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--opponents", "nobody"], "known agents"),
        (["--seat", "4"], "--seat must be a seat from 0 to 3"),
        (["--players", "7"], "n_players"),
        (["--hands", "0"], "--hands must be at least 1"),
        (["--opponents", "greedy", "random"], "needs 3 names"),
        (["--rules", "/no/such/rules.yaml"], "does not exist"),
        (
            ["--opponents", "ppo_v1", "--players", "3"],
            "the shipped family 'ppo_v1' has no network for a 3-player table",
        ),
    ],
)
def test_play_cli_rejects_bad_options_with_clear_messages(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        play.main(argv, stdin=io.StringIO(""), stdout=io.StringIO())
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err
