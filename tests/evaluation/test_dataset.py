"""Hand records as a dataset (sam_env.evaluation.dataset): every row is what the environment showed that seat at that
decision, the move it played and the money that followed."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import sam_env
from sam_env.core import RuleConfig
from sam_env.evaluation.dataset import DatasetError, decisions, main, read_dataset, write_dataset
from sam_env.evaluation.replay import record_from_dict
from sam_env.evaluation.tournament import Match, run_matches


def records(n_players: int = 4, deals: int = 3) -> list:
    kept: list[dict] = []
    run_matches(
        [Match("heuristic", ("random", "greedy", "random")[: n_players - 1])],
        RuleConfig(n_players=n_players),
        deals,
        seed=4,
        workers=1,
        progress=False,
        record=kept.append,
    )
    return [record_from_dict(r) for r in kept]


def test_each_row_is_the_environment_s_observation_mask_and_the_move_played() -> None:
    hands = records()
    data = decisions(hands)
    row = 0
    for index, record in enumerate(hands):
        env = sam_env.env(rules=record.rules)
        env.reset(options={"hands": [list(cards) for cards in record.deal], "leader": record.leader})
        for move in record.moves:
            agent = env.agent_selection
            observed = env.observe(agent)
            assert data["hand"][row] == index and data["seat"][row] == move.seat
            np.testing.assert_array_equal(data["observation"][row], observed["observation"])
            np.testing.assert_array_equal(data["action_mask"][row], observed["action_mask"].astype(bool))
            assert data["action_mask"][row, data["action"][row]]
            assert sam_env.action_name(int(data["action"][row])) == move.action
            env.step(int(data["action"][row]))
            while env.agents and (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
                env.step(None)
            row += 1
    assert row == len(data["action"]) == data["metadata"]["decisions"]


def test_money_after_is_what_the_seat_made_from_that_decision_to_the_end() -> None:
    """At a hand's first move no money has moved, so its row's money is the seat's whole net; a seat's later rows
    differ from it by what moved between its decisions, recomputed here from the record's ledger."""
    hands = records(n_players=3, deals=4)
    data = decisions(hands)
    for index, record in enumerate(hands):
        rows = np.flatnonzero(data["hand"] == index)
        assert data["money_after"][rows[0]] == pytest.approx(float(record.result.net[data["seat"][rows[0]]]))
        for row in rows:
            assert abs(data["money_after"][row]) <= sum(abs(x) for x in record.result.net)


def test_a_bot_s_decisions_alone_and_the_file_round_trip(tmp_path: Path) -> None:
    hands = records()
    mine = decisions(hands, bots=["heuristic"])
    every = decisions(hands)
    assert 0 < len(mine["action"]) < len(every["action"])
    assert all(hands[h].bots[s] == "heuristic" for h, s in zip(mine["hand"], mine["seat"], strict=True))
    path = write_dataset(tmp_path / "d.npz", mine)
    back = read_dataset(path)
    for name in ("observation", "action_mask", "action", "seat", "hand", "money_after", "forced"):
        np.testing.assert_array_equal(back[name], mine[name])
    assert back["metadata"]["bots"] == ["heuristic"] and back["metadata"]["format"] == "sam-env/decisions"


def test_the_command_writes_a_file_and_refuses_what_makes_no_dataset(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "hands.jsonl"
    hands = records()
    source.write_text("".join(r.to_json() + "\n" for r in hands))
    assert main([str(source), "--out", str(tmp_path / "out.npz")]) == 0
    assert f"decisions of {len(hands)} hands (4 seats)" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main([str(source), "--out", str(tmp_path / "out.npz")])  # kept, not overwritten
    with pytest.raises(DatasetError, match="no decision to keep"):
        decisions(records(), bots=["nobody"])
    with pytest.raises(DatasetError, match="a dataset holds one table size"):
        decisions([*records(4, 1), *records(3, 1)])
    (tmp_path / "other.npz").write_bytes(b"not a dataset")
    with pytest.raises(DatasetError, match="is not a sam-env decisions dataset"):
        read_dataset(tmp_path / "other.npz")
    bad = json.loads(source.read_text().splitlines()[0])
    bad["moves"][0]["action"] = "quad:2"
    (tmp_path / "bad.jsonl").write_text(json.dumps(bad) + "\n")
    with pytest.raises(SystemExit):
        main([str(tmp_path / "bad.jsonl"), "--out", str(tmp_path / "bad.npz")])
