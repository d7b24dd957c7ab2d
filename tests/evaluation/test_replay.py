"""Hand records (sam_env.evaluation.replay): what sam-eval and sam-play --record write reads back, in a
deterministic order; a record that does not replay is refused with its line and what differs."""

from __future__ import annotations

import copy
import io
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from sam_env.apps import evaluate, play
from sam_env.evaluation.replay import ReplayError, ReplayWriter, parse_records, read_records, record_from_dict, replay


def _eval(tmp_path: Path, name: str, workers: int) -> Path:
    out = tmp_path / name
    table = ["--candidates", "heuristic", "--against", "random", "--deals", "4", "--workers", str(workers)]
    evaluate.main([*table, "--no-progress", "--out", str(out), "--record", str(out / "hands.jsonl")])
    return out / "hands.jsonl"


def test_sam_eval_records_every_hand_in_the_same_order_for_any_number_of_workers(tmp_path: Path) -> None:
    one, two = _eval(tmp_path, "one", 1), _eval(tmp_path, "two", 2)
    assert one.read_text(encoding="utf-8") == two.read_text(encoding="utf-8")
    records = read_records(one)
    assert len(records) == 4 * 4  # 4 deals, 4 rotations
    assert [(r.info["deal"], r.info["seating"]) for r in records] == [(d, s) for d in range(4) for s in range(4)]
    for r in records:
        assert r.bots[r.info["candidate_seat"]] == "heuristic" and r.bots.count("random") == 3
        assert all(m.bot == r.bots[m.seat] for m in r.moves) and sum(r.result.net) == 0
    summary = json.loads((tmp_path / "one" / "summary.json").read_text(encoding="utf-8"))
    assert summary["matches"][0]["hands"] == len(records)


def test_sam_play_records_the_hands_played(tmp_path: Path) -> None:
    path = tmp_path / "mine" / "hands.jsonl"  # the folder is made
    out = io.StringIO()
    play.main(
        ["--opponents", "greedy", "--hands", "3", "--seed", "4", "--record", str(path)],
        stdin=io.StringIO("1\n" * 500),
        stdout=out,
    )
    records = read_records(path)
    assert len(records) == 3 and "recorded 3 hand(s)" in out.getvalue()
    assert all(r.bots == ("you", "greedy", "greedy", "greedy") for r in records)
    assert [r.info["hand"] for r in records] == [1, 2, 3]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _eval(tmp_path_factory.mktemp("recorded"), "e", 1)


def test_a_record_replays_to_its_own_result(recorded: Path) -> None:
    record = read_records(recorded)[5]
    assert record_from_dict(json.loads(record.to_json())) == record
    states = [(move, hand.net()) for move, hand in replay(record)]
    assert states[0][0] is None and [m for m, _ in states[1:]] == list(record.moves)
    assert states[-1][1] == list(record.result.net)


def _first(data: dict) -> dict:
    return next(m for m in data["moves"] if m["cards"])


TAMPERING: dict[str, tuple[Callable[[dict], None], str]] = {
    "version": (lambda d: d.update(version=2), "not a hand record of this version"),
    "unknown key": (lambda d: d.update(extra=1), "unknown: ['extra']"),
    "missing key": (lambda d: d.pop("ledger"), "keys missing: ['ledger']"),
    "rules": (lambda d: d["rules"].update(bao1="never"), "bad rules"),
    "deal": (lambda d: d["deal"][0].__setitem__(0, d["deal"][1][0]), "bad deal"),
    "card string": (lambda d: d["deal"][0].__setitem__(0, "1Z"), "bad deal"),
    "seat": (lambda d: d["moves"][0].update(seat=(d["moves"][0]["seat"] + 1) % 4), "but seat"),
    "bot": (lambda d: d["moves"][0].update(bot="someone"), "bot 'someone'"),
    "illegal": (lambda d: d["moves"][0].update(action="quad:3"), "is not legal"),
    "action name": (lambda d: d["moves"][0].update(action="pair:Z"), "unknown action name"),
    "cards": (lambda d: _first(d).update(cards=["3S"] if _first(d)["cards"] != ["3S"] else ["4S"]), "played"),
    "truncated": (lambda d: d["moves"].pop(), "not finished"),
    "moved on": (lambda d: d["moves"].append(d["moves"][-1]), "after the end"),
    "ledger": (lambda d: d["ledger"].append({"payer": 0, "payee": 1, "amount": 1, "reason": "cards"}), "ledger"),
    "result": (lambda d: d["result"].update(winner=None), "result differs"),
}


@pytest.mark.parametrize("case", sorted(TAMPERING))
def test_a_record_that_does_not_replay_is_refused(recorded: Path, case: str) -> None:
    lines = recorded.read_text(encoding="utf-8").splitlines()
    data = json.loads(lines[1])
    change, says = TAMPERING[case]
    bad = copy.deepcopy(data)
    change(bad)
    with pytest.raises(ReplayError, match="line 2: ") as err:
        parse_records([lines[0], json.dumps(bad)], "file.jsonl")
    assert says in str(err.value)


def test_not_json_and_empty_input_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ReplayError, match=r"f line 2: not JSON"):
        parse_records(["", "{oops"], "f")
    with pytest.raises(ReplayError, match="no hand record"):
        parse_records(["", "  "], "f")
    with pytest.raises(ReplayError, match="cannot read"):
        read_records(tmp_path / "none.jsonl")
    with pytest.raises(ValueError, match="cannot record hands"):
        ReplayWriter(tmp_path)  # a folder, not a file


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ('{"info": NaN}', "NaN is not a JSON number"),
        ('{"info": -Infinity}', "-Infinity is not a JSON number"),
        ('{"info": 1e400}', "a number too large for a float"),
        ('{"bots": ["\\ud800"]}', "a string holds '\\ud800', not a character"),
        ("[" * 5000 + "]" * 5000, "nested too deeply"),
    ],
)
def test_a_line_that_is_not_plain_json_is_refused_naming_it(line: str, says: str) -> None:
    """Such records would print, re-encode or show in the web app only by failing: refused when read."""
    with pytest.raises(ReplayError, match=r"file\.jsonl line 1: not plain JSON") as err:
        parse_records([line], "file.jsonl")
    assert says in str(err.value)


def test_a_recorded_hand_says_what_best_and_a_family_name_played() -> None:
    """``best`` moves when a stronger network ships: each hand record names the network it played and its weights."""
    from sam_env import RuleConfig
    from sam_env.agents.networks.catalogue import entry
    from sam_env.evaluation.tournament import Match, run_matches
    from sam_env.utils.files import file_sha256

    records: list[dict] = []
    rules = RuleConfig(n_players=3)
    run_matches([Match("best", ("dmc", "heuristic"))], rules, 1, workers=1, progress=False, record=records.append)
    assert len(records) == 6  # one deal, every seat order of a mixed line-up
    weights = file_sha256(entry("dmc_v1_3p").weights)
    for record in records:
        assert record["info"]["networks"] == {
            "best": {"network": "dmc_v1_3p", "sha256": weights},
            "dmc": {"network": "dmc_v1_3p", "sha256": weights},
        }
        assert record_from_dict(record).info["networks"]["best"]["network"] == "dmc_v1_3p"  # it replays
