"""The ecosystem's four checkers on the defaults, run exactly as a user would, in a fresh interpreter.

A fresh interpreter, because the gymnasium id is registered by an import (``import sam_env.single_agent``),
and a test inside the suite would find it registered by whatever ran before.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from env_helpers import API_TEST_WARNINGS

ROOT = Path(__file__).resolve().parents[2]

USER_SCRIPT = """
import re
import warnings

import gymnasium
import sam_env
import sam_env.single_agent  # registers "sam_env/Sam-v1"
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test
from stable_baselines3.common.env_checker import check_env as sb3_check_env

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    for n_players in (2, 5):
        rules = sam_env.RuleConfig(n_players=n_players)
        api_test(sam_env.env(rules=rules), num_cycles=300)
        seed_test(lambda render_mode=None: sam_env.env(rules=rules, render_mode=render_mode), num_cycles=300)
    api_test(sam_env.env(), num_cycles=300)
    seed_test(sam_env.env, num_cycles=300)
    check_env(gymnasium.make("sam_env/Sam-v1").unwrapped)
    sb3_check_env(gymnasium.make("sam_env/Sam-v1"))
expected = EXPECTED  # api_test's, about Dict observations and its dummy reset option: nothing else
unexpected = sorted({str(w.message) for w in caught if not any(re.match(p, str(w.message)) for p in expected)})
print("unexpected warnings:", unexpected)
print("all four checkers passed")
"""


def test_the_four_checkers_pass_on_the_defaults() -> None:
    script = USER_SCRIPT.replace("EXPECTED", repr(API_TEST_WARNINGS))
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "all four checkers passed" in done.stdout
    assert "unexpected warnings: []" in done.stdout, done.stdout[-3000:]
