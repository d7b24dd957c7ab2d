"""Replays and leaderboards through the API: files under the served folder only, uploads checked."""

from __future__ import annotations

import itertools
import json
import os
from pathlib import Path

import httpx
import pytest

from sam_env.apps.web.errors import NotFound
from sam_env.apps.web.replays import ReplayStore, open_records

HANDS = 3 * 6 * 4  # 3 deals, 6 ordered pairs of heuristic, greedy and random, 4 rotations each


def test_the_served_folder_lists_records_and_summaries(live: str) -> None:
    assert httpx.get(f"{live}/api/files").json() == {
        "replays": ["eval/hands.jsonl"],
        "summaries": ["eval/summary.json"],
    }


def test_a_recorded_tournament_opens_and_a_hand_steps_face_up(live: str, served: Path) -> None:
    opened = httpx.post(f"{live}/api/replays", json={"path": "eval/hands.jsonl"}).json()
    assert opened["source"] == "eval/hands.jsonl" and len(opened["hands"]) == HANDS
    first = json.loads((served / "eval" / "hands.jsonl").read_text(encoding="utf-8").splitlines()[0])
    hand = httpx.get(f"{live}/api/replays/{opened['replay_id']}/hands/0").json()
    assert hand["deal"] == first["deal"] and hand["moves"] == first["moves"] and hand["ledger"] == first["ledger"]
    frames = hand["frames"]
    assert len(frames) == len(first["moves"]) + 1 and frames[0]["move"] is None
    assert frames[0]["cards"] == first["deal"]  # face up from the deal on
    assert frames[-1]["net"] == first["result"]["net"] and frames[-1]["phase"] == "over"
    for before, after in itertools.pairwise(frames):
        seat, cards = after["move"]["seat"], after["move"]["cards"]
        assert sorted(before["cards"][seat]) == sorted(after["cards"][seat] + cards)
    missing = httpx.get(f"{live}/api/replays/{opened['replay_id']}/hands/{HANDS}")
    assert missing.status_code == 404 and "has hands 0 to" in missing.json()["error"]
    assert httpx.get(f"{live}/api/replays/not-an-id/hands/0").status_code == 404


def test_an_uploaded_file_is_checked_line_by_line(live: str, served: Path) -> None:
    lines = (served / "eval" / "hands.jsonl").read_text(encoding="utf-8").splitlines()
    uploaded = httpx.post(f"{live}/api/replays", json={"name": "mine.jsonl", "text": "\n".join(lines[:2])})
    assert uploaded.status_code == 200 and len(uploaded.json()["hands"]) == 2
    tampered = json.loads(lines[1])
    tampered["ledger"] = [{"payer": 0, "payee": 1, "amount": 99, "reason": "cards"}]
    bad = httpx.post(f"{live}/api/replays", json={"name": "mine.jsonl", "text": lines[0] + "\n" + json.dumps(tampered)})
    assert bad.status_code == 400 and "mine.jsonl line 2" in bad.json()["error"] and "ledger" in bad.json()["error"]
    assert httpx.post(f"{live}/api/replays", json={"name": "x", "text": ""}).status_code == 400
    assert httpx.post(f"{live}/api/replays", json={"file": "x"}).status_code == 400


@pytest.mark.parametrize("path", ["../secret.jsonl", "/etc/passwd", "eval/../../secret.jsonl", "C:/x.jsonl"])
def test_paths_outside_the_served_folder_are_refused(live: str, path: str) -> None:
    for url, body in (("/api/replays", {"path": path}), ("/api/leaderboard", {"paths": [path]})):
        response = httpx.post(f"{live}{url}", json=body)
        assert response.status_code == 403 and "served folder" in response.json()["error"]


def test_a_symbolic_link_out_of_the_served_folder_is_refused(live: str, served: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.jsonl"
    outside.write_text("{}", encoding="utf-8")
    link = served / "link.jsonl"
    if not link.exists():
        os.symlink(outside, link)
    response = httpx.post(f"{live}/api/replays", json={"path": "link.jsonl"})
    assert response.status_code == 403 and "leads outside" in response.json()["error"]


def test_plots_only_from_the_served_folder(live: str) -> None:
    plot = httpx.get(f"{live}/files/eval/x_per_hand.png")
    assert plot.status_code == 200 and plot.headers["content-type"] == "image/png" and plot.content[:4] == b"\x89PNG"
    assert httpx.get(f"{live}/files/notes.txt").status_code == 403
    assert httpx.get(f"{live}/files/%2E%2E/%2E%2E/etc/passwd").status_code == 403
    assert httpx.get(f"{live}/files/eval/none.png").status_code == 404


def test_the_leaderboard_reads_summaries_from_the_folder_and_from_uploads(live: str, served: Path) -> None:
    boards = httpx.post(f"{live}/api/leaderboard", json={"paths": ["eval/summary.json"]}).json()["boards"]
    board = boards[0]
    assert len(board["matches"]) == 6 and {r["agent"] for r in board["ratings"]} == {"heuristic", "greedy", "random"}
    assert board["plots"] == ["/files/eval/x_per_hand.png"] and board["players"] == 4 and board["deals"] == 3
    assert all(m["ci_low"] <= m["x_per_hand"] <= m["ci_high"] for m in board["matches"])
    text = (served / "eval" / "summary.json").read_text(encoding="utf-8")
    with_nan = text.replace('"ci_low": ', '"ci_low": NaN, "was": ', 1)  # sam-eval writes NaN for one deal
    uploaded = httpx.post(f"{live}/api/leaderboard", json={"files": [{"name": "a.json", "text": with_nan}]}).json()
    assert uploaded["boards"][0]["matches"][0]["ci_low"] is None and uploaded["boards"][0]["plots"] == []
    bad = httpx.post(f"{live}/api/leaderboard", json={"files": [{"name": "b.json", "text": '{"matches": [{}]}'}]})
    assert bad.status_code == 400 and "b.json" in bad.json()["error"]


def test_open_files_are_capped_least_recently_used_first_and_expire(served: Path) -> None:
    now = [0.0]
    store = ReplayStore(max_files=2, idle_seconds=60, clock=lambda: now[0])
    records = open_records((served / "eval" / "hands.jsonl").read_text(encoding="utf-8"), "hands.jsonl")
    first, second = store.add(records), store.add(records)
    now[0] = 10
    store.hand(first, 0)  # the first is now the more recently used
    third = store.add(records)
    with pytest.raises(NotFound):
        store.hand(second, 0)
    assert store.hand(first, 1) == records[1] and store.hand(third, 2) == records[2]
    now[0] = 71
    with pytest.raises(NotFound, match="expired"):
        store.hand(first, 0)
