"""Bring your own agent: bots named by ``file.py:attr`` and ``module:attr`` or passed as objects, evaluated
on fresh worker processes that report a failing bot and cannot hang; bad input refused with a clear error."""

from __future__ import annotations

import io
import json
import shutil
import time
from pathlib import Path

import numpy as np
import pytest

import sam_env
from sam_env import RuleConfig
from sam_env.agents.bot_objects import PolicyBot
from sam_env.agents.code_specs import BotSpecError, file_module_name, load_file_module
from sam_env.agents.registry import FACTORIES, register
from sam_env.apps import evaluate as sam_eval
from sam_env.apps import play as sam_play
from sam_env.evaluation import EvaluationError, evaluate
from sam_env.evaluation.tournament import Match, run_matches

AGENTS = Path(__file__).with_name("own_agents.py")
MODULE = "own_agents_outside"
"""The module name the copy of own_agents.py is importable as (its folder on sys.path)."""


@pytest.fixture
def agents(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """own_agents.py copied out of the repository as ``<tmp>/own_agents_outside.py``, its folder on sys.path."""
    folder = tmp_path_factory.getbasetemp() / "own_agents"
    folder.mkdir(exist_ok=True)
    path = folder / f"{MODULE}.py"
    if not path.exists():
        shutil.copy(AGENTS, path)
    monkeypatch.syspath_prepend(str(folder))
    return path


@pytest.fixture
def registered() -> list[str]:
    """Names registered by a test, removed after it."""
    names: list[str] = []
    yield names
    for name in names:
        FACTORIES.pop(name, None)


def sam_eval_row(tmp_path: Path, spec: str, workers: int, *extra: str) -> dict:
    """sam-eval's summary.json row of ``spec`` against three random bots, without the agent's name."""
    out = tmp_path / f"eval{len(list(tmp_path.iterdir()))}"
    argv = ["--candidates", spec, "--against", "random", "--deals", "6", "--workers", str(workers), *extra]
    assert sam_eval.main([*argv, "--seed", "5", "--out", str(out), "--no-progress"]) == 0
    [row] = json.loads((out / "summary.json").read_text())["matches"]
    return {k: v for k, v in row.items() if k != "agent"}


@pytest.mark.train
@pytest.mark.parametrize("attr", ["Picky", "TinyNet"])
def test_an_agent_in_its_own_file_scores_on_two_workers_exactly_as_registered(
    attr: str, agents: Path, tmp_path: Path, registered: list[str]
) -> None:
    """A plain class and a torch network, by file and by module on two fresh workers, and registered in-process."""
    module = load_file_module(agents)
    register(f"own_{attr}", getattr(module, attr))
    registered.append(f"own_{attr}")
    in_process = sam_eval_row(tmp_path, f"own_{attr}", 1)
    assert sam_eval_row(tmp_path, f"{agents}:{attr}", 2) == in_process
    assert sam_eval_row(tmp_path, f"{MODULE}:{attr}", 2) == in_process
    assert sam_eval_row(tmp_path, f"own_{attr}", 2) == in_process  # register() reaches spawned workers too
    assert in_process["hands"] == 24 and in_process["x_per_hand"] != 0


@pytest.mark.train
def test_torch_plays_on_one_thread_in_workers_and_here(agents: Path) -> None:
    import torch

    before = torch.get_num_threads()
    for workers in (2, 1):
        summary = evaluate(f"{agents}:OneThreadOnly", "random", deals=2, workers=workers, progress=False)
        assert summary.hands == 8
    assert torch.get_num_threads() == before  # this process's setting is given back


def test_a_file_is_one_module_in_every_process_under_a_stable_name(agents: Path, tmp_path: Path) -> None:
    name = file_module_name(agents)
    assert name == file_module_name(str(agents)) and name.startswith("sam_env_bot_file_own_agents_outside_")
    other = tmp_path / "elsewhere" / agents.name
    other.parent.mkdir()
    shutil.copy(agents, other)
    assert file_module_name(other) != name  # two files of one name are two modules
    assert load_file_module(agents) is load_file_module(str(agents))
    assert isinstance(sam_env.load_bot(f"{agents}:Picky"), load_file_module(agents).Picky)


def test_a_batched_policy_is_played_in_batches_and_scores_as_the_same_rule_one_decision_at_a_time(
    agents: Path,
) -> None:
    """Lockstep play changes nothing for a policy (or a concurrent bot) that answers each row alone: stochastic and
    mixed opponents too."""
    rules = RuleConfig()
    module = load_file_module(agents)
    for lineup in (("random",) * 3, ("random", "greedy", "greedy")):
        module.BATCH_SIZES.clear()
        one_at_a_time, batched = run_matches(
            [Match(f"{agents}:Highest", lineup), Match(f"{agents}:highest", lineup)], rules, 4, seed=2, workers=1
        )
        assert max(module.BATCH_SIZES) > 8  # hands of a group wait for one call
        np.testing.assert_array_equal(one_at_a_time.metrics, batched.metrics)
        module.BATCH_SIZES.clear()
        [concurrent] = run_matches([Match(f"{agents}:HighestMany", lineup)], rules, 4, seed=2, workers=1)
        assert max(module.BATCH_SIZES) > 8  # a concurrent bot is asked for a group's decisions at once too
        np.testing.assert_array_equal(concurrent.metrics, batched.metrics)
    [on_two] = run_matches([Match(f"{agents}:highest", lineup)], rules, 4, seed=2, workers=2, progress=False)
    np.testing.assert_array_equal(on_two.metrics, batched.metrics)


def test_evaluate_takes_classes_factories_instances_and_functions(agents: Path) -> None:
    module = load_file_module(agents)
    rules = RuleConfig(n_players=3)
    by_spec = evaluate(f"{agents}:Highest", "greedy", rules=rules, deals=3, workers=1, progress=False)
    # A class travels to the workers by reference, an instance by value; the rest is played here.
    forms = ((module.Highest, 2), (module.Highest(), 2), (module.make_highest, 1), (module.highest, 1))
    for candidate, workers in forms:
        summary = evaluate(candidate, ["greedy"], rules=rules, deals=3, workers=workers, progress=False)
        assert (summary.x_per_hand, summary.counts) == (by_spec.x_per_hand, by_spec.counts)
    assert (None, 3) in module.FACTORY_CALLS  # the factory was given the table's rules
    # A lambda does not pickle: it is played in this process, whatever ``workers`` says.
    summary = evaluate(lambda obs, masks: module.highest(obs, masks), "greedy", rules=rules, deals=3, workers=2)
    assert summary.x_per_hand == by_spec.x_per_hand and summary.agent == "<lambda>"
    assert isinstance(sam_env.load_bot(module.highest), PolicyBot)


def test_sam_play_seats_a_bot_by_file(agents: Path) -> None:
    out = io.StringIO()
    assert (
        sam_play.main(["--opponents", f"{agents}:Highest", "--seed", "3"], stdin=io.StringIO("quit\n"), stdout=out) == 0
    )
    assert "bye" in out.getvalue()


# ---------------------------------------------------------------- failures during play


def test_a_bot_that_raises_mid_hand_is_reported_with_its_deal_and_seat_and_the_other_match_is_kept(
    agents: Path,
) -> None:
    rules = RuleConfig()
    matches = [Match(f"{agents}:FailsMidHand", ("greedy",) * 3), Match("greedy", ("random",) * 3)]
    started = time.monotonic()
    with pytest.raises(EvaluationError) as caught:
        run_matches(matches, rules, deals=40, workers=2, progress=False)
    assert time.monotonic() - started < 60
    [failure] = caught.value.failures
    assert failure.match == 0 and failure.bot == f"{agents}:FailsMidHand"
    assert failure.deal is not None and failure.seat == matches[0].seatings[failure.seating][0]
    assert "RuntimeError: boom: this bot gives up" in failure.error and "Traceback" in failure.details
    assert f"deal {failure.deal}, seating {failure.seating}, seat {failure.seat}" in str(caught.value)
    [kept] = caught.value.results
    assert kept.match.names[0] == "greedy" and kept.summary().hands == 160
    with pytest.raises(EvaluationError) as in_process:  # the same on one process, deterministic
        run_matches(matches[:1], rules, deals=4, workers=1, progress=False)
    assert (in_process.value.failures[0].deal, in_process.value.failures[0].seat) == (0, 2)


def test_a_worker_that_dies_is_reported_within_seconds_with_where_it_was(agents: Path) -> None:
    matches = [Match("greedy", ("random",) * 3), Match(f"{agents}:DiesMidHand", ("greedy",) * 3)]
    started = time.monotonic()
    with pytest.raises(EvaluationError) as caught:
        run_matches(matches, RuleConfig(), deals=20, workers=2, progress=False)
    assert time.monotonic() - started < 60
    [failure] = caught.value.failures
    assert failure.match == 1 and "worker process died (exit code 7)" in failure.error
    assert failure.deal is not None and failure.seat == matches[1].seatings[failure.seating][0]
    assert failure.bot == f"{agents}:DiesMidHand"
    assert [r.match.names[0] for r in caught.value.results] == ["greedy"]


def test_the_progress_bar_counts_hands_and_their_rate(agents: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run_matches([Match(f"{agents}:highest", ("random",) * 3)], RuleConfig(), deals=8, workers=2)
    bar = capsys.readouterr().err
    assert "32/32" in bar and "hand/s" in bar


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("no_such_package.bots:MyBot", r"cannot import module 'no_such_package.bots': ModuleNotFoundError: No module"),
        ("/no/such/agent.py:MyBot", r"no such file '/no/such/agent.py'"),
        (f"{MODULE}:NoSuchBot", rf"{MODULE} has no attribute 'NoSuchBot'; it has: .*Picky"),
        (f"{MODULE}:NOT_A_BOT", r"int 42 is not a bot; expected a sam_env.Bot subclass or instance"),
        (f"{MODULE}:NotABot", r"class NotABot is not a bot; expected a sam_env.Bot"),
    ],
)
def test_a_spec_that_names_no_bot_says_what_is_wrong(agents: Path, spec: str, message: str) -> None:
    with pytest.raises(BotSpecError, match=message):
        sam_env.load_bot(spec)


