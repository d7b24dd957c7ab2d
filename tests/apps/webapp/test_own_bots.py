"""sam-web --bots: the page may seat bots of one's own, named by their code spec, and no other code."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from sam_env.apps.web import cli
from sam_env.apps.web.cli import running
from sam_env.apps.web.server import create_app

BOTS = '''
import numpy as np
import sam_env
from sam_env.encoding import N_ACTIONS, observation_size


class Lowest(sam_env.Bot):
    def act(self, observation, view):
        return int(np.flatnonzero(observation["action_mask"])[0])


class FourSeats:
    """A batched policy whose weights fit 4-player observations only."""

    def __init__(self):
        self.weights = np.zeros((observation_size(4), N_ACTIONS), dtype=np.float32)

    def __call__(self, observations, masks):
        return np.argmax(np.where(masks, observations @ self.weights, -np.inf), axis=1)
'''


def test_bots_of_ones_own_are_offered_for_the_tables_they_fit_and_play(tmp_path: Path) -> None:
    path = tmp_path / "web_bots.py"
    path.write_text(BOTS)
    lowest, four = f"{path}:Lowest", f"{path}:FourSeats"
    with running(create_app(bots=(lowest, four))) as url, httpx.Client(base_url=url) as client:
        offered = {b["name"]: b["players"] for b in client.get("/api/options").json()["bots"]}
        assert offered[lowest] == [2, 3, 4, 5] and offered[four] == [4]
        response = client.post("/api/games", json={"opponents": [lowest, four, "random"], "seed": 1})
        assert response.status_code == 201, response.text
        assert [s["player"] for s in response.json()["view"]["seats"][1:]] == [lowest, four, "random"]
        other = client.post("/api/games", json={"opponents": [f"{path}:FourSeats".replace("Four", "Five")]})
        assert other.status_code == 400 and "unknown bot" in other.json()["error"]


@pytest.mark.parametrize(
    ("spec", "says"),
    [
        ("no_such_module:Bot", "cannot import module 'no_such_module'"),
        ("heuristic", "a shipped bot, offered anyway"),
        ("runs/final", "expected package.module:attr or path/to/file.py:attr"),
    ],
)
def test_sam_web_refuses_a_bad_bots_entry(spec: str, says: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["--bots", spec])
    assert says in capsys.readouterr().err
