"""sam-web's leaderboard reads protocol v1 results files, the leaderboard's own: listed under --serve,
shown with their headline score, checked against the schema, the protocol and their own per-deal values (a tampered
one is refused, and so is a format-1 file, whose rows cannot be checked)."""

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
    first = sorted(p for p in root.glob("*.results.json") if _format(p) == 2)[0]
    document = json.loads(first.read_text(encoding="utf-8"))
    document["headline"]["score"] += 1.0
    (root / "edited").mkdir()
    (root / "edited" / first.name).write_text(json.dumps(document), encoding="utf-8")
    return root


def _format(path: Path) -> int:
    return json.loads(path.read_text(encoding="utf-8"))["format_version"]


def test_the_served_leaderboard_lists_and_shows_every_results_file_that_validates(folder: Path) -> None:
    every = sorted(p.name for p in folder.glob("*.results.json"))
    names = [name for name in every if _format(folder / name) == 2]
    assert names
    with running(create_app(serve=folder)) as url:
        listed = httpx.get(f"{url}/api/files").json()["summaries"]
        assert sorted(p for p in listed if "/" not in p) == every
        shown = httpx.post(f"{url}/api/leaderboard", json={"paths": every}).json()
    boards = shown["boards"]
    assert [r["source"] for r in shown["refused"]] == [name for name in every if name not in names]
    assert all("format_version: is 1" in r["error"] for r in shown["refused"])
    for name, board in zip(names, boards, strict=True):
        document = json.loads((folder / name).read_text(encoding="utf-8"))
        assert board["headline"]["score"] == document["headline"]["score"]
        assert board["headline"]["command"] == document["command"]
        assert [m["opponents"] for m in board["matches"]] == [r["opponents"] for r in document["rows"]]
        assert {m["agent"] for m in board["matches"]} == {document["candidate"]["label"]}


def test_an_uploaded_results_file_is_read_by_its_format_and_an_edited_one_refused(folder: Path) -> None:
    first = sorted(p for p in folder.glob("*.results.json") if _format(p) == 2)[0]
    text = first.read_text(encoding="utf-8")
    edited = (folder / "edited" / first.name).as_posix()
    with running(create_app(serve=folder)) as url:
        upload = httpx.post(f"{url}/api/leaderboard", json={"files": [{"name": "mine.json", "text": text}]})
        refused = httpx.post(f"{url}/api/leaderboard", json={"paths": [str(Path(edited).relative_to(folder))]})
    assert upload.status_code == 200 and upload.json()["boards"][0]["headline"]["agent"]
    assert refused.status_code == 400
    assert "not a valid protocol v1 results file: headline.score" in refused.json()["error"]


def test_a_format_1_file_is_refused_with_the_way_to_format_2(folder: Path) -> None:
    """A file of sam-env 0.3 keeps no per-deal values of its rows: sam-web shows only files that validate."""
    legacy = json.loads(next(folder.glob("*.results.json")).read_text(encoding="utf-8"))
    legacy["format_version"] = 1
    for row in legacy["rows"]:
        row.pop("per_deal", None)
    with running(create_app(serve=folder)) as url:
        refused = httpx.post(
            f"{url}/api/leaderboard", json={"files": [{"name": "old.json", "text": json.dumps(legacy)}]}
        )
    assert refused.status_code == 400
    assert "format_version: is 1" in refused.json()["error"] and "sam-eval --reproduce" in refused.json()["error"]
