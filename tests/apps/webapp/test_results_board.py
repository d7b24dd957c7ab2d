"""sam-web's leaderboard reads protocol v1 results files, the leaderboard's own: listed under --serve,
shown with their headline score, checked against the schema and the protocol (a tampered one is refused)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import httpx
import pytest

from sam_env.apps.web.cli import running
from sam_env.apps.web.server import create_app

LEADERBOARD = Path(__file__).resolve().parents[3] / "leaderboard"


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the leaderboard's files, and one whose headline was edited."""
    root = tmp_path_factory.mktemp("leaderboard")
    for path in LEADERBOARD.glob("*.results.json"):
        shutil.copy(path, root / path.name)
    first = sorted(root.glob("*.results.json"))[0]
    document = json.loads(first.read_text(encoding="utf-8"))
    document["headline"]["score"] += 1.0
    (root / "edited").mkdir()
    (root / "edited" / first.name).write_text(json.dumps(document), encoding="utf-8")
    return root


def test_the_served_leaderboard_lists_and_shows_every_results_file(folder: Path) -> None:
    names = sorted(p.name for p in folder.glob("*.results.json"))
    with running(create_app(serve=folder)) as url:
        listed = httpx.get(f"{url}/api/files").json()["summaries"]
        assert sorted(p for p in listed if "/" not in p) == names
        boards = httpx.post(f"{url}/api/leaderboard", json={"paths": names}).json()["boards"]
    for name, board in zip(names, boards, strict=True):
        document = json.loads((folder / name).read_text(encoding="utf-8"))
        assert board["headline"]["score"] == document["headline"]["score"]
        assert board["headline"]["command"] == document["command"]
        assert [m["opponents"] for m in board["matches"]] == [r["opponents"] for r in document["rows"]]
        assert {m["agent"] for m in board["matches"]} == {document["candidate"]["label"]}


def test_an_uploaded_results_file_is_read_by_its_format_and_an_edited_one_refused(folder: Path) -> None:
    text = sorted(folder.glob("*.results.json"))[0].read_text(encoding="utf-8")
    edited = (folder / "edited" / sorted(folder.glob("*.results.json"))[0].name).as_posix()
    with running(create_app(serve=folder)) as url:
        upload = httpx.post(f"{url}/api/leaderboard", json={"files": [{"name": "mine.json", "text": text}]})
        refused = httpx.post(f"{url}/api/leaderboard", json={"paths": [str(Path(edited).relative_to(folder))]})
    assert upload.status_code == 200 and upload.json()["boards"][0]["headline"]["agent"]
    assert refused.status_code == 400
    assert "not a valid protocol v1 results file: headline.score" in refused.json()["error"]
