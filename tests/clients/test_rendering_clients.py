"""PettingZoo's ``render_test`` and ``performance_benchmark``; gymnasium's ``RecordVideo`` writes a hand."""

from __future__ import annotations

from pathlib import Path

import gymnasium
import numpy as np
import pytest
from env.env_helpers import FOUR_TWOS_DEAL
from gymnasium.wrappers import RecordEpisodeStatistics, RecordVideo
from pettingzoo.test import performance_benchmark, render_test

import sam_env
import sam_env.single_agent  # registers "sam_env/Sam-v1"


def test_pettingzoo_render_test_in_every_mode(capsys: pytest.CaptureFixture[str]) -> None:
    assert sam_env.env().metadata["render_modes"] == ["ansi", "human", "rgb_array"]
    render_test(sam_env.env)
    assert "Sâm Lốc" in capsys.readouterr().out  # the "human" mode printed


def test_pettingzoo_performance_benchmark(capsys: pytest.CaptureFixture[str]) -> None:
    performance_benchmark(sam_env.env())  # 5 s of random play, resets included
    assert "turns per second" in capsys.readouterr().out


def test_record_video_writes_every_hand_and_statistics_count_the_money(tmp_path: Path) -> None:
    env = gymnasium.make("sam_env/Sam-v1", render_mode="rgb_array", learner_seat=2)
    folder = tmp_path / "videos"  # a new folder: RecordVideo warns before writing into an existing one
    env = RecordVideo(RecordEpisodeStatistics(env), str(folder), episode_trigger=lambda episode: True)
    returns = []
    for options in ({"hands": FOUR_TWOS_DEAL}, None):  # seat 2's instant win, then a random hand
        env.reset(seed=0, options=options)
        terminated = False
        while not terminated:
            _, _, terminated, _, info = env.step(env.action_space.sample())
        returns.append((info["episode"]["r"], info["net"], info["reason"]))
    env.close()
    assert returns[0] == (60.0, 60, "instant_win")
    assert returns[1][0] == returns[1][1]
    videos = sorted(folder.glob("*.mp4"))
    assert len(videos) == 2 and all(v.stat().st_size > 1000 for v in videos)
    frame = env.unwrapped.render()
    assert frame.shape == (640, 960, 3) and frame.dtype == np.uint8
