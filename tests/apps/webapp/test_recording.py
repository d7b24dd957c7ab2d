"""Recording people's games, opt-in (``"record": true``): each finished hand of a recorded game is written once as a
hand record with the person's seat labelled ``human``, read back and checked by replaying it, served as a replay,
exported by ``python -m sam_env.evaluation.dataset`` into rows that match the game, and deleted in one request;
nothing is written without the opt-in; one token's recordings are out of another's reach; bad input is refused
with what was wrong."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pytest

import sam_env
from sam_env import RuleConfig, load_bot
from sam_env.apps.web import cli
from sam_env.apps.web.cli import running
from sam_env.apps.web.server import create_app
from sam_env.evaluation.dataset import decisions, read_dataset, write_dataset
from sam_env.evaluation.replay import read_records
from sam_env.evaluation.tournament import play_out

INFO_KEYS = {"app", "hand", "human_seats", "coach", "date", "networks"}
"""Everything a recorded hand says about where it comes from: no address, no user agent, no time but the day."""


@pytest.fixture
def recorder(tmp_path: Path) -> Iterator[tuple[httpx.Client, Path]]:
    """A client of a live sam-web recording under a fresh folder, and the folder."""
    folder = tmp_path / "recordings"
    with running(create_app(record_dir=folder)) as url, httpx.Client(base_url=url, timeout=120) as client:
        yield client, folder


def play_hands(client: httpx.Client, body: dict[str, Any], hands: int) -> tuple[dict, list[dict], list[dict]]:
    """Create a game, play ``hands`` hands by the person's first legal move; the creation's answer, every
    final view, and the person's decisions (``{"values": {id: value}, "action": id}``) in order."""
    created = client.post("/api/games", json=body)
    assert created.status_code == 201, created.text
    game_id, view = created.json()["game_id"], created.json()["view"]
    finals, decisions = [], []
    for number in range(hands):
        if number:
            view = client.post(f"/api/games/{game_id}/next", json={}).json()
        while view["result"] is None:
            action = view["legal"][0]["id"]
            decisions.append({"values": {m["id"]: m.get("value") for m in view["legal"]}, "action": action})
            view = client.post(f"/api/games/{game_id}/moves", json={"action": action}).json()
        finals.append(view)
    return created.json(), finals, decisions