def test_a_file_that_does_not_import_names_the_file_and_the_error(tmp_path: Path) -> None:
    broken = tmp_path / "broken_agent.py"
    broken.write_text("import not_a_module_of_anyones\n")
    with pytest.raises(BotSpecError, match=r"cannot import module 'broken_agent.py' .*No module named 'not_a_module"):
        sam_env.load_bot(f"{broken}:Bot")


def test_sam_eval_refuses_a_bad_spec_before_playing(agents: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_code:
        sam_eval.main(["--candidates", "nowhere_module:Bot", "--against", "random", "--deals", "2"])
    assert exit_code.value.code == 2
    assert "cannot import module 'nowhere_module': ModuleNotFoundError" in capsys.readouterr().err


def test_an_illegal_action_names_the_deal_seat_action_and_legal_moves(agents: Path) -> None:
    for spec in (f"{agents}:IllegalLater", f"{agents}:illegal_batch"):
        with pytest.raises(EvaluationError) as caught:
            run_matches([Match(spec, ("greedy",) * 3)], RuleConfig(), deals=3, workers=1, progress=False)
        [failure] = caught.value.failures
        assert failure.deal == 0 and failure.seat is not None and failure.bot == spec
        assert "chose the illegal action 0 pass" in failure.error and "legal moves: " in failure.error
        assert f"deal 0, seating {failure.seating}, seat {failure.seat} ({spec})" in failure.describe()
    with pytest.raises(ValueError, match=r"Illegal cannot play this 4-player table: .*illegal action 0 pass"):
        run_matches([Match(f"{agents}:Illegal", ("greedy",) * 3)], RuleConfig(), deals=3, workers=1)


def test_a_bot_that_cannot_play_the_table_is_refused_before_any_hand(agents: Path) -> None:
    hands: list[dict] = []
    with pytest.raises(ValueError, match=r"FourSeatsLinear cannot play this 3-player table: .* first decision"):
        run_matches(
            [Match("greedy", ("random",) * 2), Match(f"{agents}:FourSeatsLinear", ("greedy",) * 2)],
            RuleConfig(n_players=3),
            deals=2,
            record=hands.append,
        )
    assert hands == []
    assert evaluate(f"{agents}:FourSeatsLinear", "greedy", deals=1, workers=1, progress=False).hands == 4


@pytest.mark.train
def test_sam_eval_keeps_what_finished_when_a_match_fails(
    agents: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, record = tmp_path / "eval", tmp_path / "hands.jsonl"
    argv = ["--candidates", f"{agents}:FailsMidHand", "random", "--against", "greedy", "--deals", "6", "--workers", "2"]
    assert sam_eval.main([*argv, "--out", str(out), "--record", str(record), "--no-progress"]) == 1
    assert "FailsMidHand vs greedy x3: deal " in capsys.readouterr().err
    data = json.loads((out / "summary.json").read_text())
    assert [(m["agent"], m["hands"]) for m in data["matches"]] == [("random", 24)]
    assert data["config"]["failed"][0]["bot"] == f"{agents}:FailsMidHand"
    lines = [json.loads(line) for line in record.read_text().splitlines()]
    assert sum(1 for line in lines if line["info"]["match"] == 1) == 24  # every hand of the match that finished