def test_a_recorded_coached_game_is_written_read_back_replayed_exported_and_deleted(
    recorder: tuple[httpx.Client, Path], tmp_path: Path
) -> None:
    client, folder = recorder
    body = {"players": 4, "seat": 2, "opponents": "best", "seed": 21, "coach": True, "record": True}
    created, finals, decisions = play_hands(client, body, hands=3)
    token = created["recording"]
    assert re.fullmatch(r"[A-Za-z0-9_-]{24}", token) and created["view"]["recorded"] == 0
    assert [v["recorded"] for v in finals] == [1, 2, 3]
    files = list(folder.rglob("*.jsonl"))
    assert len(files) == 1 and token not in str(files[0])  # the folder is named by the token's hash
    text = files[0].read_text(encoding="utf-8")
    assert "127.0.0.1" not in text and "httpx" not in text.lower()

    records = read_records(files[0])  # each checked by replaying it through the engine
    assert len(records) == 3
    for number, (record, final) in enumerate(zip(records, finals, strict=True), start=1):
        assert record.bots == ("best", "best", "human", "best")
        assert set(record.info) == INFO_KEYS and record.info["human_seats"] == [2]
        assert record.info["hand"] == number and record.info["coach"] == "dmc_v2" and record.info["app"] == "sam-web"
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", record.info["date"])
        assert record.info["networks"]["best"]["network"] == "dmc_v2"
        assert [m.action for m in record.moves] == [m["action"] for m in final["history"]]
        assert [list(d) for d in record.deal] == [s["dealt"] for s in final["seats"]]
        assert list(record.result.net) == final["result"]["net"]

    opened = client.post("/api/recordings/replay", json={"token": token})
    assert opened.status_code == 200, opened.text
    assert [h["bots"] for h in opened.json()["hands"]] == [["best", "best", "human", "best"]] * 3
    hand = client.get(f"/api/replays/{opened.json()['replay_id']}/hands/1").json()
    assert hand["frames"][0]["cards"] == [list(d) for d in records[1].deal] and hand["moves"] == [
        m.to_dict() for m in records[1].moves
    ]

    out = tmp_path / "human.npz"
    command = [sys.executable, "-m", "sam_env.evaluation.dataset", str(files[0]), "--bots", "human", "--out", str(out)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    rows = read_dataset(out)
    assert len(rows["action"]) == len(decisions) and set(rows["seat"]) == {2}
    assert list(rows["action"]) == [d["action"] for d in decisions]
    assert list(rows["forced"]) == [len(d["values"]) == 1 for d in decisions]
    for mask, decision in zip(rows["action_mask"], decisions, strict=True):
        assert list(np.flatnonzero(mask)) == sorted(decision["values"])
    # the coach's values were the network's on exactly these rows: the seat's observation as the environment gave it
    bot = load_bot("best", rules=RuleConfig(n_players=4))
    scale = bot.checkpoint.metadata["training"]["reward_scale"]
    values = bot.legal_values(rows["observation"], rows["action_mask"]) / scale
    for row, decision in zip(values, decisions, strict=True):
        assert all(v == pytest.approx(row[a], abs=1e-3) for a, v in decision["values"].items())
    for hand_index, final in enumerate(finals):
        money = rows["money_after"][rows["hand"] == hand_index]
        assert money[0] == final["result"]["net"][2]  # the money from the person's first decision to the end

    deleted = client.request("DELETE", "/api/recordings", json={"token": token})
    assert deleted.status_code == 200 and deleted.json() == {"deleted": 3}
    assert not list(folder.iterdir())
    again = client.request("DELETE", "/api/recordings", json={"token": token})
    assert again.status_code == 404 and "no recordings under this token" in again.json()["error"]
    assert client.post("/api/recordings/replay", json={"token": token}).status_code == 404


def test_recorded_human_hands_train_a_behaviour_cloning_policy_through_train_py(
    recorder: tuple[httpx.Client, Path], tmp_path: Path
) -> None:
    """People's games as data, end to end: hands a person kept in sam-web, exported as a dataset of the person's
    decisions, train a clone with ``train.py`` (``trainer: bc``) that ``load_bot`` plays."""
    pytest.importorskip("torch")
    from sam_env.training import run_script

    client, folder = recorder
    play_hands(client, {"opponents": "greedy", "seed": 5, "record": True}, hands=6)
    [file] = folder.rglob("*.jsonl")
    rows = decisions(read_records(file), ["human"])
    assert set(rows["seat"]) == {0} and len(set(rows["hand"])) == 6
    data = write_dataset(tmp_path / "human.npz", rows)
    config = {
        "trainer": "bc",
        "name": "bc_human",
        "data": [str(data)],
        "val_share": 0.2,
        "epochs": 2,
        "pi_layers": [16],
        "vf_layers": [8],
        "final_eval_deals": 0,
        "progress_bar": False,
        "run_dir": str(tmp_path / "runs"),
    }
    path = tmp_path / "bc_human.yaml"
    path.write_text(json.dumps(config), encoding="utf-8")  # JSON is YAML
    assert run_script.main(["--config", str(path)]) == 0
    [run_dir] = list((tmp_path / "runs").iterdir())
    state = json.loads((run_dir / "final" / "trainer.json").read_text())
    assert state["trainer"] == "bc" and state["epoch"] == 2 and state["data"]["train_rows"] > 0
    bot = load_bot(str(run_dir / "final"), rules=RuleConfig())
    assert bot.checkpoint.metadata["bc_data"]["files"][0]["path"] == str(data)
    env = sam_env.env(rules=RuleConfig())
    env.reset(seed=8)
    result = play_out(env, lambda seat, observation, view: bot.act(observation, view))
    assert sum(result.net) == 0


def test_deleting_the_recordings_stops_a_game_that_is_still_recording(recorder: tuple[httpx.Client, Path]) -> None:
    client, folder = recorder
    created, finals, _ = play_hands(client, {"opponents": "random", "seed": 4, "record": True}, hands=1)
    token, game_id = created["recording"], created["game_id"]
    assert finals[-1]["recorded"] == 1
    assert client.request("DELETE", "/api/recordings", json={"token": token}).json() == {"deleted": 1}
    view = client.post(f"/api/games/{game_id}/next", json={}).json()
    while view["result"] is None:
        view = client.post(f"/api/games/{game_id}/moves", json={"action": view["legal"][0]["id"]}).json()
    assert "recorded" not in view  # the game keeps nothing more
    assert not list(folder.rglob("*.jsonl"))
    assert client.post("/api/recordings/replay", json={"token": token}).status_code == 404
    again = client.post("/api/games", json={"opponents": "random", "record": True, "recording": token})
    assert again.status_code == 404 and "unknown recording token" in again.json()["error"]


def test_nothing_is_recorded_without_the_opt_in(recorder: tuple[httpx.Client, Path]) -> None:
    client, folder = recorder
    created, finals, _ = play_hands(client, {"opponents": "random", "seed": 3, "coach": True}, hands=2)
    assert "recording" not in created and all("recorded" not in v for v in finals)
    assert not folder.exists() or not list(folder.rglob("*.jsonl"))


def test_a_token_keeps_more_games_and_reaches_no_other_tokens_recordings(recorder: tuple[httpx.Client, Path]) -> None:
    client, folder = recorder
    first, _, _ = play_hands(client, {"opponents": "random", "seed": 1, "record": True}, hands=1)
    mine = first["recording"]
    again, _, _ = play_hands(client, {"opponents": "random", "seed": 2, "record": True, "recording": mine}, hands=2)
    assert again["recording"] == mine
    other, _, _ = play_hands(client, {"opponents": "greedy", "seed": 3, "record": True}, hands=1)
    theirs = other["recording"]
    assert theirs != mine and len(list(folder.rglob("*.jsonl"))) == 2
    assert len(client.post("/api/recordings/replay", json={"token": mine}).json()["hands"]) == 3
    seen = client.post("/api/recordings/replay", json={"token": theirs}).json()["hands"]
    assert [h["bots"] for h in seen] == [["human", "greedy", "greedy", "greedy"]]
    assert client.request("DELETE", "/api/recordings", json={"token": theirs}).json() == {"deleted": 1}
    assert len(client.post("/api/recordings/replay", json={"token": mine}).json()["hands"]) == 3  # untouched
    guessed = "A" * 24
    wrong = client.request("DELETE", "/api/recordings", json={"token": guessed})
    assert wrong.status_code == 404 and "no recordings under this token" in wrong.json()["error"]
    unknown = client.post("/api/games", json={"record": True, "recording": guessed})
    assert unknown.status_code == 404 and "unknown recording token" in unknown.json()["error"]


@pytest.mark.parametrize(
    ("method", "path", "body", "status", "says"),
    [
        ("DELETE", "/api/recordings", {"token": "short"}, 400, "token = 'short' is not allowed; expected a recording"),
        ("DELETE", "/api/recordings", {}, 400, "token is missing"),
        ("DELETE", "/api/recordings", {"token": "A" * 24, "all": True}, 400, "unknown field 'all'"),
        ("POST", "/api/recordings/replay", {"token": 7}, 400, "token = 7 is not allowed"),
        ("POST", "/api/games", {"record": "yes"}, 400, "record = 'yes' is not allowed; expected true"),
        ("POST", "/api/games", {"recording": "A" * 24}, 400, 'send it with "record": true'),
    ],
)
def test_bad_recording_requests_are_refused(
    recorder: tuple[httpx.Client, Path], method: str, path: str, body: dict, status: int, says: str
) -> None:
    client, _ = recorder
    response = client.request(method, path, json=body)
    assert response.status_code == status and says in response.json()["error"], response.text


def test_a_server_that_cannot_record_says_so_and_plays_on(tmp_path: Path) -> None:
    blocker = tmp_path / "a file"
    blocker.write_text("not a folder", encoding="utf-8")
    with running(create_app(record_dir=blocker / "recordings")) as url, httpx.Client(base_url=url) as client:
        refused = client.post("/api/games", json={"opponents": "random", "record": True})
        assert refused.status_code == 409 and "not writable" in refused.json()["error"]
        assert "--record-dir" in refused.json()["error"]
        assert client.post("/api/games", json={"opponents": "random"}).status_code == 201
        assert client.get("/api/options").json()["recording"] is True
    with running(create_app()) as url, httpx.Client(base_url=url) as client:  # no record dir at all
        assert client.get("/api/options").json()["recording"] is False
        refused = client.post("/api/games", json={"opponents": "random", "record": True})
        assert refused.status_code == 409 and "keeps no recordings" in refused.json()["error"]
        gone = client.request("DELETE", "/api/recordings", json={"token": "A" * 24})
        assert gone.status_code == 404 and "keeps no recordings" in gone.json()["error"]


def test_sam_web_refuses_a_record_dir_it_cannot_write(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "a file"
    blocker.write_text("not a folder", encoding="utf-8")
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["--record-dir", str(blocker / "x")])
    assert exit_info.value.code == 2 and "--record-dir" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli.main(["--record-dir", str(tmp_path), "--no-record"])
    assert "not allowed with argument" in capsys.readouterr().err


def test_the_record_json_lines_are_what_sam_play_writes(recorder: tuple[httpx.Client, Path]) -> None:
    """The format is the existing one: the same keys as ``sam-play --record``'s, the person's seat labelled."""
    client, folder = recorder
    play_hands(client, {"players": 2, "opponents": "random", "seed": 8, "record": True}, hands=1)
    (line,) = next(folder.rglob("*.jsonl")).read_text(encoding="utf-8").splitlines()
    record = json.loads(line)
    assert list(record) == ["format", "version", "rules", "bots", "deal", "leader", "moves", "ledger", "result", "info"]
    assert record["format"] == "sam-env/hand" and record["version"] == 1 and record["bots"] == ["human", "random"]
    assert record["info"]["coach"] is None and "networks" not in record["info"]
